//! Welds: a rigid cantilever of five boxes holds its shape; soft welds sag, a single soft
//! weld by exactly g/ω², and the sag grows as the frequency drops.
//!
//! Each box is 1 m long with a 0.2 m × 0.2 m section (density 1000: 40 kg); the cantilever
//! sticks 5 m out of a static wall at x = 0, welded to the wall and box to box at the shared
//! faces.

mod common;
use common::joints::*;
use common::*;
use fulcrum::joint::Spring;
use fulcrum::prelude::*;

const BOX_HALF: Vec3 = Vec3::new(0.5, 0.1, 0.1);
const HEIGHT: f32 = 3.0;

/// A cantilever of `count` boxes out of the wall at x = 0, every weld soft with `spring`.
/// Returns (world, boxes, welds).
fn cantilever(count: usize, spring: Option<Spring>) -> (World, Vec<BodyId>, Vec<JointId>) {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    let mut boxes = Vec::new();
    let mut welds = Vec::new();
    let mut previous = None;
    for i in 0..count {
        let center = Vec3::new(2.0 * BOX_HALF.x * (i as f32 + 0.5), HEIGHT, 0.0);
        let body = add_box(&mut world, center, Quat::IDENTITY, BOX_HALF, 0.5);
        let face = Vec3::new(2.0 * BOX_HALF.x * i as f32, HEIGHT, 0.0);
        let mut def = JointDef::weld(previous, body, face);
        if let Some(spring) = spring {
            def = def.with_spring(spring);
        }
        welds.push(world.create_joint(&def).unwrap());
        boxes.push(body);
        previous = Some(body);
    }
    (world, boxes, welds)
}

/// How far the far end of the last box has dropped, metres.
fn tip_sag(world: &World, last: BodyId) -> f32 {
    HEIGHT - world.body(last).unwrap().pose().transform_point(Vec3::new(BOX_HALF.x, 0.0, 0.0)).y
}

/// Steps `seconds` and returns the largest tip sag, the sag at the end and the largest anchor
/// gap.
fn watch(world: &mut World, boxes: &[BodyId], welds: &[JointId], seconds: f32) -> (f32, f32, f32) {
    let last = *boxes.last().unwrap();
    let (mut largest, mut gap) = (0.0f32, 0.0f32);
    for _ in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
        largest = largest.max(tip_sag(world, last));
        for &weld in welds {
            gap = gap.max(joint_gap(world, weld));
        }
    }
    (largest, tip_sag(world, last), gap)
}

/// Five 40 kg boxes welded into a 5 m cantilever sag less than 1 cm at the tip, at any time
/// over 3 s, in soft step and in pgs (ngs and Baumgarte position correction).
#[test]
fn rigid_cantilever_barely_sags() {
    let modes = [
        ("soft step", SolverSettings::default()),
        ("pgs ngs", SolverSettings::pgs(PositionCorrection::Ngs)),
        ("pgs baumgarte", SolverSettings::pgs(PositionCorrection::Baumgarte)),
    ];
    for (name, solver) in modes {
        let (mut world, boxes, welds) = cantilever(5, None);
        world.set_settings(WorldSettings { solver, ..*world.settings() }).unwrap();
        let (largest, last, gap) = watch(&mut world, &boxes, &welds, 3.0);
        eprintln!("rigid cantilever 5 × 1 m ({name}): largest tip sag {largest:.3e} m, final {last:.3e} m, largest weld gap {gap:.3e} m");
        assert!(largest < 0.01, "{name}: tip sagged {largest} m");
    }
}

/// A single box on a soft weld to the wall settles g/ω² lower without turning: the weld's
/// spring acts through the joint's effective mass, so every body point drops as a lone mass
/// on a spring of that frequency would (5 Hz: 9.94 mm), within 3%.
#[test]
fn soft_weld_sags_by_g_over_omega_squared() {
    let hertz = 5.0;
    let (mut world, boxes, welds) = cantilever(1, Some(Spring::new(hertz, 1.0)));
    watch(&mut world, &boxes, &welds, 3.0);
    let pose = world.body(boxes[0]).unwrap().pose();
    let near = HEIGHT - pose.transform_point(Vec3::new(-BOX_HALF.x, 0.0, 0.0)).y;
    let far = HEIGHT - pose.transform_point(Vec3::new(BOX_HALF.x, 0.0, 0.0)).y;
    let omega = 2.0 * std::f32::consts::PI * hertz;
    let expected = 9.81 / (omega * omega);
    eprintln!("soft weld 5 Hz, one box: sag {near:.5} m at the wall, {far:.5} m at the tip (g/ω² = {expected:.5})");
    assert!((near / expected - 1.0).abs() < 0.03, "sag at the wall {near}");
    assert!((far / expected - 1.0).abs() < 0.03, "sag at the tip {far}");
}

/// Mean tip sag over the last `average` seconds of `seconds`, metres.
fn settled_sag(world: &mut World, last: BodyId, seconds: f32, average: f32) -> f32 {
    let steps = (seconds / DT) as usize;
    let averaged = (average / DT) as usize;
    let mut sum = 0.0;
    for step in 0..steps {
        world.step(DT).unwrap();
        if step >= steps - averaged {
            sum += tip_sag(world, last);
        }
    }
    sum / averaged as f32
}

/// The five-box cantilever on soft welds (60, 40 and 25 Hz, damping ratio 5) sags more than
/// the rigid one, more as the frequency drops, and as 1/f²: a soft weld is a spring of
/// stiffness ω² K⁻¹ (K the joint's effective-mass block), so the static sag times f² is the
/// same at every frequency, within 5% (mean sag over the last 2 of 8 s: the cantilever's
/// slow bending mode sees little of the welds' damping, which is set against each pair's
/// own effective mass).
#[test]
fn softer_welds_sag_more() {
    let (mut world, boxes, _) = cantilever(5, None);
    let rigid = settled_sag(&mut world, boxes[4], 3.0, 1.0);
    let mut sags = Vec::new();
    for hertz in [60.0f32, 40.0, 25.0] {
        let (mut world, boxes, _) = cantilever(5, Some(Spring::new(hertz, 5.0)));
        let sag = settled_sag(&mut world, boxes[4], 8.0, 2.0);
        eprintln!(
            "soft cantilever at {hertz} Hz: tip sag {sag:.4} m, sag·f² {:.1} m·Hz² (rigid {rigid:.2e} m)",
            sag * hertz * hertz
        );
        sags.push((hertz, sag));
    }
    let mut previous = rigid;
    for &(hertz, sag) in &sags {
        assert!(sag > previous + 0.05, "{hertz} Hz sagged {sag} m, no more than {previous} m");
        previous = sag;
    }
    let scaled: Vec<f32> = sags.iter().map(|&(hertz, sag)| sag * hertz * hertz).collect();
    let (low, high) = scaled.iter().fold((f32::MAX, 0.0f32), |(l, h), &x| (l.min(x), h.max(x)));
    assert!(high / low < 1.05, "sag·f² spreads from {low} to {high}");
}
