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

/// A mixed pile big enough that every parallel loop of the step splits its work: 864 boxes,
/// spheres, capsules and cylinders in columns on a wavy heightfield, 36 boxes riding a moving kinematic
/// platform (many lanes of one colour on the same kinematic body), a 24 × 24 net of spheres
/// joined by ball joints to their neighbours and pinned at its corners (wide joint lanes), a
/// hinged chain of 10 capsules, and a fast ball.
fn mixed_pile(solver: SolverSettings) -> (World, Vec<BodyId>) {
    let mut world = World::new(WorldSettings { solver, sleep: false, ..Default::default() }).unwrap();
    let heights: Vec<Vec<f32>> =
        (0..41).map(|i| (0..41).map(|j| 0.3 * ((i as f32) * 0.4).sin() * ((j as f32) * 0.3).cos()).collect()).collect();
    let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    let terrain = Shape::heightfield(heights, Vec3::new(1.0, 1.0, 1.0)).unwrap();
    world.create_collider(ground, &ColliderDef::new(terrain)).unwrap();
    let mut ids = Vec::new();
    let shapes = [
        Shape::cuboid(Vec3::splat(0.3)).unwrap(),
        Shape::sphere(0.3).unwrap(),
        Shape::capsule(0.2, 0.25).unwrap(),
        Shape::cylinder(0.25, 0.3).unwrap(),
    ];
    for i in 0..12 {
        for k in 0..12 {
            for level in 0..6 {
                let position = Vec3::new(-9.0 + 1.0 * i as f32, 1.0 + 0.7 * level as f32, -9.0 + 1.0 * k as f32);
                let rotation = Quat::from_rotation_y(0.1 * (i + 2 * k + 3 * level) as f32);
                let body = world.create_body(&BodyDef::dynamic(position).with_rotation(rotation)).unwrap();
                let shape = shapes[(i + k + level) % shapes.len()].clone();
                world.create_collider(body, &ColliderDef::new(shape)).unwrap();
                ids.push(body);
            }
        }
    }
    let platform = world
        .create_body(&BodyDef::kinematic(Vec3::new(10.0, 1.5, 10.0)).with_linear_velocity(Vec3::new(0.0, 0.0, -0.5)))
        .unwrap();
    world.create_collider(platform, &ColliderDef::new(Shape::cuboid(Vec3::new(3.5, 0.25, 3.5)).unwrap())).unwrap();
    ids.push(platform);
    for i in 0..6 {
        for k in 0..6 {
            let position = Vec3::new(7.5 + i as f32, 2.1, 7.5 + k as f32);
            ids.push(add_box(&mut world, position, Quat::IDENTITY, Vec3::splat(0.3), 0.6));
        }
    }
    let net: Vec<BodyId> = (0..24 * 24)
        .map(|n| {
            let position = Vec3::new(-12.0 + 0.5 * (n % 24) as f32, 8.0, -12.0 + 0.5 * (n / 24) as f32);
            let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
            world.create_collider(body, &ColliderDef::new(Shape::sphere(0.15).unwrap())).unwrap();
            body
        })
        .collect();
    for n in 0..24 * 24 {
        let here = world.body(net[n]).unwrap().position();
        if n % 24 < 23 {
            let anchor = here + Vec3::new(0.25, 0.0, 0.0);
            world.create_joint(&JointDef::ball(Some(net[n]), net[n + 1], anchor)).unwrap();
        }
        if n / 24 < 23 {
            let anchor = here + Vec3::new(0.0, 0.0, 0.25);
            world.create_joint(&JointDef::ball(Some(net[n]), net[n + 24], anchor)).unwrap();
        }
    }
    for corner in [0, 23, 24 * 23, 24 * 24 - 1] {
        let anchor = world.body(net[corner]).unwrap().position();
        world.create_joint(&JointDef::ball(None, net[corner], anchor)).unwrap();
    }
    ids.extend(&net);
    let mut previous = None;
    for link in 0..10 {
        let position = Vec3::new(12.0, 12.0 - 0.6 * link as f32, -12.0);
        let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
        world.create_collider(body, &ColliderDef::new(Shape::capsule(0.2, 0.1).unwrap())).unwrap();
        let anchor = position + Vec3::new(0.0, 0.3, 0.0);
        world.create_joint(&JointDef::hinge(previous, body, anchor, Vec3::X)).unwrap();
        previous = Some(body);
        ids.push(body);
    }
    let ball = world
        .create_body(&BodyDef::dynamic(Vec3::new(-14.0, 3.0, 0.0)).with_linear_velocity(Vec3::new(15.0, 0.0, 0.0)))
        .unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    ids.push(ball);
    (world, ids)
}

/// FNV-1a over the bits of every body's position, rotation and velocities.
fn state_hash(world: &World, ids: &[BodyId]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for &id in ids {
        let b = world.body(id).unwrap();
        let (p, q, v, w) = (b.position(), b.rotation(), b.linear_velocity(), b.angular_velocity());
        for value in [p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z] {
            for byte in value.to_bits().to_le_bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    hash
}

/// The state hash every 50 steps over `steps` steps of the mixed pile on `threads` threads,
/// with the touching pair count at the end.
fn pile_hashes(solver: SolverSettings, threads: usize, steps: usize) -> (Vec<u64>, usize) {
    let (mut world, ids) = mixed_pile(solver);
    world.set_threads(threads).unwrap();
    assert_eq!(world.threads(), threads);
    let mut hashes = Vec::new();
    for step in 1..=steps {
        world.step(DT).unwrap();
        if step % 50 == 0 {
            hashes.push(state_hash(&world, &ids));
        }
    }
    (hashes, world.touching_pair_count())
}

/// 300 steps of the mixed pile give the same bits with 1, 2, 3 and 8 threads (every 50
/// steps). The pile is big enough that the colours, the narrow phase and the integration
/// are split into several tasks.
#[test]
fn every_thread_count_gives_the_same_bits() {
    let (one, touching) = pile_hashes(SolverSettings::default(), 1, 300);
    assert!(touching > 900, "only {touching} touching pairs: the pile is too small to split the work");
    for threads in [2, 3, 8] {
        let (hashes, _) = pile_hashes(SolverSettings::default(), threads, 300);
        assert_eq!(hashes, one, "{threads} threads differ from one");
    }
}

/// The same with the pgs solver and its ngs position pass (split per colour too).
#[test]
fn every_thread_count_gives_the_same_bits_with_pgs() {
    let solver = SolverSettings::pgs(PositionCorrection::Ngs);
    let (one, _) = pile_hashes(solver, 1, 100);
    for threads in [2, 8] {
        assert_eq!(pile_hashes(solver, threads, 100).0, one, "{threads} threads differ from one");
    }
}

/// Zero threads is refused, naming the argument.
#[test]
fn zero_threads_is_refused() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let error = world.set_threads(0).unwrap_err();
    assert_eq!(error.field, "threads");
    assert_eq!(world.threads(), 1);
}
