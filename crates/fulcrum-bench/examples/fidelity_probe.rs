//! Probe of the fidelity cases that the tests do not yet hold (heavy on light, the
//! large_pyramid wall over 600+ steps, 1,000 boxes spawned at one point) and of restitution
//! (bounce heights, Newton's cradle): prints figures, asserts nothing.
//!
//! `cargo run --release -p fulcrum-bench --example fidelity_probe -- hol|bounce|cradle|overlap|wall [STEPS]`
//! (`PGS=1` runs the wall in pgs + ngs; `PUSH=v` sets max_push_velocity for `overlap`).
use fulcrum::prelude::*;
use fulcrum_bench::fulcrum_engine::build_world;
use fulcrum_bench::scenes;

fn heavy_on_light(heavy: f32, seconds: f32) -> (f32, f32) {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    apply_env_settings(&mut world);
    let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
    world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap())).unwrap();
    let mut add = |y: f32, mass: f32| {
        let b = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, y, 0.0))).unwrap();
        let c = ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()).with_density(mass);
        world.create_collider(b, &c).unwrap();
        b
    };
    let light = add(0.5, 1.0);
    let top = add(1.5, heavy);
    let steps = (seconds * 60.0) as usize;
    let mut worst = 0.0f32;
    let mut fastest_late = 0.0f32;
    for step in 0..steps {
        world.step(1.0 / 60.0).unwrap();
        if step + 60 >= steps {
            let speed = |b| world.body(b).unwrap().linear_velocity().length();
            fastest_late = fastest_late.max(speed(top)).max(speed(light));
        }
        let s = 1.5 - world.body(top).unwrap().position().y;
        worst = worst.max(s);
        if std::env::var("TRACE").is_ok() {
            let (t, l) = (world.body(top).unwrap(), world.body(light).unwrap());
            println!(
                "    sag {:.2} mm, ground overlap {:.2} mm, light-heavy overlap {:.2} mm, heavy v {:.3?} w {:.3?}, light v {:.3?}",
                s * 1e3,
                (0.5 - l.position().y) * 1e3,
                (1.0 - (t.position().y - l.position().y)) * 1e3,
                t.linear_velocity(),
                t.angular_velocity(),
                l.linear_velocity()
            );
        }
    }
    let sag = 1.5 - world.body(top).unwrap().position().y;
    let speed = world.body(top).unwrap().linear_velocity().length();
    let into_light = 1.0 - (world.body(top).unwrap().position().y - world.body(light).unwrap().position().y);
    println!(
        "  heavy {heavy} kg: speed at the end {speed:.4} m/s (fastest in the last second {fastest_late:.4}), {:.2} mm into the light box",
        into_light * 1e3
    );
    (sag, worst)
}

/// Solver settings from the environment: PGS, SUBSTEPS, HERTZ, ZETA, NOBLOCK, NOISLANDS, NORELAX.
fn apply_env_settings(world: &mut World) {
    if std::env::var("PGS").is_ok() {
        let mut settings = *world.settings();
        settings.solver = SolverSettings::pgs(PositionCorrection::Ngs);
        world.set_settings(settings).unwrap();
    }
    let mut settings = *world.settings();
    if let Ok(v) = std::env::var("SUBSTEPS") {
        settings.substeps = v.parse().unwrap();
    }
    if let Ok(v) = std::env::var("HERTZ") {
        settings.solver.contact_hertz = v.parse().unwrap();
    }
    if let Ok(v) = std::env::var("ZETA") {
        settings.solver.contact_damping_ratio = v.parse().unwrap();
    }
    if std::env::var("NOBLOCK").is_ok() {
        settings.solver.block_solver = false;
    }
    if std::env::var("NOISLANDS").is_ok() {
        settings.solver.exact_contact_islands = false;
    }
    if std::env::var("NORELAX").is_ok() {
        settings.solver.relax = false;
    }
    world.set_settings(settings).unwrap();
}

/// A copy of a body description placed elsewhere.
struct BodyDescLike;

impl BodyDescLike {
    fn at(body: &fulcrum_bench::scenes::BodyDesc, position: [f32; 3]) -> fulcrum_bench::scenes::BodyDesc {
        let mut copy = body.clone();
        copy.position = position;
        copy
    }
}

fn wall(steps: usize) {
    let mut scene = scenes::large_pyramid();
    // SMALL=n keeps the wall's bottom n rows; TOWER=n replaces it by a column of n cubes.
    if let Ok(rows) = std::env::var("SMALL") {
        let rows: usize = rows.parse().unwrap();
        scene.bodies.retain(|b| b.position[1] < rows as f32);
    }
    if let Ok(count) = std::env::var("TOWER") {
        let cube = scene.bodies[1].clone();
        scene.bodies.truncate(1);
        for i in 0..count.parse::<usize>().unwrap() {
            scene.bodies.push(BodyDescLike::at(&cube, [0.0, 0.5 + i as f32, 0.0]));
        }
    }
    if let Ok(mu) = std::env::var("FRICTION") {
        for b in &mut scene.bodies {
            b.friction = mu.parse().unwrap();
        }
    }
    if let Ok(g) = std::env::var("GRAV") {
        scene.gravity = [0.0, -g.parse::<f32>().unwrap(), 0.0];
    }
    let (mut world, bodies) = build_world(&scene).unwrap();
    apply_env_settings(&mut world);
    if let Ok(amp) = std::env::var("SEED") {
        let amp: f32 = amp.parse().unwrap();
        let mut state = 0x9E3779B97F4A7C15u64;
        for &b in &bodies {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let r = (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
            let v = world.body(b).unwrap().linear_velocity();
            world.set_linear_velocity(b, Vec3::new(v.x, v.y, amp * r)).unwrap();
        }
    }
    let top = *bodies.last().unwrap();
    let start = world.body(top).unwrap().position();
    let starts: Vec<Vec3> = bodies.iter().map(|&b| world.body(b).unwrap().position()).collect();
    for s in 1..=steps {
        world.step(scene.dt).unwrap();
        if std::env::var("VZ").is_ok() && s <= 12 {
            let (i, vz) = bodies
                .iter()
                .enumerate()
                .map(|(i, &b)| (i, world.body(b).unwrap().linear_velocity().z.abs()))
                .fold((0, 0.0f32), |m, x| if x.1 > m.1 { x } else { m });
            let w = world.body(bodies[i]).unwrap().angular_velocity();
            println!(
                "  step {s}: worst |vz| {vz:.3e} at ({:.1}, {:.1}) w {:+.2e} {:+.2e} {:+.2e}",
                starts[i].x, starts[i].y, w.x, w.y, w.z
            );
        }
        if let Ok(watch) = std::env::var("WATCH") {
            let xy: Vec<f32> = watch.split(',').map(|v| v.parse().unwrap()).collect();
            if let Some(i) = starts.iter().position(|p| (p.x - xy[0]).abs() < 0.01 && (p.y - xy[1]).abs() < 0.01) {
                if (3..=8).contains(&s) {
                    let body = world.body(bodies[i]).unwrap();
                    println!("step {s}: v {:?} w {:?}", body.linear_velocity(), body.angular_velocity());
                    println!("   pose {:?} {:?}", body.position(), body.rotation());
                    if let Some(j) =
                        starts.iter().position(|p| (p.x - xy[0] + 0.5).abs() < 0.01 && (p.y - xy[1] + 1.0).abs() < 0.01)
                    {
                        let below = world.body(bodies[j]).unwrap();
                        println!("   below pose {:?} {:?}", below.position(), below.rotation());
                    }
                    for c in world.contacts().filter(|c| c.body_a == bodies[i] || c.body_b == bodies[i]) {
                        let other = if c.body_a == bodies[i] { c.body_b } else { c.body_a };
                        let o = world.body(other).map(|b| b.position()).unwrap_or(Vec3::ZERO);
                        println!(
                            "   vs ({:.2},{:.2},{:.3}) n {:?} f {:?} twist {:.3e}",
                            o.x, o.y, o.z, c.normal, c.friction_impulse, c.twist_impulse
                        );
                        for p in &c.points {
                            println!("      p {:?} {:?}", p.position, p);
                        }
                    }
                }
            }
        }
        let every: usize = std::env::var("EVERY").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
        if std::env::var("BRIEF").is_ok() && s % every == 0 {
            let p = world.body(top).unwrap().position();
            let worst_z = bodies.iter().map(|&b| world.body(b).unwrap().position().z.abs()).fold(0.0f32, f32::max);
            println!(
                "  step {s}: top drop {:.3} m, top z {:.3} m, worst |z| {:.3} m",
                start.y - p.y,
                p.z - start.z,
                worst_z
            );
            if std::env::var("WORST").is_ok() {
                let mut order: Vec<usize> = (0..bodies.len()).collect();
                order.sort_by(|&i, &j| {
                    let zi = world.body(bodies[i]).unwrap().position().z.abs();
                    let zj = world.body(bodies[j]).unwrap().position().z.abs();
                    zj.total_cmp(&zi)
                });
                for &i in &order[..6] {
                    let body = world.body(bodies[i]).unwrap();
                    let (p, q) = (body.position(), body.rotation());
                    println!(
                        "      start ({:.1}, {:.1}): z {:+.4} tilt {:+.5} yaw {:+.5} roll {:+.5} vz {:+.4}",
                        starts[i].x,
                        starts[i].y,
                        p.z,
                        (q * Vec3::Y).z,
                        (q * Vec3::X).z,
                        (q * Vec3::X).y,
                        body.linear_velocity().z
                    );
                }
            }
            if std::env::var("ROWS").is_ok() {
                wall_rows(&world, &bodies, &starts);
            }
            if std::env::var("NORMALS").is_ok() {
                for c in world.contacts().take(8) {
                    let up = |id| world.body(id).map(|b| (b.rotation() * Vec3::Y).z).unwrap_or(0.0);
                    let y = |id| world.body(id).map(|b| b.position().y).unwrap_or(0.0);
                    println!(
                        "      contact y {:.1}/{:.1}: normal z {:+.6}, up_a z {:+.6}, up_b z {:+.6}, friction {:?}",
                        y(c.body_a),
                        y(c.body_b),
                        c.normal.z,
                        up(c.body_a),
                        up(c.body_b),
                        c.friction_impulse
                    );
                }
            }
            continue;
        }
        if s % every == 0 || s == steps {
            // Slip of each row: the largest horizontal move of a box whose centre started at
            // that height, for the bottom, a quarter up and half way.
            for row in [0usize, 1, 2, 5, 10, 25, 50, 75] {
                let slip = bodies.iter().zip(&starts).filter(|(_, p0)| (p0.y - (0.5 + row as f32)).abs() < 0.1).fold(
                    (0.0f32, 0.0f32),
                    |m, (&b, p0)| {
                        let d = world.body(b).unwrap().position() - *p0;
                        (m.0.max(d.x.abs()), m.1.max(d.z.abs()))
                    },
                );
                println!("    row {row}: largest slip x {:.4} m, z {:.4} m", slip.0, slip.1);
                let movers: Vec<String> = bodies
                    .iter()
                    .zip(&starts)
                    .filter(|(_, p0)| (p0.y - (0.5 + row as f32)).abs() < 0.1)
                    .filter_map(|(&b, p0)| {
                        let d = world.body(b).unwrap().position() - *p0;
                        (d.z.abs() > 0.1).then(|| format!("x0 {:.1}: dz {:.2}", p0.x, d.z))
                    })
                    .collect();
                if !movers.is_empty() {
                    println!("      moved out of plane: {}", movers.join(", "));
                }
            }
            let p = world.body(top).unwrap().position();
            let drift = ((p.x - start.x).powi(2) + (p.z - start.z).powi(2)).sqrt();
            println!(
                "  wall step {s}: top drop {:.3} m drift {:.3} m (x {:.3}, z {:.3})",
                start.y - p.y,
                drift,
                p.x - start.x,
                p.z - start.z
            );
        }
    }
}

/// Per row: mean out-of-plane offset, its slope along the row, the mean tilt (the box's up
/// axis leaning out of plane) and yaw (its x axis turning out of plane).
fn wall_rows(world: &World, bodies: &[BodyId], starts: &[Vec3]) {
    for row in [0usize, 1, 2, 5, 10, 25, 50, 75, 90, 99] {
        let boxes: Vec<(f32, Vec3, Quat)> = bodies
            .iter()
            .zip(starts)
            .filter(|(_, p0)| (p0.y - (0.5 + row as f32)).abs() < 0.1)
            .map(|(&b, p0)| {
                let body = world.body(b).unwrap();
                (p0.x, body.position(), body.rotation())
            })
            .collect();
        let n = boxes.len() as f32;
        let mean_x = boxes.iter().map(|b| b.0).sum::<f32>() / n;
        let mean_z = boxes.iter().map(|b| b.1.z).sum::<f32>() / n;
        let sxx = boxes.iter().map(|b| (b.0 - mean_x).powi(2)).sum::<f32>();
        let slope =
            if sxx > 0.0 { boxes.iter().map(|b| (b.0 - mean_x) * (b.1.z - mean_z)).sum::<f32>() / sxx } else { 0.0 };
        let tilt = boxes.iter().map(|b| (b.2 * Vec3::Y).z).sum::<f32>() / n;
        let yaw = boxes.iter().map(|b| (b.2 * Vec3::X).z).sum::<f32>() / n;
        let dy = boxes.iter().map(|b| b.1.y).sum::<f32>() / n - (0.5 + row as f32);
        println!("    row {row:2}: z {mean_z:+.4} slope {slope:+.5} tilt {tilt:+.5} yaw {yaw:+.5} dy {dy:+.4}");
    }
}

/// Unequal masses in motion: each case runs 10 s and prints the fastest body in the last
/// second, the lowest bottom face, and how deep the heaviest body sits in what it rests on.
fn unequal_masses() {
    type Case = (&'static str, Vec<(Shape, Vec3, f32)>);
    let cube = || Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let cases: Vec<Case> = vec![
        (
            "100 kg dropped 1 m onto 1 kg",
            vec![(cube(), Vec3::new(0.0, 0.5, 0.0), 1.0), (cube(), Vec3::new(0.0, 2.5, 0.0), 100.0)],
        ),
        (
            "100 kg off centre by 0.3 m on 1 kg",
            vec![(cube(), Vec3::new(0.0, 0.5, 0.0), 1.0), (cube(), Vec3::new(0.3, 1.5, 0.0), 100.0)],
        ),
        ("1 kg on 100 kg", vec![(cube(), Vec3::new(0.0, 0.5, 0.0), 100.0), (cube(), Vec3::new(0.0, 1.5, 0.0), 1.0)]),
        (
            "stack 1, 50, 1, 50, 1, 50 kg",
            (0..6)
                .map(|i| (cube(), Vec3::new(0.0, 0.5 + i as f32, 0.0), if i % 2 == 0 { 1.0 } else { 50.0 }))
                .collect(),
        ),
        (
            "1,000 kg ball on 1 kg box",
            vec![
                (cube(), Vec3::new(0.0, 0.5, 0.0), 1.0),
                (Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 1.5, 0.0), 1000.0),
            ],
        ),
        (
            "100 kg on a 4-3-2-1 pyramid of 1 kg boxes",
            (0..4)
                .flat_map(|row| (0..4 - row).map(move |j| (row, j)))
                .map(|(row, j)| {
                    (cube(), Vec3::new(j as f32 * 1.02 - (3 - row) as f32 * 0.51, 0.5 + row as f32, 0.0), 1.0)
                })
                .chain([(cube(), Vec3::new(0.0, 4.5, 0.0), 100.0)])
                .collect(),
        ),
        (
            "200 kg across two 1 kg boxes",
            vec![
                (cube(), Vec3::new(-0.8, 0.5, 0.0), 1.0),
                (cube(), Vec3::new(0.8, 0.5, 0.0), 1.0),
                (Shape::cuboid(Vec3::new(1.5, 0.25, 0.5)).unwrap(), Vec3::new(0.0, 1.25, 0.0), 200.0),
            ],
        ),
    ];
    let only: Option<usize> = std::env::var("CASE").ok().map(|c| c.parse().unwrap());
    for (index, (name, bodies)) in cases.into_iter().enumerate() {
        if only.is_some_and(|o| o != index) {
            continue;
        }
        let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
        apply_env_settings(&mut world);
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap())).unwrap();
        let ids: Vec<_> = bodies
            .iter()
            .map(|(shape, at, mass)| {
                let b = world.create_body(&BodyDef::dynamic(*at)).unwrap();
                world.create_collider(b, &ColliderDef::new(shape.clone())).unwrap();
                world.set_mass(b, Some(*mass)).unwrap();
                b
            })
            .collect();
        let (mut fastest_late, mut fastest) = (0.0f32, 0.0f32);
        let steps: usize = std::env::var("SECONDS").map_or(600, |s| s.parse::<usize>().unwrap() * 60);
        for step in 0..steps {
            world.step(1.0 / 60.0).unwrap();
            for &b in &ids {
                let v = world.body(b).unwrap().linear_velocity().length();
                fastest = fastest.max(v);
                if step + 60 >= steps {
                    fastest_late = fastest_late.max(v);
                }
            }
            if std::env::var("TRACE").is_ok() && step % 10 == 0 {
                let state: Vec<String> = ids
                    .iter()
                    .map(|&b| {
                        let b = world.body(b).unwrap();
                        format!("p {:.4?} v {:.3?} w {:.3?}", b.position(), b.linear_velocity(), b.angular_velocity())
                    })
                    .collect();
                println!("    {step}: {}", state.join(" | "));
            }
        }
        let ys: Vec<String> = ids.iter().map(|&b| format!("{:.4?}", world.body(b).unwrap().position())).collect();
        println!(
            "  {name}: fastest {fastest:.2} m/s, in the last second {fastest_late:.5} m/s, heights [{}]",
            ys.join(", ")
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("hol");
    match what {
        "hol" => {
            let masses: Vec<f32> = match std::env::var("RATIOS") {
                Ok(list) => list.split(',').map(|m| m.parse().unwrap()).collect(),
                Err(_) => vec![100.0, 1000.0],
            };
            for m in masses {
                let (sag, worst) = heavy_on_light(m, 5.0);
                println!("heavy {m} kg on 1 kg: sag {:.2} mm (worst {:.2} mm)", sag * 1e3, worst * 1e3);
            }
        }
        "bounce" => {
            for e in [0.5f32, 1.0] {
                let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
                let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
                world
                    .create_collider(
                        ground,
                        &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap()).with_restitution(e),
                    )
                    .unwrap();
                let r = 0.1;
                let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 1.0 + r, 0.0))).unwrap();
                world.create_collider(ball, &ColliderDef::new(Shape::sphere(r).unwrap()).with_restitution(e)).unwrap();
                let mut apexes = Vec::new();
                let mut last_vy = 0.0f32;
                let mut bounced = false;
                for _ in 0..600 {
                    world.step(1.0 / 60.0).unwrap();
                    let b = world.body(ball).unwrap();
                    let vy = b.linear_velocity().y;
                    if vy > 0.0 {
                        bounced = true;
                    }
                    if bounced && last_vy > 0.0 && vy <= 0.0 {
                        apexes.push(b.position().y - r);
                        if apexes.len() == 3 {
                            break;
                        }
                    }
                    last_vy = vy;
                }
                let expect: Vec<f32> = (1..=3).map(|k| e.powi(2 * k)).collect();
                println!("e {e}: apexes {:?} expected {:?}", apexes, expect);
            }
        }
        "cradle" => {
            let path = format!("{}/../../scenes/newtons_cradle.json", env!("CARGO_MANIFEST_DIR"));
            let (mut world, index) = Scene::load(&path).unwrap().build().unwrap();
            let id = |n: &str| index.body(n).unwrap();
            let rest4 = world.body(id("ball4")).unwrap().position().y;
            let drop = world.body(id("ball0")).unwrap().position().y - rest4;
            let mut impact_speed = 0.0f32;
            let mut rise = 0.0f32;
            let mut after = f32::MAX;
            for step in 0..90 {
                let v0 = world.body(id("ball0")).unwrap().linear_velocity().length();
                world.step(1.0 / 60.0).unwrap();
                let v0n = world.body(id("ball0")).unwrap().linear_velocity().length();
                if impact_speed == 0.0 && v0n < 0.7 * v0 {
                    impact_speed = v0;
                    after = v0n;
                    println!("  impact at step {step}: ball0 {v0:.3} -> {v0n:.3} m/s");
                    for k in 1..5 {
                        println!(
                            "    ball{k} v {:.3}",
                            world.body(id(&format!("ball{k}"))).unwrap().linear_velocity().length()
                        );
                    }
                }
                rise = rise.max(world.body(id("ball4")).unwrap().position().y - rest4);
            }
            println!(
                "cradle: drop {drop:.4} m, ball4 rose {rise:.4} m ({:.0}%), ball0 after impact {:.0}% of its speed",
                100.0 * rise / drop,
                100.0 * after / impact_speed.max(1e-6)
            );
        }
        "overlap" => {
            let mut settings = WorldSettings::default();
            if let Ok(v) = std::env::var("PUSH") {
                settings.solver.max_push_velocity = v.parse().unwrap();
            }
            let mut world = World::new(settings).unwrap();
            let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0))).unwrap();
            world
                .create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(100.0, 1.0, 100.0)).unwrap()))
                .unwrap();
            let mut ids = Vec::new();
            for _ in 0..1000 {
                let b = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 2.0, 0.0))).unwrap();
                world.create_collider(b, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)).unwrap())).unwrap();
                ids.push(b);
            }
            let (mut fastest, mut fastest_now) = (0.0f32, 0.0f32);
            let seconds: usize = std::env::var("SECONDS").map(|v| v.parse().unwrap()).unwrap_or(10);
            for step in 1..=seconds * 60 {
                world.step(1.0 / 60.0).unwrap();
                let speeds = ids.iter().filter_map(|&i| world.body(i)).map(|b| b.linear_velocity().length());
                let now = speeds.fold(0.0, f32::max);
                if now > 8.0 && now > fastest {
                    let b = ids
                        .iter()
                        .filter_map(|&i| world.body(i))
                        .find(|b| b.linear_velocity().length() == now)
                        .unwrap();
                    println!("    step {step}: {now:.1} m/s v {:.1?} at {:.1?}", b.linear_velocity(), b.position());
                }
                if now > fastest_now && step < 4 {
                    println!("    step {step}: fastest {now:.1} m/s");
                }
                fastest_now = fastest_now.max(now);
                fastest = fastest.max(now);
                if step % 60 == 0 {
                    let bodies = || ids.iter().filter_map(|&i| world.body(i));
                    let under = bodies().filter(|b| b.position().y < 0.0).count();
                    let awake = bodies().filter(|b| !b.is_sleeping()).count();
                    println!(
                        "  t {:.0} s: fastest so far {fastest:.1} m/s, this second {fastest_now:.2} m/s, {under} centres under the ground, {awake} awake",
                        step as f32 / 60.0
                    );
                    fastest_now = 0.0;
                    let extent = bodies().fold([f32::MAX, f32::MIN, f32::MIN, f32::MAX, f32::MIN], |e, b| {
                        let p = b.position();
                        [e[0].min(p.x), e[1].max(p.x), e[2].max(p.y), e[3].min(p.z), e[4].max(p.z)]
                    });
                    println!(
                        "    x {:.1}..{:.1}, top {:.1}, z {:.1}..{:.1}",
                        extent[0], extent[1], extent[2], extent[3], extent[4]
                    );
                }
            }
        }
        "ragdolls" => {
            let path = format!("{}/../../scenes/ragdoll_pile.json", env!("CARGO_MANIFEST_DIR"));
            let (mut world, index) = Scene::load(&path).unwrap().build().unwrap();
            let names: Vec<(String, BodyId)> = index.iter().map(|(n, id)| (n.to_string(), id)).collect();
            for step in 1..=3600 {
                world.step(1.0 / 60.0).unwrap();
                if step % 600 == 0 {
                    let awake = names.iter().filter(|(_, id)| !world.body(*id).unwrap().is_sleeping()).count();
                    let (name, speed) = names
                        .iter()
                        .map(|(n, id)| (n, world.body(*id).unwrap().linear_velocity().length()))
                        .fold((&names[0].0, 0.0f32), |best, x| if x.1 > best.1 { x } else { best });
                    println!("  t {} s: {awake} awake, fastest {name} at {speed:.3} m/s", step / 60);
                }
                if let Ok(watch) = std::env::var("WATCH") {
                    if (1200..1212).contains(&step) {
                        let b = world.body(index.body(&watch).unwrap()).unwrap();
                        println!(
                            "    {watch}: p {:.4?} v {:.3?} w {:.3?}",
                            b.position(),
                            b.linear_velocity(),
                            b.angular_velocity()
                        );
                    }
                }
            }
        }
        "unequal" => unequal_masses(),
        "wall" => wall(args.get(2).and_then(|s| s.parse().ok()).unwrap_or(600)),
        _ => println!("unknown"),
    }
}
