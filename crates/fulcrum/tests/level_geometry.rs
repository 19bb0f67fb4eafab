//! Bodies on triangle meshes and heightfields against analytic answers: sliding and rolling
//! across inner edges without bumps, a ramp made of triangles, piles on bumpy terrain.

mod common;
use common::*;
use fulcrum::prelude::*;

/// A flat grid of `n` × `n` cells of `size` metres centred on the origin at y = 0, two
/// triangles a cell, facing up, as vertices and indices.
fn flat_grid(n: usize, size: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let half = n as f32 * size / 2.0;
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            vertices.push(Vec3::new(j as f32 * size - half, 0.0, i as f32 * size - half));
        }
    }
    let index = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            // Counter-clockwise seen from above (+Y): (i, j) → (i+1, j) → (i+1, j+1).
            indices.push([index(i, j), index(i + 1, j), index(i + 1, j + 1)]);
            indices.push([index(i, j), index(i + 1, j + 1), index(i, j + 1)]);
        }
    }
    (vertices, indices)
}

/// A floor of 1 m cells whose middle strip is cut into 0.5 m cells, so that the edges along
/// the strip's sides are T-junctions (a big cell's edge meets two small ones).
fn t_junction_floor() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (mut vertices, mut indices) = (Vec::new(), Vec::new());
    let mut quad = |x0: f32, z0: f32, size: f32| {
        let base = vertices.len() as u32;
        for (dx, dz) in [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)] {
            vertices.push(Vec3::new(x0 + dx * size, 0.0, z0 + dz * size));
        }
        indices.push([base, base + 1, base + 2]);
        indices.push([base, base + 2, base + 3]);
    };
    for i in -20..20 {
        for k in -3..3 {
            let (x, z) = (i as f32, k as f32);
            if k == 0 {
                for (a, b) in [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)] {
                    quad(x + a, z + b, 0.5);
                }
            } else {
                quad(x, z, 1.0);
            }
        }
    }
    (vertices, indices)
}

fn add_static(world: &mut World, shape: Shape, friction: f32) -> BodyId {
    let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(ground, &ColliderDef::new(shape).with_friction(friction)).unwrap();
    ground
}

/// The three flat floors of the acceptance tests: a mesh of 1 m cells, a heightfield of 1 m
/// samples, and the T-junction floor.
fn flat_floors() -> Vec<(&'static str, Shape)> {
    let (vertices, indices) = flat_grid(60, 1.0);
    let heights = vec![vec![0.0f32; 61]; 61];
    let (t_vertices, t_indices) = t_junction_floor();
    vec![
        ("mesh", Shape::trimesh(vertices, indices, false).unwrap()),
        ("heightfield", Shape::heightfield(heights, Vec3::ONE).unwrap()),
        ("t-junctions", Shape::trimesh(t_vertices, t_indices, false).unwrap()),
    ]
}

/// A box sliding at 5 m/s across each flat floor at an angle to its edges: its vertical speed
/// stays under 2 cm/s, it does not tip, and it stops within 2% of v²/(2μg).
#[test]
fn a_box_slides_across_inner_edges_without_bumping() {
    for (name, floor) in flat_floors() {
        let mut world = world_with_solver(SolverSettings::default());
        add_static(&mut world, floor, 0.5);
        let b = add_box(&mut world, Vec3::new(-12.0, 0.5, -0.3), Quat::IDENTITY, Vec3::splat(0.5), 0.5);
        run(&mut world, 30);
        let start = pos(&world, b);
        let direction = Vec3::new(1.0, 0.0, 0.13).normalize();
        world.set_linear_velocity(b, direction * 5.0).unwrap();
        let (mut steps, mut worst_vertical, mut worst_tilt) = (0, 0.0f32, 0.0f32);
        while vel(&world, b).length() > 1e-3 && steps < 600 {
            world.step(DT).unwrap();
            steps += 1;
            worst_vertical = worst_vertical.max(vel(&world, b).y.abs());
            let up = world.body(b).unwrap().rotation() * Vec3::Y;
            worst_tilt = worst_tilt.max(up.angle_between(Vec3::Y));
        }
        let distance = (pos(&world, b) - start).length();
        let expected = 25.0 / (2.0 * 0.5 * 9.81);
        eprintln!("{name}: slid {distance:.4} m (expected {expected:.4}), |v_y| ≤ {worst_vertical:.4} m/s, tilt ≤ {worst_tilt:.4} rad");
        assert!(worst_vertical < 0.02, "{name}: vertical speed {worst_vertical} m/s");
        assert!(worst_tilt < 0.02, "{name}: tilted {worst_tilt} rad");
        assert!((distance / expected - 1.0).abs() < 0.02, "{name}: slid {distance} m, expected {expected} m");
    }
}

/// A ball rolling at 5 m/s across each flat floor keeps its height within 5 mm and its speed
/// within 1% for 5 s.
#[test]
fn a_ball_rolls_across_inner_edges_without_hopping() {
    for (name, floor) in flat_floors().into_iter().take(2) {
        let mut world = world_with_solver(SolverSettings::default());
        add_static(&mut world, floor, 0.8);
        let ball = world.create_body(&BodyDef::dynamic(Vec3::new(-14.0, 0.5, -0.2))).unwrap();
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap()).with_friction(0.8)).unwrap();
        run(&mut world, 30);
        let direction = Vec3::new(1.0, 0.0, 0.21).normalize();
        world.set_linear_velocity(ball, direction * 5.0).unwrap();
        world.set_angular_velocity(ball, Vec3::Y.cross(direction) * 10.0).unwrap();
        let (mut height_error, mut speed_error) = (0.0f32, 0.0f32);
        for _ in 0..300 {
            world.step(DT).unwrap();
            height_error = height_error.max((pos(&world, ball).y - 0.5).abs());
            speed_error = speed_error.max((vel(&world, ball).length() / 5.0 - 1.0).abs());
        }
        eprintln!("{name}: height within {height_error:.5} m, speed within {:.4}%", speed_error * 100.0);
        assert!(height_error < 0.005, "{name}: height off by {height_error} m");
        assert!(speed_error < 0.01, "{name}: speed off by {speed_error}");
    }
}

/// Sets a body of radius `r` rolling along +X without slipping at `v` m/s (about Z).
fn set_rolling(world: &mut World, body: BodyId, v: f32, r: f32) {
    world.set_linear_velocity(body, Vec3::new(v, 0.0, 0.0)).unwrap();
    world.set_angular_velocity(body, Vec3::new(0.0, 0.0, -v / r)).unwrap();
}

/// Steps `n` times; returns how many manifolds were served from the contact cache.
fn steps_counting_reuse(world: &mut World, n: usize) -> u32 {
    (0..n)
        .map(|_| {
            world.step(DT).unwrap();
            world.timings().manifolds_reused
        })
        .sum()
}

/// A ball (r = 0.5) and a capsule lying across the roll (radius 0.3) set rolling without
/// slipping at 1 mm/s on the flat mesh and the heightfield keep v and ω = −v/r within 5% over
/// 10 s. They barely move, so the pairs reuse their cached manifolds (checked): a carried
/// point must stay under the core's centre line, or the normal impulse at the trailing lever
/// arm drives the roll (the ball reached 15 mm/s when the point was carried with the material).
#[test]
fn a_slowly_rolling_ball_or_capsule_on_triangles_keeps_its_speed() {
    let v0 = 1e-3;
    let capsule_across = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let bodies = [
        ("ball", Shape::sphere(0.5).unwrap(), Quat::IDENTITY, 0.5),
        ("capsule", Shape::capsule(0.4, 0.3).unwrap(), capsule_across, 0.3),
    ];
    for (floor_name, floor) in flat_floors().into_iter().take(2) {
        for (body_name, shape, rotation, r) in bodies.clone() {
            let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
            add_static(&mut world, floor.clone(), 0.6);
            let body = world.create_body(&BodyDef::dynamic(Vec3::new(0.3, r, 0.2)).with_rotation(rotation)).unwrap();
            world.create_collider(body, &ColliderDef::new(shape).with_friction(0.6)).unwrap();
            run(&mut world, 60);
            set_rolling(&mut world, body, v0, r);
            let reused = steps_counting_reuse(&mut world, 600);
            let b = world.body(body).unwrap();
            let (v, w) = (b.linear_velocity(), b.angular_velocity());
            eprintln!("{body_name} on the {floor_name}: after 10 s v = {v}, ω = {w}, {reused} manifolds reused");
            assert!(reused > 300, "{body_name} on the {floor_name}: the cache was used {reused} times");
            assert!((v.x / v0 - 1.0).abs() < 0.05, "{body_name} on the {floor_name}: v = {v}, the roll was driven");
            assert!((w.z / (-v0 / r) - 1.0).abs() < 0.05, "{body_name} on the {floor_name}: ω = {w}");
        }
    }
}

/// A cylinder (half height 0.4, radius 0.3) standing on its cap on the flat mesh, the
/// heightfield and a box reuses its cached cap contact (the cap's points move rigidly with
/// it) and stays within 0.1 mm of where it settled over 10 s; lying on its side and set
/// rolling at 1 mm/s it reuses its side contact, carried as a capsule's (the contact line
/// stays under the axis), and keeps v and ω = −v/r within 5%: a line carried with the
/// material would trail the true one and drive the roll.
#[test]
fn a_standing_or_rolling_cylinder_is_cached_and_keeps_its_motion() {
    let floors = flat_floors().into_iter().take(2).chain([("box", Shape::cuboid(Vec3::new(20.0, 1.0, 20.0)).unwrap())]);
    for (floor_name, floor) in floors {
        let top = if floor_name == "box" { 1.0 } else { 0.0 };
        for (lying, rotation) in [(false, Quat::IDENTITY), (true, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2))] {
            let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
            add_static(&mut world, floor.clone(), 0.6);
            let height = if lying { 0.3 } else { 0.4 };
            let start = Vec3::new(0.3, top + height, 0.2);
            let body = world.create_body(&BodyDef::dynamic(start).with_rotation(rotation)).unwrap();
            world
                .create_collider(body, &ColliderDef::new(Shape::cylinder(0.4, 0.3).unwrap()).with_friction(0.6))
                .unwrap();
            run(&mut world, 60);
            let v0 = 1e-3;
            if lying {
                set_rolling(&mut world, body, v0, 0.3);
            }
            let settled = pos(&world, body);
            let reused = steps_counting_reuse(&mut world, 600);
            let b = world.body(body).unwrap();
            let (v, w) = (b.linear_velocity(), b.angular_velocity());
            eprintln!(
                "cylinder on the {floor_name}, lying {lying}: {reused} reused, moved {}, v = {v}, ω = {w}",
                (pos(&world, body) - settled).length()
            );
            assert!(reused > 300, "on the {floor_name}, lying {lying}: the contact was reused {reused} times");
            if lying {
                assert!((v.x / v0 - 1.0).abs() < 0.05, "on the {floor_name}: v = {v}");
                assert!((w.z / (-v0 / 0.3) - 1.0).abs() < 0.05, "on the {floor_name}: ω = {w}");
            } else {
                assert!((pos(&world, body) - settled).length() < 1e-4, "on the {floor_name}: it crept");
            }
        }
    }
}

/// A solid ball on a 15° ramp made of triangles rolls down at a = 5/7 g sin θ within 1%.
#[test]
fn a_ball_rolls_down_a_ramp_of_triangles() {
    let angle = 15f32.to_radians();
    let (vertices, indices) = flat_grid(30, 1.0);
    let tilt = Quat::from_rotation_z(angle);
    let ramp = world_ramp(tilt, vertices, indices);
    let (mut world, ramp_id) = ramp;
    let _ = ramp_id;
    let up = tilt * Vec3::Y;
    let down = tilt * -Vec3::X;
    let ball = world.create_body(&BodyDef::dynamic(up * 0.5 + down * -8.0)).unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap()).with_friction(1.0)).unwrap();
    run(&mut world, 5);
    let (start, v0) = (pos(&world, ball).dot(down), vel(&world, ball).dot(down));
    let steps = 120;
    run(&mut world, steps);
    let t = steps as f32 * DT;
    let travelled = pos(&world, ball).dot(down) - start - v0 * t;
    let measured = 2.0 * travelled / (t * t);
    let expected = 5.0 / 7.0 * 9.81 * angle.sin();
    eprintln!("ramp: a = {measured:.4} m/s², expected {expected:.4}");
    assert!((measured / expected - 1.0).abs() < 0.01, "a = {measured}, expected {expected}");
}

fn world_ramp(tilt: Quat, vertices: Vec<Vec3>, indices: Vec<[u32; 3]>) -> (World, BodyId) {
    let mut world = world_with_solver(SolverSettings::default());
    let ramp = world.create_body(&BodyDef::fixed(Vec3::ZERO).with_rotation(tilt)).unwrap();
    let shape = Shape::trimesh(vertices, indices, false).unwrap();
    world.create_collider(ramp, &ColliderDef::new(shape).with_friction(1.0)).unwrap();
    (world, ramp)
}

/// The bumpy terrain of the `terrain` benchmark scene: h(x, z) on a grid of 1 m spacing
/// centred on the origin.
fn terrain_height(x: f32, z: f32) -> f32 {
    2.0 * (0.1 * x).sin() * (0.13 * z).cos() + 0.5 * (0.37 * x + 0.2 * z).sin()
}

fn terrain_samples(n: usize) -> Vec<Vec<f32>> {
    let half = (n - 1) as f32 / 2.0;
    (0..n).map(|i| (0..n).map(|j| terrain_height(j as f32 - half, i as f32 - half)).collect()).collect()
}

/// The same samples as a one-sided mesh, split as the heightfield's cells are.
fn terrain_mesh(n: usize) -> Shape {
    mesh_from_samples(&terrain_samples(n))
}

/// Square samples of 1 m spacing centred on the origin (row i along Z, column j along X) as a
/// one-sided mesh, split as a heightfield's cells are.
fn mesh_from_samples(samples: &[Vec<f32>]) -> Shape {
    let n = samples.len();
    let half = (n - 1) as f32 / 2.0;
    let mut vertices = Vec::new();
    for (i, row) in samples.iter().enumerate() {
        for (j, &h) in row.iter().enumerate() {
            vertices.push(Vec3::new(j as f32 - half, h, i as f32 - half));
        }
    }
    let index = |i: usize, j: usize| (i * n + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            indices.push([index(i, j), index(i + 1, j), index(i + 1, j + 1)]);
            indices.push([index(i, j), index(i + 1, j + 1), index(i, j + 1)]);
        }
    }
    Shape::trimesh(vertices, indices, false).unwrap()
}

/// A body sliding without friction at 2 m/s over a convex crease of the ground (flat for
/// x < 0, sloping down at 2° or 6° beyond) keeps its speed up to the crease and gains it
/// after: |v_x| never drops below 2 m/s and it never moves up faster than 5 mm/s, on a
/// heightfield and on the same samples as a mesh. A ball, a box, and a capsule and a cylinder
/// lying across the path. Taken alone, the sloping triangle's crease edge is nearest the
/// rounded body's bottom from behind, so the contact there pointed back over the flat side,
/// and the ball, the capsule and the cylinder hit it and rose at 0.42 m/s, losing 0.09 m/s;
/// that normal lies outside the crease's cone of normals, and the flat triangle's own contact
/// answers instead.
#[test]
fn a_body_slides_over_a_convex_crease_without_a_kick() {
    for degrees in [2.0f32, 6.0] {
        let slope = degrees.to_radians().tan();
        let samples: Vec<Vec<f32>> =
            (0..41).map(|_| (0..41).map(|j| -slope * (j as f32 - 20.0).max(0.0)).collect()).collect();
        let floors = [
            ("heightfield", Shape::heightfield(samples.clone(), Vec3::ONE).unwrap()),
            ("mesh", mesh_from_samples(&samples)),
        ];
        for (floor_name, floor) in floors {
            let lying = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
            let bodies = [
                ("ball", Shape::sphere(0.3).unwrap(), Quat::IDENTITY, 0.3),
                ("box", Shape::cuboid(Vec3::new(0.4, 0.25, 0.4)).unwrap(), Quat::IDENTITY, 0.25),
                ("capsule", Shape::capsule(0.3, 0.3).unwrap(), lying, 0.3),
                ("cylinder", Shape::cylinder(0.3, 0.3).unwrap(), lying, 0.3),
            ];
            for (name, shape, rotation, height) in bodies {
                let mut world = world_with_solver(SolverSettings::default());
                add_static(&mut world, floor.clone(), 0.0);
                let def = BodyDef::dynamic(Vec3::new(-6.0, height, 0.3)).with_rotation(rotation);
                let body = world.create_body(&def).unwrap();
                world.create_collider(body, &ColliderDef::new(shape).with_friction(0.0)).unwrap();
                run(&mut world, 60);
                world.set_linear_velocity(body, Vec3::new(2.0, 0.0, 0.0)).unwrap();
                let (mut slowest, mut fastest_up) = (f32::INFINITY, 0.0f32);
                while pos(&world, body).x < 3.0 {
                    world.step(DT).unwrap();
                    slowest = slowest.min(vel(&world, body).x);
                    fastest_up = fastest_up.max(vel(&world, body).y);
                }
                let case = format!("{name} on the {floor_name}, {degrees}°");
                eprintln!("{case}: slowest {slowest:.4} m/s, fastest up {fastest_up:.4} m/s");
                assert!(slowest > 2.0 - 1e-3, "{case}: slowed to {slowest} m/s");
                assert!(fastest_up < 0.005, "{case}: moved up at {fastest_up} m/s");
            }
        }
    }
}

/// Height of the piecewise-flat surface at (x, z): the triangle of the cell under the point,
/// split along the diagonal from sample (i, j) to (i + 1, j + 1).
fn surface_height(samples: &[Vec<f32>], x: f32, z: f32) -> f32 {
    let n = samples.len();
    let half = (n - 1) as f32 / 2.0;
    let (u, v) = (x + half, z + half);
    let (j, i) = ((u.floor() as usize).min(n - 2), (v.floor() as usize).min(n - 2));
    let (fx, fz) = (u - j as f32, v - i as f32);
    let (h00, h01, h10, h11) = (samples[i][j], samples[i][j + 1], samples[i + 1][j], samples[i + 1][j + 1]);
    if fz >= fx {
        h00 + fz * (h10 - h00) + fx * (h11 - h10)
    } else {
        h00 + fx * (h01 - h00) + fz * (h11 - h01)
    }
}

/// Rolling resistance of the pile's bodies (soft ground): without any, a ball in a dip of the
/// terrain rolls to and fro for ever; at 0.1 a ball thrown onto a long 9° slope of the terrain
/// still rolls down it after 10 s (tan 9° > 0.1).
const ROLLING_RESISTANCE: f32 = 0.2;

/// 100 mixed bodies dropped in a column onto bumpy terrain (into its lowest valley, so that
/// nothing rolls away), as a heightfield and as a one-sided mesh, for 10 s.
fn drop_pile_on_terrain(name: &str, ground: Shape, samples: &[Vec<f32>]) -> PileOutcome {
    let valley = Vec3::new(-17.0, 0.0, 0.0);
    let mut world = world_with_solver(SolverSettings::default());
    add_static(&mut world, ground, 0.6);
    let mut bodies = Vec::new();
    for k in 0..100 {
        // Five layers of 4 × 5 bodies, 1.1 m apart across and 1.2 m up.
        let (layer, across, along) = (k / 20, k % 4, (k / 4) % 5);
        let offset = Vec3::new(1.1 * (across as f32 - 1.5), 2.0 + 1.2 * layer as f32, 1.1 * (along as f32 - 2.0));
        let position = valley + offset;
        let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
        let shape = match k % 4 {
            0 => Shape::cuboid(Vec3::new(0.4, 0.3, 0.5)).unwrap(),
            1 => Shape::sphere(0.4).unwrap(),
            2 => Shape::capsule(0.3, 0.3).unwrap(),
            _ => Shape::cylinder(0.3, 0.35).unwrap(),
        };
        let def = ColliderDef::new(shape).with_friction(0.6).with_rolling_resistance(ROLLING_RESISTANCE);
        world.create_collider(body, &def).unwrap();
        bodies.push(body);
    }
    let mut deepest = f32::NEG_INFINITY;
    let mut last_second_start = Vec::new();
    for step in 0..600 {
        world.step(DT).unwrap();
        if step == 540 {
            last_second_start = bodies.iter().map(|&b| pos(&world, b)).collect();
        }
        for &b in &bodies {
            let p = pos(&world, b);
            deepest = deepest.max(surface_height(samples, p.x, p.z) - p.y);
        }
    }
    let fastest = bodies.iter().map(|&b| vel(&world, b).length()).fold(0.0, f32::max);
    let moved = bodies.iter().zip(&last_second_start).map(|(&b, &p)| (pos(&world, b) - p).length()).fold(0.0, f32::max);
    eprintln!(
        "{name}: deepest centre {deepest:.4} m below the surface; in the last second the most any body moved is \
         {moved:.4} m; fastest {fastest:.4} m/s after 10 s"
    );
    PileOutcome { deepest, moved }
}

/// What the pile did: the deepest any centre went below the surface at any step (negative:
/// never below), and the most any body moved in the last second, metres.
struct PileOutcome {
    deepest: f32,
    moved: f32,
}

fn terrains() -> (Vec<Vec<f32>>, Vec<(&'static str, Shape)>) {
    let n = 129;
    let samples = terrain_samples(n);
    let grounds =
        vec![("heightfield", Shape::heightfield(samples.clone(), Vec3::ONE).unwrap()), ("mesh", terrain_mesh(n))];
    (samples, grounds)
}

/// No body of a pile dropped on bumpy terrain ever has its centre below the surface.
#[test]
fn a_pile_on_bumpy_terrain_stays_above_it() {
    let (samples, grounds) = terrains();
    for (name, ground) in grounds {
        let deepest = drop_pile_on_terrain(name, ground, &samples).deepest;
        assert!(deepest < 0.0, "{name}: a centre went {deepest} m below the surface");
    }
}

/// The pile comes to rest within 10 s: in the last second no body moves more than 1 cm. (Its
/// speed at the end is printed, not asserted: resting bodies still show velocity noise of a few
/// cm/s, which is not motion.)
#[test]
fn a_pile_on_bumpy_terrain_comes_to_rest() {
    let (samples, grounds) = terrains();
    for (name, ground) in grounds {
        let moved = drop_pile_on_terrain(name, ground, &samples).moved;
        assert!(moved < 0.01, "{name}: a body moved {moved} m in the last second");
    }
}

/// A 5 cm bullet sphere at 150 m/s does not pass a wall of two triangles (one-sided, facing
/// it): continuous collision stops it at the wall, and it ends every step in front.
#[test]
fn a_bullet_does_not_pass_a_two_triangle_wall() {
    for (speed, two_sided) in [(150.0f32, false), (150.0, true), (60.0, false)] {
        let mut world = world_with_solver(SolverSettings::default());
        // The wall: the plane x = 0, facing −x, two triangles 4 × 4 m.
        let vertices = vec![
            Vec3::new(0.0, -2.0, -2.0),
            Vec3::new(0.0, 2.0, -2.0),
            Vec3::new(0.0, 2.0, 2.0),
            Vec3::new(0.0, -2.0, 2.0),
        ];
        let indices = vec![[0, 2, 1], [0, 3, 2]];
        let wall = Shape::trimesh(vertices, indices, two_sided).unwrap();
        add_static(&mut world, wall, 0.5);
        let def = BodyDef::dynamic(Vec3::new(-3.0, 0.1, 0.2)).with_linear_velocity(Vec3::X * speed).with_bullet(true);
        let bullet = world.create_body(&def).unwrap();
        world.create_collider(bullet, &ColliderDef::new(Shape::sphere(0.05).unwrap())).unwrap();
        let mut furthest = f32::NEG_INFINITY;
        for _ in 0..120 {
            world.step(DT).unwrap();
            furthest = furthest.max(pos(&world, bullet).x);
        }
        eprintln!("bullet at {speed} m/s (two-sided {two_sided}): furthest centre x = {furthest:.4}");
        assert!(furthest < 0.0, "the bullet passed the wall: x = {furthest}");
    }
}

/// A bullet at rest 1 m before a two-triangle wall, then given 150 m/s just before a step
/// (so no contact pair was made ahead of it: its box was swept with the old velocity) is
/// stopped by continuous collision against the mesh, while it also slides on a mesh floor it
/// touches: the floor's triangles at the start are left to the contacts.
#[test]
fn continuous_collision_stops_a_bullet_at_a_mesh_wall() {
    let mut world = world_with_solver(SolverSettings::default());
    let (vertices, indices) = flat_grid(8, 1.0);
    add_static(&mut world, Shape::trimesh(vertices, indices, false).unwrap(), 0.0);
    let wall =
        vec![Vec3::new(2.0, 0.0, -2.0), Vec3::new(2.0, 3.0, -2.0), Vec3::new(2.0, 3.0, 2.0), Vec3::new(2.0, 0.0, 2.0)];
    add_static(&mut world, Shape::trimesh(wall, vec![[0, 2, 1], [0, 3, 2]], false).unwrap(), 0.0);
    let def = BodyDef::dynamic(Vec3::new(1.0, 0.05, 0.3)).with_bullet(true);
    let bullet = world.create_body(&def).unwrap();
    world.create_collider(bullet, &ColliderDef::new(Shape::sphere(0.05).unwrap()).with_friction(0.0)).unwrap();
    run(&mut world, 10);
    world.set_linear_velocity(bullet, Vec3::X * 150.0).unwrap();
    let mut furthest = f32::NEG_INFINITY;
    for _ in 0..30 {
        world.step(DT).unwrap();
        furthest = furthest.max(pos(&world, bullet).x);
    }
    eprintln!("bullet given 150 m/s before a step: furthest centre x = {furthest:.4} (wall at x = 2)");
    assert!(furthest < 2.0, "the bullet passed the wall: x = {furthest}");
}

/// A closed room 6 × 4 × 6 m of one-sided triangles facing inwards (12 triangles).
fn room() -> Shape {
    let (x, y, z) = (3.0f32, 4.0f32, 3.0f32);
    let corner = |i: u32| {
        Vec3::new(if i & 1 == 0 { -x } else { x }, if i & 2 == 0 { 0.0 } else { y }, if i & 4 == 0 { -z } else { z })
    };
    let vertices: Vec<Vec3> = (0..8).map(corner).collect();
    // Each face as a quad (a, b, c, d) counter-clockwise seen from inside the room.
    let faces = [[0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3], [0, 1, 3, 2], [4, 6, 7, 5]];
    let indices = faces.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect();
    Shape::trimesh(vertices, indices, false).unwrap()
}

/// A box thrown at 30 m/s into a corner of a closed one-sided room stays inside it.
#[test]
fn a_box_thrown_into_a_mesh_corner_stays_in_the_room() {
    let mut world = world_with_solver(SolverSettings::default());
    add_static(&mut world, room(), 0.5);
    let inward = |p: Vec3| p.x.abs() < 3.0 && p.z.abs() < 3.0 && p.y > 0.0 && p.y < 4.0;
    let def =
        BodyDef::dynamic(Vec3::new(0.0, 2.0, 0.0)).with_linear_velocity(Vec3::new(1.0, 0.3, 1.0).normalize() * 30.0);
    let thrown = world.create_body(&def).unwrap();
    world.create_collider(thrown, &ColliderDef::new(Shape::cuboid(Vec3::new(0.3, 0.2, 0.25)).unwrap())).unwrap();
    for step in 0..180 {
        world.step(DT).unwrap();
        let p = pos(&world, thrown);
        assert!(inward(p), "step {step}: the box left the room at {p}");
    }
}

/// A kinematic body carrying a 4 × 4 m floor (a mesh or a heightfield) with a box on it, 1 m
/// from the floor's centre; the box has settled when this returns.
fn box_on_kinematic_floor(floor: Shape) -> (World, BodyId, BodyId) {
    let mut world = world_with_solver(SolverSettings::default());
    let platform = world.create_body(&BodyDef::kinematic(Vec3::ZERO)).unwrap();
    world.create_collider(platform, &ColliderDef::new(floor).with_friction(0.6)).unwrap();
    let load = add_box(&mut world, Vec3::new(1.0, 0.25, 0.0), Quat::IDENTITY, Vec3::splat(0.25), 0.6);
    run(&mut world, 30);
    (world, platform, load)
}

/// The two kinematic floors: a one-sided mesh and a heightfield, both 4 × 4 m.
fn kinematic_floors() -> Vec<(&'static str, Shape)> {
    let (vertices, indices) = flat_grid(4, 1.0);
    vec![
        ("mesh", Shape::trimesh(vertices, indices, false).unwrap()),
        ("heightfield", Shape::heightfield(vec![vec![0.0f32; 5]; 5], Vec3::ONE).unwrap()),
    ]
}

/// A kinematic mesh or heightfield moving at 2 m/s sideways, rising at 0.5 m/s, or turning at
/// 1 rad/s about the vertical carries a box standing on it: once moving with it, the box keeps
/// its place in the floor's frame over 5 s within 1 cm, and its heading within 0.01 rad. The
/// turn (1 m/s² of friction at 1 m, μg = 5.9 m/s²) allows 5 cm: friction holds velocities,
/// not places, so each step the box moves along the tangent of its circle and its radius
/// grows by (ωrh)²/(2r) = 0.14 mm, 4.2 cm over 5 s.
#[test]
fn a_moving_kinematic_mesh_carries_what_stands_on_it() {
    let motions = [
        ("sliding", Vec3::new(2.0, 0.0, 0.0), Vec3::ZERO),
        ("rising", Vec3::new(0.0, 0.5, 0.0), Vec3::ZERO),
        ("turning", Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0)),
    ];
    for (floor_name, floor) in kinematic_floors() {
        for (motion, v, w) in motions {
            let (mut world, platform, load) = box_on_kinematic_floor(floor.clone());
            let in_floor = |world: &World| {
                let p = world.body(platform).unwrap();
                p.rotation().inverse() * (pos(world, load) - p.position())
            };
            let heading = |world: &World| {
                let relative =
                    world.body(platform).unwrap().rotation().inverse() * world.body(load).unwrap().rotation();
                relative.to_euler(glam::EulerRot::YXZ).0
            };
            world.set_linear_velocity(platform, v).unwrap();
            world.set_angular_velocity(platform, w).unwrap();
            // The sudden start makes the box slip (v²/(2μg) = 0.34 m at 2 m/s) until it moves
            // with the floor; its place is taken once it does.
            run(&mut world, 60);
            let (start, start_heading) = (in_floor(&world), heading(&world));
            let (mut worst, mut worst_turn) = (0.0f32, 0.0f32);
            for _ in 0..300 {
                world.step(DT).unwrap();
                worst = worst.max((in_floor(&world) - start).length());
                worst_turn = worst_turn.max((heading(&world) - start_heading).abs());
            }
            eprintln!("{floor_name} {motion}: the box strayed {worst:.5} m and turned {worst_turn:.5} rad");
            let allowed = if motion == "turning" { 0.05 } else { 0.01 };
            assert!(worst < allowed, "{floor_name} {motion}: the box strayed {worst} m");
            assert!(worst_turn < 0.01, "{floor_name} {motion}: the box turned {worst_turn} rad on the floor");
        }
    }
}
