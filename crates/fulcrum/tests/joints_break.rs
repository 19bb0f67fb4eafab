//! Breakable joints: a joint whose reaction exceeds its break force or torque breaks once,
//! reports it, and stops acting; a joint below its limits holds and reads its load.

mod common;
use common::*;
use fulcrum::joint::JointBreak;
use fulcrum::prelude::*;

const G: f32 = 9.81;

/// A sphere of `mass` kg hung 1 m below a ball joint to the world at (x, 3, 0), breaking
/// above `break_force` N. Returns (body, joint).
fn hang(world: &mut World, x: f32, mass: f32, break_force: f32) -> (BodyId, JointId) {
    let anchor = Vec3::new(x, 3.0, 0.0);
    let body = world.create_body(&BodyDef::dynamic(anchor - Vec3::Y)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::sphere(0.1).unwrap())).unwrap();
    world.set_mass(body, Some(mass)).unwrap();
    let joint = world.create_joint(&JointDef::ball(None, body, anchor).with_break_force(break_force)).unwrap();
    (body, joint)
}

/// Steps once and collects the step's joint breaks.
fn step(world: &mut World, breaks: &mut Vec<(u64, JointBreak)>) {
    world.step(DT).unwrap();
    let count = world.step_count();
    breaks.extend(world.events().joint_breaks.iter().map(|b| (count, b.clone())));
}

/// Position and velocity after `steps` steps of free fall from (y, v) under the soft-step
/// integration (symplectic Euler per substep).
fn free_fall(mut y: f32, mut v: f32, steps: usize, substeps: u32) -> (f32, f32) {
    let h = DT / substeps as f32;
    for _ in 0..steps * substeps as usize {
        v -= G * h;
        y += v * h;
    }
    (y, v)
}

/// Two spheres hang on ball joints that break above 200 N: the 10 kg one (98.1 N) holds for
/// 3 s and reads its load within 1%; the 30 kg one (294 N) breaks in the first step,
/// reported once, and from then on falls exactly as a free body (within 1 mm after 1 s).
#[test]
fn overloaded_ball_joint_breaks_once_and_lets_go() {
    for (name, solver) in
        [("soft step", SolverSettings::default()), ("pgs", SolverSettings::pgs(PositionCorrection::Ngs))]
    {
        let substeps = if solver.mode == SolverMode::SoftStep { WorldSettings::default().substeps } else { 1 };
        let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
        let (light, holding) = hang(&mut world, 0.0, 10.0, 200.0);
        let (heavy, breaking) = hang(&mut world, 2.0, 30.0, 200.0);
        let mut breaks = Vec::new();
        step(&mut world, &mut breaks);
        let start = world.body(heavy).unwrap();
        let (y0, v0) = (start.position().y, start.linear_velocity().y);
        for _ in 0..60 {
            step(&mut world, &mut breaks);
        }
        let (y, v) = (world.body(heavy).unwrap().position().y, world.body(heavy).unwrap().linear_velocity().y);
        let (y_free, v_free) = free_fall(y0, v0, 60, substeps);
        for _ in 0..120 {
            step(&mut world, &mut breaks);
        }
        let load = world.joint(holding).unwrap().reaction_force();
        eprintln!(
            "{name}: breaks {:?}; after the break {y:.5} m, {v:.4} m/s vs free fall {y_free:.5} m, {v_free:.4} m/s; \
             holding joint reads {:.3} N (m g = {:.3} N), sphere at {:.5} m",
            breaks.iter().map(|(step, b)| (*step, b.force.length())).collect::<Vec<_>>(),
            load.length(),
            10.0 * G,
            world.body(light).unwrap().position().y,
        );
        assert_eq!(breaks.len(), 1, "{name}: {breaks:?}");
        let (at, event) = &breaks[0];
        assert_eq!((*at, event.joint), (1, breaking), "{name}");
        assert!(event.force.length() > 200.0, "{name}: broke at {:?}", event.force);
        assert!(world.joint(breaking).unwrap().is_broken() && !world.joint(breaking).unwrap().is_enabled());
        assert!((y - y_free).abs() < 1e-3 && (v - v_free).abs() < 1e-3, "{name}: {y} {v} vs {y_free} {v_free}");
        assert!(!world.joint(holding).unwrap().is_broken(), "{name}");
        assert!((load.y / (10.0 * G) - 1.0).abs() < 0.01, "{name}: load {load:?}");
        assert!((world.body(light).unwrap().position().y - 2.0).abs() < 1e-3, "{name}");
    }
}

/// A 1 m, 40 kg box welded by one end to the wall loads the weld with m g L/2 = 196.2 N·m:
/// a weld that breaks above 250 N·m holds it (and reads the torque within 1%), one that
/// breaks above 150 N·m lets it drop.
#[test]
fn weld_breaks_above_its_torque() {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    let half = Vec3::new(0.5, 0.1, 0.1);
    let mut welds = Vec::new();
    let mut boxes = Vec::new();
    for (z, limit) in [(0.0, 250.0), (2.0, 150.0)] {
        let body = add_box(&mut world, Vec3::new(0.5, 3.0, z), Quat::IDENTITY, half, 0.5);
        let def = JointDef::weld(None, body, Vec3::new(0.0, 3.0, z)).with_break_torque(limit);
        welds.push(world.create_joint(&def).unwrap());
        boxes.push(body);
    }
    let mut breaks = Vec::new();
    for _ in 0..60 {
        step(&mut world, &mut breaks);
    }
    let torque = world.joint(welds[0]).unwrap().reaction_torque();
    let expected = 40.0 * G * 0.5;
    let dropped = 3.0 - world.body(boxes[1]).unwrap().position().y;
    eprintln!(
        "weld torque: holding weld reads {:.2} N·m (m g L/2 = {expected:.2}); breaks {:?}; the other box dropped {dropped:.3} m in 1 s",
        torque.length(),
        breaks.iter().map(|(step, b)| (*step, b.torque.length())).collect::<Vec<_>>()
    );
    assert_eq!(breaks.len(), 1, "{breaks:?}");
    assert_eq!(breaks[0].1.joint, welds[1]);
    assert!(!world.joint(welds[0]).unwrap().is_broken() && world.joint(welds[1]).unwrap().is_broken());
    assert!((torque.length() / expected - 1.0).abs() < 0.01, "torque {torque:?}");
    assert!(dropped > 4.0, "the box under the broken weld dropped only {dropped} m");
}
