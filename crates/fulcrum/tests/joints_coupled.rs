//! Distance (rod, rope, spring), pulley, gear and target joints against analytic references:
//! spring frequency, free fall inside a slack rope, an Atwood machine, a gear ratio in
//! velocity and angle, a force-capped drag, and the rope bridge of the constraints seed.

mod common;
use common::joints::*;
use common::*;
use fulcrum::joint::{JointDef, JointKind, Motor, Spring};
use fulcrum::prelude::*;

const G: f32 = 9.81;

/// A world without sleeping, with `gravity`, in solver `mode`.
fn world(gravity: Vec3, mode: SolverMode) -> World {
    world_with(gravity, SolverSettings { mode, ..Default::default() })
}

/// A world without sleeping, with `gravity` and `solver`.
fn world_with(gravity: Vec3, solver: SolverSettings) -> World {
    World::new(WorldSettings { sleep: false, gravity, solver, ..Default::default() }).unwrap()
}

/// A dynamic sphere of `radius` and `mass` kg at `position`.
fn ball(world: &mut World, position: Vec3, radius: f32, mass: f32) -> BodyId {
    let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::sphere(radius).unwrap())).unwrap();
    world.set_mass(body, Some(mass)).unwrap();
    body
}

/// The world anchors of a joint at the bodies' current poses.
fn anchors(world: &World, id: JointId) -> (Vec3, Vec3) {
    let joint = world.joint(id).unwrap();
    let anchor = |body: Option<BodyId>, local: Vec3| match body {
        Some(b) => world.body(b).unwrap().pose().transform_point(local),
        None => local,
    };
    (
        anchor(joint.body_a(), joint.local_frame_a().position),
        anchor(Some(joint.body_b()), joint.local_frame_b().position),
    )
}

/// Distance between a joint's two anchors, metres.
fn joint_length(world: &World, id: JointId) -> f32 {
    let (a, b) = anchors(world, id);
    (b - a).length()
}

/// The mean period of the upward crossings.
fn period(samples: &[(f32, f32)]) -> f32 {
    let times = crossings(samples);
    (times[times.len() - 1] - times[0]) / (times.len() - 1) as f32
}

/// A 2 kg ball on an undamped spring distance joint (2 Hz, rest 1 m, stretched to 1.2 m, no
/// gravity) oscillates at 2 Hz within 3%; so does one whose spring acts inside a length range
/// [0.5, 2] m; both solver modes. The anchor is at the centre of mass, so the spring's
/// effective mass is the ball's.
#[test]
fn spring_distance_oscillates_at_its_frequency() {
    let hertz = 2.0;
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let mut world = world(Vec3::ZERO, mode);
        let mut bodies = Vec::new();
        for (k, range) in [None, Some((0.5, 2.0))].into_iter().enumerate() {
            let pivot = Vec3::new(0.0, 0.0, 3.0 * k as f32);
            let body = ball(&mut world, pivot + Vec3::new(1.2, 0.0, 0.0), 0.1, 2.0);
            let mut def = JointDef::distance(None, body, pivot, pivot + Vec3::new(1.2, 0.0, 0.0))
                .with_rest_length(1.0)
                .with_spring(Spring::new(hertz, 0.0));
            if let Some((min, max)) = range {
                def = def.with_length_range(min, max);
            }
            world.create_joint(&def).unwrap();
            bodies.push(body);
        }
        let mut samples = [Vec::new(), Vec::new()];
        for step in 0..(5.0 / DT) as usize {
            world.step(DT).unwrap();
            for (k, &body) in bodies.iter().enumerate() {
                samples[k].push(((step + 1) as f32 * DT, pos(&world, body).x - 1.0));
            }
        }
        for (k, name) in ["rest length only", "inside [0.5, 2] m"].iter().enumerate() {
            let measured = 1.0 / period(&samples[k]);
            eprintln!("spring distance ({name}, {mode:?}): {measured:.4} Hz vs {hertz} Hz");
            assert!((measured / hertz - 1.0).abs() < 0.03, "{name} {mode:?}: {measured} Hz");
        }
    }
}

/// A ball on a 2 m rope, thrown inside the rope's reach, falls exactly as in free fall until
/// the rope goes taut (the rope pushes nothing); then it swings and jerks on the rope for
/// 10 s without the rope ever longer than 2 m by more than 1%.
#[test]
fn rope_pulls_and_never_pushes() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let mut world = world(Vec3::new(0.0, -G, 0.0), mode);
        let pivot = Vec3::new(0.0, 5.0, 0.0);
        let start = pivot + Vec3::new(0.3, -0.2, 0.0);
        let v0 = Vec3::new(1.5, 2.0, 0.5);
        let body = ball(&mut world, start, 0.1, 1.0);
        world.set_linear_velocity(body, v0).unwrap();
        let rope = world.create_joint(&JointDef::rope(None, body, pivot, start, 2.0)).unwrap();
        let (mut taut_at, mut worst_fall, mut worst_excess) = (None, 0.0f32, 0.0f32);
        for step in 1..=(10.0 / DT) as usize {
            world.step(DT).unwrap();
            let t = step as f32 * DT;
            let length = joint_length(&world, rope);
            if taut_at.is_none() && length > 2.0 - 0.05 {
                taut_at = Some(t);
            }
            if taut_at.is_none() {
                let expected = v0 + Vec3::new(0.0, -G, 0.0) * t;
                worst_fall = worst_fall.max((vel(&world, body) - expected).length());
            }
            worst_excess = worst_excess.max(length - 2.0);
        }
        let taut_at = taut_at.expect("the rope went taut");
        eprintln!(
            "rope ({mode:?}): free fall for {taut_at:.3} s, largest velocity deviation {worst_fall:.2e} m/s; \
             largest excess {:.3} mm ({:.3}%)",
            worst_excess * 1000.0,
            worst_excess / 2.0 * 100.0
        );
        assert!(taut_at > 0.3, "the throw stays inside the rope for a while");
        assert!(worst_fall < 1e-4, "the slack rope changed the velocity by {worst_fall} m/s");
        assert!(worst_excess < 0.02, "the rope stretched {worst_excess} m");
    }
}

/// A box swinging on a 1 m rod (anchored off its centre, so it also turns) keeps the rod's
/// length within 1% for 10 s, in both solver modes.
#[test]
fn rod_keeps_its_length() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let mut world = world(Vec3::new(0.0, -G, 0.0), mode);
        let pivot = Vec3::new(0.0, 3.0, 0.0);
        let body = add_box(&mut world, pivot + Vec3::new(1.1, 0.0, 0.0), Quat::IDENTITY, Vec3::splat(0.1), 0.5);
        let anchor = pivot + Vec3::new(1.0, 0.0, 0.05);
        let rod = world.create_joint(&JointDef::distance(None, body, pivot, anchor)).unwrap();
        let mut worst = 0.0f32;
        for _ in 0..(10.0 / DT) as usize {
            world.step(DT).unwrap();
            worst = worst.max((joint_length(&world, rod) - 1.0).abs());
        }
        eprintln!("rod ({mode:?}): largest length error {:.3} mm", worst * 1000.0);
        assert!(worst < 0.01, "the rod's length changed by {worst} m");
    }
}

/// An Atwood machine: `mass_a` and `mass_b` kg hanging 2 m (A) and 3 m (B) below their
/// ground anchors on a pulley of `ratio`. Returns the world, the bodies and the joint.
fn atwood(mode: SolverMode, mass_a: f32, mass_b: f32, ratio: f32) -> (World, BodyId, BodyId, JointId) {
    let mut world = world(Vec3::new(0.0, -G, 0.0), mode);
    let (ground_a, ground_b) = (Vec3::new(-1.0, 6.0, 0.0), Vec3::new(1.0, 6.0, 0.0));
    let (start_a, start_b) = (ground_a - Vec3::new(0.0, 2.0, 0.0), ground_b - Vec3::new(0.0, 3.0, 0.0));
    let a = ball(&mut world, start_a, 0.1, mass_a);
    let b = ball(&mut world, start_b, 0.1, mass_b);
    let def = JointDef::pulley(Some(a), b, (ground_a, ground_b), (start_a, start_b), ratio);
    let pulley = world.create_joint(&def).unwrap();
    (world, a, b, pulley)
}

/// len_a + ratio · len_b of a pulley at the current poses.
fn rope_total(world: &World, pulley: JointId) -> f32 {
    let (a, b) = anchors(world, pulley);
    let JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } = *world.joint(pulley).unwrap().kind() else {
        panic!("not a pulley")
    };
    (a - ground_anchor_a).length() + ratio * (b - ground_anchor_b).length()
}

/// 2 kg and 1 kg on a pulley of ratio 1 accelerate at g/3 within 2% (both solver modes);
/// the rope's tension reads m_b (g + a) = 4g/3 N.
#[test]
fn atwood_machine_accelerates_at_g_over_3() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let (mut world, a, b, pulley) = atwood(mode, 2.0, 1.0, 1.0);
        let seconds = 1.0;
        run(&mut world, (seconds / DT).round() as usize);
        let acceleration = -vel(&world, a).y / seconds;
        let rise = vel(&world, b).y / seconds;
        let tension = world.joint(pulley).unwrap().reaction_force().length();
        eprintln!(
            "atwood ({mode:?}): a = {acceleration:.4} m/s² (B {rise:.4}) vs g/3 = {:.4}; tension {tension:.3} N vs {:.3}",
            G / 3.0,
            4.0 * G / 3.0
        );
        assert!((acceleration / (G / 3.0) - 1.0).abs() < 0.02, "{acceleration}");
        assert!((rise / (G / 3.0) - 1.0).abs() < 0.02, "{rise}");
        assert!((tension / (4.0 * G / 3.0) - 1.0).abs() < 0.02, "{tension}");
    }
}

/// A block and tackle (ratio 2, 2 kg on A, 1 kg on B): A falls at
/// g (m_a − m_b/2) / (m_a + m_b/4) = 2g/3 and len_a + 2 len_b stays within 1 cm of its
/// value at creation.
#[test]
fn block_and_tackle_keeps_its_rope_length() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let (mut world, a, _, pulley) = atwood(mode, 2.0, 1.0, 2.0);
        let total = rope_total(&world, pulley);
        let mut worst = 0.0f32;
        let seconds = 1.0;
        for _ in 0..(seconds / DT).round() as usize {
            world.step(DT).unwrap();
            worst = worst.max((rope_total(&world, pulley) - total).abs());
        }
        let acceleration = -vel(&world, a).y / seconds;
        let expected = G * (2.0 - 0.5) / (2.0 + 0.25);
        eprintln!(
            "block and tackle ({mode:?}): len_a + 2 len_b within {:.3} mm; a = {acceleration:.4} vs {expected:.4}",
            worst * 1000.0
        );
        assert!(worst < 0.01, "the rope length changed by {worst} m");
        assert!((acceleration / expected - 1.0).abs() < 0.02, "{acceleration}");
    }
}

/// The turn of a body about `axis` since `reference`, unwrapped against `previous`.
fn unwrapped_turn(previous: f32, reference: Quat, rotation: Quat, axis: Vec3) -> f32 {
    let q = rotation * reference.conjugate();
    let twist = 2.0 * Vec3::new(q.x, q.y, q.z).dot(axis).atan2(q.w);
    let step = (twist - previous).rem_euclid(std::f32::consts::TAU);
    let step = if step > std::f32::consts::PI { step - std::f32::consts::TAU } else { step };
    previous + step
}

/// Two wheels hinged to the world about z, coupled by a gear of ratio 2 (θ_b = −2 θ_a); the
/// first is driven by a hinge velocity motor at 3 rad/s. After 1 s the angular velocities
/// keep the ratio within 1%, and so do the angles over 5 s (several turns of each wheel).
/// Both solver modes, and soft-step with the exact tree solve off (the gear and its hinges
/// then run in the iterative solver).
#[test]
fn gear_pair_turns_at_its_ratio() {
    let soft = SolverSettings::default();
    let pgs = SolverSettings { mode: SolverMode::Pgs, ..soft };
    let iterative = SolverSettings { exact_joint_trees: false, ..soft };
    for (name, solver) in [("soft step", soft), ("pgs", pgs), ("soft step, no tree solve", iterative)] {
        let mut world = world_with(Vec3::new(0.0, -G, 0.0), solver);
        let wheel = |world: &mut World, x: f32, radius: f32| {
            let body = world.create_body(&BodyDef::dynamic(Vec3::new(x, 2.0, 0.0))).unwrap();
            world.create_collider(body, &ColliderDef::new(Shape::cylinder(0.05, radius).unwrap())).unwrap();
            body
        };
        let (a, b) = (wheel(&mut world, 0.0, 0.4), wheel(&mut world, 0.6, 0.2));
        let motor = Motor::Velocity { target_velocity: 3.0, max_force: 50.0 };
        let hinge_a =
            world.create_joint(&JointDef::hinge(None, a, Vec3::new(0.0, 2.0, 0.0), Vec3::Z).with_motor(motor));
        let hinge_b = world.create_joint(&JointDef::hinge(None, b, Vec3::new(0.6, 2.0, 0.0), Vec3::Z));
        let (hinge_a, hinge_b) = (hinge_a.unwrap(), hinge_b.unwrap());
        world.create_joint(&JointDef::gear(hinge_a, hinge_b, 2.0)).unwrap();
        let (mut turn_a, mut turn_b) = (0.0f32, 0.0f32);
        let (mut worst_speed, mut worst_angle) = (0.0f32, 0.0f32);
        for step in 1..=(5.0 / DT) as usize {
            world.step(DT).unwrap();
            let (body_a, body_b) = (world.body(a).unwrap(), world.body(b).unwrap());
            turn_a = unwrapped_turn(turn_a, Quat::IDENTITY, body_a.rotation(), Vec3::Z);
            turn_b = unwrapped_turn(turn_b, Quat::IDENTITY, body_b.rotation(), Vec3::Z);
            if step as f32 * DT >= 1.0 {
                let (w_a, w_b) = (body_a.angular_velocity().z, body_b.angular_velocity().z);
                worst_speed = worst_speed.max((w_b / (-2.0 * w_a) - 1.0).abs());
                worst_angle = worst_angle.max((turn_b / (-2.0 * turn_a) - 1.0).abs());
            }
        }
        eprintln!(
            "gear ({name}): {:.2} turns of A, {:.2} of B; speed ratio off by {:.3}%, angle ratio by {:.3}%, \
             angle error {:.2e} rad",
            turn_a / std::f32::consts::TAU,
            turn_b / std::f32::consts::TAU,
            worst_speed * 100.0,
            worst_angle * 100.0,
            turn_b + 2.0 * turn_a
        );
        assert!(turn_a > 2.0 * std::f32::consts::TAU, "the motor turned A {turn_a} rad");
        assert!(worst_speed < 0.01 && worst_angle < 0.01, "speed {worst_speed}, angle {worst_angle}");
    }
}

/// A box held by a target joint at a corner-side anchor (10 Hz, ζ 0.7) is dragged to a
/// target 3 m away under gravity and settles there within 1 cm (the spring's sag is
/// g/ω² = 2.5 mm) within 6 s, swinging about the anchor until the spin damping stops it;
/// after the target moves it settles at the new one.
#[test]
fn target_joint_drags_a_body_to_the_target() {
    let mut world = world(Vec3::new(0.0, -G, 0.0), SolverMode::SoftStep);
    let body = add_box(&mut world, Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY, Vec3::splat(0.2), 0.5);
    let mass = world.body(body).unwrap().mass();
    let anchor = Vec3::new(0.15, 1.1, 0.05);
    let def = JointDef::target(body, anchor, Vec3::new(2.0, 3.0, 1.0), Spring::new(10.0, 0.7), 10.0 * mass * G);
    let drag = world.create_joint(&def).unwrap();
    for target in [Vec3::new(2.0, 3.0, 1.0), Vec3::new(-1.0, 2.0, 0.5)] {
        world.set_joint_target(drag, target).unwrap();
        run(&mut world, (6.0 / DT) as usize);
        let (_, anchor) = anchors(&world, drag);
        let miss = (anchor - target).length();
        let speed = vel(&world, body).length();
        eprintln!("target {target:?}: anchor {:.2} mm away, speed {speed:.2e} m/s", miss * 1000.0);
        assert!(miss < 0.01, "the anchor stopped {miss} m from the target");
        assert!(speed < 0.01, "still moving at {speed} m/s");
    }
}

/// A 2 kg body 10 m from its target, pulled with a 4 N cap (no gravity): every step's
/// velocity change and the reaction force stay within the cap, and the cap is what limits
/// the pull (the body accelerates at 2 m/s² at first).
#[test]
fn target_joint_force_is_capped() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let mut world = world(Vec3::ZERO, mode);
        let body = ball(&mut world, Vec3::ZERO, 0.2, 2.0);
        let max_force = 4.0;
        let def = JointDef::target(body, Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), Spring::new(5.0, 0.7), max_force);
        let drag = world.create_joint(&def).unwrap();
        let (mut largest_force, mut largest_reaction, mut first) = (0.0f32, 0.0f32, 0.0f32);
        let mut before = vel(&world, body);
        for step in 0..(6.0 / DT) as usize {
            world.step(DT).unwrap();
            let now = vel(&world, body);
            let force = 2.0 * (now - before).length() / DT;
            before = now;
            if step == 10 {
                first = force;
            }
            largest_force = largest_force.max(force);
            largest_reaction = largest_reaction.max(world.joint(drag).unwrap().reaction_force().length());
        }
        eprintln!(
            "target cap ({mode:?}): largest force from Δv {largest_force:.4} N, reaction {largest_reaction:.4} N \
             (cap {max_force} N); early pull {first:.4} N"
        );
        assert!(largest_force <= max_force * 1.001, "{largest_force} N");
        assert!(largest_reaction <= max_force * 1.001, "{largest_reaction} N");
        assert!(first > max_force * 0.99, "the pull is at the cap early on: {first} N");
    }
}

/// Linear damping of the bridge's cubes, 1/s. A chain of rigid links keeps swinging for
/// ever (nothing in it dissipates energy); this much air drag brings the seed's bridge to
/// rest within 10 s (with 1/s it is still moving at 2 cm/s then).
const BRIDGE_DAMPING: f32 = 1.5;

/// The rope bridge of the constraints seed, in metres (the seed's units / 100): two fixed
/// cubes 2.4 m apart, ten 0.2 kg cubes (0.16 m wide) 0.2 m apart between them, and eleven
/// distance joints of 0.3 m between the centres of neighbours (rods as in the seed, whose
/// constraint holds the distance both ways, or ropes of that maximum length). The joints
/// start 10 cm short of their length, so the bridge flops down. Returns the world, the cubes
/// and the joints.
fn rope_bridge(rope: bool, mode: SolverMode) -> (World, Vec<BodyId>, Vec<JointId>) {
    let mut world = world(Vec3::new(0.0, -G, 0.0), mode);
    let (links, spacing, length, half) = (10, 0.2f32, 0.3f32, Vec3::splat(0.08));
    let cube = |world: &mut World, i: usize, fixed: bool| {
        let position = Vec3::new(spacing * i as f32, 5.0, 0.0);
        let def = if fixed { BodyDef::fixed(position) } else { BodyDef::dynamic(position) };
        let body = world.create_body(&def).unwrap();
        world.create_collider(body, &ColliderDef::new(Shape::cuboid(half).unwrap())).unwrap();
        if !fixed {
            world.set_mass(body, Some(0.2)).unwrap();
            world.set_damping(body, BRIDGE_DAMPING, 0.0).unwrap();
        }
        body
    };
    let start = cube(&mut world, 0, true);
    let end = cube(&mut world, links + 2, true);
    let mut cubes = Vec::new();
    let mut joints = Vec::new();
    let mut previous = start;
    for i in 0..=links {
        let next = if i < links { cube(&mut world, i + 1, false) } else { end };
        let (a, b) = (pos(&world, previous), pos(&world, next));
        let def = if rope {
            JointDef::rope(Some(previous), next, a, b, length)
        } else {
            JointDef::distance(Some(previous), next, a, b).with_rest_length(length)
        };
        joints.push(world.create_joint(&def).unwrap());
        if i < links {
            cubes.push(next);
        }
        previous = next;
    }
    (world, cubes, joints)
}

/// Sag of the middle of a hanging chain of 11 massless links of `length` carrying 10 equal
/// masses, between supports `span` apart. The horizontal tension H is the same in every
/// link and link k carries the weight of the masses between it and the middle, so
/// tan θ_k = (5 − k) x with x = m g / H; x is found by bisection from Σ L cos θ_k = span.
fn hanging_chain_sag(length: f32, span: f32) -> f32 {
    let slope = |k: usize, x: f32| (5.0 - k as f32) * x;
    let reach = |x: f32| (0..11).map(|k| length / (1.0 + slope(k, x).powi(2)).sqrt()).sum::<f32>();
    let (mut low, mut high) = (0.0f32, 100.0f32);
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if reach(mid) > span {
            low = mid;
        } else {
            high = mid;
        }
    }
    (0..5).map(|k| length * slope(k, low) / (1.0 + slope(k, low).powi(2)).sqrt()).sum()
}

/// The rope bridge sags into the U of a hanging chain (its middle within 1 cm of the
/// analytic sag) and comes to rest: after 10 s no cube moves faster than 1 cm/s and every
/// joint is within 1 cm of its length. Rods in soft-step and pgs mode, ropes in soft-step.
#[test]
fn rope_bridge_sags_and_rests() {
    let expected_sag = hanging_chain_sag(0.3, 2.4);
    for (rope, mode) in [(false, SolverMode::SoftStep), (true, SolverMode::SoftStep), (false, SolverMode::Pgs)] {
        let (mut world, cubes, joints) = rope_bridge(rope, mode);
        run(&mut world, (10.0 / DT).round() as usize);
        let speed = cubes.iter().map(|&c| vel(&world, c).length()).fold(0.0f32, f32::max);
        let error = joints.iter().map(|&j| (joint_length(&world, j) - 0.3).abs()).fold(0.0f32, f32::max);
        let sag = 5.0 - 0.5 * (pos(&world, cubes[4]).y + pos(&world, cubes[5]).y);
        let kind = if rope { "ropes" } else { "rods" };
        eprintln!(
            "rope bridge ({kind}, {mode:?}) after 10 s: max speed {:.2} mm/s, max joint error {:.2} mm, \
             sag {sag:.4} m vs {expected_sag:.4} m",
            speed * 1000.0,
            error * 1000.0
        );
        assert!(speed < 0.01, "{kind} {mode:?}: still moving at {speed} m/s");
        assert!(error < 0.01, "{kind} {mode:?}: a joint is {error} m off its length");
        assert!((sag - expected_sag).abs() < 0.01, "{kind} {mode:?}: sag {sag} vs {expected_sag}");
    }
}

/// A 3 kg ball hanging at rest on a rod reads the rod's pull as the reaction force: m g
/// upwards, within 1%.
#[test]
fn rod_reaction_holds_the_weight() {
    let mut world = world(Vec3::new(0.0, -G, 0.0), SolverMode::SoftStep);
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    let body = ball(&mut world, pivot - Vec3::new(0.0, 1.0, 0.0), 0.1, 3.0);
    let rod = world.create_joint(&JointDef::distance(None, body, pivot, pivot - Vec3::Y)).unwrap();
    run(&mut world, 60);
    let force = world.joint(rod).unwrap().reaction_force();
    eprintln!("rod reaction {force:?} N vs {:.3} N up", 3.0 * G);
    assert!((force - Vec3::new(0.0, 3.0 * G, 0.0)).length() < 0.01 * 3.0 * G, "{force:?}");
}

/// Coincident anchors have no direction; nothing turns into NaN. A rod of 0.5 m made with
/// its anchors together pushes them apart to 0.5 m; a rope (max 1 m) and a zero-length
/// spring made that way let the ball fall freely from them.
#[test]
fn coincident_anchors_stay_finite() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let mut world = world(Vec3::new(0.0, -G, 0.0), mode);
        let point = |k: usize| Vec3::new(3.0 * k as f32, 3.0, 0.0);
        let bodies: Vec<BodyId> = (0..3).map(|k| ball(&mut world, point(k), 0.1, 1.0)).collect();
        let rod = JointDef::distance(None, bodies[0], point(0), point(0)).with_rest_length(0.5);
        let rope = JointDef::rope(None, bodies[1], point(1), point(1), 1.0);
        let spring = JointDef::distance(None, bodies[2], point(2), point(2)).with_spring(Spring::new(1.0, 0.5));
        let joints: Vec<JointId> = [rod, rope, spring].iter().map(|def| world.create_joint(def).unwrap()).collect();
        run(&mut world, 6);
        let fall = vel(&world, bodies[1]).y;
        run(&mut world, 54);
        for &body in &bodies {
            let p = pos(&world, body);
            assert!(p.is_finite() && vel(&world, body).is_finite(), "{mode:?}: {p:?}");
        }
        let rod_length = joint_length(&world, joints[0]);
        eprintln!("coincident anchors ({mode:?}): rod {rod_length:.4} m; rope fall speed at 0.1 s {fall:.4} m/s");
        assert!((rod_length - 0.5).abs() < 0.005, "the rod is {rod_length} m long");
        assert!((fall + G * 0.1).abs() < 1e-4, "the slack rope held the ball: {fall} m/s");
    }
}

/// Changing a distance joint's spring keeps its rest length (the distance at creation, not
/// at the change), and setting a target on any other kind is refused with the field named.
#[test]
fn distance_joint_changes_keep_the_creation_length() {
    let mut world = world(Vec3::ZERO, SolverMode::SoftStep);
    let body = ball(&mut world, Vec3::new(1.0, 0.0, 0.0), 0.1, 1.0);
    let joint = world.create_joint(&JointDef::distance(None, body, Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0))).unwrap();
    world.set_linear_velocity(body, Vec3::new(0.0, 0.0, 1.0)).unwrap();
    run(&mut world, 30);
    world.set_body_pose(body, Vec3::new(1.3, 0.0, 0.0), Quat::IDENTITY).unwrap();
    world.set_linear_velocity(body, Vec3::ZERO).unwrap();
    world.set_joint_spring(joint, Some(Spring::new(4.0, 1.0))).unwrap();
    run(&mut world, 120);
    let length = joint_length(&world, joint);
    eprintln!("spring set on a rod stretched to 1.3 m: settles at {length:.4} m");
    assert!((length - 1.0).abs() < 0.005, "{length}");
    let error = world.set_joint_target(joint, Vec3::ZERO).unwrap_err();
    assert_eq!(error.field, "target", "{error}");
}

/// A range joint [0.5, 1] m: a ball thrown towards the anchor and then away (no gravity)
/// is stopped by both limits, each within 1%, in both solver modes; in between it moves
/// freely.
#[test]
fn range_holds_both_limits() {
    for mode in [SolverMode::SoftStep, SolverMode::Pgs] {
        let mut world = world(Vec3::ZERO, mode);
        let start = Vec3::new(0.75, 0.0, 0.0);
        let body = ball(&mut world, start, 0.05, 1.0);
        world.set_linear_velocity(body, Vec3::new(-3.0, 0.4, 0.0)).unwrap();
        let def = JointDef::distance(None, body, Vec3::ZERO, start).with_length_range(0.5, 1.0);
        let range = world.create_joint(&def).unwrap();
        let (mut shortest, mut longest) = (f32::MAX, 0.0f32);
        for step in 0..(3.0 / DT) as usize {
            if step == 60 {
                let outward = pos(&world, body).normalize() * 3.0;
                world.set_linear_velocity(body, outward + Vec3::new(0.0, 0.0, 0.4)).unwrap();
            }
            world.step(DT).unwrap();
            let length = joint_length(&world, range);
            (shortest, longest) = (shortest.min(length), longest.max(length));
        }
        eprintln!("range [0.5, 1] ({mode:?}): length from {shortest:.4} to {longest:.4} m");
        assert!(shortest > 0.495 && shortest < 0.51, "shortest {shortest}");
        assert!(longest < 1.01 && longest > 0.99, "longest {longest}");
    }
}
