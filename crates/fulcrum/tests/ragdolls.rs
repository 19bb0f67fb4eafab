//! A pile of ragdolls: ten capsule ragdolls (cone-twist neck, shoulders and hips, hinge
//! elbows and knees with limits) dropped in a heap on the ground. Every joint stays closed
//! and within its limits the whole time, and the pile comes to rest.

mod common;
use common::joints::*;
use common::*;
use fulcrum::joint::Limits;
use fulcrum::prelude::*;
use std::f32::consts::{FRAC_PI_2, FRAC_PI_3, FRAC_PI_4, FRAC_PI_6};

/// A ball joint's limits: (cone half-angle, twist lower, twist upper), radians.
type ConeTwist = (f32, f32, f32);

/// One ragdoll's bodies and joints with their limits.
struct Ragdoll {
    bodies: Vec<BodyId>,
    balls: Vec<(JointId, ConeTwist)>,
    hinges: Vec<(JointId, Limits)>,
}

/// Angular damping of every limb, 1/s.
const LIMB_ANGULAR_DAMPING: f32 = 1.0;

/// A capsule body along the ragdoll's `direction` (Y or X, ragdoll frame), placed by `pose`.
fn limb(world: &mut World, pose: &Pose, center: Vec3, along_x: bool, half_height: f32, radius: f32) -> BodyId {
    let turn = if along_x { Quat::from_rotation_z(FRAC_PI_2) } else { Quat::IDENTITY };
    let mut def = BodyDef::dynamic(pose.transform_point(center)).with_rotation(pose.rotation * turn);
    // Some angular damping stands in for joint friction, as ragdolls in games have: without
    // it a limb resting against the rim of its cone swings along the rim for tens of seconds.
    def.angular_damping = LIMB_ANGULAR_DAMPING;
    let body = world.create_body(&def).unwrap();
    let shape = Shape::capsule(half_height, radius).unwrap();
    world.create_collider(body, &ColliderDef::new(shape).with_density(1000.0).with_friction(0.6)).unwrap();
    body
}

/// A ragdoll about 1.9 m tall and 78 kg in a T pose (ragdoll frame: Y up, arms along X,
/// facing +Z, feet at y = 0), placed by `pose`. Capsules (half height, radius, mass): torso
/// 0.2, 0.15 (42 kg); head 0.05, 0.1 (7.3 kg); upper arm 0.1, 0.06 (3.2 kg); forearm 0.1,
/// 0.05 (2.1 kg); thigh 0.13, 0.07 (5.4 kg); shin 0.12, 0.06 (3.6 kg): a 20:1 mass ratio
/// between torso and forearm. Joints: neck (cone 30°, twist ±30°), shoulders (cone 60°,
/// twist ±45°, axis along the arm), hips (cone 45°, twist ±30°, axis down the leg), elbows
/// (bend forward 0..2.5 rad), knees (bend backward 0..2.2 rad).
fn ragdoll(world: &mut World, pose: Pose) -> Ragdoll {
    let mut doll = Ragdoll { bodies: Vec::new(), balls: Vec::new(), hinges: Vec::new() };
    let torso = limb(world, &pose, Vec3::new(0.0, 1.2, 0.0), false, 0.2, 0.15);
    let head = limb(world, &pose, Vec3::new(0.0, 1.75, 0.0), false, 0.05, 0.1);
    doll.bodies.extend([torso, head]);
    let ball = |world: &mut World, doll: &mut Ragdoll, a, b, anchor: Vec3, axis: Vec3, limits: ConeTwist| {
        let def = JointDef::ball(Some(a), b, pose.transform_point(anchor))
            .with_axis(pose.rotation * axis)
            .with_cone_limit(limits.0)
            .with_limits(Limits::new(limits.1, limits.2));
        doll.balls.push((world.create_joint(&def).unwrap(), limits));
    };
    ball(world, &mut doll, torso, head, Vec3::new(0.0, 1.58, 0.0), Vec3::Y, (FRAC_PI_6, -FRAC_PI_6, FRAC_PI_6));
    let hinge = |world: &mut World, doll: &mut Ragdoll, a, b, anchor: Vec3, axis: Vec3, limits: Limits| {
        let def = JointDef::hinge(Some(a), b, pose.transform_point(anchor), pose.rotation * axis).with_limits(limits);
        doll.hinges.push((world.create_joint(&def).unwrap(), limits));
    };
    for side in [1.0f32, -1.0] {
        let upper_arm = limb(world, &pose, Vec3::new(side * 0.38, 1.45, 0.0), true, 0.1, 0.06);
        let forearm = limb(world, &pose, Vec3::new(side * 0.72, 1.45, 0.0), true, 0.1, 0.05);
        let thigh = limb(world, &pose, Vec3::new(side * 0.09, 0.62, 0.0), false, 0.13, 0.07);
        let shin = limb(world, &pose, Vec3::new(side * 0.09, 0.2, 0.0), false, 0.12, 0.06);
        doll.bodies.extend([upper_arm, forearm, thigh, shin]);
        let shoulder = (FRAC_PI_3, -FRAC_PI_4, FRAC_PI_4);
        ball(world, &mut doll, torso, upper_arm, Vec3::new(side * 0.2, 1.45, 0.0), Vec3::X * side, shoulder);
        ball(
            world,
            &mut doll,
            torso,
            thigh,
            Vec3::new(side * 0.09, 0.85, 0.0),
            -Vec3::Y,
            (FRAC_PI_4, -FRAC_PI_6, FRAC_PI_6),
        );
        // Turning about −Y (left) or +Y (right) swings the forearm towards +Z.
        let elbow = Vec3::new(side * 0.56, 1.45, 0.0);
        hinge(world, &mut doll, upper_arm, forearm, elbow, -Vec3::Y * side, Limits::new(0.0, 2.5));
        // Turning about +X swings the shin towards −Z.
        hinge(world, &mut doll, thigh, shin, Vec3::new(side * 0.09, 0.4, 0.0), Vec3::X, Limits::new(0.0, 2.2));
    }
    doll
}

/// Ten ragdolls lying face down in a heap, each 0.45 m above the last, turned 37° further
/// about the vertical through the hips and shifted a little, so that they land on each
/// other.
fn pile(world: &mut World) -> Vec<Ragdoll> {
    (0..10)
        .map(|i| {
            let lying = Quat::from_rotation_x(FRAC_PI_2);
            let heading = Quat::from_rotation_y(i as f32 * 37f32.to_radians());
            let shift = Vec3::new(0.15 * (i % 3) as f32 - 0.15, 0.4 + 0.45 * i as f32, 0.1 * (i % 2) as f32);
            // Turned about the hips (1 m up the ragdoll), so the dolls cross over each other.
            let hips = Pose::from_position(Vec3::new(0.0, -1.0, 0.0));
            ragdoll(world, Pose::new(shift, heading * lying).mul_pose(&hips))
        })
        .collect()
}

/// Worst figures seen over a run.
#[derive(Default, Debug)]
struct Worst {
    gap: f32,
    cone: f32,
    twist: f32,
    hinge: f32,
}

impl Worst {
    /// Updates with the current state: anchor gaps, and how far each angle is outside its
    /// limits (radians, 0 inside).
    fn observe(&mut self, world: &World, dolls: &[Ragdoll]) {
        let outside = |x: f32, lower: f32, upper: f32| (lower - x).max(x - upper).max(0.0);
        for doll in dolls {
            for &(joint, (cone, lower, upper)) in &doll.balls {
                self.gap = self.gap.max(joint_gap(world, joint));
                self.cone = self.cone.max(swing_angle(world, joint) - cone);
                self.twist = self.twist.max(outside(twist_angle(world, joint), lower, upper));
            }
            for &(joint, limits) in &doll.hinges {
                self.gap = self.gap.max(joint_gap(world, joint));
                let o = outside(hinge_angle(world, joint), limits.lower, limits.upper);
                if o > 0.05 && std::env::var("DEBUG").is_ok() {
                    eprintln!(
                        "t {} hinge {:?} angle {} limits {:?}",
                        world.step_count(),
                        joint,
                        hinge_angle(world, joint),
                        limits
                    );
                }
                self.hinge = self.hinge.max(o);
            }
        }
    }
}

/// Speeds of every ragdoll body: (fastest, root-mean-square weighted by mass), m/s, and
/// their kinetic energy (translation and rotation), J.
fn motion(world: &World, dolls: &[Ragdoll]) -> (f32, f32, f32) {
    let (mut fastest, mut momentum_energy, mut mass, mut kinetic) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for &body in dolls.iter().flat_map(|d| &d.bodies) {
        let b = world.body(body).unwrap();
        fastest = fastest.max(b.linear_velocity().length());
        momentum_energy += b.mass() * b.linear_velocity().length_squared();
        mass += b.mass();
        kinetic += b.kinetic_energy();
    }
    (fastest, (momentum_energy / mass).sqrt(), kinetic)
}

/// Σ m g y over the ragdoll bodies, J.
fn height_energy(world: &World, dolls: &[Ragdoll]) -> f32 {
    dolls.iter().flat_map(|d| &d.bodies).map(|&b| world.body(b).unwrap().mass() * 9.81 * pos(world, b).y).sum()
}

/// Ten ragdolls (110 bodies, 100 joints, 780 kg) dropped in a heap, in soft step and in pgs
/// (ngs) (at least three torsos
/// end up lying on other dolls). At every step no joint's anchors are more than 1 cm apart,
/// no swing leaves its cone and no twist or hinge angle its limits by more than 0.01 rad,
/// and every body stays finite.
///
/// After 6 s the heap has settled: its kinetic energy is below 10⁻⁴ of the height energy the
/// fall released, and no body moved faster than 1 m/s in the last second. It does not come
/// to a dead stop within 6 s: the joints have no friction (the limbs' angular damping of 1/s
/// stands in for it), and a limb resting against the rim of its cone swings along the rim
/// like a pendulum while the heap slowly slumps (a few limbs still move at 0.2 to 0.5 m/s;
/// jointed box ragdolls do the same, and so do capsule ragdolls without the exact tree
/// solve).
#[test]
fn ragdoll_pile_holds_together() {
    for (name, solver) in
        [("soft step", SolverSettings::default()), ("pgs ngs", SolverSettings::pgs(PositionCorrection::Ngs))]
    {
        drop_pile(name, solver);
    }
}

/// Drops the pile with `solver` and checks it (see `ragdoll_pile_holds_together`).
fn drop_pile(name: &str, solver: SolverSettings) {
    let mut world = World::new(WorldSettings { solver, ..Default::default() }).unwrap();
    add_ground(&mut world, 0.6);
    let dolls = pile(&mut world);
    let start_height = height_energy(&world, &dolls);
    let mut worst = Worst::default();
    let mut late_fastest = 0.0f32;
    for step in 1..=360 {
        world.step(DT).unwrap();
        assert!(world.events().disabled_bodies.is_empty(), "{name}: a body went non-finite at step {step}");
        for &body in dolls.iter().flat_map(|d| &d.bodies) {
            let b = world.body(body).unwrap();
            assert!(b.pose().is_finite() && b.linear_velocity().is_finite(), "{name}: step {step}");
        }
        worst.observe(&world, &dolls);
        if step > 300 {
            late_fastest = late_fastest.max(motion(&world, &dolls).0);
        }
    }
    let (fastest, rms, kinetic) = motion(&world, &dolls);
    let released = start_height - height_energy(&world, &dolls);
    let lowest = dolls.iter().flat_map(|d| &d.bodies).map(|&b| pos(&world, b).y).fold(f32::MAX, f32::min);
    // Lying on the ground a torso's centre is 0.15 m up: higher ones lie on other dolls.
    let torsos_on_dolls = dolls.iter().filter(|d| pos(&world, d.bodies[0]).y > 0.25).count();
    eprintln!(
        "ragdoll pile ({name}): largest anchor gap {:.5} m; outside limits by at most: cone {:.4}, twist {:.4}, hinge {:.4} rad; \
         at 6 s: kinetic energy {kinetic:.3} J of {released:.0} J released, rms speed {rms:.4} m/s, fastest {fastest:.3} m/s \
         (last second {late_fastest:.3}); lowest body centre {lowest:.3} m; {torsos_on_dolls} torsos lie on other dolls",
        worst.gap, worst.cone, worst.twist, worst.hinge,
    );
    assert!(worst.gap < 0.01, "{name}: a joint opened {} m", worst.gap);
    assert!(worst.cone < 0.01, "{name}: a swing left its cone by {} rad", worst.cone);
    assert!(worst.twist < 0.01, "{name}: a twist left its limits by {} rad", worst.twist);
    assert!(worst.hinge < 0.01, "{name}: a hinge left its limits by {} rad", worst.hinge);
    assert!(kinetic < 1e-4 * released, "{name}: still moving: {kinetic} J of {released} J");
    assert!(late_fastest < 1.0, "{name}: a body moved at {late_fastest} m/s in the last second");
    assert!(lowest > 0.0, "{name}: a body sank through the ground: {lowest}");
    assert!(torsos_on_dolls >= 3, "{name}: not a pile: {torsos_on_dolls} torsos above the ground layer");
}
