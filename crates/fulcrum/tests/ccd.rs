//! Continuous collision of bullets: fast thin or small bodies at thin walls.
//!
//! "Far side" means the body's centre has passed the wall's mid-plane. With `bullet` set the
//! tests assert it never ends a step there (checked after every step) and that it never
//! ends a step sunk more than [`SINK`] into the wall. Without `bullet` they print what
//! happens and assert nothing about it: the speculative contacts catch straight motion but
//! a thin body spinning fast can swing its end through a thin wall between two steps, and a
//! velocity given by an impulse just before a step is not in the broad phase's swept boxes.

use fulcrum::prelude::*;

const DT: f32 = 1.0 / 60.0;
/// Deepest a bullet may end a step inside the wall, metres: the contact solver's soft
/// overlap plus the half thickness a rod can sink before its next step is swept.
const SINK: f32 = 0.01;

/// A world without gravity holding a static wall 1 cm thick (x from `wall_x − 5 mm` to
/// `wall_x + 5 mm`), 4 m by 4 m.
fn world_with_wall(wall_x: f32) -> World {
    let settings = WorldSettings { gravity: Vec3::ZERO, ..WorldSettings::default() };
    let mut world = World::new(settings).unwrap();
    let wall = world.create_body(&BodyDef::fixed(Vec3::new(wall_x, 0.0, 0.0))).unwrap();
    world.create_collider(wall, &ColliderDef::new(Shape::cuboid(Vec3::new(0.005, 2.0, 2.0)).unwrap())).unwrap();
    world
}

/// Largest x reached by the box of half extents `h` at `pose`.
fn front_x(pose: Pose, h: Vec3) -> f32 {
    let axes = [pose.rotation * Vec3::X, pose.rotation * Vec3::Y, pose.rotation * Vec3::Z];
    pose.position.x + h.x * axes[0].x.abs() + h.y * axes[1].x.abs() + h.z * axes[2].x.abs()
}

/// What a run did: steps that ended with the centre past the wall's mid-plane, and the
/// deepest any part ended inside or beyond the wall's near face.
#[derive(Debug, Default)]
struct Outcome {
    steps_on_far_side: u32,
    deepest: f32,
}

/// A rod 1 m × 2 cm × 2 cm at x = 0 (turned `angle` about z) moving at 30 m/s towards a wall
/// at x = 2 while spinning at 60 rad/s about z: 0.5 m and 1 rad per step.
fn spinning_rod(bullet: bool, angle: f32) -> Outcome {
    let wall_x = 2.0;
    let mut world = world_with_wall(wall_x);
    let h = Vec3::new(0.5, 0.01, 0.01);
    let def = BodyDef::dynamic(Vec3::ZERO)
        .with_rotation(Quat::from_rotation_z(angle))
        .with_linear_velocity(Vec3::new(30.0, 0.0, 0.0))
        .with_angular_velocity(Vec3::new(0.0, 0.0, 60.0))
        .with_bullet(bullet);
    let rod = world.create_body(&def).unwrap();
    world.create_collider(rod, &ColliderDef::new(Shape::cuboid(h).unwrap())).unwrap();
    let mut outcome = Outcome::default();
    for _ in 0..60 {
        world.step(DT).unwrap();
        let pose = world.body(rod).unwrap().pose();
        if pose.position.x > wall_x {
            outcome.steps_on_far_side += 1;
        } else {
            outcome.deepest = outcome.deepest.max(front_x(pose, h) - (wall_x - 0.005));
        }
    }
    outcome
}

/// A sphere of radius 2 cm at 500 m/s (8.3 m per step) towards a wall 20 m away.
fn fast_sphere(bullet: bool) -> Outcome {
    let wall_x = 20.0;
    let mut world = world_with_wall(wall_x);
    let def = BodyDef::dynamic(Vec3::new(0.0, 0.3, -0.2))
        .with_linear_velocity(Vec3::new(500.0, 0.0, 0.0))
        .with_bullet(bullet);
    let ball = world.create_body(&def).unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.02).unwrap())).unwrap();
    track_ball(&mut world, ball, wall_x, 60)
}

/// Steps `world` `steps` times and records where the 2 cm ball ends each step relative to
/// the 1 cm wall whose centre is at `wall_x`.
fn track_ball(world: &mut World, ball: BodyId, wall_x: f32, steps: usize) -> Outcome {
    let mut outcome = Outcome::default();
    for _ in 0..steps {
        world.step(DT).unwrap();
        let x = world.body(ball).unwrap().position().x;
        if x > wall_x {
            outcome.steps_on_far_side += 1;
        } else {
            outcome.deepest = outcome.deepest.max(x + 0.02 - (wall_x - 0.005));
        }
    }
    outcome
}

#[test]
fn spinning_rod_bullet_never_ends_a_step_beyond_a_thin_wall() {
    let angles: Vec<f32> = (0..12).map(|k| k as f32 * std::f32::consts::PI / 12.0).collect();
    let mut tunnelled_without = 0;
    for &angle in &angles {
        let with = spinning_rod(true, angle);
        let without = spinning_rod(false, angle);
        eprintln!("start angle {angle:.2} rad: bullet {with:?}; not bullet {without:?}");
        tunnelled_without += (without.steps_on_far_side > 0) as u32;
        assert_eq!(with.steps_on_far_side, 0, "angle {angle}: the bullet rod passed the wall");
        assert!(with.deepest < SINK, "angle {angle}: the bullet rod sank {} m into the wall", with.deepest);
    }
    eprintln!("without bullet the rod passed the wall in {tunnelled_without} of {} runs", angles.len());
}

#[test]
fn fast_small_sphere_bullet_stays_on_the_near_side() {
    let with = fast_sphere(true);
    let without = fast_sphere(false);
    eprintln!("sphere at 500 m/s: bullet {with:?}; not bullet {without:?}");
    assert_eq!(with.steps_on_far_side, 0);
    assert!(with.deepest < SINK, "sank {} m", with.deepest);
}

/// A bullet ball rolling along the ground at 10 m/s (0.17 m per step, more than half its
/// 0.1 m radius, so it is swept every step) is not held back by the ground it touches: it
/// travels as far as the same ball without `bullet`, to 1 mm.
#[test]
fn bullet_rolling_on_the_ground_is_not_held_back() {
    let run = |bullet: bool| {
        let mut world = World::default();
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(50.0, 0.5, 5.0)).unwrap())).unwrap();
        let def = BodyDef::dynamic(Vec3::new(-20.0, 0.1, 0.0))
            .with_linear_velocity(Vec3::new(10.0, 0.0, 0.0))
            .with_angular_velocity(Vec3::new(0.0, 0.0, -100.0))
            .with_bullet(bullet);
        let ball = world.create_body(&def).unwrap();
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.1).unwrap())).unwrap();
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        world.body(ball).unwrap().position()
    };
    let (with, without) = (run(true), run(false));
    eprintln!("rolling: bullet at {with}, not bullet at {without}");
    assert!(with.x > -2.0, "it rolled on: {with}");
    assert!((with - without).length() < 1e-3, "{with} vs {without}");
}

/// A bullet sphere (2 cm, 500 m/s) at a free-floating dynamic plate 1 cm thick: it is swept
/// against the plate's end-of-step pose and never ends a step past the plate's mid-plane
/// (in the plate's frame: hit off-centre, the plate turns); the plate takes the momentum.
#[test]
fn bullet_meets_a_thin_dynamic_plate() {
    let run = |bullet: bool| {
        let settings = WorldSettings { gravity: Vec3::ZERO, ..WorldSettings::default() };
        let mut world = World::new(settings).unwrap();
        let plate = world.create_body(&BodyDef::dynamic(Vec3::new(20.0, 0.0, 0.0))).unwrap();
        world.create_collider(plate, &ColliderDef::new(Shape::cuboid(Vec3::new(0.005, 1.0, 1.0)).unwrap())).unwrap();
        let def = BodyDef::dynamic(Vec3::new(0.0, 0.3, -0.2))
            .with_linear_velocity(Vec3::new(500.0, 0.0, 0.0))
            .with_bullet(bullet);
        let ball = world.create_body(&def).unwrap();
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.02).unwrap())).unwrap();
        let mut far_side = 0;
        for _ in 0..60 {
            world.step(DT).unwrap();
            // The plate turns (the ball hits it off-centre): test in the plate's frame.
            let ball_at = world.body(ball).unwrap().position();
            let ball_x = world.body(plate).unwrap().pose().inverse_transform_point(ball_at).x;
            far_side += (ball_x > 0.0) as u32;
        }
        (far_side, world.body(plate).unwrap().linear_velocity().x)
    };
    let (with, without) = (run(true), run(false));
    eprintln!("dynamic plate: bullet (steps past, plate speed) {with:?}; not bullet {without:?}");
    assert_eq!(with.0, 0);
    assert!(with.1 > 0.0, "the plate was pushed");
}

/// A small sphere at rest 5 m from a thin wall is given 500 m/s by an impulse just before a
/// step: its proxy was swept with its old (zero) velocity, so the broad phase pairs it with
/// nothing that step. With `bullet` it is stopped in front of the wall.
#[test]
fn sphere_launched_by_an_impulse_at_a_thin_wall() {
    let run = |bullet: bool| {
        let wall_x = 5.0;
        let mut world = world_with_wall(wall_x);
        let def = BodyDef::dynamic(Vec3::new(0.0, 0.3, -0.2)).with_bullet(bullet);
        let ball = world.create_body(&def).unwrap();
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.02).unwrap())).unwrap();
        world.step(DT).unwrap();
        let mass = world.body(ball).unwrap().mass();
        world.apply_impulse(ball, Vec3::new(500.0 * mass, 0.0, 0.0)).unwrap();
        track_ball(&mut world, ball, wall_x, 30)
    };
    let (with, without) = (run(true), run(false));
    eprintln!("sphere launched by an impulse: bullet {with:?}; not bullet {without:?}");
    assert_eq!(with.steps_on_far_side, 0);
    assert!(with.deepest < SINK, "sank {} m", with.deepest);
}
