//! Shapes other than boxes and spheres coming to rest on the ground in their stable poses.
//! Sleeping is off, so "at rest" is measured, not imposed by the sleep logic.

mod common;
use common::*;
use fulcrum::prelude::*;

fn awake_world() -> World {
    World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap()
}

fn drop_shape(world: &mut World, shape: Shape, position: Vec3, rotation: Quat) -> BodyId {
    let body = world.create_body(&BodyDef::dynamic(position).with_rotation(rotation)).unwrap();
    world.create_collider(body, &ColliderDef::new(shape)).unwrap();
    body
}

/// Largest speed of any point within `extent` of the centre: |v| + |ω| extent, m/s.
fn rim_speed(world: &World, id: BodyId, extent: f32) -> f32 {
    let b = world.body(id).unwrap();
    b.linear_velocity().length() + b.angular_velocity().length() * extent
}

/// A capsule (half height 0.5, radius 0.25) dropped along x, one end 0.2 rad low, lands on
/// that end, falls flat and rests after 2 s: centre speed < 1 cm/s and |ω| < 0.04 rad/s
/// (surface speed ω r < 1 cm/s), centre at y = radius within 2 mm, axis horizontal within
/// 0.01. Measured at 2 s: v ≈ 1.3 mm/s, ω ≈ 5e-3 rad/s about its axis, a roll that grows
/// from ~1e-5 rad/s after landing (the contact-cache drive of
/// `slowly_rolling_ball_keeps_its_speed`, which saturates near 6 mm/s).
#[test]
fn capsule_lying_on_the_ground_rests() {
    let mut world = awake_world();
    add_ground(&mut world, 0.6);
    let (h, r) = (0.5, 0.25);
    let tilt = 0.2f32;
    let lying = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2 + tilt);
    let start = Vec3::new(0.0, r + h * tilt.sin() + 0.02, 0.0);
    let capsule = drop_shape(&mut world, Shape::capsule(h, r).unwrap(), start, lying);
    run(&mut world, 120);
    let b = world.body(capsule).unwrap();
    let (v, w) = (b.linear_velocity(), b.angular_velocity());
    let (y, axis) = (b.position().y, b.rotation() * Vec3::Y);
    eprintln!("capsule: v {v} m/s, ω {w} rad/s, y − r = {:e} m, axis {axis}", y - r);
    assert!(v.length() < 0.01, "still moving at {v} m/s");
    assert!(w.length() < 0.04, "still turning at {w} rad/s");
    assert!((y - r).abs() < 0.002, "centre at y = {y}");
    assert!(axis.y.abs() < 0.01, "axis tilted: {axis}");
}

/// Angle between two vectors from atan2(|a × b|, a·b): accurate for small angles, where
/// acos of the dot product loses everything below ~3e-4 rad in f32.
fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Drops a cylinder (half height 0.5, radius 0.3) with its axis tilted by `tilt` rad, 1 cm
/// above the ground; returns the largest tilt over the last 2 s of 3 s, the rim speed and
/// the height of the centre at the end.
fn standing_cylinder(tilt: f32) -> (f32, f32, f32) {
    let mut world = awake_world();
    add_ground(&mut world, 0.6);
    let rotation = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.3).normalize(), tilt);
    let lowest = 0.5 * tilt.cos() + 0.3 * tilt.sin();
    let shape = Shape::cylinder(0.5, 0.3).unwrap();
    let cylinder = drop_shape(&mut world, shape, Vec3::new(0.0, lowest + 0.01, 0.0), rotation);
    let mut worst_tilt = 0.0f32;
    for step in 0..180 {
        world.step(DT).unwrap();
        if step >= 60 {
            worst_tilt = worst_tilt.max(angle(world.body(cylinder).unwrap().rotation() * Vec3::Y, Vec3::Y));
        }
    }
    (worst_tilt, rim_speed(&world, cylinder, 0.6), pos(&world, cylinder).y)
}

/// A cylinder set upright on the ground stays upright, and one set down tilted by 0.05 rad
/// (its centre well inside the base) rights itself: tilt < 0.01 rad over the last 2 s of 3 s,
/// centre at y = half height within 2 mm, rim speed < 1 cm/s.
#[test]
fn cylinder_standing_on_the_ground_rests_upright() {
    for start_tilt in [0.0, 0.05] {
        let (tilt, speed, y) = standing_cylinder(start_tilt);
        eprintln!(
            "cylinder from tilt {start_tilt}: tilt {tilt:e} rad, rim speed {speed:e} m/s, y − h = {:e} m",
            y - 0.5
        );
        assert!(tilt < 0.01, "tilted by {tilt} rad (start {start_tilt})");
        assert!((y - 0.5).abs() < 0.002, "centre at y = {y} (start {start_tilt})");
        assert!(speed < 0.01, "rim speed {speed} (start {start_tilt})");
    }
}

/// Lowest height of the given local points of a body, metres.
fn heights(world: &World, id: BodyId, local: &[Vec3]) -> Vec<f32> {
    let pose = world.body(id).unwrap().pose();
    local.iter().map(|&p| pose.transform_point(p).y).collect()
}

/// The corner tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1), dropped with its y = 0 face
/// down but tilted by 0.15 rad, settles on that face: its three base vertices at y = 0 within
/// 2 mm, the apex at y = 1 within 2 mm, rim speed < 1 cm/s after 2 s.
#[test]
fn tetrahedron_settles_on_a_face() {
    let mut world = awake_world();
    add_ground(&mut world, 0.6);
    let corners = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    let tilt = Quat::from_axis_angle(Vec3::new(1.0, 0.0, -1.0).normalize(), 0.15);
    let tet = drop_shape(&mut world, Shape::convex_hull(&corners).unwrap(), Vec3::new(0.0, 0.3, 0.0), tilt);
    run(&mut world, 120);
    let y = heights(&world, tet, &corners);
    let speed = rim_speed(&world, tet, 1.0);
    eprintln!("tetrahedron: vertex heights {y:?}, rim speed {speed:e} m/s");
    for (i, &base) in [0usize, 1, 3].iter().enumerate() {
        assert!(y[base].abs() < 0.002, "base vertex {i} at y = {}", y[base]);
    }
    assert!((y[2] - 1.0).abs() < 0.002, "apex at y = {}", y[2]);
    assert!(speed < 0.01);
}

/// An octagonal prism (circumradius 0.5, length 0.6) lying on a side face, tilted 0.1 rad
/// about its axis (less than half the 45° between faces), rolls back onto that face: the face
/// normal points down within 0.01 rad and the centre rests at the apothem 0.5 cos 22.5°
/// within 2 mm.
#[test]
fn octagonal_prism_rests_on_a_side_face() {
    let mut world = awake_world();
    add_ground(&mut world, 0.6);
    let points: Vec<Vec3> = (0..16)
        .map(|i| {
            let angle = (22.5 + 45.0 * (i % 8) as f32).to_radians();
            Vec3::new(0.5 * angle.cos(), if i < 8 { -0.3 } else { 0.3 }, 0.5 * angle.sin())
        })
        .collect();
    let prism = Shape::convex_hull(&points).unwrap();
    // Local -x (a side face normal) points down once local y is turned onto world x.
    let lying = Quat::from_rotation_x(0.1) * Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let apothem = 0.5 * 22.5f32.to_radians().cos();
    let body = drop_shape(&mut world, prism, Vec3::new(0.0, apothem + 0.1, 0.0), lying);
    run(&mut world, 120);
    let b = world.body(body).unwrap();
    let face_normal = b.rotation() * -Vec3::X;
    let (tilt, y, speed) = (angle(face_normal, -Vec3::Y), b.center_of_mass().y, rim_speed(&world, body, 0.6));
    eprintln!("prism: face tilt {tilt:e} rad, y − apothem {:e} m, rim speed {speed:e} m/s", y - apothem);
    assert!(tilt < 0.01, "the side face is tilted by {tilt} rad");
    assert!((y - apothem).abs() < 0.002, "centre at y = {y}, apothem {apothem}");
    assert!(speed < 0.01);
}

/// A sphere (r = 0.4) dropped on a static plane shape rests at y = r within 2 mm; a cube
/// beside it rests at its half extent.
#[test]
fn sphere_and_box_rest_on_a_plane_shape() {
    let mut world = awake_world();
    let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(ground, &ColliderDef::new(Shape::plane(Vec3::Y, 0.0).unwrap())).unwrap();
    let r = 0.4;
    let ball = drop_shape(&mut world, Shape::sphere(r).unwrap(), Vec3::new(0.0, 1.5, 0.0), Quat::IDENTITY);
    let cube =
        drop_shape(&mut world, Shape::cuboid(Vec3::splat(0.3)).unwrap(), Vec3::new(3.0, 1.0, 0.0), Quat::IDENTITY);
    run(&mut world, 120);
    let (y_ball, y_cube) = (pos(&world, ball).y, pos(&world, cube).y);
    let (v_ball, v_cube) = (rim_speed(&world, ball, r), rim_speed(&world, cube, 0.52));
    eprintln!(
        "plane: sphere y − r = {:e}, cube y − 0.3 = {:e}, speeds {v_ball:e} {v_cube:e}",
        y_ball - r,
        y_cube - 0.3
    );
    assert!((y_ball - r).abs() < 0.002, "sphere at y = {y_ball}");
    assert!((y_cube - 0.3).abs() < 0.002, "cube at y = {y_cube}");
    assert!(v_ball < 0.01 && v_cube < 0.01);
}

/// A ball (r = 0.5) settled on the ground and set rolling without slipping at `v0` m/s;
/// returns its velocity and angular velocity after 10 s.
fn rolling_ball(v0: f32) -> (Vec3, Vec3) {
    let mut world = awake_world();
    add_ground(&mut world, 0.6);
    let r = 0.5;
    let ball = drop_shape(&mut world, Shape::sphere(r).unwrap(), Vec3::new(0.0, r, 0.0), Quat::IDENTITY);
    run(&mut world, 30);
    world.set_linear_velocity(ball, Vec3::new(v0, 0.0, 0.0)).unwrap();
    world.set_angular_velocity(ball, Vec3::new(0.0, 0.0, -v0 / r)).unwrap();
    run(&mut world, 600);
    let b = world.body(ball).unwrap();
    (b.linear_velocity(), b.angular_velocity())
}

/// Rolling without slipping on flat ground meets no resistance: a ball rolling at 0.1 m/s
/// keeps v and ω = −v/r within 0.1% over 10 s.
#[test]
fn rolling_ball_keeps_its_speed() {
    let (v, w) = rolling_ball(0.1);
    eprintln!("rolling at 0.1 m/s: after 10 s v = {v}, ω = {w}");
    assert!((v.x / 0.1 - 1.0).abs() < 1e-3 && v.y.abs() < 1e-4 && v.z.abs() < 1e-4, "v = {v}");
    assert!((w.z / (-0.1 / 0.5) - 1.0).abs() < 1e-3, "ω = {w}");
}

/// The same at 1 mm/s: the ball keeps its speed within 5% over 10 s. (Regression: the contact
/// cache once carried a rolling ball's contact point along with the ball, so the point trailed
/// the centre and the normal impulse at that lever arm drove the ball to 6 mm/s; curved shapes
/// no longer use the cache.)
#[test]
fn slowly_rolling_ball_keeps_its_speed() {
    let (v, w) = rolling_ball(1e-3);
    eprintln!("rolling at 1 mm/s: after 10 s v = {v}, ω = {w}");
    assert!((v.x / 1e-3 - 1.0).abs() < 0.05, "v = {v}: the ball was driven");
    assert!((w.z / (-1e-3 / 0.5) - 1.0).abs() < 0.05, "ω = {w}");
}
