//! Sliders, wheels, angle locks and six-DOF joints: prismatic motor and limits, prismatic
//! spring frequency, a slider holding its rotation and line under side loads, a wheel on a
//! sprung line joint, two bodies turning together through an angle joint, and a six-DOF
//! joint set up as a hinge or with limits. Each runs in soft_step and in pgs.

mod common;
use common::joints::*;
use common::*;
use fulcrum::joint::{AxisMotion, JointDef, Limits, Motor, Spring};
use fulcrum::prelude::*;
use std::f32::consts::{PI, TAU};

/// The solver configurations every test runs in: the two modes with their defaults, and
/// each with a variant (soft_step with the joints solved iteratively instead of by the exact
/// tree solve; pgs with Baumgarte correction, where the tree solve has no projection).
fn modes() -> [(&'static str, SolverSettings); 4] {
    [
        ("soft_step", SolverSettings::default()),
        ("pgs", SolverSettings::pgs(PositionCorrection::Ngs)),
        ("soft_step iterative", SolverSettings { exact_joint_trees: false, ..Default::default() }),
        ("pgs baumgarte", SolverSettings::pgs(PositionCorrection::Baumgarte)),
    ]
}

fn world(solver: SolverSettings, gravity: Vec3) -> World {
    World::new(WorldSettings { solver, gravity, sleep: false, ..Default::default() }).unwrap()
}

/// A dynamic box of `mass` kg at `position`.
fn mass_box(world: &mut World, position: Vec3, half: Vec3, mass: f32) -> BodyId {
    let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::cuboid(half).unwrap())).unwrap();
    world.set_mass(body, Some(mass)).unwrap();
    body
}

/// Angle of a rotation, radians in [0, π] (from the vector part, exact for small angles).
fn angle_of(q: Quat) -> f32 {
    2.0 * Vec3::new(q.x, q.y, q.z).length().atan2(q.w.abs())
}

/// A velocity motor (2 m/s, at most 40 N) drives a 2 kg slider along a horizontal axis into
/// its upper limit at 1 m; it stops there within 1 cm and stays for 2 s, pressing on the
/// limit with the motor's force while the joint carries the weight (reaction readout). Then
/// the motor is reversed and the slider comes to rest on its lower limit.
#[test]
fn prismatic_motor_stops_at_upper_limit() {
    let (mass, upper, max_force) = (2.0, 1.0, 40.0);
    for (mode, solver) in modes() {
        let mut world = world(solver, Vec3::new(0.0, -9.81, 0.0));
        let start = Vec3::new(0.0, 1.0, 0.0);
        let body = mass_box(&mut world, start, Vec3::new(0.2, 0.1, 0.1), mass);
        let axis = Vec3::new(1.0, 0.0, 1.0).normalize();
        let slider = JointDef::prismatic(None, body, start, axis)
            .with_limits(Limits::new(-0.5, upper))
            .with_motor(Motor::Velocity { target_velocity: 2.0, max_force });
        let joint = world.create_joint(&slider).unwrap();
        let mut reached = None;
        let mut worst_overshoot = 0.0f32;
        let mut worst_off_line = 0.0f32;
        let mut worst_turn = 0.0f32;
        for step in 1..=(3.5 / DT) as usize {
            world.step(DT).unwrap();
            let offset = pos(&world, body) - start;
            let slide = offset.dot(axis);
            worst_off_line = worst_off_line.max((offset - axis * slide).length());
            worst_turn = worst_turn.max(angle_of(world.body(body).unwrap().rotation()));
            if reached.is_none() && slide > upper - 0.01 {
                reached = Some(step as f32 * DT);
            }
            if let Some(t) = reached {
                if step as f32 * DT >= t + 0.1 {
                    worst_overshoot = worst_overshoot.max((slide - upper).abs());
                }
            }
        }
        let reached = reached.expect("the slider never reached its limit");
        let force = world.joint(joint).unwrap().reaction_force();
        let weight = Vec3::new(0.0, mass * 9.81, 0.0);
        eprintln!(
            "{mode}: prismatic motor reached the limit at {reached:.3} s, then stayed within {:.2} mm of it \
             (off line {:.3} mm, turned {worst_turn:.5} rad); reaction force {force:?} vs weight {weight:?}",
            worst_overshoot * 1e3,
            worst_off_line * 1e3
        );
        // 1 m at 2 m/s after accelerating at 20 m/s²: about 0.55 s.
        assert!(reached < 0.8, "{mode}: reached the limit only at {reached} s");
        assert!(worst_overshoot < 0.01, "{mode}: {worst_overshoot} m from the limit");
        assert!(worst_off_line < 1e-3 && worst_turn < 0.01, "{mode}: off line {worst_off_line}, turned {worst_turn}");
        assert!((force - weight).length() < 0.02 * weight.length(), "{mode}: reaction {force:?}");
        assert!(vel(&world, body).length() < 0.01, "{mode}: still moving at {:?}", vel(&world, body));

        // Reversed through the API (the joint keeps its impulses), it drives to the lower limit.
        world.set_joint_motor(joint, Some(Motor::Velocity { target_velocity: -2.0, max_force })).unwrap();
        run(&mut world, (2.0 / DT) as usize);
        let slide = (pos(&world, body) - start).dot(axis);
        eprintln!("{mode}: reversed, the slider rests {:.2} mm from its lower limit", (slide + 0.5).abs() * 1e3);
        assert!((slide + 0.5).abs() < 0.01, "{mode}: reversed slider at {slide} m");
    }
}

/// A 3 kg slider on a 1.5 Hz undamped spring, set moving along the axis (gravity across
/// it), oscillates with the period 1/1.5 s within 3% (upward zero crossings over 6 periods):
/// anchored at its centre of mass, and anchored 0.3 m below it (on a rail under the body),
/// where the spring must still move the whole mass (the rotation is locked), not the 0.7 kg
/// a free box pushed 0.3 m off its centre would present.
#[test]
fn prismatic_spring_oscillates_at_its_frequency() {
    let hertz = 1.5;
    for (mode, solver) in modes() {
        for below in [0.0, 0.3] {
            let mut world = world(solver, Vec3::new(0.0, -9.81, 0.0));
            let start = Vec3::new(0.0, 2.0, 0.0);
            let body = mass_box(&mut world, start, Vec3::new(0.2, 0.2, 0.2), 3.0);
            world.set_linear_velocity(body, Vec3::new(0.0, 0.0, 0.5)).unwrap();
            let rail = start - Vec3::new(0.0, below, 0.0);
            let slider = JointDef::prismatic(None, body, rail, Vec3::Z).with_spring(Spring::new(hertz, 0.0));
            world.create_joint(&slider).unwrap();
            let mut samples = Vec::new();
            for step in 1..=(6.5 / hertz / DT) as usize {
                world.step(DT).unwrap();
                samples.push((step as f32 * DT, pos(&world, body).z - start.z));
            }
            let times = crossings(&samples);
            let period = (times[times.len() - 1] - times[0]) / (times.len() - 1) as f32;
            let expected = 1.0 / hertz;
            eprintln!(
                "{mode}: prismatic spring anchored {below} m below the centre: period {period:.4} s vs \
                 {expected:.4} s ({:+.2}%)",
                (period / expected - 1.0) * 100.0
            );
            assert!(times.len() >= 5, "{mode}, {below} m: only {} crossings", times.len());
            assert!((period / expected - 1.0).abs() < 0.03, "{mode}, {below} m: period {period} vs {expected}");
        }
    }
}

/// A 1 kg slider moving along its axis is pushed sideways (200 N) and twisted (30 N·m about
/// a skew axis) for a second, then hit by a sideways impulse: it keeps its orientation within
/// 0.01 rad and stays within 1 mm of its line, and its slide speed is untouched.
///
/// Not with the joints solved iteratively in soft_step: there the joint rows are soft at
/// the joint stiffness (60 Hz), and loads this large (200 m/s², 1500 rad/s² on this small
/// inertia) deflect them by F/(m ω²) ≈ 1.4 mm and τ/(I ω²) ≈ 0.01 rad, as they should.
#[test]
fn prismatic_holds_rotation_and_line_under_side_loads() {
    for (mode, solver) in modes().into_iter().filter(|(mode, _)| *mode != "soft_step iterative") {
        let mut world = world(solver, Vec3::new(0.0, -9.81, 0.0));
        let start = Vec3::new(0.0, 1.0, 0.0);
        let body = mass_box(&mut world, start, Vec3::new(0.3, 0.1, 0.1), 1.0);
        world.set_linear_velocity(body, Vec3::new(0.8, 0.0, 0.0)).unwrap();
        world.create_joint(&JointDef::prismatic(None, body, start, Vec3::X)).unwrap();
        let (mut worst_turn, mut worst_offset) = (0.0f32, 0.0f32);
        for step in 0..(2.0 / DT) as usize {
            if step < 60 {
                world.apply_force(body, Vec3::new(0.0, 120.0, 160.0)).unwrap();
                world.apply_torque(body, Vec3::new(10.0, -20.0, 20.0)).unwrap();
            }
            if step == 80 {
                world
                    .apply_impulse_at_point(body, Vec3::new(0.0, 2.0, -3.0), pos(&world, body) + Vec3::X * 0.3)
                    .unwrap();
            }
            world.step(DT).unwrap();
            let p = pos(&world, body);
            worst_offset = worst_offset.max(Vec3::new(0.0, p.y - start.y, p.z - start.z).length());
            worst_turn = worst_turn.max(angle_of(world.body(body).unwrap().rotation()));
        }
        let slide_speed = vel(&world, body).x;
        eprintln!(
            "{mode}: prismatic under side loads: turned at most {worst_turn:.6} rad, off line {:.4} mm, \
             slide speed {slide_speed:.4} m/s (started at 0.8)",
            worst_offset * 1e3
        );
        assert!(worst_turn < 0.01, "{mode}: turned {worst_turn} rad");
        assert!(worst_offset < 1e-3, "{mode}: {worst_offset} m off its line");
        assert!((slide_speed - 0.8).abs() < 0.01, "{mode}: the side loads changed the slide speed to {slide_speed}");
    }
}

/// A slider on a turning arm (both dynamic): a 2 kg arm hinged to the world is driven at
/// Ω = 3 rad/s about Z, and a 0.5 kg bead rides on it on a 1.5 Hz spring (ζ = 0.2), without
/// gravity. The spring's stiffness is k = m_eff (2π f)² with m_eff = 1/(1/m_A + 1/m_B) (the
/// slide row's effective mass: the axis passes through the arm's centre), so the bead
/// settles where k x = m_B Ω² (r₀ + x); it stays on the arm's axis within 1.5 mm (the tree
/// projection leaves each of the two rows up to 1 mm) and keeps the arm's orientation within
/// 0.01 rad. The slide row's r_A is taken to the bead's anchor (the axis turns with the
/// arm); with r_A at the arm's anchor instead, the bead settles 18% short.
///
/// The equilibrium holds within 2% in soft_step and 6% in pgs: integrating positions along
/// straight lines moves the bead outward by r (Ω h)²/2 each step, and the spring's damper
/// resists that apparent outward velocity; the error grows as h ζ ω (+4% at h = 1/60 s,
/// twice that at ζ = 0.5). With Baumgarte correction, or joints solved iteratively, the
/// arm's own hinge opens 6 mm at this speed, so those two configurations are left out.
#[test]
fn prismatic_on_a_turning_arm_settles_at_the_centrifugal_equilibrium() {
    let (arm_mass, bead_mass, hertz, spin, rest) = (2.0f32, 0.5f32, 1.5f32, 3.0f32, 1.5f32);
    for (mode, solver) in modes().into_iter().take(2) {
        let mut world = world(solver, Vec3::ZERO);
        let arm = mass_box(&mut world, Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 0.05, 0.05), arm_mass);
        let drive = Motor::Velocity { target_velocity: spin, max_force: 1000.0 };
        world.create_joint(&JointDef::hinge(None, arm, Vec3::ZERO, Vec3::Z).with_motor(drive)).unwrap();
        let bead = mass_box(&mut world, Vec3::new(rest, 0.0, 0.0), Vec3::splat(0.1), bead_mass);
        let slider = JointDef::prismatic(Some(arm), bead, Vec3::new(rest, 0.0, 0.0), Vec3::X)
            .with_spring(Spring::new(hertz, 0.2));
        world.create_joint(&slider).unwrap();
        let (mut worst_off_line, mut worst_turn) = (0.0f32, 0.0f32);
        for _ in 0..(6.0 / DT) as usize {
            world.step(DT).unwrap();
            let (arm_body, bead_body) = (world.body(arm).unwrap(), world.body(bead).unwrap());
            let along = arm_body.rotation() * Vec3::X;
            let p = bead_body.position() - arm_body.position();
            worst_off_line = worst_off_line.max((p - along * p.dot(along)).length());
            worst_turn = worst_turn.max(angle_of(arm_body.rotation().conjugate() * bead_body.rotation()));
        }
        let stiffness = (TAU * hertz).powi(2) / (1.0 / arm_mass + 1.0 / bead_mass);
        let centripetal = bead_mass * spin * spin;
        let expected = centripetal * rest / (stiffness - centripetal);
        let slide = pos(&world, bead).length() - rest;
        let turning = world.body(arm).unwrap().angular_velocity().z;
        eprintln!(
            "{mode}: bead on a turning arm ({turning:.4} rad/s): slide {slide:.5} m vs {expected:.5} m ({:+.2}%), \
             off the arm's axis {:.4} mm, turned against the arm {worst_turn:.6} rad",
            (slide / expected - 1.0) * 100.0,
            worst_off_line * 1e3
        );
        assert!((turning - spin).abs() < 0.02 * spin, "{mode}: the arm turns at {turning}");
        let tolerance = if mode == "pgs" { 0.06 } else { 0.02 };
        assert!((slide / expected - 1.0).abs() < tolerance, "{mode}: slide {slide} vs {expected}");
        assert!(worst_off_line < 1.5e-3, "{mode}: {worst_off_line} m off the arm's axis");
        assert!(worst_turn < 0.01, "{mode}: turned {worst_turn} rad against the arm");
    }
}

/// A 12 kg wheel (cylinder, axle along Z) hangs from a fixed chassis on a vertical line
/// joint with a 1.2 Hz spring (ζ = 0.5): k = m (2π f)², and the suspension settles at the
/// static deflection m·g/k within 3%. The wheel turns freely about its axle meanwhile: a
/// torque τ for one second adds τ/I to its spin within 1%, and nothing slows it.
#[test]
fn wheel_on_line_joint_settles_at_static_deflection() {
    let (mass, hertz, g) = (12.0f32, 1.2f32, 9.81f32);
    for (mode, solver) in modes() {
        let mut world = world(solver, Vec3::new(0.0, -g, 0.0));
        let chassis = world.create_body(&BodyDef::fixed(Vec3::new(0.0, 1.0, 0.0))).unwrap();
        world.create_collider(chassis, &ColliderDef::new(Shape::cuboid(Vec3::new(1.0, 0.1, 0.5)).unwrap())).unwrap();
        let hub = Vec3::new(0.8, 0.4, 0.0);
        let wheel = world.create_body(&BodyDef::dynamic(hub)).unwrap();
        let tyre =
            ColliderDef::new(Shape::cylinder(0.1, 0.3).unwrap()).with_pose(Vec3::ZERO, Quat::from_rotation_x(PI / 2.0));
        world.create_collider(wheel, &tyre).unwrap();
        world.set_mass(wheel, Some(mass)).unwrap();
        world.set_angular_velocity(wheel, Vec3::new(0.0, 0.0, 5.0)).unwrap();
        let suspension = JointDef::line(Some(chassis), wheel, hub, Vec3::Y).with_spring(Spring::new(hertz, 0.2));
        world.create_joint(&suspension).unwrap();
        let axle_inertia = world.body(wheel).unwrap().inertia_world().z_axis.z;
        let torque = 6.0;
        for step in 0..(5.0 / DT) as usize {
            if step < 60 {
                world.apply_torque(wheel, Vec3::new(0.0, 0.0, torque)).unwrap();
            }
            world.step(DT).unwrap();
        }
        let stiffness = mass * (TAU * hertz).powi(2);
        let expected = mass * g / stiffness;
        let deflection = hub.y - pos(&world, wheel).y;
        let spin = world.body(wheel).unwrap().angular_velocity();
        let expected_spin = 5.0 + torque * 1.0 / axle_inertia;
        let off_line = (pos(&world, wheel) - hub - Vec3::Y * (pos(&world, wheel).y - hub.y)).length();
        eprintln!(
            "{mode}: wheel deflection {deflection:.5} m vs m·g/k {expected:.5} m ({:+.2}%); spin {:.4} rad/s vs \
             {expected_spin:.4}; off line {:.4} mm",
            (deflection / expected - 1.0) * 100.0,
            spin.z,
            off_line * 1e3
        );
        assert!((deflection / expected - 1.0).abs() < 0.03, "{mode}: deflection {deflection} vs {expected}");
        assert!((spin.z / expected_spin - 1.0).abs() < 0.01, "{mode}: spin {spin:?} vs {expected_spin}");
        assert!(spin.x.abs() < 0.01 && spin.y.abs() < 0.01, "{mode}: the wheel wobbles: {spin:?}");
        assert!(off_line < 1e-3, "{mode}: the hub left the line by {off_line} m");
    }
}

/// Two bodies far apart (a box and a ball, different inertias), free to translate and
/// joined by an angle joint, without gravity: a torque on the ball for one second turns
/// both together. Their relative rotation stays within 0.01 rad, both spin at
/// τ·t / (I_A + I_B) within 1%, each carries the angular momentum of its own inertia, and
/// neither moves.
#[test]
fn angle_joint_turns_two_free_bodies_together() {
    for (mode, solver) in modes() {
        let mut world = world(solver, Vec3::ZERO);
        let block = mass_box(&mut world, Vec3::new(-2.0, 0.0, 0.0), Vec3::new(0.6, 0.3, 0.2), 4.0);
        let ball = world.create_body(&BodyDef::dynamic(Vec3::new(2.0, 1.0, 0.0))).unwrap();
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
        world.set_mass(ball, Some(1.5)).unwrap();
        world.create_joint(&JointDef::angle(Some(block), ball)).unwrap();
        let inertia = |world: &World, id: BodyId| world.body(id).unwrap().inertia_world().z_axis.z;
        let (inertia_block, inertia_ball) = (inertia(&world, block), inertia(&world, ball));
        let torque = 2.0;
        let mut worst_relative = 0.0f32;
        for step in 0..(1.5 / DT) as usize {
            if step < 60 {
                world.apply_torque(ball, Vec3::new(0.0, 0.0, torque)).unwrap();
            }
            world.step(DT).unwrap();
            let (qa, qb) = (world.body(block).unwrap().rotation(), world.body(ball).unwrap().rotation());
            worst_relative = worst_relative.max(angle_of(qa.conjugate() * qb));
        }
        let expected = torque * 1.0 / (inertia_block + inertia_ball);
        let spin = |id| world.body(id).unwrap().angular_velocity();
        let (spin_block, spin_ball) = (spin(block), spin(ball));
        let momentum = |id| world.body(id).unwrap().angular_momentum().z;
        let share = momentum(block) / momentum(ball);
        let drift = vel(&world, block).length().max(vel(&world, ball).length());
        eprintln!(
            "{mode}: angle joint: relative turn at most {worst_relative:.6} rad; spins {:.5} and {:.5} rad/s vs \
             {expected:.5}; momentum ratio {share:.4} vs inertia ratio {:.4}; drift {drift:.2e} m/s",
            spin_block.z,
            spin_ball.z,
            inertia_block / inertia_ball
        );
        assert!(worst_relative < 0.01, "{mode}: relative rotation {worst_relative} rad");
        for (name, w) in [("block", spin_block), ("ball", spin_ball)] {
            assert!((w.z / expected - 1.0).abs() < 0.01, "{mode}: {name} spins at {w:?}, expected {expected}");
            assert!(w.x.abs() < 1e-3 && w.y.abs() < 1e-3, "{mode}: {name} wobbles: {w:?}");
        }
        assert!((share / (inertia_block / inertia_ball) - 1.0).abs() < 0.01, "{mode}: momentum ratio {share}");
        assert!(drift < 1e-3, "{mode}: the bodies moved at {drift} m/s");
    }
}

/// A soft angle joint (1.2 Hz spring, undamped) holding a box's orientation to the world
/// lets it swing back and forth about a principal axis at the spring's frequency within 3%,
/// while it flies freely (translation is not constrained).
#[test]
fn soft_angle_joint_oscillates_at_its_frequency() {
    let hertz = 1.2;
    for (mode, solver) in modes() {
        let mut world = world(solver, Vec3::new(0.0, -9.81, 0.0));
        let body = mass_box(&mut world, Vec3::new(0.0, 5.0, 0.0), Vec3::new(0.4, 0.2, 0.1), 2.0);
        world.set_angular_velocity(body, Vec3::new(0.0, 0.0, 0.6)).unwrap();
        world.set_linear_velocity(body, Vec3::new(1.0, 2.0, 0.0)).unwrap();
        world.create_joint(&JointDef::angle(None, body).with_spring(Spring::new(hertz, 0.0))).unwrap();
        let mut samples = Vec::new();
        for step in 1..=(6.5 / hertz / DT) as usize {
            world.step(DT).unwrap();
            let q = world.body(body).unwrap().rotation();
            samples.push((step as f32 * DT, 2.0 * q.z * q.w.signum()));
        }
        let times = crossings(&samples);
        let period = (times[times.len() - 1] - times[0]) / (times.len() - 1) as f32;
        let expected = 1.0 / hertz;
        let fall = world.body(body).unwrap().linear_velocity().y - 2.0;
        let free_fall = -9.81 * (6.5 / hertz / DT).floor() * DT;
        eprintln!(
            "{mode}: soft angle joint period {period:.4} s vs {expected:.4} s ({:+.2}%); \
             fell at {fall:.3} m/s vs {free_fall:.3}",
            (period / expected - 1.0) * 100.0
        );
        assert!(times.len() >= 5, "{mode}: only {} crossings", times.len());
        assert!((period / expected - 1.0).abs() < 0.03, "{mode}: period {period} vs {expected}");
        assert!((fall - free_fall).abs() < 1e-3 * free_fall.abs(), "{mode}: the joint held the fall: {fall}");
    }
}

/// Poses, step by step over 2 s, of a bar hung by one end from a fixed pivot by `joint` and
/// set turning partly off the axis; the axis is tilted so the locked axes carry load.
fn pendulum_trajectory(solver: SolverSettings, joint: impl Fn(BodyId, Vec3, Vec3) -> JointDef) -> Vec<(Vec3, Quat)> {
    let mut world = world(solver, Vec3::new(0.0, -9.81, 0.0));
    let pivot = Vec3::new(0.0, 2.0, 0.0);
    let bar = mass_box(&mut world, pivot + Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.5, 0.05, 0.05), 1.0);
    world.set_angular_velocity(bar, Vec3::new(0.5, 1.0, 0.0)).unwrap();
    let axis = Vec3::new(0.0, 0.4, 1.0).normalize();
    world.create_joint(&joint(bar, pivot, axis)).unwrap();
    (0..(2.0 / DT) as usize)
        .map(|_| {
            world.step(DT).unwrap();
            let body = world.body(bar).unwrap();
            (body.position(), body.rotation())
        })
        .collect()
}

/// A six-DOF joint with every axis locked except the turn about X is a hinge: a pendulum on
/// it follows the same trajectory as on a hinge, within 2 mm and 0.005 rad over 2 s.
///
/// The rows of the two joints agree to first order; what separates the trajectories is the
/// tree solve's position projection, which leaves each row an error of up to 1 mm and so
/// corrects the two joints at different moments. With Baumgarte correction (no projection)
/// they agree within 0.01 mm and 1e-4 rad.
#[test]
fn six_dof_as_hinge_matches_hinge() {
    let hinge_axes = [
        AxisMotion::Locked,
        AxisMotion::Locked,
        AxisMotion::Locked,
        AxisMotion::Free,
        AxisMotion::Locked,
        AxisMotion::Locked,
    ];
    for (mode, solver) in modes() {
        let hinge = pendulum_trajectory(solver, |bar, pivot, axis| JointDef::hinge(None, bar, pivot, axis));
        let six = pendulum_trajectory(solver, |bar, pivot, axis| JointDef::six_dof(None, bar, pivot, axis, hinge_axes));
        let (mut worst_distance, mut worst_angle) = (0.0f32, 0.0f32);
        for ((p_hinge, q_hinge), (p_six, q_six)) in hinge.iter().zip(&six) {
            worst_distance = worst_distance.max((*p_hinge - *p_six).length());
            worst_angle = worst_angle.max(angle_of(q_hinge.conjugate() * *q_six));
        }
        let swing = hinge.iter().map(|(p, _)| p.y).fold(f32::MAX, f32::min);
        eprintln!(
            "{mode}: six-DOF hinge vs hinge over 2 s: {:.4} mm, {worst_angle:.6} rad apart \
             (pendulum down to y = {swing:.3})",
            worst_distance * 1e3
        );
        assert!(swing < 1.6, "{mode}: the pendulum did not swing (lowest y {swing})");
        let (distance, angle) = if mode == "pgs baumgarte" { (1e-5, 1e-4) } else { (2e-3, 5e-3) };
        assert!(worst_distance < distance, "{mode}: trajectories {worst_distance} m apart");
        assert!(worst_angle < angle, "{mode}: trajectories {worst_angle} rad apart");
    }
}

/// Six-DOF limits. A body on a vertical axis (frame X pointing down) with its slide limited
/// to [−0.1, 0.4] m and everything else locked falls onto its limit, never passes it by
/// 1 cm and rests within 1 cm of 0.4 m; a bar with only the turn about Z limited to
/// [−0.6, 0.6] rad falls from horizontal (hinged at its end), never passes its limit by
/// 0.02 rad and rests within 0.02 rad of −0.6. The locked axes hold within 1 mm.
#[test]
fn six_dof_limits_stop_translation_and_rotation() {
    use AxisMotion::{Limited, Locked};
    for (mode, solver) in modes() {
        let mut world = world(solver, Vec3::new(0.0, -9.81, 0.0));
        let start = Vec3::new(0.0, 2.0, 0.0);
        let body = mass_box(&mut world, start, Vec3::splat(0.1), 2.0);
        let axes = [Limited(-0.1, 0.4), Locked, Locked, Locked, Locked, Locked];
        world.create_joint(&JointDef::six_dof(None, body, start, -Vec3::Y, axes)).unwrap();
        let pivot = Vec3::new(3.0, 2.0, 0.0);
        let bar = mass_box(&mut world, pivot + Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.5, 0.05, 0.05), 1.0);
        let axes = [Locked, Locked, Locked, Locked, Locked, Limited(-0.6, 0.6)];
        world.create_joint(&JointDef::six_dof(None, bar, pivot, Vec3::X, axes)).unwrap();
        let (mut worst_slide, mut worst_turn) = (0.0f32, 0.0f32);
        let (mut slide_past, mut turn_past) = (0.0f32, 0.0f32);
        let mut worst_held = 0.0f32;
        for step in 1..=(2.5 / DT) as usize {
            world.step(DT).unwrap();
            let offset = pos(&world, body) - start;
            let rotation = world.body(bar).unwrap().rotation();
            let (axis, angle) = rotation.to_axis_angle();
            let turn = angle * axis.z.signum();
            if step as f32 * DT > 1.0 {
                worst_slide = worst_slide.max((-offset.y - 0.4).abs());
                worst_turn = worst_turn.max((turn + 0.6).abs());
            }
            slide_past = slide_past.max(-offset.y - 0.4);
            turn_past = turn_past.max(-0.6 - turn);
            worst_held = worst_held.max(Vec3::new(offset.x, 0.0, offset.z).length());
        }
        eprintln!(
            "{mode}: six-DOF slide limit: passed by at most {:.2} mm, rests within {:.2} mm; turn limit: passed \
             by at most {turn_past:.5} rad, rests within {worst_turn:.5} rad; locked axes within {:.4} mm",
            slide_past * 1e3,
            worst_slide * 1e3,
            worst_held * 1e3
        );
        assert!(worst_slide < 0.01 && slide_past < 0.01, "{mode}: slide {worst_slide} m from its limit");
        assert!(worst_turn < 0.02 && turn_past < 0.02, "{mode}: turn {worst_turn} rad from its limit");
        assert!(worst_held < 1e-3, "{mode}: a locked axis moved {worst_held} m");
    }
}
