//! Sleeping: resting islands fall asleep after the documented 0.5 s, stay asleep without
//! moving, and wake on API changes and on touch; the settings and `can_sleep` keep islands
//! awake.

mod common;
use common::*;
use fulcrum::prelude::*;

/// Seconds an island must rest before it sleeps (`world::sleep::TIME_TO_SLEEP`).
const TIME_TO_SLEEP: f32 = 0.5;

fn sleeping(world: &World, id: BodyId) -> bool {
    world.body(id).unwrap().is_sleeping()
}

/// Steps until `id` sleeps (at most `max_steps`); returns the simulated time it took.
fn time_to_sleep(world: &mut World, id: BodyId, max_steps: usize) -> Option<f32> {
    (1..=max_steps).find_map(|k| {
        world.step(DT).unwrap();
        sleeping(world, id).then_some(k as f32 * DT)
    })
}

/// A cube set down on the ground sleeps after 0.5 s (not before, and within 1 s), then stays
/// asleep for 3 s with a bit-identical pose and zero velocity.
#[test]
fn resting_box_falls_asleep_within_a_second_and_stays_asleep() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let cube = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let t = time_to_sleep(&mut world, cube, 60).expect("the cube did not sleep within 1 s");
    eprintln!("resting cube fell asleep after {t:.4} s");
    assert!(t >= TIME_TO_SLEEP - 0.5 * DT, "asleep after {t} s, before the rest time");
    assert_eq!(world.awake_body_count(), 0);
    let pose = world.body(cube).unwrap().pose();
    for _ in 0..180 {
        world.step(DT).unwrap();
        let b = world.body(cube).unwrap();
        assert!(b.is_sleeping(), "the cube woke up by itself");
        assert_eq!(b.pose(), pose);
        assert_eq!((b.linear_velocity(), b.angular_velocity()), (Vec3::ZERO, Vec3::ZERO));
    }
}

/// `set_linear_velocity` and `apply_impulse` wake a sleeping cube at once; the impulse gives
/// Δv = J/m immediately and the cube slides on the next step.
#[test]
fn velocity_and_impulse_wake_a_sleeping_box() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let a = add_box(&mut world, Vec3::new(-2.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let b = add_box(&mut world, Vec3::new(2.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    run(&mut world, 60);
    assert!(sleeping(&world, a) && sleeping(&world, b));
    world.set_linear_velocity(a, Vec3::new(2.0, 0.0, 0.0)).unwrap();
    assert!(!sleeping(&world, a) && sleeping(&world, b), "only a should wake");
    let impulse = Vec3::new(0.0, 0.0, 3000.0);
    world.apply_impulse(b, impulse).unwrap();
    assert!(!sleeping(&world, b));
    let mass = world.body(b).unwrap().mass();
    assert!((vel(&world, b) - impulse / mass).length() < 1e-5, "Δv = {}", vel(&world, b));
    let (pa, pb) = (pos(&world, a), pos(&world, b));
    world.step(DT).unwrap();
    let (da, db) = (pos(&world, a) - pa, pos(&world, b) - pb);
    eprintln!("woken boxes moved {da} and {db} in one step");
    // Friction (μ g ≈ 5.9 m/s²) slows them a little within the step: more than half of v·dt.
    assert!(da.x > 0.5 * 2.0 * DT && db.z > 0.5 * 3.0 * DT);
}

/// A ball dropped on a sleeping 3-stack leaves it asleep while in the air, wakes the whole
/// island in the step its contact with the top box begins, and the pile sleeps again later.
#[test]
fn ball_dropped_on_a_sleeping_pile_wakes_it() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let stack = add_stack(&mut world, 3);
    run(&mut world, 60);
    assert!(stack.iter().all(|&b| sleeping(&world, b)));
    let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.1, 5.0, 0.0))).unwrap();
    let ball_collider = world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.3).unwrap())).unwrap();
    let top_collider = world.body(stack[2]).unwrap().colliders()[0];
    let mut woke_at = None;
    for step in 0..60 {
        world.step(DT).unwrap();
        let began =
            world.events().contact_begin.iter().any(|e| e.collider_a == top_collider || e.collider_b == top_collider);
        let awake = stack.iter().filter(|&&b| !sleeping(&world, b)).count();
        if began {
            assert!(world.events().contact_begin.iter().any(|e| e.collider_b == ball_collider));
            assert_eq!(awake, 3, "the touch woke only {awake} of 3 boxes");
            woke_at = Some(step);
            break;
        }
        assert_eq!(awake, 0, "the pile woke before the ball touched it (step {step})");
    }
    let step = woke_at.expect("the ball never touched the pile");
    eprintln!("pile woke at step {step} after the drop, ball at y = {:.3}", pos(&world, ball).y);
    let resleep = (1..=180).find(|_| {
        world.step(DT).unwrap();
        stack.iter().all(|&b| sleeping(&world, b))
    });
    eprintln!("pile asleep again after {resleep:?} steps");
    assert!(resleep.is_some(), "the pile did not go back to sleep within 3 s");
}

/// With `sleep: false` nothing ever sleeps; turning sleep off in a world with sleeping bodies
/// wakes them all.
#[test]
fn sleep_setting_off_keeps_everything_awake() {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    add_ground(&mut world, 0.6);
    let mut boxes = add_stack(&mut world, 3);
    boxes.push(add_box(&mut world, Vec3::new(3.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6));
    for _ in 0..120 {
        world.step(DT).unwrap();
        assert_eq!(world.awake_body_count(), 4);
        assert!(boxes.iter().all(|&b| !sleeping(&world, b)));
    }
    // The other way round: let them sleep, then switch sleeping off.
    world.set_settings(WorldSettings { sleep: true, ..*world.settings() }).unwrap();
    run(&mut world, 60);
    assert!(boxes.iter().all(|&b| sleeping(&world, b)), "with sleep on they should sleep");
    world.set_settings(WorldSettings { sleep: false, ..*world.settings() }).unwrap();
    assert!(boxes.iter().all(|&b| !sleeping(&world, b)), "switching sleep off must wake everything");
    run(&mut world, 60);
    assert_eq!(world.awake_body_count(), 4);
}

/// `can_sleep = false` on the top box of a 2-stack keeps the whole stack awake while a lone
/// box beside it sleeps; allowing sleep again lets the stack sleep within 1 s.
#[test]
fn can_sleep_false_keeps_its_island_awake() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let stack = add_stack(&mut world, 2);
    let lone = add_box(&mut world, Vec3::new(3.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    world.set_can_sleep(stack[1], false).unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
        assert!(stack.iter().all(|&b| !sleeping(&world, b)), "a box of the stack fell asleep");
    }
    assert!(sleeping(&world, lone), "the lone box should sleep");
    world.set_can_sleep(stack[1], true).unwrap();
    let t = time_to_sleep(&mut world, stack[0], 60).expect("the stack did not sleep within 1 s");
    eprintln!("stack slept {t:.3} s after can_sleep was restored");
    assert!(sleeping(&world, stack[1]));
    assert!(t >= TIME_TO_SLEEP - 0.5 * DT);
}

/// Moving the static ground from under a sleeping cube (0.5 m down) wakes it at the next step;
/// it falls and rests on the ground's new top at y = 0.0 within 5 mm.
#[test]
fn moving_the_ground_wakes_the_box_on_it() {
    let mut world = World::default();
    let ground = add_ground(&mut world, 0.6);
    let cube = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    run(&mut world, 60);
    assert!(sleeping(&world, cube));
    world.set_body_pose(ground, Vec3::new(0.0, -1.5, 0.0), Quat::IDENTITY).unwrap();
    world.step(DT).unwrap();
    assert!(!sleeping(&world, cube), "moving the ground did not wake the cube");
    run(&mut world, 60);
    let y = pos(&world, cube).y;
    eprintln!("cube after the ground moved down 0.5 m: y = {y:.5}");
    assert!(y.abs() < 0.005, "cube at y = {y}");
}

/// Every sample of `scenes/` that comes to rest, run for 60 s at its own settings: each is
/// fully asleep by its deadline (pyramid and ragdoll_pile within 10 s, as issue 11 asks;
/// the others within the times their motion needs: balls bounce, roll in a bowl, a box
/// slides down a slope, a rope bridge swings out after a crate lands on it, a beam and a crate on a rope swing
/// down against a post), and no body wakes
/// again (no jitter) until 60 s. Not listed: samples that keep moving by design (pendulums,
/// the cradle, a car, characters, a flag, swinging cloth and ropes, the gear, the tumbling box
/// in zero gravity). terrain_pile's stone spheres come to rest through
/// their rolling resistance, which resists spinning about the contact normal as well.
#[test]
fn resting_samples_fall_asleep_and_stay_asleep_for_a_minute() {
    let deadlines = [
        ("pyramid", 10.0),
        ("ragdoll_pile", 10.0),
        ("vertical_stack", 10.0),
        ("heavy_on_light", 10.0),
        ("box_on_pole", 10.0),
        ("weld_cantilever", 10.0),
        ("block_and_tackle", 10.0),
        ("slope", 20.0),
        ("mesh_level", 20.0),
        ("bouncing_balls", 30.0),
        ("ramp_and_bowl", 30.0),
        ("terrain_pile", 30.0),
        ("plank_bridge", 20.0),
        ("crate_on_rope", 30.0),
    ];
    for (name, deadline) in deadlines {
        let path = format!("{}/../../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let (mut world, _) = fulcrum::Scene::load(&path).unwrap().build().unwrap();
        let dt = world.settings().timestep;
        let steps = (60.0 / dt).round() as usize;
        let awake = |world: &World| world.bodies().filter(|(_, b)| b.is_dynamic() && !b.is_sleeping()).count();
        let (mut asleep_at, mut woke) = (None, 0);
        for step in 1..=steps {
            world.step(dt).unwrap();
            match (awake(&world), asleep_at) {
                (0, None) => asleep_at = Some(step as f32 * dt),
                (n, Some(_)) if n > 0 => woke += 1,
                _ => {}
            }
        }
        eprintln!("{name}: asleep at {asleep_at:?} s, steps with a body awake after that: {woke}");
        let at = asleep_at.unwrap_or_else(|| panic!("{name}: {} bodies still awake at 60 s", awake(&world)));
        assert!(at <= deadline, "{name}: asleep only at {at} s (deadline {deadline} s)");
        assert_eq!(woke, 0, "{name}: woke again after sleeping");
    }
}
