//! Scene builders shared by the integration tests.
#![allow(dead_code)]

use fulcrum::prelude::*;

/// Step length of every test, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// A world with default settings except the solver.
pub fn world_with_solver(solver: SolverSettings) -> World {
    World::new(WorldSettings { solver, ..Default::default() }).unwrap()
}

/// A static ground box whose top face is at y = 0.
pub fn add_ground(world: &mut World, friction: f32) -> BodyId {
    let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0)).with_name("ground")).unwrap();
    world
        .create_collider(
            ground,
            &ColliderDef::new(Shape::cuboid(Vec3::new(50.0, 1.0, 50.0)).unwrap()).with_friction(friction),
        )
        .unwrap();
    ground
}

/// A dynamic box at `position`.
pub fn add_box(world: &mut World, position: Vec3, rotation: Quat, half: Vec3, friction: f32) -> BodyId {
    let body = world.create_body(&BodyDef::dynamic(position).with_rotation(rotation)).unwrap();
    world
        .create_collider(
            body,
            &ColliderDef::new(Shape::cuboid(half).unwrap()).with_friction(friction).with_density(1000.0),
        )
        .unwrap();
    body
}

/// A vertical stack of `n` unit cubes resting on the ground.
pub fn add_stack(world: &mut World, n: usize) -> Vec<BodyId> {
    (0..n).map(|i| add_box(world, Vec3::new(0.0, 0.5 + i as f32, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6)).collect()
}

/// A 2D pyramid of unit cubes with `base` cubes in the bottom row (x-y plane).
pub fn add_pyramid(world: &mut World, base: usize) -> Vec<BodyId> {
    let mut ids = Vec::new();
    for row in 0..base {
        let count = base - row;
        for j in 0..count {
            let x = (j as f32 - (count as f32 - 1.0) * 0.5) * 1.0;
            let y = 0.5 + row as f32;
            ids.push(add_box(world, Vec3::new(x, y, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6));
        }
    }
    ids
}

/// Steps `n` times.
pub fn run(world: &mut World, n: usize) {
    for _ in 0..n {
        world.step(DT).unwrap();
    }
}

/// Position of a body.
pub fn pos(world: &World, id: BodyId) -> Vec3 {
    world.body(id).unwrap().position()
}

/// Velocity of a body.
pub fn vel(world: &World, id: BodyId) -> Vec3 {
    world.body(id).unwrap().linear_velocity()
}

pub mod joints;
