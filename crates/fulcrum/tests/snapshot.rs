//! Snapshots: a restored world steps on bit-identically (every sample scene and a mixed world
//! built in code), keeps the ids held before, encodes to the same bytes, and refuses bad bytes
//! with a reason instead of panicking.

use std::path::Path;

use fulcrum::joint::user::{UserBody, UserConstraint, UserRow, UserRows};
use fulcrum::particles::Attachment;
use fulcrum::prelude::*;

const DT: f32 = 1.0 / 60.0;

/// Every body's pose and velocities, every particle's position and velocity and every
/// character's position, as bits.
fn state_bits(world: &World) -> Vec<u32> {
    let mut bits = Vec::new();
    for (_, body) in world.bodies() {
        let (p, q) = (body.position(), body.rotation());
        let (v, w) = (body.linear_velocity(), body.angular_velocity());
        bits.extend([p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z].map(f32::to_bits));
    }
    let cloths = world.cloths().map(|(id, _)| ParticleSetId::from(id));
    let ropes = world.ropes().map(|(id, _)| ParticleSetId::from(id));
    for set in cloths.chain(ropes).collect::<Vec<_>>() {
        let particles = world.particles(set).unwrap();
        for (x, v) in particles.positions().iter().zip(particles.velocities()) {
            bits.extend([x.x, x.y, x.z, v.x, v.y, v.z].map(f32::to_bits));
        }
    }
    for (_, character) in world.characters() {
        bits.extend(character.position().to_array().map(f32::to_bits));
    }
    bits
}

/// Steps `world` `steps` times by `dt`, recording the state after each step.
fn trajectory(world: &mut World, steps: usize, dt: f32) -> Vec<Vec<u32>> {
    (0..steps)
        .map(|_| {
            world.step(dt).unwrap();
            state_bits(world)
        })
        .collect()
}

/// Steps `before`, snapshots, steps the original `after` more and a restored copy the same;
/// both trajectories and the final snapshots must agree bit for bit, and the restored
/// world's own snapshot must equal the one it came from.
fn check_continuation(mut world: World, before: usize, after: usize, dt: f32, name: &str) {
    for _ in 0..before {
        world.step(dt).unwrap();
    }
    let bytes = world.snapshot();
    let mut restored = World::restore(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(restored.snapshot() == bytes, "{name}: the restored world encodes differently");
    let original = trajectory(&mut world, after, dt);
    let copy = trajectory(&mut restored, after, dt);
    if let Some(step) = (0..after).find(|&i| original[i] != copy[i]) {
        panic!("{name}: the restored world departs {} steps after the snapshot", step + 1);
    }
    assert!(world.snapshot() == restored.snapshot(), "{name}: the final states differ");
}

#[test]
fn every_sample_scene_continues_bit_identically() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "sample scenes not found in {}", dir.display());
    for path in paths {
        let (world, _) = Scene::load(&path).unwrap().build().unwrap();
        let dt = world.settings().timestep;
        check_continuation(world, 120, 200, dt, &path.display().to_string());
    }
}

/// Keeps body B's centre of mass above y = `floor` (an inequality row against the world).
struct Floor {
    floor: f32,
}

impl UserConstraint for Floor {
    fn rows(&mut self, world: &UserBody, body: &UserBody, rows: &mut UserRows) -> fulcrum::Result<()> {
        let center = body.center_of_mass();
        let below = Vec3::new(center.x, self.floor, center.z);
        rows.push(UserRow::between_points(Vec3::Y, below, center, world, body).inequality())
    }
}

/// A heightfield ground, boxes and spheres in a heap, a hinge chain with a motor and a limit,
/// a box that falls asleep on a plinth, a character walking, a rope hanging from a box and a user
/// constraint; returns the world and the ids a user would hold.
fn mixed_world() -> (World, Vec<BodyId>, CharacterId, RopeId) {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let height = |row: usize, col: usize| 0.15 * (col as f32 * 0.7).sin() * (row as f32 * 0.5).cos();
    let heights = (0..16).map(|row| (0..16).map(|col| height(row, col)).collect()).collect();
    let field = Shape::heightfield(heights, Vec3::new(2.0, 1.0, 2.0)).unwrap();
    let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(ground, &ColliderDef::new(field)).unwrap();
    let mut ids = vec![ground];
    for i in 0..12 {
        let position = Vec3::new((i % 3) as f32 * 0.9 - 0.9, 1.0 + (i / 3) as f32 * 0.9, (i % 2) as f32 * 0.3);
        let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
        let shape = if i % 2 == 0 { Shape::cuboid(Vec3::splat(0.35)) } else { Shape::sphere(0.4) };
        world.create_collider(body, &ColliderDef::new(shape.unwrap())).unwrap();
        ids.push(body);
    }
    let mut previous = None;
    for link in 0..5 {
        let x = 4.0 + link as f32 * 0.6;
        let body = world.create_body(&BodyDef::dynamic(Vec3::new(x, 3.0, 0.0))).unwrap();
        world.create_collider(body, &ColliderDef::new(Shape::cuboid(Vec3::new(0.25, 0.08, 0.08)).unwrap())).unwrap();
        let anchor = Vec3::new(x - 0.3, 3.0, 0.0);
        let hinge = JointDef::hinge(previous, body, anchor, Vec3::Z);
        let hinge = if link == 0 {
            hinge.with_motor(Motor::Velocity { target_velocity: 1.5, max_force: 40.0 })
        } else {
            hinge.with_limits(Limits::new(-0.6, 0.6))
        };
        world.create_joint(&hinge).unwrap();
        previous = Some(body);
        ids.push(body);
    }
    let plinth = world.create_body(&BodyDef::fixed(Vec3::new(-5.0, 0.5, 4.0))).unwrap();
    world.create_collider(plinth, &ColliderDef::new(Shape::cuboid(Vec3::new(0.5, 0.1, 0.5)).unwrap())).unwrap();
    let sleeper = world.create_body(&BodyDef::dynamic(Vec3::new(-5.0, 0.9, 4.0))).unwrap();
    world.create_collider(sleeper, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.3)).unwrap())).unwrap();
    ids.push(sleeper);
    let weight = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 4.0, -4.0))).unwrap();
    world.create_collider(weight, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.2)).unwrap())).unwrap();
    world.create_user_constraint(None, weight, Box::new(Floor { floor: 2.5 })).unwrap();
    ids.push(weight);
    let character = world.create_character(&CharacterDef::at(Vec3::new(-4.0, 1.5, -3.0))).unwrap();
    world.set_character_velocity(character, Vec3::new(1.0, 0.0, 0.5)).unwrap();
    let rope = RopeDef {
        start: Vec3::new(6.0, 5.0, 2.0),
        end: Vec3::new(7.5, 5.0, 2.0),
        segments: 12,
        pinned: vec![0],
        ..Default::default()
    };
    let rope = world.create_rope(&rope).unwrap();
    (world, ids, character, rope)
}

fn restore_mixed(bytes: &[u8]) -> fulcrum::Result<World> {
    World::restore_with(bytes, |_| Ok(Box::new(Floor { floor: 2.5 })))
}

#[test]
fn mixed_world_continues_bit_identically_with_its_ids() {
    let (mut world, ids, character, rope) = mixed_world();
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    assert!(world.body(ids[ids.len() - 2]).unwrap().is_sleeping(), "the sleeper woke: the test lost its sleeping body");
    assert!(world.touching_pair_count() > 10, "the heap should be in contact");
    let bytes = world.snapshot();
    let mut restored = restore_mixed(&bytes).unwrap();
    assert!(restored.snapshot() == bytes);
    for &id in &ids {
        assert_eq!(restored.body(id).unwrap().position(), world.body(id).unwrap().position());
    }
    assert!(restored.character(character).is_some() && restored.rope(rope).is_some());
    let original = trajectory(&mut world, 200, DT);
    let copy = trajectory(&mut restored, 200, DT);
    assert!(original == copy, "the restored mixed world departs from the original");
    assert!(world.snapshot() == restored.snapshot());
}

#[test]
fn user_constraints_need_their_code_on_restore() {
    let (world, ..) = mixed_world();
    let error = World::restore(&world.snapshot()).map(|_| ()).unwrap_err();
    assert!(error.reason.contains("restore_with"), "{error}");
    let refused =
        World::restore_with(&world.snapshot(), |_| Err(fulcrum::Error::new("mine", "no"))).map(|_| ()).unwrap_err();
    assert_eq!(refused.field, "mine");
}

/// A small xorshift generator: the fuzz cases are the same on every run.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn bad_bytes_are_refused_with_a_reason() {
    let (mut world, ..) = mixed_world();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let bytes = world.snapshot();
    let reason = |bad: &[u8]| restore_mixed(bad).map(|_| ()).unwrap_err().reason;
    assert!(reason(&[]).contains("truncated"));
    assert!(reason(b"not a snapshot at all, just some text").contains("not a fulcrum snapshot"));
    let mut version = bytes.clone();
    version[8] = 99;
    assert!(reason(&version).contains("version 99"));
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    for _ in 0..200 {
        let cut = (next(&mut state) % bytes.len() as u64) as usize;
        assert!(reason(&bytes[..cut]).contains("truncated"), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(reason(&longer).contains("trailing"));
    for _ in 0..200 {
        let mut flipped = bytes.clone();
        let bit = next(&mut state) % (8 * bytes.len() as u64);
        flipped[(bit / 8) as usize] ^= 1 << (bit % 8);
        let why = reason(&flipped);
        assert!(!why.is_empty(), "bit {bit}");
    }
    // Another payload under the same header.
    let garbage: Vec<u8> = (0..64).map(|_| next(&mut state) as u8).collect();
    let mut forged = bytes[..12].to_vec();
    forged.extend_from_slice(&(garbage.len() as u64).to_le_bytes());
    forged.extend_from_slice(&[0; 8]);
    forged.extend_from_slice(&garbage);
    assert!(reason(&forged).contains("checksum"));
}

/// The snapshot format's checksum (documented in `world/snapshot.rs`): for each little-endian
/// 64-bit word w of the payload (the tail zero-padded), h ← rotl(h ⊕ w, 29)·K, seeded with the
/// length. A crafted snapshot carries a correct one.
fn checksum(payload: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut words = payload.chunks_exact(8);
    let mut hash = (payload.len() as u64).wrapping_mul(K);
    for word in &mut words {
        hash = (hash ^ u64::from_le_bytes(word.try_into().unwrap())).rotate_left(29).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    (hash ^ u64::from_le_bytes(tail)).rotate_left(29).wrapping_mul(K)
}

/// Bytes of the header: magic, version, payload length, checksum.
const HEADER: usize = 28;

/// `bytes` with one to three payload bytes changed (a bit flipped, a random byte, or one more),
/// resealed with a correct checksum.
fn crafted(bytes: &[u8], state: &mut u64) -> Vec<u8> {
    let mut changed = bytes.to_vec();
    for _ in 0..1 + next(state) % 3 {
        let at = HEADER + (next(state) % (bytes.len() - HEADER) as u64) as usize;
        changed[at] = match next(state) % 4 {
            0 => changed[at] ^ 1 << (next(state) % 8),
            1 => next(state) as u8,
            2 => changed[at].wrapping_add(1),
            _ => [0, 1, 0x7F, 0xFF][(next(state) % 4) as usize],
        };
    }
    let sum = checksum(&changed[HEADER..]);
    changed[20..HEADER].copy_from_slice(&sum.to_le_bytes());
    changed
}

/// A triangle-mesh ground with bumps, convex hulls, a capsule and a cylinder on it, a chain of
/// spheres on ball joints hung from the world, and a cloth (self-colliding) pinned at two
/// corners and attached to a box: the built data and references the mixed world lacks.
fn level_world() -> World {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let n = 8;
    let vertices: Vec<Vec3> = (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as f32, (k / n) as f32);
            Vec3::new(i - 3.5, 0.2 * (i * 0.9).sin() * (j * 0.7).cos(), j - 3.5)
        })
        .collect();
    let cells = (0..n - 1).flat_map(|j| (0..n - 1).map(move |i| (j * n + i) as u32));
    let indices: Vec<[u32; 3]> =
        cells.flat_map(|c| [[c, c + n as u32, c + n as u32 + 1], [c, c + n as u32 + 1, c + 1]]).collect();
    let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(ground, &ColliderDef::new(Shape::trimesh(vertices, indices, false).unwrap())).unwrap();
    let tetra =
        [Vec3::new(0.0, 0.4, 0.0), Vec3::new(0.35, -0.2, 0.2), Vec3::new(-0.35, -0.2, 0.2), Vec3::new(0.0, -0.2, -0.4)];
    let shapes = [
        Shape::convex_hull(&tetra).unwrap(),
        Shape::convex_hull(&[Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z].map(|v| 0.3 * v)).unwrap(),
        Shape::capsule(0.25, 0.2).unwrap(),
        Shape::cylinder(0.2, 0.25).unwrap(),
    ];
    for (k, shape) in shapes.into_iter().enumerate() {
        let body = world.create_body(&BodyDef::dynamic(Vec3::new(k as f32 - 1.5, 0.8, -1.0))).unwrap();
        world.create_collider(body, &ColliderDef::new(shape)).unwrap();
    }
    let mut above = None;
    for k in 0..4 {
        let body = world.create_body(&BodyDef::dynamic(Vec3::new(2.5 + 0.4 * k as f32, 3.0, 2.0))).unwrap();
        world.create_collider(body, &ColliderDef::new(Shape::sphere(0.15).unwrap())).unwrap();
        let anchor = Vec3::new(2.3 + 0.4 * k as f32, 3.0, 2.0);
        world.create_joint(&JointDef::ball(above, body, anchor)).unwrap();
        above = Some(body);
    }
    let holder = world.create_body(&BodyDef::dynamic(Vec3::new(-1.0, 2.2, 1.5))).unwrap();
    world.create_collider(holder, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.2)).unwrap())).unwrap();
    let cloth = ClothDef {
        position: Vec3::new(-1.0, 2.0, 1.5),
        size: [1.5, 1.5],
        resolution: [6, 6],
        self_collision: true,
        pinned: vec![[0, 0], [6, 0]],
        attached: vec![Attachment { particle: [3, 6], body: holder, anchor: Vec3::new(-1.0, 2.0, 2.25) }],
        ..Default::default()
    };
    world.create_cloth(&cloth).unwrap();
    world
}

/// Bytes that pass the checksum but were changed by hand (or by a faulty peer) never panic:
/// restore refuses them with a reason, or the world it gives steps and snapshots. Each world
/// is stepped into contact first, then 1,500 crafted copies of its snapshot are restored and
/// stepped ten times.
#[test]
fn crafted_snapshots_are_refused_or_step_safely() {
    let (mut mixed, ..) = mixed_world();
    let mut level = level_world();
    for _ in 0..90 {
        mixed.step(DT).unwrap();
        level.step(DT).unwrap();
    }
    assert!(level.touching_pair_count() >= 4, "the level world should be in contact: {}", level.touching_pair_count());
    let mut state = 0x1234_5678_9ABC_DEF1_u64;
    let (mut refused, mut restored) = (0, 0);
    for (name, bytes) in [("mixed", mixed.snapshot()), ("level", level.snapshot())] {
        for case in 0..1500 {
            let changed = crafted(&bytes, &mut state);
            let outcome = std::panic::catch_unwind(|| match restore_mixed(&changed) {
                Ok(mut world) => {
                    for _ in 0..10 {
                        let _ = world.step(DT);
                    }
                    world.snapshot().len() > HEADER
                }
                Err(error) => {
                    assert!(!error.reason.is_empty());
                    false
                }
            });
            match outcome {
                Ok(true) => restored += 1,
                Ok(false) => refused += 1,
                Err(_) => panic!("{name} world, crafted case {case}: restoring or stepping it panicked"),
            }
        }
    }
    // Both outcomes occur: most changes hit numbers, which stay valid; changes to counts,
    // indices and tags are refused.
    assert!(refused > 300 && restored > 300, "{refused} refused, {restored} restored");
}
