//! Contact begin/end events, the contact readout of a resting box, and sensors.
//!
//! Events of a step come from the narrow phase at its start, i.e. from the poses the previous
//! step left; the tests record those poses before each step to predict the step of an event.

mod common;
use common::*;
use fulcrum::prelude::*;
use fulcrum::ContactInfo;

fn ground_collider(world: &World, ground: BodyId) -> ColliderId {
    world.body(ground).unwrap().colliders()[0]
}

/// A ball (r = 0.25, e = 0.7) dropped from 1 m bounces once: exactly one begin event, while it
/// falls and within the speculative band (gap ≤ 0.02 m + dt·|v|), then exactly one end event,
/// while it rises and clear of that band's 0.02 m, before it reaches its apex.
#[test]
fn bouncing_ball_begins_once_and_ends_once() {
    let mut world = World::default();
    let ground = add_ground(&mut world, 0.6);
    let r = 0.25;
    let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, r + 1.0, 0.0))).unwrap();
    let ball_collider =
        world.create_collider(ball, &ColliderDef::new(Shape::sphere(r).unwrap()).with_restitution(0.7)).unwrap();
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    let mut rebound = 0.0f32;
    for step in 0..120 {
        let (gap, v) = (pos(&world, ball).y - r, vel(&world, ball).y);
        world.step(DT).unwrap();
        let events = world.events();
        for e in &events.contact_begin {
            assert_eq!((e.collider_a, e.collider_b), (ground_collider(&world, ground), ball_collider));
            begins.push((step, gap, v));
        }
        for e in &events.contact_end {
            assert_eq!((e.body_a, e.body_b), (ground, ball));
            ends.push((step, gap, v));
        }
        rebound = rebound.max(vel(&world, ball).y);
        if v > 0.0 && vel(&world, ball).y <= 0.0 {
            break; // apex after the bounce
        }
    }
    eprintln!("bounce: begins (step, gap, v) {begins:?}, ends {ends:?}, rebound {rebound:.3} m/s");
    assert_eq!(begins.len(), 1, "begin events {begins:?}");
    assert_eq!(ends.len(), 1, "end events {ends:?}");
    let (begin_step, begin_gap, begin_v) = begins[0];
    let (end_step, end_gap, end_v) = ends[0];
    assert!(begin_v < 0.0 && begin_gap <= 0.02 + DT * begin_v.abs() + 1e-4, "begin at gap {begin_gap}, v {begin_v}");
    assert!(end_step > begin_step && end_v > 0.0 && end_gap > 0.02, "end at gap {end_gap}, v {end_v}");
    // The ball did bounce: impact speed √(2 g h) ≈ 4.43 m/s, rebound about 0.7 of it.
    assert!(rebound > 0.6 * (2.0f32 * 9.81).sqrt());
}

/// A resting 1000 kg cube: one contact with 4 points at the corners of its bottom face,
/// normal +Y (from the ground, created first, to the box), separations within 5 mm, normal
/// impulses summing to m g dt within 1%, no friction impulse to speak of.
#[test]
fn resting_box_contact_readout() {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    let ground = add_ground(&mut world, 0.6);
    let cube = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let cube_collider = world.body(cube).unwrap().colliders()[0];
    run(&mut world, 60);
    let contacts: Vec<ContactInfo> = world.contacts().collect();
    assert_eq!(contacts.len(), 1);
    let c = &contacts[0];
    assert_eq!((c.collider_a, c.collider_b), (ground_collider(&world, ground), cube_collider));
    assert_eq!((c.body_a, c.body_b), (ground, cube));
    assert_eq!(c.points.len(), 4);
    assert_eq!(world.contact_point_count(), 4);
    let mass = world.body(cube).unwrap().mass();
    assert!((mass - 1000.0).abs() < 1e-2);
    let weight_impulse = mass * 9.81 * DT;
    let total = c.total_normal_impulse();
    let impulses: Vec<f32> = c.points.iter().map(|p| p.normal_impulse).collect();
    eprintln!("resting box: normal {}, impulses {impulses:?} sum {total:.4} vs m g dt {weight_impulse:.4}", c.normal);
    assert!((total / weight_impulse - 1.0).abs() < 0.01, "normal impulses sum to {total}");
    assert!((c.normal - Vec3::Y).length() < 1e-4, "normal {}", c.normal);
    for p in &c.points {
        assert!(p.separation.abs() < 0.005, "separation {}", p.separation);
        assert!(p.normal_impulse >= 0.0);
        let corner = Vec3::new(0.5 * p.position.x.signum(), 0.0, 0.5 * p.position.z.signum());
        assert!((p.position - corner).length() < 0.01, "point {} is not at a corner", p.position);
    }
    let mut ids: Vec<u32> = c.points.iter().map(|p| p.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4, "feature ids must be distinct");
    assert!(c.friction_impulse.length() < 1e-3 * weight_impulse, "friction {}", c.friction_impulse);
    assert!((c.friction - 0.6).abs() < 1e-6 && c.restitution == 0.0);
}

/// `contact_between` finds the pair in either order and gives the same readout; it gives
/// nothing for colliders that do not touch.
#[test]
fn contact_between_works_in_both_orders() {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    let ground = add_ground(&mut world, 0.6);
    let cube = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let far = add_box(&mut world, Vec3::new(5.0, 3.0, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    run(&mut world, 10);
    let (g, c, f) = (
        ground_collider(&world, ground),
        world.body(cube).unwrap().colliders()[0],
        world.body(far).unwrap().colliders()[0],
    );
    let forward = world.contact_between(g, c).expect("ground-cube contact");
    let backward = world.contact_between(c, g).expect("cube-ground contact");
    assert_eq!(forward, backward);
    assert_eq!(forward, world.contacts().next().unwrap());
    assert!(world.contact_between(c, f).is_none() && world.contact_between(f, c).is_none());
    assert!(world.contact_between(g, f).is_none(), "the far box is still in the air");
}

/// Is the ball (centre y, radius r) overlapping the sensor slab 2 < y < 4?
fn in_sensor(y: f32, r: f32) -> bool {
    y - r < 4.0 && y + r > 2.0
}

/// A ball falls through a static sensor box (y from 2 to 4) at free-fall speed: its
/// trajectory is the free-fall recurrence within 1e-4 m; one sensor begin in the first step
/// that starts overlapping, one sensor end in the first step that starts clear; no contact
/// events, no contact readout.
#[test]
fn sensor_reports_overlap_and_makes_no_force() {
    let mut world = World::default();
    let sensor_body = world.create_body(&BodyDef::fixed(Vec3::new(0.0, 3.0, 0.0))).unwrap();
    let sensor_def = ColliderDef::new(Shape::cuboid(Vec3::splat(1.0)).unwrap()).with_sensor(true);
    let sensor = world.create_collider(sensor_body, &sensor_def).unwrap();
    let r = 0.25;
    let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 6.0, 0.0))).unwrap();
    let ball_collider = world.create_collider(ball, &ColliderDef::new(Shape::sphere(r).unwrap())).unwrap();
    let n = world.settings().substeps;
    let h = DT as f64 / n as f64;
    let (mut y, mut v) = (6.0f64, 0.0f64);
    let (mut begin_steps, mut end_steps) = (Vec::new(), Vec::new());
    let (mut first_in, mut first_out) = (None, None);
    let mut worst = 0.0f64;
    for step in 0..60 {
        let inside = in_sensor(pos(&world, ball).y, r);
        if inside && first_in.is_none() {
            first_in = Some(step);
        }
        if !inside && first_in.is_some() && first_out.is_none() {
            first_out = Some(step);
        }
        world.step(DT).unwrap();
        let events = world.events();
        assert!(events.contact_begin.is_empty() && events.contact_end.is_empty());
        for e in &events.sensor_begin {
            assert_eq!((e.collider_a, e.collider_b), (sensor, ball_collider));
            begin_steps.push(step);
        }
        end_steps.extend(events.sensor_end.iter().map(|_| step));
        assert_eq!(world.contacts().count(), 0);
        assert!(world.contact_between(sensor, ball_collider).is_none());
        for _ in 0..n {
            v += h * -9.81f32 as f64;
            y += h * v;
        }
        worst = worst.max((pos(&world, ball).y as f64 - y).abs());
    }
    eprintln!(
        "sensor: begin at steps {begin_steps:?} (first overlap {first_in:?}), end at {end_steps:?} (first clear {first_out:?}), worst fall error {worst:e} m"
    );
    assert_eq!(begin_steps, vec![first_in.unwrap()]);
    assert_eq!(end_steps, vec![first_out.unwrap()]);
    assert!(worst < 1e-4, "the sensor changed the fall by {worst} m");
}
