use fulcrum::prelude::*;
fn main() {
    let base: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let mut solver = SolverSettings::default();
    if let Ok(h) = std::env::var("SUB") {
        solver.substeps = h.parse().unwrap();
    }
    if let Ok(h) = std::env::var("HZ") {
        solver.contact_hertz = h.parse().unwrap();
    }
    let mut world = World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap();
    let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0))).unwrap();
    world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(50.0, 1.0, 50.0)).unwrap())).unwrap();
    let mut top = None;
    for row in 0..base {
        let count = base - row;
        for j in 0..count {
            let x = j as f32 - (count as f32 - 1.0) * 0.5;
            let b = world.create_body(&BodyDef::dynamic(Vec3::new(x, 0.5 + row as f32, 0.0))).unwrap();
            world.create_collider(b, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)).unwrap())).unwrap();
            top = Some(b);
        }
    }
    let top = top.unwrap();
    let start = std::time::Instant::now();
    for step in 0..1260 {
        world.step(1.0 / 60.0).unwrap();
        if step % 60 == 0 {
            let b = world.body(top).unwrap();
            println!("t={:.1}s top p={:?} v={:?}", step as f32 / 60.0, b.position(), b.linear_velocity());
        }
    }
    println!("wall {:?}", start.elapsed());
}
