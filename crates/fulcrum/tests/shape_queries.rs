//! `World::cast_shape`, `World::overlap_shape` and `World::overlap_aabb` against analytic
//! answers. Casts are exact to the time-of-impact tolerance (10 µm of travel); the tests
//! allow 1e-4 of the fraction or 1e-4 m.

use fulcrum::prelude::*;
use fulcrum::{Aabb, ShapeCastHit};

/// Places `shape` on a static body at `pose` and returns its collider.
fn place(world: &mut World, shape: Shape, pose: Pose) -> ColliderId {
    let body = world.create_body(&BodyDef::fixed(pose.position).with_rotation(pose.rotation)).unwrap();
    world.create_collider(body, &ColliderDef::new(shape)).unwrap()
}

fn cast(world: &World, shape: &Shape, pose: Pose, translation: Vec3) -> Option<ShapeCastHit> {
    world.cast_shape(shape, pose, translation, |_| true).unwrap()
}

/// A sphere of radius 0.25 from (0.3, 3, 0.2) moving by (0.5, −4, 0) onto the top face
/// (y = 0.5) of a box turned about y: its centre reaches y = 0.75 at fraction
/// (3 − 0.75) / 4 = 0.5625; contact point below the centre on the face, normal +y.
#[test]
fn sphere_cast_onto_a_box_face_hits_at_the_exact_fraction() {
    let mut world = World::default();
    let top = place(
        &mut world,
        Shape::cuboid(Vec3::new(2.0, 0.5, 2.0)).unwrap(),
        Pose::new(Vec3::ZERO, Quat::from_rotation_y(0.3)),
    );
    let ball = Shape::sphere(0.25).unwrap();
    let start = Pose::from_position(Vec3::new(0.3, 3.0, 0.2));
    let hit = cast(&world, &ball, start, Vec3::new(0.5, -4.0, 0.0)).expect("hits the box");
    let expected = 0.5625;
    eprintln!("sphere on a face: fraction error {:e}", (hit.fraction - expected).abs());
    assert_eq!(hit.collider, top);
    assert!((hit.fraction - expected).abs() < 1e-4, "{}", hit.fraction);
    assert!((hit.normal - Vec3::Y).length() < 1e-4, "{}", hit.normal);
    let centre = start.position + Vec3::new(0.5, -4.0, 0.0) * expected;
    assert!((hit.point - (centre - Vec3::Y * 0.25)).length() < 1e-4, "{}", hit.point);
}

/// A cube of half size 0.2 cast straight down onto a unit cube turned 45° about z (a ridge
/// on top, √2/2 above its centre at y = 1): the bottom face (0.2 below the centre) meets
/// the ridge when the centre is at 1 + √2/2 + 0.2; from y = 4 over 3 m down that is
/// fraction (4 − 1.9071) / 3. Normal +y (the cast box's face).
#[test]
fn box_cast_hits_a_rotated_box() {
    let mut world = World::default();
    let ridge_pose = Pose::new(Vec3::new(0.0, 1.0, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
    let ridge = place(&mut world, Shape::cuboid(Vec3::splat(0.5)).unwrap(), ridge_pose);
    let cube = Shape::cuboid(Vec3::splat(0.2)).unwrap();
    let start = Pose::new(Vec3::new(0.05, 4.0, 0.1), Quat::IDENTITY);
    let hit = cast(&world, &cube, start, Vec3::new(0.0, -3.0, 0.0)).expect("hits the ridge");
    let expected = (4.0 - (1.0 + std::f32::consts::FRAC_1_SQRT_2 + 0.2)) / 3.0;
    eprintln!("box on a ridge: fraction error {:e}", (hit.fraction - expected).abs());
    assert_eq!(hit.collider, ridge);
    assert!((hit.fraction - expected).abs() < 1e-4, "{} vs {expected}", hit.fraction);
    assert!((hit.normal - Vec3::Y).length() < 1e-3, "{}", hit.normal);
    let ridge_top = 1.0 + std::f32::consts::FRAC_1_SQRT_2;
    assert!(hit.point.x.abs() < 1e-3 && (hit.point.y - ridge_top).abs() < 1e-3, "{}", hit.point);
    // Slanted by (1, −4, 0) onto the ridge's sloping face x + y = 1 + √2/2: the cube's
    // corner (−0.2, −0.2) from the centre reaches it when 3.65 − 3f = 1 + √2/2. The path is
    // clear up to the hit (1e-3 of the path, 4 mm, before it) and overlaps just after it.
    let slant = Vec3::new(1.0, -4.0, 0.0);
    let hit = cast(&world, &cube, start, slant).expect("hits the face");
    let expected = (3.65 - ridge_top) / 3.0;
    assert!((hit.fraction - expected).abs() < 1e-4, "{} vs {expected}", hit.fraction);
    let face_normal = Vec3::new(1.0, 1.0, 0.0).normalize();
    assert!((hit.normal - face_normal).length() < 1e-3, "{}", hit.normal);
    let clear =
        world.overlap_shape(&cube, Pose::new(start.position + slant * (hit.fraction - 1e-3), Quat::IDENTITY), |_| true);
    assert!(clear.unwrap().is_empty());
    let touching =
        world.overlap_shape(&cube, Pose::new(start.position + slant * (hit.fraction + 1e-3), Quat::IDENTITY), |_| true);
    assert_eq!(touching.unwrap(), vec![ridge]);
}

/// The nearest of two colliders on the path wins; the filter can skip it; a shape that
/// misses gets `None`; one that starts touching gets fraction 0, one that starts near but
/// not touching and does not close in gets `None`.
#[test]
fn nearest_hit_filter_miss_and_start_overlap() {
    let mut world = World::default();
    let near =
        place(&mut world, Shape::cuboid(Vec3::splat(0.5)).unwrap(), Pose::from_position(Vec3::new(3.0, 0.0, 0.0)));
    let far = place(&mut world, Shape::sphere(0.5).unwrap(), Pose::from_position(Vec3::new(6.0, 0.0, 0.0)));
    let ball = Shape::sphere(0.5).unwrap();
    let path = Vec3::new(10.0, 0.0, 0.0);
    let hit = cast(&world, &ball, Pose::IDENTITY, path).unwrap();
    assert_eq!(hit.collider, near);
    assert!((hit.fraction - 0.2).abs() < 1e-4, "{}", hit.fraction);
    let hit = world.cast_shape(&ball, Pose::IDENTITY, path, |c| c != near).unwrap().unwrap();
    assert_eq!(hit.collider, far);
    assert!((hit.fraction - 0.5).abs() < 1e-4, "{}", hit.fraction);
    assert!((hit.normal + Vec3::X).length() < 1e-4);
    assert_eq!(cast(&world, &ball, Pose::from_position(Vec3::new(0.0, 1.2, 0.0)), path), None);
    let inside = cast(&world, &ball, Pose::from_position(Vec3::new(3.0, 0.9, 0.0)), path).unwrap();
    assert_eq!((inside.collider, inside.fraction), (near, 0.0));
    // 0.5 mm above the near box's top, leaving it or gliding along it: never touches.
    let above = Pose::from_position(Vec3::new(3.0, 1.0005, 0.0));
    assert_eq!(cast(&world, &ball, above, Vec3::Y), None);
    assert_eq!(cast(&world, &ball, above, Vec3::new(0.0, 0.0, 2.0)), None);
}

/// Overlap lists exactly the colliders that touch the query shape: a box 1 mm into it, a
/// sphere deep in it and the ground plane under it, not a box 1 mm away nor a sphere 1 mm
/// away diagonally (whose bounding box does overlap).
#[test]
fn overlap_lists_exactly_the_touching_colliders() {
    let mut world = World::default();
    let ground = place(&mut world, Shape::plane(Vec3::Y, 0.0).unwrap(), Pose::IDENTITY);
    let query = Shape::cuboid(Vec3::new(1.0, 0.5, 1.0)).unwrap();
    let pose = Pose::from_position(Vec3::new(0.0, 0.4999, 0.0));
    let cuboid = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let into = place(&mut world, cuboid.clone(), Pose::from_position(Vec3::new(1.499, 0.5, 0.0)));
    let _apart = place(&mut world, cuboid.clone(), Pose::from_position(Vec3::new(-1.501, 0.5, 0.0)));
    let deep = place(&mut world, Shape::sphere(0.3).unwrap(), Pose::from_position(Vec3::new(0.0, 1.0, 0.0)));
    // Sphere beyond the box's corner edge (x = z = 1): centre 0.3 + 1 mm from the edge.
    let diagonal = Vec3::new(1.0, 0.0, 1.0).normalize() * 0.301;
    let _corner =
        place(&mut world, Shape::sphere(0.3).unwrap(), Pose::from_position(Vec3::new(1.0, 0.5, 1.0) + diagonal));
    let mut found = world.overlap_shape(&query, pose, |_| true).unwrap();
    found.sort_by_key(|c| c.0.index);
    let mut expected = vec![ground, into, deep];
    expected.sort_by_key(|c| c.0.index);
    assert_eq!(found, expected);
    let without_ground = world.overlap_shape(&query, pose, |c| c != ground).unwrap();
    assert_eq!(without_ground.len(), 2);
    // Boxes: the tight boxes of `into`, `deep` and the corner sphere reach into x ≥ 0.9.
    let mut boxes =
        world.overlap_aabb(Aabb::new(Vec3::new(0.9, 0.2, -0.2), Vec3::new(1.2, 0.8, 0.2)), |c| c != ground).unwrap();
    boxes.sort_by_key(|c| c.0.index);
    assert_eq!(boxes, vec![into]);
}

/// Non-finite or malformed arguments are refused with the field named.
#[test]
fn bad_input_names_the_field() {
    let world = World::default();
    let ball = Shape::sphere(0.5).unwrap();
    let nan_position = Pose::from_position(Vec3::new(0.0, f32::NAN, 0.0));
    let err = world.cast_shape(&ball, nan_position, Vec3::X, |_| true).unwrap_err();
    assert_eq!(err.field, "pose.position[1]");
    let err = world.cast_shape(&ball, Pose::IDENTITY, Vec3::new(f32::INFINITY, 0.0, 0.0), |_| true).unwrap_err();
    assert_eq!(err.field, "translation[0]");
    let bad_rotation = Pose::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 3.0));
    let err = world.overlap_shape(&ball, bad_rotation, |_| true).unwrap_err();
    assert_eq!(err.field, "pose.rotation");
    let err = world.overlap_aabb(Aabb::new(Vec3::ONE, Vec3::ZERO), |_| true).unwrap_err();
    assert_eq!(err.field, "aabb.max");
    let err = world.overlap_aabb(Aabb::new(Vec3::splat(f32::NAN), Vec3::ZERO), |_| true).unwrap_err();
    assert_eq!(err.field, "aabb.min[0]");
}
