//! Stacks, pyramids and mass ratios stand still; solver switches do what they say.

mod common;
use common::*;
use fulcrum::prelude::*;

/// Largest displacement of the top box between `settle` steps and `settle + hold` steps.
fn stack_drift(solver: SolverSettings, n: usize, settle: usize, hold: usize) -> f32 {
    let mut world = world_with_solver(solver);
    world.set_settings(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
    add_ground(&mut world, 0.6);
    let boxes = add_stack(&mut world, n);
    let top = *boxes.last().unwrap();
    run(&mut world, settle);
    let start = pos(&world, top);
    let mut worst = 0.0f32;
    for _ in 0..hold {
        world.step(DT).unwrap();
        worst = worst.max((pos(&world, top) - start).length());
    }
    worst
}

/// A 10-box vertical stack stands for 20 s: the top box moves less than 1 cm after settling,
/// in the default soft-step solver and in pgs with each position correction.
#[test]
fn vertical_stack_stands_in_every_solver_mode() {
    let modes = [
        ("soft_step", SolverSettings::default()),
        ("pgs+ngs", SolverSettings::pgs(PositionCorrection::Ngs)),
        ("pgs+baumgarte", SolverSettings::pgs(PositionCorrection::Baumgarte)),
    ];
    for (name, solver) in modes {
        let drift = stack_drift(solver, 10, 60, 20 * 60);
        eprintln!("10-stack {name}: top drift {drift:e} m");
        assert!(drift < 0.01, "{name}: top box moved {drift} m");
    }
}

/// Warm starting is what lets a tall stack converge with few iterations: switching it off
/// makes the same stack drift more (pgs, 4 iterations, 20 boxes).
/// Warm starting is what lets a tall stack converge with few iterations: switching it off
/// makes the same stack drift far more, in both solver modes at their default settings
/// (pgs: 10 boxes, 8 iterations; soft step: 20 boxes, 4 substeps).
#[test]
fn switching_warm_start_off_degrades_the_stack() {
    for (name, base, n) in
        [("pgs", SolverSettings::pgs(PositionCorrection::Ngs), 10), ("soft_step", SolverSettings::default(), 20)]
    {
        let warm = stack_drift(base, n, 60, 5 * 60);
        let cold = stack_drift(SolverSettings { warm_start: false, ..base }, n, 60, 5 * 60);
        eprintln!("{n}-stack {name}: warm drift {warm:e} m, cold drift {cold:e} m");
        assert!(warm < 0.01, "{name}: the warm-started stack itself moved {warm} m");
        assert!(cold > 10.0 * warm + 0.05, "{name}: warm {warm}, cold {cold}");
    }
}

/// A pyramid with a base of 20 boxes stands for 20 s (top box moves < 1 cm after settling).
#[test]
fn pyramid_of_base_20_stands() {
    let mut world = world_with_solver(SolverSettings::default());
    world.set_settings(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    add_ground(&mut world, 0.6);
    let boxes = add_pyramid(&mut world, 20);
    let top = *boxes.last().unwrap();
    run(&mut world, 60);
    let start = pos(&world, top);
    let mut worst = 0.0f32;
    for _ in 0..20 * 60 {
        world.step(DT).unwrap();
        worst = worst.max((pos(&world, top) - start).length());
    }
    eprintln!("pyramid 20: top drift {worst:e} m");
    assert!(worst < 0.01, "top box moved {worst} m");
}

/// A 100 kg box on a 1 kg box on the ground rests without jitter: after settling (2 s), neither
/// moves more than 1 mm nor exceeds 1 cm/s over 5 s.
#[test]
fn heavy_box_on_light_box_rests() {
    let mut world = world_with_solver(SolverSettings::default());
    world.set_settings(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    add_ground(&mut world, 0.6);
    let light = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let heavy = add_box(&mut world, Vec3::new(0.0, 1.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    world.set_mass(light, Some(1.0)).unwrap();
    world.set_mass(heavy, Some(100.0)).unwrap();
    run(&mut world, 120);
    let start = [pos(&world, light), pos(&world, heavy)];
    let (mut worst_move, mut worst_speed) = (0.0f32, 0.0f32);
    for _ in 0..5 * 60 {
        world.step(DT).unwrap();
        for (i, id) in [light, heavy].into_iter().enumerate() {
            worst_move = worst_move.max((pos(&world, id) - start[i]).length());
            worst_speed = worst_speed.max(vel(&world, id).length());
        }
    }
    eprintln!("heavy on light: worst move {worst_move:e} m, worst speed {worst_speed:e} m/s");
    assert!(worst_move < 1e-3 && worst_speed < 0.01, "moved {worst_move} m, speed {worst_speed} m/s");
}

/// Resting bodies fall asleep after about half a second and wake when hit.
#[test]
fn resting_stack_sleeps_and_wakes_when_hit() {
    let mut world = world_with_solver(SolverSettings::default());
    add_ground(&mut world, 0.6);
    let boxes = add_stack(&mut world, 3);
    run(&mut world, 180);
    assert!(boxes.iter().all(|&b| world.body(b).unwrap().is_sleeping()), "stack did not fall asleep");
    assert_eq!(world.awake_body_count(), 0);
    let ball = world
        .create_body(&BodyDef::dynamic(Vec3::new(-3.0, 1.5, 0.0)).with_linear_velocity(Vec3::new(8.0, 0.0, 0.0)))
        .unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.3).unwrap())).unwrap();
    run(&mut world, 30);
    assert!(boxes.iter().all(|&b| !world.body(b).unwrap().is_sleeping()), "the hit did not wake the island");
}

/// A column of three upright cylinders (cap on cap) standing on a slope of `slope` radians
/// comes to rest: (most any body moved in the last of 10 s, largest speed then, all asleep).
fn cylinder_column_on_a_slope(slope: f32) -> (f32, f32, bool) {
    let mut world = world_with_solver(SolverSettings::default());
    let tilt = Quat::from_rotation_z(slope);
    let ground = world.create_body(&BodyDef::fixed(tilt * Vec3::new(0.0, -1.0, 0.0)).with_rotation(tilt)).unwrap();
    let slab = Shape::cuboid(Vec3::new(50.0, 1.0, 50.0)).unwrap();
    world.create_collider(ground, &ColliderDef::new(slab).with_friction(0.6)).unwrap();
    let mut bodies = Vec::new();
    for k in 0..3 {
        let centre = tilt * Vec3::new(0.0, 0.3 + 0.6 * k as f32, 0.0);
        let body = world.create_body(&BodyDef::dynamic(centre).with_rotation(tilt)).unwrap();
        let cylinder = Shape::cylinder(0.3, 0.35).unwrap();
        world.create_collider(body, &ColliderDef::new(cylinder).with_friction(0.6)).unwrap();
        bodies.push(body);
    }
    let mut start = Vec::new();
    let mut fastest = 0.0f32;
    for step in 0..600 {
        world.step(DT).unwrap();
        if step == 540 {
            start = bodies.iter().map(|&b| pos(&world, b)).collect();
        }
        if step >= 540 {
            fastest = bodies.iter().map(|&b| vel(&world, b).length()).fold(fastest, f32::max);
        }
    }
    let moved = bodies.iter().zip(&start).map(|(&b, &p)| (pos(&world, b) - p).length()).fold(0.0, f32::max);
    let asleep = bodies.iter().all(|&b| world.body(b).unwrap().is_sleeping());
    (moved, fastest, asleep)
}

/// Columns of upright cylinders stand still and fall asleep on flat ground and on a 10°
/// slope (friction 0.6 holds them: tan 10° = 0.18).
#[test]
fn cylinder_columns_come_to_rest() {
    for degrees in [0.0f32, 10.0] {
        let (moved, fastest, asleep) = cylinder_column_on_a_slope(degrees.to_radians());
        eprintln!("cylinder column on {degrees}°: moved {moved:e} m in the last second, speed up to {fastest:e} m/s, asleep {asleep}");
        assert!(moved < 1e-3 && asleep, "{degrees}°: moved {moved} m, fastest {fastest} m/s, asleep {asleep}");
    }
}

/// Heavy boxes on a 1 kg box, mass ratios 10 to 3,000, in both solver modes: each sinks at
/// most 5 mm into the light box and rests (over the fifth second no speed above 1 cm/s).
/// The pair's island is solved exactly (`contact_islands.rs`), so the contact between the two
/// dynamic boxes has no sag at all; the light box sits g/ω² (0.07 mm) into the ground. In the
/// Gauss–Seidel passes alone the heavy box sank 27.6 mm at 100:1 and 50 mm at 1,000:1.
#[test]
fn heavy_boxes_rest_on_a_light_box_at_any_mass_ratio() {
    let modes = [("soft_step", SolverSettings::default()), ("pgs", SolverSettings::pgs(PositionCorrection::Ngs))];
    for ((mode, solver), ratio) in modes.into_iter().flat_map(|m| [10.0f32, 100.0, 1000.0, 3000.0].map(|r| (m, r))) {
        let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
        add_ground(&mut world, 0.6);
        let light = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
        let heavy = add_box(&mut world, Vec3::new(0.0, 1.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
        world.set_mass(light, Some(1.0)).unwrap();
        world.set_mass(heavy, Some(ratio)).unwrap();
        run(&mut world, 4 * 60);
        let mut speed = 0.0f32;
        for _ in 0..60 {
            world.step(DT).unwrap();
            speed = speed.max(vel(&world, heavy).length());
        }
        let sink = 1.0 - (pos(&world, heavy).y - pos(&world, light).y);
        eprintln!(
            "{mode} {ratio}:1 sinks {:.3} mm into the light box, fastest in the fifth second {speed:.5} m/s",
            sink * 1e3
        );
        assert!(sink < 0.005, "{mode} {ratio}:1 sinks {sink} m");
        assert!(speed < 0.01, "{mode} {ratio}:1 moves at {speed} m/s");
    }
}

/// Unequal masses in motion and in less simple shapes, each for 60 s in both solver modes:
/// a 100 kg box dropped 1 m onto a 1 kg box, a 1,000 kg ball on a 1 kg box, a stack of
/// alternating 1 kg and 50 kg boxes, a 100 kg box on a pyramid of ten 1 kg boxes (four rows),
/// and a 200 kg plank across two 1 kg boxes. Over the last
/// second no body is faster than 1 cm/s, none has left its place by more than 5 mm sideways,
/// and each rests within 5 mm of its height on rigid boxes.
#[test]
fn unequal_masses_come_to_rest_and_stay() {
    let cube = || Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let alternating =
        (0..6).map(|i| (cube(), Vec3::new(0.0, 0.5 + i as f32, 0.0), if i % 2 == 0 { 1.0 } else { 50.0 }));
    // Each case: its name and its bodies (shape, position, mass).
    type Case = (&'static str, Vec<(Shape, Vec3, f32)>);
    let cases: Vec<Case> = vec![
        (
            "100 kg dropped 1 m onto 1 kg",
            vec![(cube(), Vec3::new(0.0, 0.5, 0.0), 1.0), (cube(), Vec3::new(0.0, 2.5, 0.0), 100.0)],
        ),
        (
            "1,000 kg ball on 1 kg",
            vec![
                (cube(), Vec3::new(0.0, 0.5, 0.0), 1.0),
                (Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 1.5, 0.0), 1000.0),
            ],
        ),
        ("1, 50, 1, 50, 1, 50 kg", alternating.collect()),
        (
            // 92 normal rows in one island.
            "100 kg on a pyramid of ten 1 kg",
            (0..4)
                .flat_map(|row| (0..4 - row).map(move |j| (row, j)))
                .map(|(row, j)| {
                    (cube(), Vec3::new(j as f32 * 1.02 - (3 - row) as f32 * 0.51, 0.5 + row as f32, 0.0), 1.0)
                })
                .chain([(cube(), Vec3::new(0.0, 4.5, 0.0), 100.0)])
                .collect(),
        ),
        (
            "200 kg plank on two 1 kg",
            vec![
                (cube(), Vec3::new(-0.8, 0.5, 0.0), 1.0),
                (cube(), Vec3::new(0.8, 0.5, 0.0), 1.0),
                (Shape::cuboid(Vec3::new(1.5, 0.25, 0.5)).unwrap(), Vec3::new(0.0, 1.25, 0.0), 200.0),
            ],
        ),
    ];
    for (mode, solver) in
        [("soft_step", SolverSettings::default()), ("pgs", SolverSettings::pgs(PositionCorrection::Ngs))]
    {
        for (name, bodies) in &cases {
            let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
            add_ground(&mut world, 0.6);
            let ids: Vec<BodyId> = bodies
                .iter()
                .map(|(shape, at, mass)| {
                    let body = world.create_body(&BodyDef::dynamic(*at)).unwrap();
                    world.create_collider(body, &ColliderDef::new(shape.clone()).with_friction(0.6)).unwrap();
                    world.set_mass(body, Some(*mass)).unwrap();
                    body
                })
                .collect();
            run(&mut world, 59 * 60);
            let mut fastest = 0.0f32;
            for _ in 0..60 {
                world.step(DT).unwrap();
                fastest = ids.iter().fold(fastest, |f, &b| f.max(vel(&world, b).length()));
            }
            // Where each body rests on rigid boxes: the dropped box on the light one.
            let rest = |i: usize, at: Vec3| {
                if *name == "100 kg dropped 1 m onto 1 kg" && i == 1 {
                    Vec3::new(0.0, 1.5, 0.0)
                } else {
                    at
                }
            };
            let worst = bodies
                .iter()
                .enumerate()
                .map(|(i, b)| (pos(&world, ids[i]) - rest(i, b.1)).abs().max_element())
                .fold(0.0, f32::max);
            eprintln!(
                "{mode}, {name}: fastest in the last second {fastest:.5} m/s, farthest from rest {:.3} mm",
                worst * 1e3
            );
            assert!(fastest < 0.01 && worst < 0.005, "{mode}, {name}: {fastest} m/s, {worst} m from rest");
        }
    }
}
