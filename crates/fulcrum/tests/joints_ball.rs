//! Ball joints with a cone and twist limits: a capsule hung from the world under a ball joint
//! whose axis points down, knocked sideways or spun about its length.

mod common;
use common::joints::*;
use common::*;
use fulcrum::joint::Limits;
use fulcrum::prelude::*;

const PIVOT: Vec3 = Vec3::new(0.0, 3.0, 0.0);
/// Centre of the capsule below the pivot, metres.
const DROP: f32 = 0.4;

/// The solver settings every test runs in.
fn modes() -> [(&'static str, SolverSettings); 3] {
    [
        ("soft step", SolverSettings::default()),
        ("soft step, iterative joints", SolverSettings { exact_joint_trees: false, ..Default::default() }),
        ("pgs ngs", SolverSettings::pgs(PositionCorrection::Ngs)),
    ]
}

/// A 0.8 m capsule (radius 0.05 m, density 1000) hanging from a ball joint with axis −Y,
/// with the given cone and twist limits. Returns (world, capsule, joint).
fn hung_capsule(solver: SolverSettings, cone: Option<f32>, twist: Option<Limits>) -> (World, BodyId, JointId) {
    let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
    let body = world.create_body(&BodyDef::dynamic(PIVOT - Vec3::Y * DROP)).unwrap();
    let shape = Shape::capsule(DROP - 0.05, 0.05).unwrap();
    world.create_collider(body, &ColliderDef::new(shape).with_density(1000.0)).unwrap();
    let mut def = JointDef::ball(None, body, PIVOT).with_axis(-Vec3::Y);
    if let Some(angle) = cone {
        def = def.with_cone_limit(angle);
    }
    if let Some(limits) = twist {
        def = def.with_limits(limits);
    }
    let joint = world.create_joint(&def).unwrap();
    (world, body, joint)
}

/// Knocked sideways at 4 rad/s about the pivot (enough to swing it past 90° when free), a
/// capsule on a 30° cone never swings more than 0.01 rad past the cone, reaches it, and its
/// anchors stay within 5 mm.
#[test]
fn cone_limit_holds_a_knocked_capsule() {
    let cone = 30f32.to_radians();
    for (name, solver) in modes() {
        let (mut world, body, joint) = hung_capsule(solver, Some(cone), None);
        // About the tilted axis (1, 0, 1): the swing direction is not a world axis.
        let w = Vec3::new(1.0, 0.0, 1.0).normalize() * 4.0;
        world.set_angular_velocity(body, w).unwrap();
        world.set_linear_velocity(body, w.cross(-Vec3::Y * DROP)).unwrap();
        let (mut largest, mut gap) = (0.0f32, 0.0f32);
        for _ in 0..180 {
            world.step(DT).unwrap();
            largest = largest.max(swing_angle(&world, joint));
            gap = gap.max(joint_gap(&world, joint));
        }
        eprintln!(
            "cone 30° ({name}): largest swing {:.4}° (excess {:.5} rad), anchor gap {gap:.5} m",
            largest.to_degrees(),
            largest - cone
        );
        assert!(largest - cone < 0.01, "{name}: swung {} rad past the cone", largest - cone);
        assert!(largest > cone - 0.01, "{name}: never reached the cone: {largest}");
        assert!(gap < 0.005, "{name}: joint opened {gap} m");
    }
}

/// Spun about its length at 10 rad/s, a capsule with twist limits ±0.5 rad never turns more
/// than 0.01 rad past them, and reaches the limit.
#[test]
fn twist_limits_stop_a_spinning_capsule() {
    for (name, solver) in modes() {
        let (mut world, body, joint) = hung_capsule(solver, None, Some(Limits::new(-0.5, 0.5)));
        world.set_angular_velocity(body, Vec3::Y * 10.0).unwrap();
        let (mut lowest, mut highest) = (0.0f32, 0.0f32);
        for _ in 0..120 {
            world.step(DT).unwrap();
            let twist = twist_angle(&world, joint);
            lowest = lowest.min(twist);
            highest = highest.max(twist);
        }
        eprintln!("twist ±0.5 ({name}): twist stayed in [{lowest:.4}, {highest:.4}] rad");
        // Turning about +Y is turning about −X of the joint frame: towards the lower limit.
        assert!(lowest > -0.51 && highest < 0.51, "{name}: twist left its limits: [{lowest}, {highest}]");
        assert!(lowest < -0.49, "{name}: never reached the limit: {lowest}");
    }
}

/// Both at once: knocked sideways and spun, a capsule on a 45° cone with twist limits
/// ±0.3 rad keeps both within 0.01 rad (the twist measured about the swung axis).
#[test]
fn cone_and_twist_together() {
    let cone = 45f32.to_radians();
    for (name, solver) in modes() {
        let (mut world, body, joint) = hung_capsule(solver, Some(cone), Some(Limits::new(-0.3, 0.3)));
        let w = Vec3::new(5.0, 6.0, 0.0);
        world.set_angular_velocity(body, w).unwrap();
        world.set_linear_velocity(body, w.cross(-Vec3::Y * DROP)).unwrap();
        let (mut swing, mut twist) = (0.0f32, 0.0f32);
        for _ in 0..180 {
            world.step(DT).unwrap();
            swing = swing.max(swing_angle(&world, joint));
            twist = twist.max(twist_angle(&world, joint).abs());
        }
        eprintln!(
            "cone 45° + twist ±0.3 ({name}): largest swing {:.4} rad (cone {cone:.4}), largest |twist| {twist:.4}",
            swing
        );
        assert!(swing - cone < 0.01, "{name}: swing {swing}");
        assert!(twist < 0.31, "{name}: twist {twist}");
        assert!(swing > cone - 0.05 && twist > 0.29, "{name}: limits not reached: {swing} {twist}");
    }
}

/// The capsule's mass and moment of inertia about the Z axis through the pivot, kg·m²: its
/// inertia about its centre (the engine's mass properties) plus m·d².
fn inertia_about_pivot(world: &World, body: BodyId) -> (f32, f32) {
    let b = world.body(body).unwrap();
    let mass = b.mass();
    let about_centre = b.inertia_world().z_axis.z;
    (mass, about_centre + mass * DROP * DROP)
}

/// Friction torque τ on a ball joint: a capsule held still at 30° from hanging, then let go.
/// With τ 20% above gravity's torque m g d sin 30° it stays within 0.002 rad for 2 s; with τ
/// at half of it, its first 0.1 s of swing follows the angular acceleration
/// (m g d sin θ − τ)/I within 3% (θ averaged over the swing; the integrator moves it by
/// α h² n(n+1)/2 in n solver steps of h).
#[test]
fn friction_torque_holds_below_and_slows_above_gravity() {
    let tilt = 30f32.to_radians();
    for (name, solver) in modes() {
        for (share, holds) in [(1.2f32, true), (0.5, false)] {
            let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
            // Tilted about Z: the centre sits at d (sin θ, −cos θ, 0) from the pivot.
            let rotation = Quat::from_rotation_z(tilt);
            let centre = PIVOT + rotation * (-Vec3::Y * DROP);
            let body = world.create_body(&BodyDef::dynamic(centre).with_rotation(rotation)).unwrap();
            let shape = Shape::capsule(DROP - 0.05, 0.05).unwrap();
            world.create_collider(body, &ColliderDef::new(shape).with_density(1000.0)).unwrap();
            let (mass, inertia) = inertia_about_pivot(&world, body);
            let gravity_torque = mass * 9.81 * DROP * tilt.sin();
            let torque = share * gravity_torque;
            world.create_joint(&JointDef::ball(None, body, PIVOT).with_friction_torque(torque)).unwrap();
            let angle = |world: &World| {
                let p = world.body(body).unwrap().position() - PIVOT;
                p.x.atan2(-p.y)
            };
            if holds {
                let mut worst = 0.0f32;
                for _ in 0..120 {
                    world.step(DT).unwrap();
                    worst = worst.max((angle(&world) - tilt).abs());
                }
                eprintln!("ball friction {share}× gravity ({name}): moved at most {worst:.6} rad in 2 s");
                assert!(worst < 0.002, "{name}: held joint moved {worst} rad");
            } else {
                let steps = 6;
                for _ in 0..steps {
                    world.step(DT).unwrap();
                }
                let turned = tilt - angle(&world);
                // The time average of θ over a swing from rest at constant α: θ₀ − Δθ/3.
                let middle = tilt - turned / 3.0;
                let expected = (mass * 9.81 * DROP * middle.sin() - torque) / inertia;
                // The positions move once per solver step (substep) of h = DT / n_s.
                let n = steps as f32 * world.settings().solver_steps() as f32;
                let h = DT / world.settings().solver_steps() as f32;
                let measured = 2.0 * turned / (h * h * n * (n + 1.0));
                eprintln!("ball friction {share}× gravity ({name}): α {measured:.4} rad/s² (expected {expected:.4})");
                assert!((measured / expected - 1.0).abs() < 0.03, "{name}: α {measured}, expected {expected}");
            }
        }
    }
}
