//! Cloths and ropes (issue 13's acceptance): the catenary, a crate on a rope (length and
//! period), a cloth pinned at two corners (stretch, step independence), cloth draped over a
//! sphere, particles against a box, a heightfield and a mesh, bad definitions.

mod common;

use common::{add_ground, DT};
use fulcrum::particles::Attachment;
use fulcrum::prelude::*;

fn world_at(hz: f32) -> World {
    World::new(WorldSettings { timestep: 1.0 / hz, ..Default::default() }).unwrap()
}

fn run(world: &mut World, seconds: f32) {
    let dt = world.settings().timestep;
    for _ in 0..(seconds / dt).round() as usize {
        world.step(dt).unwrap();
    }
}

fn fastest(world: &World, set: impl Into<ParticleSetId>) -> f32 {
    world.particles(set).unwrap().velocities().iter().map(|v| v.length()).fold(0.0, f32::max)
}

/// Largest stretch of a link between particles `pairs` over their rest length `rest`.
fn worst_stretch(positions: &[Vec3], pairs: impl Iterator<Item = (usize, usize)>, rest: f32) -> f32 {
    pairs.map(|(a, b)| (positions[a] - positions[b]).length() / rest - 1.0).fold(f32::MIN, f32::max)
}

/// The continuous catenary y = a·cosh(x/a) through two points a span s apart with length l:
/// 2a·sinh(s/2a) = l, solved for a by bisection; its sag is a·(cosh(s/2a) − 1).
fn catenary_sag(span: f64, length: f64) -> f64 {
    let (mut low, mut high) = (0.01f64, 1.0e4f64);
    for _ in 0..200 {
        let a = 0.5 * (low + high);
        if 2.0 * a * (span / (2.0 * a)).sinh() > length {
            low = a;
        } else {
            high = a;
        }
    }
    let a = 0.5 * (low + high);
    a * ((span / (2.0 * a)).cosh() - 1.0)
}

/// An inextensible rope of 40 segments, 12 m long, its ends pinned 10 m apart, comes to
/// rest (moves < 0.1 mm in its 30th second) on the catenary: its lowest point within 1% of the continuous curve's sag, no segment
/// more than 0.5% over its rest length.
#[test]
fn a_rope_pinned_at_both_ends_hangs_on_its_catenary() {
    let mut world = world_at(60.0);
    let def = RopeDef {
        start: Vec3::new(-6.0, 10.0, 0.0),
        end: Vec3::new(6.0, 10.0, 0.0),
        segments: 40,
        mass: 1.2,
        bend_compliance: 1.0,
        damping: 1.0,
        pinned: vec![0, 40],
        ..Default::default()
    };
    let rope = world.create_rope(&def).unwrap();
    world.set_particle_position(rope, 0, Vec3::new(-5.0, 10.0, 0.0)).unwrap();
    world.set_particle_position(rope, 40, Vec3::new(5.0, 10.0, 0.0)).unwrap();
    run(&mut world, 29.0);
    let before = world.particles(rope).unwrap().positions().to_vec();
    run(&mut world, 1.0);
    let positions = world.particles(rope).unwrap().positions();
    let moved = positions.iter().zip(&before).map(|(a, b)| (*a - *b).length()).fold(0.0, f32::max);
    let lowest = positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    let sag = (10.0 - lowest) as f64;
    let expected = catenary_sag(10.0, 12.0);
    let stretch = worst_stretch(positions, (0..40).map(|i| (i, i + 1)), 0.3);
    eprintln!(
        "catenary: sag {sag:.4} m vs {expected:.4} m ({:+.3}%), worst stretch {:.4}%, moved {moved:.1e} m in the last second",
        100.0 * (sag / expected - 1.0),
        100.0 * stretch
    );
    assert!(moved < 1e-4, "still moving: {moved} m in the last second");
    assert!((sag / expected - 1.0).abs() < 0.01, "sag {sag} vs {expected}");
    assert!(stretch < 0.005, "a segment is {:.3}% over its rest length", 100.0 * stretch);
}

/// A 10 kg crate (0.5 m cube) on a 3 m rope of 0.1 kg pinned above, released 5° from the
/// vertical: the rope keeps its length within 1% and the crate swings with the period of the
/// physical pendulum (rope as a uniform rod, crate rigid on it, pivot at the pin; corrected for
/// the amplitude) within 1%.
#[test]
fn a_crate_on_a_rope_swings_with_the_physical_pendulum_period() {
    let mut world = world_at(60.0);
    let pin = Vec3::new(0.0, 6.0, 0.0);
    let angle = 5f32.to_radians();
    let down = Vec3::new(angle.sin(), -angle.cos(), 0.0);
    let (length, half) = (3.0f32, 0.25f32);
    let anchor = pin + down * length;
    let crate_def = BodyDef { mass: Some(10.0), ..BodyDef::dynamic(pin + down * (length + half)) }
        .with_rotation(Quat::from_rotation_z(angle));
    let crate_id = world.create_body(&crate_def).unwrap();
    world.create_collider(crate_id, &ColliderDef::new(Shape::cuboid(Vec3::splat(half)).unwrap())).unwrap();
    let rope = world
        .create_rope(&RopeDef {
            start: pin,
            end: anchor,
            segments: 30,
            mass: 0.1,
            damping: 0.0,
            pinned: vec![0],
            attached: vec![Attachment { particle: 30, body: crate_id, anchor }],
            ..Default::default()
        })
        .unwrap();
    let (mut crossings, mut last_x, mut worst_length) = (Vec::new(), world.body(crate_id).unwrap().position().x, 0.0f32);
    for step in 1..=(20.0 / DT) as usize {
        world.step(DT).unwrap();
        let x = world.body(crate_id).unwrap().position().x;
        if (x < 0.0) != (last_x < 0.0) {
            crossings.push((step - 1) as f32 * DT + DT * last_x / (last_x - x));
        }
        last_x = x;
        let positions = world.particles(rope).unwrap().positions();
        let along: f32 = positions.windows(2).map(|w| (w[1] - w[0]).length()).sum();
        worst_length = worst_length.max((along / length - 1.0).abs());
    }
    let (m, mr, g) = (10.0f64, 0.1f64, 9.81f64);
    let (l, d) = (length as f64, (length + half) as f64);
    let inertia = m * d * d + m * (0.5f64 * 0.5 + 0.5 * 0.5) / 12.0 + mr * l * l / 3.0;
    let period = 2.0 * std::f64::consts::PI * (inertia / (g * (m * d + mr * l / 2.0))).sqrt();
    let period = period * (1.0 + (angle as f64).powi(2) / 16.0);
    let measured = (crossings[crossings.len() - 1] - crossings[0]) as f64 / ((crossings.len() - 1) as f64 / 2.0);
    eprintln!("crate pendulum: period {measured:.4} s vs {period:.4} s ({:+.3}%), length off by at most {:.3}%",
        100.0 * (measured / period - 1.0), 100.0 * worst_length);
    assert!(worst_length < 0.01, "the rope's length is off by {:.2}%", 100.0 * worst_length);
    assert!((measured / period - 1.0).abs() < 0.01, "period {measured} vs {period}");
}

