//! Friction, slopes, rolling and bouncing against analytic predictions.

mod common;
use common::*;
use fulcrum::prelude::*;

/// A box sliding at 5 m/s with μ = 0.5 stops after v²/(2μg) within 2%.
#[test]
fn sliding_box_stops_at_the_coulomb_distance() {
    let mut world = world_with_solver(SolverSettings::default());
    add_ground(&mut world, 0.5);
    let b = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.5);
    run(&mut world, 30); // settle on the ground
    let start = pos(&world, b).x;
    world.set_linear_velocity(b, Vec3::new(5.0, 0.0, 0.0)).unwrap();
    let mut steps = 0;
    while vel(&world, b).x > 1e-3 && steps < 600 {
        world.step(DT).unwrap();
        steps += 1;
    }
    let distance = pos(&world, b).x - start;
    let expected = 5.0f32 * 5.0 / (2.0 * 0.5 * 9.81);
    eprintln!("sliding box: {distance:.4} m, expected {expected:.4} m");
    assert!((distance / expected - 1.0).abs() < 0.02, "stopped after {distance} m, expected {expected} m");
}

/// Builds a static slope tilted by `angle` about z and a unit box resting on it.
fn box_on_slope(angle: f32, friction: f32) -> (World, BodyId, Vec3) {
    let mut world = world_with_solver(SolverSettings::default());
    let tilt = Quat::from_rotation_z(angle);
    let slope = world.create_body(&BodyDef::fixed(Vec3::ZERO).with_rotation(tilt)).unwrap();
    world
        .create_collider(
            slope,
            &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 0.5, 5.0)).unwrap()).with_friction(friction),
        )
        .unwrap();
    let up = tilt * Vec3::Y;
    let b = add_box(&mut world, up * 1.0, tilt, Vec3::splat(0.5), friction);
    // Down the slope (the slope rises towards +x for a positive angle).
    let down = tilt * -Vec3::X;
    (world, b, down)
}

/// μ = 0.7 on a 30° slope holds a box: it moves less than 5 mm in 5 s.
#[test]
fn static_friction_holds_on_a_slope() {
    let (mut world, b, _) = box_on_slope(30f32.to_radians(), 0.7);
    run(&mut world, 10);
    let start = pos(&world, b);
    run(&mut world, 300);
    let moved = (pos(&world, b) - start).length();
    eprintln!("slope mu=0.7: moved {moved:e} m in 5 s");
    assert!(moved < 0.005, "moved {moved} m");
}

/// μ = 0.3 on a 30° slope: a = g (sin 30° − 0.3 cos 30°) within 3%.
#[test]
fn kinetic_friction_on_a_slope() {
    let angle = 30f32.to_radians();
    let (mut world, b, down) = box_on_slope(angle, 0.3);
    run(&mut world, 30);
    let v1 = vel(&world, b).dot(down);
    run(&mut world, 60);
    let v2 = vel(&world, b).dot(down);
    let a = (v2 - v1) / (60.0 * DT);
    let expected = 9.81 * (angle.sin() - 0.3 * angle.cos());
    eprintln!("slope mu=0.3: a = {a:.4}, expected {expected:.4}");
    assert!((a / expected - 1.0).abs() < 0.03, "a = {a}, expected {expected}");
}

/// A solid sphere rolls down a 20° slope with a = 5/7 g sin 20° within 3%.
#[test]
fn sphere_rolls_with_five_sevenths_acceleration() {
    let angle = 20f32.to_radians();
    let mut world = world_with_solver(SolverSettings::default());
    let tilt = Quat::from_rotation_z(angle);
    let slope = world.create_body(&BodyDef::fixed(Vec3::ZERO).with_rotation(tilt)).unwrap();
    world.create_collider(slope, &ColliderDef::new(Shape::cuboid(Vec3::new(40.0, 0.5, 5.0)).unwrap())).unwrap();
    let ball = world.create_body(&BodyDef::dynamic(tilt * Vec3::new(10.0, 1.0, 0.0))).unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    let down = tilt * -Vec3::X;
    run(&mut world, 20);
    let v1 = vel(&world, ball).dot(down);
    run(&mut world, 90);
    let v2 = vel(&world, ball).dot(down);
    let a = (v2 - v1) / (90.0 * DT);
    let expected = 5.0 / 7.0 * 9.81 * angle.sin();
    eprintln!("rolling sphere: a = {a:.4}, expected {expected:.4}");
    assert!((a / expected - 1.0).abs() < 0.03, "a = {a}, expected {expected}");
}

/// A ball of radius 0.5 m with rolling resistance `c` rolled at 2 m/s on level ground: the
/// resisting torque c·m·g·r decelerates it at a = 5/7·c·g, so it stops after v²/(2a).
fn rolling_distance(c: f32, solver: SolverSettings) -> (f32, f32) {
    let mut world = world_with_solver(solver);
    add_ground(&mut world, 0.6);
    let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 0.5, 0.0))).unwrap();
    let def = ColliderDef::new(Shape::sphere(0.5).unwrap()).with_rolling_resistance(c);
    world.create_collider(ball, &def).unwrap();
    run(&mut world, 10);
    let start = pos(&world, ball).x;
    world.set_linear_velocity(ball, Vec3::new(2.0, 0.0, 0.0)).unwrap();
    world.set_angular_velocity(ball, Vec3::new(0.0, 0.0, -4.0)).unwrap();
    let mut steps = 0;
    while vel(&world, ball).x > 1e-3 && steps < 1200 {
        world.step(DT).unwrap();
        steps += 1;
    }
    let expected = 2.0f32 * 2.0 / (2.0 * 5.0 / 7.0 * c * 9.81);
    (pos(&world, ball).x - start, expected)
}

/// Rolling resistance 0.1 stops a ball rolling at 2 m/s after v²/(2·5/7·c·g) within 2%, in
/// both solver modes.
#[test]
fn rolling_resistance_stops_a_ball_at_the_predicted_distance() {
    for (mode, solver) in
        [("soft step", SolverSettings::default()), ("pgs", SolverSettings::pgs(PositionCorrection::Baumgarte))]
    {
        let (distance, expected) = rolling_distance(0.1, solver);
        eprintln!("{mode}: rolled {distance:.4} m, expected {expected:.4} m");
        assert!((distance / expected - 1.0).abs() < 0.02, "{mode}: rolled {distance} m, expected {expected} m");
    }
}

/// A ball of radius r = 0.5 m spinning about the vertical at 5 rad/s on level ground, in both
/// solver modes: with rolling resistance c the contact patch resists the spin with the
/// torque c·m·g·r, so ω falls at 2.5·c·g/r (I = 2/5·m·r²) and the ball stops after
/// 5 rad/s over that, within 3%, without sliding away (< 1 mm); without rolling resistance a
/// point contact has no spin friction and the ball keeps spinning (within 1%).
#[test]
fn rolling_resistance_stops_a_spinning_ball() {
    for (mode, solver) in
        [("soft step", SolverSettings::default()), ("pgs", SolverSettings::pgs(PositionCorrection::Baumgarte))]
    {
        for c in [0.0f32, 0.05, 0.1] {
            let mut world = world_with_solver(solver);
            world.set_settings(WorldSettings { sleep: false, ..*world.settings() }).unwrap();
            add_ground(&mut world, 0.6);
            let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 0.5, 0.0))).unwrap();
            let def = ColliderDef::new(Shape::sphere(0.5).unwrap()).with_rolling_resistance(c);
            world.create_collider(ball, &def).unwrap();
            run(&mut world, 10);
            let start = pos(&world, ball);
            world.set_angular_velocity(ball, Vec3::new(0.0, 5.0, 0.0)).unwrap();
            let spin = |world: &World| world.body(ball).unwrap().angular_velocity().y;
            let mut steps = 0;
            while spin(&world) > 1e-3 && steps < 600 {
                world.step(DT).unwrap();
                steps += 1;
            }
            let slid = (pos(&world, ball) - start).length();
            if c == 0.0 {
                eprintln!("{mode}, c = 0: spin {:.4} rad/s after 10 s, slid {slid:e} m", spin(&world));
                assert!((spin(&world) / 5.0 - 1.0).abs() < 0.01, "{mode}: spin {} rad/s", spin(&world));
            } else {
                let (time, expected) = (steps as f32 * DT, 5.0 / (2.5 * c * 9.81 / 0.5));
                eprintln!(
                    "{mode}, c = {c}: stopped spinning after {time:.3} s, expected {expected:.3} s, slid {slid:e} m"
                );
                assert!((time / expected - 1.0).abs() < 0.03, "{mode}, c = {c}: stopped after {time} s");
            }
            assert!(slid < 1e-3, "{mode}, c = {c}: slid {slid} m");
        }
    }
}

/// A ball on a 5° slope (tan 5° = 0.087) is held by rolling resistance 0.1 (it moves less than
/// 5 mm in 5 s) and rolls down under 0.05 with a = 5/7·g·(sin θ − c·cos θ) within 3%.
#[test]
fn rolling_resistance_holds_a_ball_on_a_gentle_slope() {
    let angle = 5f32.to_radians();
    for (c, holds) in [(0.1, true), (0.05, false)] {
        let mut world = world_with_solver(SolverSettings::default());
        let tilt = Quat::from_rotation_z(angle);
        let slope = world.create_body(&BodyDef::fixed(Vec3::ZERO).with_rotation(tilt)).unwrap();
        let slab = ColliderDef::new(Shape::cuboid(Vec3::new(40.0, 0.5, 5.0)).unwrap());
        world.create_collider(slope, &slab).unwrap();
        let ball = world.create_body(&BodyDef::dynamic(tilt * Vec3::new(10.0, 1.0, 0.0))).unwrap();
        let def = ColliderDef::new(Shape::sphere(0.5).unwrap()).with_rolling_resistance(c);
        world.create_collider(ball, &def).unwrap();
        let down = tilt * -Vec3::X;
        run(&mut world, 20);
        let (p1, v1) = (pos(&world, ball), vel(&world, ball).dot(down));
        run(&mut world, 300);
        let (p2, v2) = (pos(&world, ball), vel(&world, ball).dot(down));
        if holds {
            let moved = (p2 - p1).length();
            eprintln!("c = {c}: moved {moved:e} m in 5 s");
            assert!(moved < 0.005, "c = {c}: moved {moved} m");
        } else {
            let a = (v2 - v1) / (300.0 * DT);
            let expected = 5.0 / 7.0 * 9.81 * (angle.sin() - c * angle.cos());
            eprintln!("c = {c}: a = {a:.4}, expected {expected:.4}");
            assert!((a / expected - 1.0).abs() < 0.03, "c = {c}: a = {a}, expected {expected}");
        }
    }
}

/// A ball with restitution 0.5 dropped from 1 m rebounds to e² · 1 m = 0.25 m within 10%
/// (soft step: a restitution pass after the substeps).
#[test]
fn ball_rebounds_to_e_squared_height() {
    let peak = rebound_peak(SolverSettings::default());
    eprintln!("bounce: peak {peak:.4} m, expected 0.25 m");
    assert!((peak / 0.25 - 1.0).abs() < 0.10, "rebound peak {peak} m");
}

/// In pgs the bounce is a target velocity inside the one solve per step, and it already acts
/// on the speculative point, so the ball turns up to one step's travel, √(2gh)·dt = 7.4 cm,
/// above the ground: the rebound reaches e²·h = 0.25 m (−10%) to 0.25 m + 7.4 cm (+10%).
#[test]
fn ball_rebounds_in_pgs() {
    let step_travel = (2.0f32 * 9.81 * 1.0).sqrt() * DT;
    for correction in [PositionCorrection::Ngs, PositionCorrection::Baumgarte] {
        let peak = rebound_peak(SolverSettings::pgs(correction));
        eprintln!("bounce pgs {correction:?}: peak {peak:.4} m, expected 0.25 m to {:.4} m", 0.25 + step_travel);
        assert!(peak > 0.9 * 0.25 && peak < 1.1 * (0.25 + step_travel), "{correction:?}: rebound peak {peak} m");
    }
}

/// Height of the first rebound of a ball (restitution 0.5) dropped from 1 m onto the ground.
fn rebound_peak(solver: SolverSettings) -> f32 {
    let mut world = world_with_solver(solver);
    add_ground(&mut world, 0.6);
    let radius = 0.25;
    let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, radius + 1.0, 0.0))).unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(radius).unwrap()).with_restitution(0.5)).unwrap();
    let mut bounced = false;
    let mut peak = 0.0f32;
    for _ in 0..240 {
        world.step(DT).unwrap();
        let v = vel(&world, ball).y;
        if v > 0.0 {
            bounced = true;
        }
        if bounced {
            peak = peak.max(pos(&world, ball).y - radius);
            if v < 0.0 {
                break;
            }
        }
    }
    assert!(bounced, "the ball never bounced");
    peak
}
