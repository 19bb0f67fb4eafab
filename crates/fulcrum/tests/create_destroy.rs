//! Creating and destroying bodies and colliders between the steps of a running world.

mod common;
use common::*;
use fulcrum::prelude::*;
use fulcrum::Error;

fn no_sleep_world() -> World {
    World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap()
}

fn sphere_mass(r: f32) -> f32 {
    1000.0 * 4.0 / 3.0 * std::f32::consts::PI * r * r * r
}

fn assert_refused<T: std::fmt::Debug>(result: Result<T, Error>, field: &str) {
    let err = result.expect_err("a destroyed id must be refused");
    assert_eq!(err.field, field, "{err}");
}

/// A cube created above a sleeping 3-stack falls freely (the recurrence from its own start),
/// lands on top and rests at y = 3.5 within 1 cm; the stack stays in place within 1 cm.
#[test]
fn box_dropped_onto_a_pile_later_lands_on_top() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let stack = add_stack(&mut world, 3);
    run(&mut world, 90);
    assert!(stack.iter().all(|&b| world.body(b).unwrap().is_sleeping()), "the pile should be asleep");
    let late = add_box(&mut world, Vec3::new(0.0, 5.0, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    assert!(!world.body(late).unwrap().is_sleeping());
    // Free fall for 0.4 s (1.2 m: the gap to the stack's top is 1.5 m).
    let n = world.settings().substeps;
    let h = DT as f64 / n as f64;
    let (mut y, mut v) = (5.0f64, 0.0f64);
    for _ in 0..24 {
        world.step(DT).unwrap();
        for _ in 0..n {
            v += h * -9.81f32 as f64;
            y += h * v;
        }
    }
    assert!((pos(&world, late).y as f64 - y).abs() < 1e-4, "the new box did not fall freely");
    run(&mut world, 120);
    let top = pos(&world, late);
    eprintln!("late box rests at {top}; stack at {:?}", stack.iter().map(|&b| pos(&world, b).y).collect::<Vec<_>>());
    assert!((top - Vec3::new(0.0, 3.5, 0.0)).length() < 0.01, "late box at {top}");
    for (i, &b) in stack.iter().enumerate() {
        assert!((pos(&world, b) - Vec3::new(0.0, 0.5 + i as f32, 0.0)).length() < 0.01);
    }
}

/// A collider added to a falling sphere doubles its mass at once; on the next step a force
/// accelerates it by F/m_new, while the centre of mass keeps falling at g (mass-independent).
/// Destroying the collider again restores the mass.
#[test]
fn collider_added_to_a_falling_body_changes_its_mass() {
    let mut world = World::default();
    let r = 0.3;
    let body = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 50.0, 0.0))).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::sphere(r).unwrap())).unwrap();
    run(&mut world, 10);
    let v_before = vel(&world, body);
    let offset = Vec3::new(0.6, 0.0, 0.0);
    let second = ColliderDef::new(Shape::sphere(r).unwrap()).with_pose(offset, Quat::IDENTITY);
    let extra = world.create_collider(body, &second).unwrap();
    let b = world.body(body).unwrap();
    let m_new = 2.0 * sphere_mass(r);
    assert!((b.mass() / m_new - 1.0).abs() < 1e-5, "mass {} expected {m_new}", b.mass());
    assert!((b.local_center_of_mass() - 0.5 * offset).length() < 1e-6);
    let force = Vec3::new(3.0 * m_new, 0.0, 0.0);
    world.apply_force(body, force).unwrap();
    world.step(DT).unwrap();
    let v = vel(&world, body);
    eprintln!("added collider: v.x = {} (F dt / m_new = {}), v.y = {}", v.x, 3.0 * DT, v.y);
    assert!((v.x / (3.0 * DT) - 1.0).abs() < 1e-4, "v.x = {}: not F dt / m_new", v.x);
    assert!((v.y - (v_before.y - 9.81 * DT)).abs() < 1e-4, "the centre of mass stopped falling at g");
    world.destroy_collider(extra).unwrap();
    let b = world.body(body).unwrap();
    assert!((b.mass() / sphere_mass(r) - 1.0).abs() < 1e-5);
    assert!(b.local_center_of_mass().length() < 1e-6);
    assert!(world.collider(extra).is_none());
}

/// Destroying the ground under a sleeping 2-stack wakes it at the next step, reports the end
/// of the ground contact (one event, naming the ground and the bottom box), and both boxes
/// then fall together at g: v = −g t within 1% after 0.5 s.
#[test]
fn destroying_the_ground_wakes_and_drops_the_boxes() {
    let mut world = World::default();
    let ground = add_ground(&mut world, 0.6);
    let stack = add_stack(&mut world, 2);
    run(&mut world, 90);
    assert!(stack.iter().all(|&b| world.body(b).unwrap().is_sleeping()));
    world.destroy_body(ground).unwrap();
    assert!(world.body(ground).is_none());
    world.step(DT).unwrap();
    assert!(stack.iter().all(|&b| !world.body(b).unwrap().is_sleeping()), "the boxes did not wake");
    let ends = &world.events().contact_end;
    assert_eq!(ends.len(), 1, "expected one end event, got {ends:?}");
    let pair = [ends[0].body_a, ends[0].body_b];
    assert!(pair.contains(&ground) && pair.contains(&stack[0]), "{ends:?}");
    run(&mut world, 29);
    let expected = -9.81 * 30.0 * DT;
    for &b in &stack {
        let vy = vel(&world, b).y;
        eprintln!("falling after the ground went: v.y = {vy:.4} (expected {expected:.4})");
        assert!((vy / expected - 1.0).abs() < 0.01, "v.y = {vy}");
    }
    let spacing = pos(&world, stack[1]).y - pos(&world, stack[0]).y;
    assert!((spacing - 1.0).abs() < 0.01, "the boxes separated: {spacing}");
}

/// Destroying the middle box of a 3-stack ends both of its contacts (two end events, each
/// naming the destroyed body); the top box then falls onto the bottom one (one begin event)
/// and rests at y = 1.5 within 1 cm.
#[test]
fn destroying_a_touched_body_ends_its_contacts() {
    let mut world = no_sleep_world();
    add_ground(&mut world, 0.6);
    let stack = add_stack(&mut world, 3);
    run(&mut world, 30);
    world.destroy_body(stack[1]).unwrap();
    world.step(DT).unwrap();
    let ends = world.events().contact_end.clone();
    assert_eq!(ends.len(), 2, "expected two end events, got {ends:?}");
    for e in &ends {
        assert!(e.body_a == stack[1] || e.body_b == stack[1], "{e:?}");
    }
    let mut begins = Vec::new();
    for _ in 0..90 {
        world.step(DT).unwrap();
        begins.extend(world.events().contact_begin.iter().copied());
    }
    eprintln!("top box after the middle went: y = {:.4}; begin events {}", pos(&world, stack[2]).y, begins.len());
    assert_eq!(begins.len(), 1, "{begins:?}");
    assert!([begins[0].body_a, begins[0].body_b] == [stack[0], stack[2]]);
    assert!((pos(&world, stack[2]) - Vec3::new(0.0, 1.5, 0.0)).length() < 0.01);
}

/// Ids of destroyed bodies and colliders are refused by every call while the world goes on
/// stepping, also after a new body reuses the slot.
#[test]
fn destroyed_ids_are_refused_in_a_running_world() {
    let mut world = no_sleep_world();
    let ground = add_ground(&mut world, 0.6);
    let ground_collider = world.body(ground).unwrap().colliders()[0];
    let stack = add_stack(&mut world, 2);
    run(&mut world, 10);
    let victim = stack[1];
    let victim_collider = world.body(victim).unwrap().colliders()[0];
    let spare = world.create_collider(stack[0], &ColliderDef::new(Shape::sphere(0.1).unwrap())).unwrap();
    world.destroy_collider(spare).unwrap();
    world.destroy_body(victim).unwrap();
    run(&mut world, 10);
    assert!(world.body(victim).is_none() && world.collider(victim_collider).is_none());
    assert!(world.collider(spare).is_none());
    assert_refused(world.destroy_body(victim), "body");
    assert_refused(world.set_linear_velocity(victim, Vec3::X), "body");
    assert_refused(world.apply_impulse(victim, Vec3::X), "body");
    assert_refused(world.set_body_pose(victim, Vec3::ZERO, Quat::IDENTITY), "body");
    assert_refused(world.wake_body(victim), "body");
    assert_refused(world.create_collider(victim, &ColliderDef::new(Shape::sphere(0.2).unwrap())), "body");
    assert_refused(world.destroy_collider(victim_collider), "collider");
    assert_refused(world.destroy_collider(spare), "collider");
    assert!(world.contact_between(victim_collider, ground_collider).is_none());
    // A new body takes the freed slot; the old id still reaches nothing.
    let newcomer = add_box(&mut world, Vec3::new(3.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    assert_eq!(newcomer.index(), victim.index());
    assert!(world.body(victim).is_none());
    assert_refused(world.set_linear_velocity(victim, Vec3::X), "body");
    run(&mut world, 30);
    assert_eq!(world.body_count(), 3);
    assert!((pos(&world, newcomer).y - 0.5).abs() < 0.01 && (pos(&world, stack[0]).y - 0.5).abs() < 0.01);
}
