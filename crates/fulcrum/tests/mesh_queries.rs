//! Ray casts, shape casts and overlaps against triangle meshes and heightfields, each against
//! an analytic answer: fractions (times the cast's length), points and normals within 1e-4.
//!
//! The meshes are grids of 8 × 8 square cells of 0.5 m (128 triangles, so the hierarchy is
//! walked) over x, z ∈ [−2, 2], each cell split into two triangles counter-clockwise seen
//! from above; the heightfield is 4 × 4 samples 1 m apart with one raised cell whose two
//! triangles' planes are worked out by hand below.

use fulcrum::prelude::*;
use fulcrum::{RayCastHit, ShapeCastHit};

/// Cells per side of the grid meshes.
const CELLS: usize = 8;
/// Cell size, metres.
const CELL: f32 = 0.5;
/// Allowed error of fractions × length, points and normals.
const TOLERANCE: f32 = 1e-4;

/// A grid mesh over x, z ∈ [−2, 2] with heights `height(x, z)`. Cell (i, j) spans
/// z ∈ [z_i, z_i+1], x ∈ [x_j, x_j+1] with corners a = (x_j, z_i), b = (x_j, z_i+1),
/// c = (x_j+1, z_i+1), d = (x_j+1, z_i); its triangles are 2·(i·CELLS + j) = (a, b, c), the
/// half where (z − z_i) ≥ (x − x_j), and the next one (a, c, d): both counter-clockwise from
/// above, since (b − a) × (c − a) = z × (x + z) = +y·|cell|².
fn grid_mesh(height: impl Fn(f32, f32) -> f32, two_sided: bool) -> Shape {
    let coordinate = |k: usize| -2.0 + k as f32 * CELL;
    let mut vertices = Vec::new();
    for i in 0..=CELLS {
        for j in 0..=CELLS {
            let (x, z) = (coordinate(j), coordinate(i));
            vertices.push(Vec3::new(x, height(x, z), z));
        }
    }
    let at = |i: usize, j: usize| (i * (CELLS + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..CELLS {
        for j in 0..CELLS {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            indices.push([a, b, c]);
            indices.push([a, c, d]);
        }
    }
    Shape::trimesh(vertices, indices, two_sided).unwrap()
}

/// The grid triangle under local (x, z) (see [`grid_mesh`]).
fn grid_triangle(x: f32, z: f32) -> u32 {
    let (u, w) = ((x + 2.0) / CELL, (z + 2.0) / CELL);
    let (j, i) = (u.floor(), w.floor());
    let upper = (u - j) > (w - i);
    (2 * (i as usize * CELLS + j as usize) + usize::from(upper)) as u32
}

/// The heightfield: 4 × 4 samples 1 m apart (x = j − 1.5, z = i − 1.5), all 0 but the
/// corners of cell (1, 1): h(1,1) = 1 at (−0.5, −0.5), h(2,1) = 2 at (−0.5, 0.5),
/// h(2,2) = 2.5 at (0.5, 0.5), h(1,2) = 0.5 at (0.5, −0.5). With u = x + 0.5, w = z + 0.5:
/// - triangle 8 (half 0, u ≤ w, through h11, h21, h22): y = 1 + w·(2 − 1) + u·(2.5 − 2)
///   = 1.75 + 0.5x + z, normal (−0.5, 1, −1)/1.5;
/// - triangle 9 (half 1, u > w, through h11, h22, h12): y = 1 + u·(0.5 − 1) + w·(2.5 − 0.5)
///   = 1.75 − 0.5x + 2z, normal (0.5, 1, −2)/√5.25.
fn heightfield() -> Shape {
    let mut heights = vec![vec![0.0f32; 4]; 4];
    heights[1][1] = 1.0;
    heights[2][1] = 2.0;
    heights[2][2] = 2.5;
    heights[1][2] = 0.5;
    Shape::heightfield(heights, Vec3::ONE).unwrap()
}

/// Height and normal of heightfield triangle 8.
fn plane_8(x: f32, z: f32) -> (f32, Vec3) {
    (1.75 + 0.5 * x + z, Vec3::new(-0.5, 1.0, -1.0) / 1.5)
}

/// Height and normal of heightfield triangle 9.
fn plane_9(x: f32, z: f32) -> (f32, Vec3) {
    (1.75 - 0.5 * x + 2.0 * z, Vec3::new(0.5, 1.0, -2.0) / 5.25f32.sqrt())
}

/// A world with `shape` on a static body at `pose`.
fn world_with(shape: Shape, pose: Pose) -> World {
    let mut world = World::default();
    let body = world.create_body(&BodyDef::fixed(pose.position).with_rotation(pose.rotation)).unwrap();
    world.create_collider(body, &ColliderDef::new(shape)).unwrap();
    world
}

fn ray(world: &World, origin: Vec3, direction: Vec3) -> Option<RayCastHit> {
    world.cast_ray(&Ray::new(origin, direction.normalize()), 100.0, |_| true)
}

fn cast(world: &World, shape: &Shape, start: Vec3, translation: Vec3) -> Option<ShapeCastHit> {
    world.cast_shape(shape, Pose::from_position(start), translation, |_| true).unwrap()
}

fn overlaps(world: &World, shape: &Shape, position: Vec3) -> bool {
    !world.overlap_shape(shape, Pose::from_position(position), |_| true).unwrap().is_empty()
}

fn assert_close(what: &str, got: Vec3, expected: Vec3) {
    assert!((got - expected).length() < TOLERANCE, "{what}: {got} vs {expected}");
}

/// A ray hits where it crosses the plane of the triangle under that point: `expected`, at
/// distance |expected − origin|, with the face normal and the triangle's index.
fn assert_ray(hit: Option<RayCastHit>, origin: Vec3, expected: Vec3, normal: Vec3, triangle: u32) {
    let hit = hit.expect("the ray hits");
    assert!((hit.t - (expected - origin).length()).abs() < TOLERANCE, "t = {} vs {}", hit.t, expected - origin);
    assert_close("ray point", hit.point, expected);
    assert_close("ray normal", hit.normal, normal);
    assert_eq!(hit.triangle, Some(triangle));
}

/// Checks a cast: its fraction times the cast's length against `fraction`, its point, normal
/// and triangle.
fn assert_cast(hit: &ShapeCastHit, translation: Vec3, fraction: f32, point: Vec3, normal: Vec3, triangle: u32) {
    let error = (hit.fraction - fraction).abs() * translation.length();
    eprintln!("cast: travel error {error:e} m, point error {:e} m", (hit.point - point).length());
    assert!(error < TOLERANCE, "fraction {} vs {fraction}", hit.fraction);
    assert_close("cast point", hit.point, point);
    assert_close("cast normal", hit.normal, normal);
    assert_eq!(hit.triangle, Some(triangle));
}

/// Rays onto a flat mesh (y = 0) and onto a sloped one (y = 0.4x − 0.3z + 0.5, normal
/// (−0.4, 1, 0.3)/|·|): the hit is where the ray reaches the plane.
#[test]
fn rays_hit_flat_and_sloped_meshes_on_the_plane() {
    let flat = world_with(grid_mesh(|_, _| 0.0, false), Pose::IDENTITY);
    let origin = Vec3::new(0.3, 2.0, 0.4);
    let direction = Vec3::new(0.2, -1.0, 0.1);
    // y reaches 0 after 2 units of −y: at origin + 2·direction.
    let expected = origin + 2.0 * direction;
    assert_ray(ray(&flat, origin, direction), origin, expected, Vec3::Y, grid_triangle(expected.x, expected.z));

    let slope = |x: f32, z: f32| 0.4 * x - 0.3 * z + 0.5;
    let sloped = world_with(grid_mesh(slope, false), Pose::IDENTITY);
    let normal = Vec3::new(-0.4, 1.0, 0.3).normalize();
    // o + t·d on y = 0.4x − 0.3z + 0.5: t = (0.4·o.x − 0.3·o.z + 0.5 − o.y) / (d.y − 0.4·d.x + 0.3·d.z).
    let (o, d) = (Vec3::new(-1.1, 3.0, 0.7), Vec3::new(0.3, -1.0, -0.2));
    let t = (slope(o.x, o.z) - o.y) / (d.y - 0.4 * d.x + 0.3 * d.z);
    let expected = o + t * d;
    assert_ray(ray(&sloped, o, d), o, expected, normal, grid_triangle(expected.x, expected.z));
}

/// Rays onto the heightfield's raised cell, one on each side of its diagonal, straight down
/// and slanted: they hit on the plane of triangle 8 or 9 worked out by hand.
#[test]
fn rays_hit_a_heightfield_on_both_sides_of_a_cell_diagonal() {
    let world = world_with(heightfield(), Pose::IDENTITY);
    for (x, z, plane, triangle) in [(-0.3, 0.2, plane_8 as fn(f32, f32) -> (f32, Vec3), 8), (0.2, -0.1, plane_9, 9)] {
        let (height, normal) = plane(x, z);
        let target = Vec3::new(x, height, z);
        let origin = Vec3::new(x, 5.0, z);
        assert_ray(ray(&world, origin, -Vec3::Y), origin, target, normal, triangle);
        // Slanted: from 3 m back along a unit direction, so the hit is at t = 3.
        let direction = Vec3::new(0.3, -1.0, 0.2).normalize();
        let origin = target - 3.0 * direction;
        assert_ray(ray(&world, origin, direction), origin, target, normal, triangle);
    }
}

/// A sphere of radius 0.25 cast straight down and obliquely onto a flat mesh: its centre
/// reaches y = 0.25 after (2 − 0.25) of its 3 m fall, so fraction 1.75 / 3 whatever the
/// sideways motion; contact straight below the centre then, normal +y. The last cast lands
/// on the edge x = 1 that triangles 91 and 92 share: the point is as exact there, and it is
/// reported on one of them.
#[test]
fn sphere_cast_onto_a_flat_mesh() {
    let world = world_with(grid_mesh(|_, _| 0.0, false), Pose::IDENTITY);
    let ball = Shape::sphere(0.25).unwrap();
    let start = Vec3::new(0.3, 2.0, 0.4);
    let fraction = 1.75 / 3.0;
    for translation in [Vec3::new(0.0, -3.0, 0.0), Vec3::new(1.1, -3.0, 0.5)] {
        let point = start + fraction * translation - Vec3::Y * 0.25;
        let hit = cast(&world, &ball, start, translation).expect("hits the mesh");
        assert_cast(&hit, translation, fraction, point, Vec3::Y, grid_triangle(point.x, point.z));
    }
    let onto_edge = Vec3::new(1.2, -3.0, 0.6);
    let point = start + fraction * onto_edge - Vec3::Y * 0.25;
    assert_close("edge point", point, Vec3::new(1.0, 0.0, 0.75));
    let hit = cast(&world, &ball, start, onto_edge).expect("hits the mesh");
    let triangle = hit.triangle.filter(|t| [91, 92].contains(t)).expect("a triangle beside the edge");
    assert_cast(&hit, onto_edge, fraction, point, Vec3::Y, triangle);
}

/// A sphere of radius 0.1 cast straight down and obliquely onto heightfield triangle 8
/// (plane n·X = k): it touches when its centre is r above the plane, at the point
/// q = centre − r·n. Chosen backwards: q = (−0.3, 1.8, 0.2) on the plane well inside the
/// triangle, the centre then q + r·n, the start 0.4 of the cast before that: fraction 0.4.
#[test]
fn sphere_cast_onto_a_heightfield_triangle() {
    let world = world_with(heightfield(), Pose::IDENTITY);
    let radius = 0.1;
    let ball = Shape::sphere(radius).unwrap();
    let (height, normal) = plane_8(-0.3, 0.2);
    let q = Vec3::new(-0.3, height, 0.2);
    for translation in [Vec3::new(0.0, -3.0, 0.0), Vec3::new(0.6, -3.0, -0.4)] {
        let start = q + radius * normal - 0.4 * translation;
        let hit = cast(&world, &ball, start, translation).expect("hits the heightfield");
        assert_cast(&hit, translation, 0.4, q, normal, 8);
    }
}

/// The flat grid tilted (turned 0.5 rad about x and 0.3 about z) and moved: a sphere cast at
/// it from the front, straight down in the world and obliquely. In the mesh's frame the
/// start is (0.3, 2, 0.4) and the cast c: the centre comes within r = 0.25 of the plane at
/// fraction (distance − r)/(length along the normal) = (2 − 0.25)/(−c_y); the contact is
/// there, below the centre along the tilted normal.
#[test]
fn sphere_cast_onto_a_tilted_mesh() {
    let pose = Pose::new(Vec3::new(1.0, -0.5, 2.0), Quat::from_rotation_x(0.5) * Quat::from_rotation_z(0.3));
    let world = world_with(grid_mesh(|_, _| 0.0, false), pose);
    let ball = Shape::sphere(0.25).unwrap();
    let local_start = Vec3::new(0.3, 2.0, 0.4);
    let start = pose.transform_point(local_start);
    let normal = pose.transform_vector(Vec3::Y);
    for translation in [Vec3::new(0.0, -3.0, 0.0), pose.transform_vector(Vec3::new(0.8, -3.0, -0.5))] {
        let local_translation = pose.inverse_transform_vector(translation);
        let fraction = 1.75 / -local_translation.y;
        let local_point = local_start + fraction * local_translation - Vec3::Y * 0.25;
        let hit = cast(&world, &ball, start, translation).expect("hits the tilted mesh");
        let point = pose.transform_point(local_point);
        assert_cast(&hit, translation, fraction, point, normal, grid_triangle(local_point.x, local_point.z));
    }
}

/// A box (half extents 0.3, 0.2, 0.4, turned 0.3 rad about y so its bottom stays flat)
/// cast obliquely onto the flat mesh: its bottom face (0.2 below the centre) meets the mesh
/// after (1.5 − 0.2) of its 2 m fall, fraction 0.65. The contact point lies on the mesh
/// inside the box's footprint there, and on (within 1 mm: it is any point of a face-on-face
/// contact) the triangle reported.
#[test]
fn box_cast_onto_a_flat_mesh_meets_face_to_face() {
    let world = world_with(grid_mesh(|_, _| 0.0, false), Pose::IDENTITY);
    let half = Vec3::new(0.3, 0.2, 0.4);
    let cube = Shape::cuboid(half).unwrap();
    let rotation = Quat::from_rotation_y(0.3);
    let start = Pose::new(Vec3::new(0.1, 1.5, -0.2), rotation);
    let translation = Vec3::new(0.5, -2.0, 0.3);
    let hit = world.cast_shape(&cube, start, translation, |_| true).unwrap().expect("hits the mesh");
    let error = (hit.fraction - 0.65).abs() * translation.length();
    eprintln!("box: travel error {error:e} m, point {}", hit.point);
    assert!(error < TOLERANCE, "{}", hit.fraction);
    assert_close("box normal", hit.normal, Vec3::Y);
    assert!(hit.point.y.abs() < TOLERANCE, "{}", hit.point);
    let centre = start.position + 0.65 * translation;
    let in_box = rotation.inverse() * (hit.point - centre);
    assert!(in_box.x.abs() <= half.x + TOLERANCE && in_box.z.abs() <= half.z + TOLERANCE, "{in_box}");
    let mesh = match &grid_mesh(|_, _| 0.0, false) {
        Shape::TriMesh(mesh) => mesh.triangle(hit.triangle.unwrap()),
        _ => unreachable!(),
    };
    let corners = mesh.vertices;
    let inside = (0..3).all(|k| {
        let (a, b) = (corners[k], corners[(k + 1) % 3]);
        (b - a).cross(hit.point - a).y >= -1e-3 * (b - a).length()
    });
    assert!(inside, "point {} off triangle {:?}", hit.point, hit.triangle);
}

/// Every castable shape cast obliquely onto the flat mesh meets it when its lowest point,
/// `low` below its origin, reaches y = 0: from y = 2 over a 3 m fall, fraction (2 − low)/3,
/// normal +y, the point on the mesh. A capsule lying along x (radius 0.2), an upright
/// cylinder (half height 0.3: its cap meets face to face), a tetrahedron standing on its
/// apex 0.5 below its origin.
#[test]
fn every_convex_shape_lands_on_a_flat_mesh_at_its_lowest_point() {
    let world = world_with(grid_mesh(|_, _| 0.0, false), Pose::IDENTITY);
    let lying = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let apex_down =
        [Vec3::new(0.0, -0.5, 0.0), Vec3::new(0.4, 0.3, 0.0), Vec3::new(-0.2, 0.3, 0.35), Vec3::new(-0.2, 0.3, -0.35)];
    let shapes = [
        (Shape::capsule(0.4, 0.2).unwrap(), lying, 0.2),
        (Shape::cylinder(0.3, 0.25).unwrap(), Quat::IDENTITY, 0.3),
        (Shape::convex_hull(&apex_down).unwrap(), Quat::IDENTITY, 0.5),
    ];
    let translation = Vec3::new(0.7, -3.0, -0.4);
    for (shape, rotation, low) in shapes {
        let start = Pose::new(Vec3::new(-0.6, 2.0, 0.3), rotation);
        let hit = world.cast_shape(&shape, start, translation, |_| true).unwrap().expect("lands");
        let fraction = (2.0 - low) / 3.0;
        let error = (hit.fraction - fraction).abs() * translation.length();
        eprintln!("{:?}: travel error {error:e} m", shape.kind());
        assert!(error < TOLERANCE, "{:?}: {} vs {fraction}", shape.kind(), hit.fraction);
        assert_close("normal", hit.normal, Vec3::Y);
        assert!(hit.point.y.abs() < TOLERANCE, "{}", hit.point);
    }
}

/// One-sided meshes are met from the front only: a sphere cast up from below passes a
/// one-sided floor, and so does one resting on it and moving away. A two-sided floor is hit
/// from below, on its back face (normal −y), when the centre is r below it: fraction
/// (1 − 0.25)/3; from above, a sphere touching it at the start hits at fraction 0 whichever
/// way it moves, one 0.5 mm above it not closing in never.
#[test]
fn one_sided_meshes_are_passed_from_behind_two_sided_are_hit() {
    let ball = Shape::sphere(0.25).unwrap();
    let start = Vec3::new(0.3, -1.0, 0.4);
    let up = Vec3::new(0.2, 3.0, -0.1);
    let one_sided = world_with(grid_mesh(|_, _| 0.0, false), Pose::IDENTITY);
    assert_eq!(cast(&one_sided, &ball, start, up), None);
    assert_eq!(cast(&one_sided, &ball, Vec3::new(0.3, 0.25, 0.4), up), None, "resting and leaving");
    let resting = cast(&one_sided, &ball, Vec3::new(0.3, 0.2499, 0.4), Vec3::X).expect("touching, sliding");
    assert_eq!(resting.fraction, 0.0);

    let two_sided = world_with(grid_mesh(|_, _| 0.0, true), Pose::IDENTITY);
    let fraction = 0.75 / 3.0;
    let point = start + fraction * up + Vec3::Y * 0.25;
    let hit = cast(&two_sided, &ball, start, up).expect("hits the back face");
    assert_cast(&hit, up, fraction, point, -Vec3::Y, grid_triangle(point.x, point.z));
    // 0.5 mm above it, leaving or gliding along: never touches. Resting on it: fraction 0.
    let above = Vec3::new(0.3, 0.2505, 0.4);
    assert_eq!(cast(&two_sided, &ball, above, up), None);
    assert_eq!(cast(&two_sided, &ball, above, Vec3::new(1.0, 0.0, 0.5)), None);
    assert_eq!(cast(&two_sided, &ball, Vec3::new(0.3, 0.2499, 0.4), up).map(|hit| hit.fraction), Some(0.0));
}

/// A heightfield is solid below: a sphere whose centre starts under the surface hits at
/// fraction 0 whichever way it moves, at the surface point straight above its centre, with
/// that triangle's normal.
#[test]
fn a_shape_starting_under_a_heightfield_hits_at_once() {
    let world = world_with(heightfield(), Pose::IDENTITY);
    let ball = Shape::sphere(0.1).unwrap();
    let (height, normal) = plane_9(0.2, -0.1);
    let centre = Vec3::new(0.2, height - 0.5, -0.1);
    for translation in [Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, -2.0, 0.0), Vec3::new(0.0, 3.0, 0.0)] {
        let hit = cast(&world, &ball, centre, translation).expect("starts inside");
        assert_eq!(hit.fraction, 0.0);
        assert_cast(&hit, translation, 0.0, Vec3::new(0.2, height, -0.1), normal, 9);
    }
}

/// Overlaps: a sphere 0.1 mm above a flat mesh does not touch it, 0.1 mm or 10 cm into it
/// does; one wholly under the one-sided floor (1 cm below) does not; one deep under the
/// heightfield's raised cell (its top 0.5 m below the surface) does, one just above it not.
#[test]
fn overlaps_with_meshes_and_heightfields() {
    let ball = Shape::sphere(0.25).unwrap();
    let floor = world_with(grid_mesh(|_, _| 0.0, false), Pose::IDENTITY);
    let at = |y: f32| Vec3::new(0.3, y, 0.4);
    assert!(!overlaps(&floor, &ball, at(0.2501)));
    assert!(overlaps(&floor, &ball, at(0.2499)));
    assert!(overlaps(&floor, &ball, at(0.15)));
    assert!(!overlaps(&floor, &ball, at(-0.26)));

    let terrain = world_with(heightfield(), Pose::IDENTITY);
    let small = Shape::sphere(0.1).unwrap();
    let (height, normal) = plane_8(-0.3, 0.2);
    let surface = Vec3::new(-0.3, height, 0.2);
    assert!(overlaps(&terrain, &small, surface - Vec3::Y * 0.6));
    assert!(overlaps(&terrain, &small, surface + normal * 0.0999));
    assert!(!overlaps(&terrain, &small, surface + normal * 0.1001));
}
