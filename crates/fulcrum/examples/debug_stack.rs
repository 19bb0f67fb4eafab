use fulcrum::prelude::*;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2);
    let mut solver = SolverSettings::default();
    if let Ok(m) = std::env::var("MODE") {
        solver = match m.as_str() {
            "none" => SolverSettings::pgs(PositionCorrection::None),
            "ngs" => SolverSettings::pgs(PositionCorrection::Ngs),
            "baum" => SolverSettings::pgs(PositionCorrection::Baumgarte),
            _ => solver,
        };
    }
    if let Ok(h) = std::env::var("HZ") {
        solver.contact_hertz = h.parse().unwrap();
    }
    if let Ok(h) = std::env::var("ITER") {
        solver.iterations = h.parse().unwrap();
    }
    if std::env::var("NOWARM").is_ok() {
        solver.warm_start = false;
    }
    if let Ok(h) = std::env::var("SLOP") {
        solver.linear_slop = h.parse().unwrap();
    }
    if let Ok(h) = std::env::var("SUB") {
        solver.substeps = h.parse().unwrap();
    }
    let friction: f32 = std::env::var("MU").ok().and_then(|s| s.parse().ok()).unwrap_or(0.6);
    let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
    let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0))).unwrap();
    world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(50.0, 1.0, 50.0)).unwrap())).unwrap();
    let ids: Vec<_> = (0..n)
        .map(|i| {
            let b = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 0.5 + i as f32, 0.0))).unwrap();
            world
                .create_collider(b, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()).with_friction(friction))
                .unwrap();
            b
        })
        .collect();
    if std::env::var("HEAVY").is_ok() {
        world.set_mass(ids[0], Some(1.0)).unwrap();
        world.set_mass(ids[1], Some(100.0)).unwrap();
    }
    let steps: usize = std::env::var("STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(240);
    for step in 0..steps {
        if step == 200 && n >= 2 {
            corners_report(&world, ids[n - 2], ids[n - 1]);
        }
        world.step(1.0 / 60.0).unwrap();
        if step % (steps / 12).max(1) == 0 || step < 2 {
            let top = world.body(*ids.last().unwrap()).unwrap();
            println!(
                "step {step}: top p={:?} v={:?} w={:?}",
                top.position(),
                top.linear_velocity(),
                top.angular_velocity()
            );
            for c in world.contacts() {
                let pts: Vec<String> = c
                    .points
                    .iter()
                    .map(|p| {
                        format!(
                            "({:.3},{:.3},{:.3}) s={:.4} ni={:.3} id={:x}",
                            p.position.x, p.position.y, p.position.z, p.separation, p.normal_impulse, p.id
                        )
                    })
                    .collect();
                println!(
                    "   n={:?} F={:?} tw={:.4} {}",
                    c.normal,
                    c.friction_impulse,
                    c.twist_impulse,
                    pts.join(" | ")
                );
            }
        }
    }
}

#[allow(dead_code)]
fn corners_report(world: &World, lower: BodyId, upper: BodyId) {
    let a = world.body(lower).unwrap().pose();
    let b = world.body(upper).unwrap().pose();
    for sx in [-0.5f32, 0.5] {
        for sz in [-0.5f32, 0.5] {
            let w = b.transform_point(Vec3::new(sx, -0.5, sz));
            let l = a.inverse_transform_point(w);
            println!("   corner ({sx},{sz}) in lower frame: y-0.5 = {:.5}", l.y - 0.5);
        }
    }
}
