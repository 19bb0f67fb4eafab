//! The same scene stepped twice gives bit-identical trajectories.

mod common;
use common::*;
use fulcrum::prelude::*;

fn trajectory() -> Vec<[u32; 7]> {
    let mut world = world_with_solver(SolverSettings::default());
    add_ground(&mut world, 0.6);
    let mut ids = add_pyramid(&mut world, 6);
    let ball = world
        .create_body(&BodyDef::dynamic(Vec3::new(-6.0, 2.0, 0.3)).with_linear_velocity(Vec3::new(10.0, 0.0, 0.0)))
        .unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.4).unwrap())).unwrap();
    ids.push(ball);
    let mut out = Vec::new();
    for _ in 0..180 {
        world.step(DT).unwrap();
        for &id in &ids {
            let b = world.body(id).unwrap();
            let (p, q) = (b.position(), b.rotation());
            out.push([p.x, p.y, p.z, q.x, q.y, q.z, q.w].map(f32::to_bits));
        }
    }
    out
}

#[test]
fn same_scene_twice_is_bit_identical() {
    let first = trajectory();
    let second = trajectory();
    assert_eq!(first.len(), second.len());
    assert!(first == second, "trajectories differ");
}
