//! The joint samples of `scenes/` do what their descriptions say, measured against the issue's
//! figures where it gives them. A sample whose joint kinds the engine does not simulate yet is
//! skipped with a note (on a branch where not every kind is merged); any other build error
//! fails.

use fulcrum::prelude::*;
use fulcrum::{Scene, SceneIndex};

const DT: f32 = 1.0 / 60.0;

/// The built sample, or `None` (with a note) when one of its joint kinds is not simulated yet.
fn load(name: &str) -> Option<(World, SceneIndex)> {
    let path = format!("{}/../../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    match scene.build() {
        Ok(built) => Some(built),
        Err(e) if e.reason.contains("not supported yet") => {
            eprintln!("{name}: skipped, {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn body<'w>(world: &'w World, index: &SceneIndex, name: &str) -> &'w fulcrum::Body {
    world.body(index.body(name).unwrap_or_else(|| panic!("no body {name}"))).unwrap()
}

fn joint<'w>(world: &'w World, index: &SceneIndex, name: &str) -> &'w fulcrum::Joint {
    world.joint(index.joint(name).unwrap_or_else(|| panic!("no joint {name}"))).unwrap()
}

/// World positions of a joint's two anchors.
fn anchors(world: &World, joint: &fulcrum::Joint) -> (Vec3, Vec3) {
    let place = |body: Option<BodyId>, local: Vec3| match body {
        Some(id) => world.body(id).unwrap().pose().transform_point(local),
        None => local,
    };
    (place(joint.body_a(), joint.local_frame_a().position), place(Some(joint.body_b()), joint.local_frame_b().position))
}

/// Distance between a joint's anchors, metres.
fn gap(world: &World, joint: &fulcrum::Joint) -> f32 {
    let (a, b) = anchors(world, joint);
    (b - a).length()
}

/// Largest anchor gap over every joint of the world.
fn largest_gap(world: &World) -> f32 {
    world.joints().map(|(_, j)| gap(world, j)).fold(0.0, f32::max)
}

/// Turn of B's joint frame relative to A's about the joint axis, radians.
fn hinge_angle(world: &World, joint: &fulcrum::Joint) -> f32 {
    let rotation = |body: Option<BodyId>| body.map_or(Quat::IDENTITY, |id| world.body(id).unwrap().rotation());
    let a = rotation(joint.body_a()) * joint.local_frame_a().rotation;
    let b = rotation(Some(joint.body_b())) * joint.local_frame_b().rotation;
    let relative = a.conjugate() * b;
    2.0 * relative.x.atan2(relative.w)
}

/// Slide of B's anchor along A's axis from A's anchor, metres.
fn slide(world: &World, joint: &fulcrum::Joint) -> f32 {
    let (a, b) = anchors(world, joint);
    let rotation = joint.body_a().map_or(Quat::IDENTITY, |id| world.body(id).unwrap().rotation());
    let axis = rotation * joint.local_frame_a().rotation * Vec3::X;
    (b - a).dot(axis)
}

fn run(world: &mut World, seconds: f32, mut each_step: impl FnMut(&World)) {
    for _ in 0..(seconds / DT).round() as usize {
        world.step(DT).unwrap();
        each_step(world);
    }
}

/// The door opens when the ball hits it and its hinge limits (0 to 1.5 rad) hold within
/// 0.02 rad; the hinge stays closed within 5 mm (the ball's blow and the stop at the limit
/// open it about a millimetre).
#[test]
fn door_hinge_opens_within_its_limits() {
    let Some((mut world, index)) = load("door_hinge") else { return };
    let (mut lowest, mut highest, mut worst_gap) = (0.0f32, 0.0f32, 0.0f32);
    run(&mut world, 3.0, |w| {
        let hinge = joint(w, &index, "hinge");
        let angle = hinge_angle(w, hinge);
        (lowest, highest, worst_gap) = (lowest.min(angle), highest.max(angle), worst_gap.max(gap(w, hinge)));
    });
    eprintln!("door: angle between {lowest:.4} and {highest:.4} rad, hinge gap {worst_gap:.2e} m");
    assert!(highest > 0.3, "the ball must open the door: {highest}");
    assert!(lowest > -0.02 && highest < 1.52, "limits [0, 1.5] broken: {lowest}..{highest}");
    assert!(worst_gap < 5e-3, "{worst_gap}");
}

/// The welded cantilever's tip sags less than 1 cm.
#[test]
fn weld_cantilever_tip_sags_less_than_a_centimetre() {
    let Some((mut world, index)) = load("weld_cantilever") else { return };
    let mut sag = 0.0f32;
    run(&mut world, 3.0, |w| sag = sag.max(2.0 - body(w, &index, "segment4").position().y));
    eprintln!("weld cantilever: largest tip sag {:.4} mm", sag * 1e3);
    assert!(sag < 0.01, "{sag}");
}

/// The 20-link chain with its 100:1 ball keeps every joint within 1% of a link (5 mm) for
/// 10 s.
#[test]
fn heavy_chain_does_not_stretch() {
    let Some((mut world, _)) = load("heavy_chain") else { return };
    let mut worst = 0.0f32;
    run(&mut world, 10.0, |w| worst = worst.max(largest_gap(w)));
    eprintln!("heavy chain: largest joint gap {:.3} mm over 10 s", worst * 1e3);
    assert!(worst < 0.005, "{worst}");
}

/// The rope bridge sags into a U and comes to rest: after 10 s no link moves faster than
/// 1 cm/s and no rope is more than 1 cm over its length.
#[test]
fn rope_bridge_sags_into_a_u_and_rests() {
    let Some((mut world, index)) = load("rope_bridge") else { return };
    run(&mut world, 10.0, |_| {});
    let links: Vec<&fulcrum::Body> = (0..10).map(|i| body(&world, &index, &format!("link{i}"))).collect();
    let speed = links.iter().map(|b| b.linear_velocity().length()).fold(0.0, f32::max);
    let lowest = links.iter().map(|b| b.position().y).fold(f32::INFINITY, f32::min);
    let middle = (links[4].position().y + links[5].position().y) / 2.0;
    let stretch = (0..11).map(|i| gap(&world, joint(&world, &index, &format!("rope{i}"))) - 1.5).fold(0.0, f32::max);
    eprintln!("rope bridge after 10 s: fastest link {speed:.4} m/s, middle at {middle:.3} m, ropes over length by {stretch:.4} m");
    assert!(speed < 0.01, "{speed}");
    assert!(stretch < 0.01, "{stretch}");
    assert!(middle < 5.0 && (middle - lowest).abs() < 0.2, "a U with its bottom in the middle: {middle} vs {lowest}");
}

/// The ninja rope never gets longer than its 4 m by more than 1%, and the worm swings past
/// the point under the anchor.
#[test]
fn swinging_rope_never_overstretches() {
    let Some((mut world, index)) = load("swinging_rope") else { return };
    let (mut longest, mut furthest) = (0.0f32, f32::NEG_INFINITY);
    run(&mut world, 5.0, |w| {
        longest = longest.max(gap(w, joint(w, &index, "ninja_rope")));
        furthest = furthest.max(body(w, &index, "worm").position().x);
    });
    eprintln!("swinging rope: longest {longest:.4} m (max 4 m), worm reached x = {furthest:.2} m");
    assert!(longest < 4.04, "{longest}");
    assert!(furthest > 1.0, "{furthest}");
}

/// The pulled ball's swing passes through the row: the last ball swings out.
#[test]
fn newtons_cradle_passes_the_swing_through() {
    let Some((mut world, index)) = load("newtons_cradle") else { return };
    let rest = body(&world, &index, "ball4").position();
    let mut out = 0.0f32;
    run(&mut world, 1.5, |w| out = out.max(body(w, &index, "ball4").position().x - rest.x));
    eprintln!("newton's cradle: last ball swung out {out:.3} m");
    assert!(out > 0.3, "{out}");
}

/// The slide recoils to its rear stop, the spring returns it, and both limits hold within 5 mm.
#[test]
fn pistol_slide_recoils_and_returns() {
    let Some((mut world, index)) = load("pistol_slide") else { return };
    let (mut rearmost, mut foremost) = (0.0f32, f32::NEG_INFINITY);
    run(&mut world, 1.5, |w| {
        let x = slide(w, joint(w, &index, "rails"));
        (rearmost, foremost) = (rearmost.min(x), foremost.max(x));
    });
    let last = slide(&world, joint(&world, &index, "rails"));
    eprintln!("pistol slide: travel {rearmost:.4}..{foremost:.4} m, at rest at {last:.4} m");
    assert!(rearmost < -0.05 && rearmost > -0.07, "{rearmost}");
    assert!(foremost < 0.005 && last.abs() < 0.005, "{foremost} {last}");
}

/// The car rolls past the middle of the rail and stays within its buffers.
#[test]
fn roller_coaster_rolls_between_its_buffers() {
    let Some((mut world, index)) = load("roller_coaster") else { return };
    let (mut least, mut most) = (f32::INFINITY, f32::NEG_INFINITY);
    run(&mut world, 8.0, |w| {
        let x = slide(w, joint(w, &index, "track"));
        (least, most) = (least.min(x), most.max(x));
    });
    eprintln!("roller coaster: slide between {least:.3} and {most:.3} m");
    assert!(least > -9.05 && most < 9.05, "{least}..{most}");
    assert!(most > 2.0, "{most}");
}

/// The block and tackle keeps len_a + 2·len_b within 1 cm, and the counterweight falls at
/// g·(2·20 − 30)/(2·20 + 30/2) within 5%.
#[test]
fn block_and_tackle_keeps_its_rope_length() {
    let Some((mut world, index)) = load("block_and_tackle") else { return };
    let (ground_a, ground_b) = (Vec3::new(-1.0, 4.85, 0.0), Vec3::new(1.0, 4.85, 0.0));
    let rope = |w: &World| {
        let (a, b) = anchors(w, joint(w, &index, "tackle"));
        (a - ground_a).length() + 2.0 * (b - ground_b).length()
    };
    let start = rope(&world);
    let y0 = body(&world, &index, "counterweight").position().y;
    let mut drift = 0.0f32;
    run(&mut world, 1.0, |w| drift = drift.max((rope(w) - start).abs()));
    let fallen = y0 - body(&world, &index, "counterweight").position().y;
    let expected = 0.5 * 9.81 * (2.0 * 20.0 - 30.0) / (2.0 * 20.0 + 30.0 / 2.0);
    eprintln!("block and tackle: rope length drift {drift:.4} m, fell {fallen:.4} m in 1 s (expected {expected:.4})");
    assert!(drift < 0.01, "{drift}");
    assert!((fallen / expected - 1.0).abs() < 0.05, "{fallen} vs {expected}");
}

/// The gear turns the small wheel at −2 times the big one within 1%, at the motor's speed.
#[test]
fn gear_pair_turns_at_its_ratio() {
    let Some((mut world, index)) = load("gear_pair") else { return };
    run(&mut world, 2.0, |_| {});
    let big = body(&world, &index, "big_wheel").angular_velocity().z;
    let small = body(&world, &index, "small_wheel").angular_velocity().z;
    eprintln!("gear pair: big wheel {big:.4} rad/s, small wheel {small:.4} rad/s, ratio {:.4}", small / big);
    assert!((small / big + 2.0).abs() < 0.02, "{}", small / big);
    assert!((big - 2.0).abs() < 0.1, "{big}");
}

/// The ragdolls fall into a pile without any joint opening more than 1 cm.
#[test]
fn ragdoll_pile_settles_without_opening_joints() {
    let Some((mut world, _)) = load("ragdoll_pile") else { return };
    let mut worst = 0.0f32;
    run(&mut world, 4.0, |w| worst = worst.max(largest_gap(w)));
    eprintln!("ragdoll pile: largest joint gap {:.2} mm over 4 s", worst * 1e3);
    assert!(worst < 0.01, "{worst}");
}
