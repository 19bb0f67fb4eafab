//! Characters (issue 10's acceptance): stairs, slopes, snapping, platforms, pushing, walls at
//! any speed, depenetration, corners, each other, heightfields and meshes, bad definitions.
//!
//! The default character is a capsule of half height 0.5 m and radius 0.3 m that keeps a skin
//! of 1 cm: standing on level ground its centre is 0.81 m above it.

mod common;

use common::{add_ground, DT};
use fulcrum::character::{Obstacle, SKIN};
use fulcrum::prelude::*;

/// Centre height of the default character standing on level ground at y = 0.
const STANDING: f32 = 0.5 + 0.3 + SKIN;
/// From the centre to the capsule's lowest point.
const HALF_EXTENT: f32 = 0.8;

fn world() -> World {
    World::new(WorldSettings::default()).unwrap()
}

fn static_box(world: &mut World, name: &str, center: Vec3, rotation: Quat, half: Vec3) -> BodyId {
    let body = world.create_body(&BodyDef::fixed(center).with_rotation(rotation).with_name(name)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::cuboid(half).unwrap())).unwrap();
    body
}

fn walker(world: &mut World, position: Vec3, velocity: Vec3) -> CharacterId {
    let id = world.create_character(&CharacterDef::at(position)).unwrap();
    world.set_character_velocity(id, velocity).unwrap();
    id
}

fn position(world: &World, id: CharacterId) -> Vec3 {
    world.character(id).unwrap().position()
}

fn grounded(world: &World, id: CharacterId) -> bool {
    world.character(id).unwrap().is_grounded()
}

fn step(world: &mut World) {
    world.step(DT).unwrap();
}

/// Stairs of `count` steps `rise` high and 0.3 m deep from x = 1, each its own box from the
/// floor; returns each step's body and top height.
fn stairs(world: &mut World, count: usize, rise: f32) -> Vec<(BodyId, f32)> {
    (1..=count)
        .map(|k| {
            let top = k as f32 * rise;
            let start = 1.0 + 0.3 * (k - 1) as f32;
            let end = 1.0 + 0.3 * count as f32 + 3.0;
            let center = Vec3::new(0.5 * (start + end), 0.5 * top, 0.0);
            let half = Vec3::new(0.5 * (end - start), 0.5 * top, 2.0);
            (static_box(world, &format!("step{k}"), center, Quat::IDENTITY, half), top)
        })
        .collect()
}

/// The top height of the step the character stands on, if it stands on a step.
fn step_under(world: &World, id: CharacterId, steps: &[(BodyId, f32)]) -> Option<f32> {
    let ground = world.character(id)?.ground()?;
    let body = ground.obstacle.body()?;
    steps.iter().find(|(b, _)| *b == body).map(|(_, top)| *top)
}

/// Walking at 3 m/s against stairs of 0.25 m steps (step height 0.3 m): it reaches the top,
/// and its lowest point is never more than 1 cm below the top of a step it stands on.
#[test]
fn quarter_metre_stairs_are_climbed() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    let steps = stairs(&mut world, 8, 0.25);
    let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::new(3.0, 0.0, 0.0));
    for _ in 0..100 {
        step(&mut world);
        if let Some(top) = step_under(&world, id, &steps) {
            let lowest = position(&world, id).y - HALF_EXTENT;
            assert!(lowest >= top - 0.01, "lowest point {lowest} more than 1 cm below the step top {top}");
        }
    }
    let end = position(&world, id);
    assert!(end.x > 1.0 + 0.3 * 8.0, "did not reach the top landing: {end}");
    assert!((end.y - (2.0 + STANDING)).abs() < 0.01, "not standing on the top: {end}");
    assert!(grounded(&world, id));
}

/// With 0.4 m steps (step height 0.3 m) it stops at the first one, on the floor.
#[test]
fn steps_higher_than_the_step_height_stop_it() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    stairs(&mut world, 4, 0.4);
    let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::new(3.0, 0.0, 0.0));
    for _ in 0..180 {
        step(&mut world);
    }
    let end = position(&world, id);
    assert!(end.x < 1.0 - 0.3 + 1e-3, "passed the first step's face: {end}");
    assert!(end.x > 1.0 - 0.3 - 0.02, "stopped short of the first step: {end}");
    assert!((end.y - STANDING).abs() < 1e-3, "left the floor: {end}");
}

/// A static ramp rising along +x at `degrees`, its top surface through the origin, 40 m long.
fn ramp(world: &mut World, degrees: f32) -> Vec3 {
    let rotation = Quat::from_rotation_z(degrees.to_radians());
    let half = Vec3::new(20.0, 0.5, 5.0);
    static_box(world, "ramp", -(rotation * Vec3::new(0.0, 0.5, 0.0)), rotation, half);
    rotation * Vec3::Y
}

/// The centre of the default character resting at horizontal position x on a plane through
/// the origin with this normal (in the x–y plane): its lower sphere's centre lies radius +
/// skin along the normal from the plane point p, so p.x = x − 0.31·n.x, p.y = −n.x·p.x / n.y.
fn resting_on_plane(normal: Vec3, x: f32) -> Vec3 {
    let px = x - (0.3 + SKIN) * normal.x;
    let on_plane = Vec3::new(px, -normal.x * px / normal.y, 0.0);
    on_plane + normal * (0.3 + SKIN) + Vec3::new(0.0, 0.5, 0.0)
}

/// Up a 30° slope (max 45°) it walks at its set horizontal speed within 2%, grounded all
/// the way.
#[test]
fn a_walkable_slope_is_walked_up_at_the_set_horizontal_speed() {
    let mut world = world();
    let normal = ramp(&mut world, 30.0);
    let id = walker(&mut world, resting_on_plane(normal, -8.0), Vec3::new(3.0, 0.0, 0.0));
    step(&mut world);
    let start = position(&world, id);
    for _ in 0..120 {
        step(&mut world);
        assert!(grounded(&world, id), "left the slope at {}", position(&world, id));
    }
    let end = position(&world, id);
    let speed = (end.x - start.x) / (120.0 * DT);
    assert!((speed - 3.0).abs() < 0.06, "horizontal speed {speed} m/s for 3 m/s");
    let expected = resting_on_plane(normal, end.x);
    assert!((end.y - expected.y).abs() < 0.01, "not on the slope: {end} vs {expected}");
}

/// On a 60° slope (max 45°) it slides down, whatever it wants; walking into it from the
/// floor it does not climb it.
#[test]
fn a_steep_slope_is_slid_down_and_not_climbed() {
    let mut world = world();
    let normal = ramp(&mut world, 60.0);
    let id = walker(&mut world, resting_on_plane(normal, 1.0), Vec3::new(3.0, 0.0, 0.0));
    let start = position(&world, id);
    for _ in 0..30 {
        step(&mut world);
        assert!(!grounded(&world, id));
    }
    let end = position(&world, id);
    assert!(end.y < start.y - 0.3, "did not slide down: {start} -> {end}");

    let mut world = self::world();
    add_ground(&mut world, 0.6);
    let rotation = Quat::from_rotation_z(60f32.to_radians());
    static_box(&mut world, "steep", Vec3::new(3.0, 0.0, 0.0), rotation, Vec3::new(2.0, 0.5, 5.0));
    let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::new(3.0, 0.0, 0.0));
    let mut highest = 0.0f32;
    for i in 0..240 {
        if i % 30 == 0 && grounded(&world, id) {
            world.jump_character(id, 4.0).unwrap();
        }
        step(&mut world);
        highest = highest.max(position(&world, id).y);
    }
    // A 4 m/s jump rises v²/2g = 0.82 m; each jump starts from the floor again.
    assert!(highest < STANDING + 0.85, "climbed the steep slope to {highest}");
    assert!((position(&world, id).y - STANDING).abs() < 0.5, "{}", position(&world, id));
}

/// Walking down a 30° slope it stays on the ground every step (snapping).
#[test]
fn walking_down_a_slope_stays_grounded() {
    let mut world = world();
    let normal = ramp(&mut world, 30.0);
    let id = walker(&mut world, resting_on_plane(normal, 8.0), Vec3::new(-3.0, 0.0, 0.0));
    step(&mut world);
    for _ in 0..120 {
        step(&mut world);
        assert!(grounded(&world, id), "airborne at {}", position(&world, id));
    }
    assert!(position(&world, id).x < 8.0 - 5.5);
}

/// Walking down stairs of 0.25 m steps it stays on the ground every step.
#[test]
fn walking_down_stairs_stays_grounded() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    stairs(&mut world, 8, 0.25);
    let top = Vec3::new(1.0 + 0.3 * 8.0 + 1.0, 2.0 + STANDING, 0.0);
    let id = walker(&mut world, top, Vec3::new(-3.0, 0.0, 0.0));
    for _ in 0..90 {
        step(&mut world);
        assert!(grounded(&world, id), "airborne at {}", position(&world, id));
    }
    let end = position(&world, id);
    assert!(end.x < 0.5 && (end.y - STANDING).abs() < 1e-3, "not down on the floor: {end}");
}

/// On a kinematic platform moving at 2 m/s it keeps its place on the platform within 1 cm
/// over 5 s.
#[test]
fn a_moving_platform_carries_it() {
    let mut world = world();
    let platform = world
        .create_body(&BodyDef::kinematic(Vec3::new(0.0, 1.0, 0.0)).with_linear_velocity(Vec3::new(2.0, 0.0, 0.0)))
        .unwrap();
    world.create_collider(platform, &ColliderDef::new(Shape::cuboid(Vec3::new(2.0, 0.1, 2.0)).unwrap())).unwrap();
    let id = walker(&mut world, Vec3::new(0.5, 1.1 + STANDING, 0.3), Vec3::ZERO);
    let place = |world: &World| position(world, id) - world.body(platform).unwrap().position();
    let start = place(&world);
    for _ in 0..300 {
        step(&mut world);
        let drift = (place(&world) - start).length();
        assert!(drift < 0.01, "drifted {drift} m on the platform");
        assert!(grounded(&world, id));
    }
    assert!(world.body(platform).unwrap().position().x > 9.9);
}

/// On a platform turning at 1 rad/s about its vertical axis it turns with it: its angle about
/// the axis follows the platform's within 0.01 rad and its distance from the axis stays
/// within 1 cm.
#[test]
fn a_turning_platform_turns_it() {
    let mut world = world();
    let platform = world
        .create_body(&BodyDef::kinematic(Vec3::new(0.0, 1.0, 0.0)).with_angular_velocity(Vec3::new(0.0, 1.0, 0.0)))
        .unwrap();
    world.create_collider(platform, &ColliderDef::new(Shape::cuboid(Vec3::new(3.0, 0.1, 3.0)).unwrap())).unwrap();
    let id = walker(&mut world, Vec3::new(2.0, 1.1 + STANDING, 0.0), Vec3::ZERO);
    for _ in 0..90 {
        step(&mut world);
    }
    let (axis, platform_angle) = world.body(platform).unwrap().rotation().to_axis_angle();
    let platform_angle = platform_angle * axis.y.signum();
    let p = position(&world, id);
    let angle = (-p.z).atan2(p.x);
    assert!((angle - platform_angle).abs() < 0.01, "at {angle} rad, the platform at {platform_angle} rad");
    assert!((p.x.hypot(p.z) - 2.0).abs() < 0.01, "{p}");
    assert!((platform_angle - 1.5).abs() < 0.01);
}

/// Walking at 2 m/s into a box on the floor (friction 0.6 on both): a 50 kg box moves, a
/// 5,000 kg one does not (max_push_force 500 N: friction holds the heavy box with 29 kN).
#[test]
fn it_pushes_light_boxes_and_not_heavy_ones() {
    for (mass, moves) in [(50.0, true), (5000.0, false)] {
        let mut world = world();
        add_ground(&mut world, 0.6);
        let crate_ = world.create_body(&BodyDef::dynamic(Vec3::new(1.5, 0.5, 0.0))).unwrap();
        world
            .create_collider(crate_, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()).with_density(mass))
            .unwrap();
        let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::new(2.0, 0.0, 0.0));
        for _ in 0..180 {
            step(&mut world);
        }
        let moved = world.body(crate_).unwrap().position().x - 1.5;
        let character = position(&world, id);
        if moves {
            assert!(moved > 1.0, "the {mass} kg box moved only {moved} m");
        } else {
            assert!(moved.abs() < 0.01, "the {mass} kg box moved {moved} m");
            assert!(character.x < 1.0 - 0.3 + 1e-3, "walked into the box: {character}");
        }
    }
}

/// Driven at 40 and 50 m/s into a wall 5 cm thick it never passes it.
#[test]
fn it_never_passes_a_thin_wall() {
    for speed in [40.0, 50.0] {
        let mut world = world();
        add_ground(&mut world, 0.6);
        static_box(&mut world, "wall", Vec3::new(5.0, 1.0, 0.0), Quat::IDENTITY, Vec3::new(0.025, 1.0, 3.0));
        let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::new(speed, 0.0, 0.0));
        for _ in 0..60 {
            step(&mut world);
            let x = position(&world, id).x;
            assert!(x <= 5.0 - 0.025 - 0.3, "at {speed} m/s it reached x = {x}");
        }
    }
}

/// Spawned overlapping a box by 20 cm it is out within 3 steps (and not kicked away).
#[test]
fn spawned_inside_a_box_it_is_pushed_out() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    static_box(&mut world, "box", Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY, Vec3::splat(1.0));
    let id = walker(&mut world, Vec3::new(1.0 + 0.3 - 0.2, STANDING, 0.0), Vec3::ZERO);
    for _ in 0..3 {
        step(&mut world);
    }
    let x = position(&world, id).x;
    assert!((1.3 - 1e-4..1.3 + 2.0 * SKIN).contains(&x), "not out of the box: x = {x}");
}

/// In a 30° acute corner between two walls, walking into it, it comes to rest without
/// jitter: once stopped it moves less than 0.1 mm per step.
#[test]
fn it_rests_in_an_acute_corner_without_jitter() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    let half = Vec3::new(5.0, 1.0, 0.1);
    static_box(&mut world, "a", Vec3::new(5.0, 1.0, -0.1), Quat::IDENTITY, half);
    let turn = Quat::from_rotation_y(-30f32.to_radians());
    static_box(&mut world, "b", turn * Vec3::new(5.0, 1.0, 0.1), turn, half);
    let bisector = Quat::from_rotation_y(-15f32.to_radians()) * Vec3::X;
    let id = walker(&mut world, bisector * 4.0 + Vec3::new(0.0, STANDING, 0.0), -bisector * 2.0);
    for _ in 0..180 {
        step(&mut world);
    }
    let mut last = position(&world, id);
    for _ in 0..60 {
        step(&mut world);
        let now = position(&world, id);
        assert!((now - last).length() < 1e-4, "moved {} m in a step", (now - last).length());
        last = now;
    }
    // It rests touching both walls: (radius + skin) / sin 15° from the apex.
    let apex_distance = Vec3::new(last.x, 0.0, last.z).length();
    assert!((apex_distance - 0.31 / 15f32.to_radians().sin()).abs() < 0.01, "{apex_distance}");
}

/// Two characters walking into each other never overlap: head on they stop a skin apart;
/// 5 cm off centre they slide round each other (no friction), still never overlapping.
#[test]
fn characters_do_not_pass_through_each_other() {
    for offset in [0.0, 0.05] {
        let mut world = world();
        add_ground(&mut world, 0.6);
        let a = walker(&mut world, Vec3::new(-2.0, STANDING, 0.0), Vec3::new(3.0, 0.0, 0.0));
        let b = walker(&mut world, Vec3::new(2.0, STANDING, offset), Vec3::new(-3.0, 0.0, 0.0));
        for _ in 0..120 {
            step(&mut world);
            let (pa, pb) = (position(&world, a), position(&world, b));
            assert!((pb - pa).length() >= 0.6 - 1e-4, "{pa} and {pb} overlap");
        }
        if offset == 0.0 {
            let (pa, pb) = (position(&world, a), position(&world, b));
            assert!((pb.x - pa.x - 0.6 - SKIN).abs() < 2.0 * SKIN, "{pa} {pb}");
            let contacts = world.character(a).unwrap().contacts();
            assert!(contacts.iter().any(|c| c.obstacle == Obstacle::Character(b)), "a does not report touching b");
        }
    }
}

/// Across a heightfield hill (1.5 m high) it keeps its lowest point on the surface (within
/// 1 cm) and its horizontal speed (within 2%), grounded every step.
#[test]
fn it_walks_over_a_heightfield_hill() {
    let mut world = world();
    let heights: Vec<Vec<f32>> = (0..21)
        .map(|i| {
            (0..21)
                .map(|j| {
                    let (x, z) = (j as f32 - 10.0, i as f32 - 10.0);
                    1.5 * (-(x * x + z * z) / 18.0).exp()
                })
                .collect()
        })
        .collect();
    let terrain = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(terrain, &ColliderDef::new(Shape::heightfield(heights, Vec3::ONE).unwrap())).unwrap();
    let id = walker(&mut world, Vec3::new(-8.0, 1.0, 0.5), Vec3::new(2.0, 0.0, 0.0));
    for _ in 0..30 {
        step(&mut world);
    }
    assert!(grounded(&world, id));
    let start = position(&world, id);
    for _ in 0..240 {
        step(&mut world);
        let p = position(&world, id);
        let ray = Ray::new(Vec3::new(p.x, 10.0, p.z), Vec3::NEG_Y);
        let surface = 10.0 - world.cast_ray(&ray, 20.0, |_| true).unwrap().t;
        assert!(p.y - HALF_EXTENT > surface - 0.01, "{p} below the surface at {surface}");
        assert!(grounded(&world, id), "airborne at {p}");
    }
    let speed = (position(&world, id).x - start.x) / (240.0 * DT);
    assert!((speed - 2.0).abs() < 0.04, "walked at {speed} m/s over the hill for 2 m/s");
}

/// Up a 20° triangle-mesh ramp it walks and stands on the mesh.
#[test]
fn it_walks_up_a_mesh_ramp() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    let rise = 20f32.to_radians().tan() * 10.0;
    let vertices = vec![
        Vec3::new(0.0, 0.0, -2.0),
        Vec3::new(10.0, rise, -2.0),
        Vec3::new(10.0, rise, 2.0),
        Vec3::new(0.0, 0.0, 2.0),
    ];
    let mesh = Shape::trimesh(vertices, vec![[0, 2, 1], [0, 3, 2]], false).unwrap();
    let body = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(body, &ColliderDef::new(mesh)).unwrap();
    let id = walker(&mut world, Vec3::new(-1.0, STANDING, 0.0), Vec3::new(2.0, 0.0, 0.0));
    for _ in 0..150 {
        step(&mut world);
    }
    let end = position(&world, id);
    let normal = Quat::from_rotation_z(20f32.to_radians()) * Vec3::Y;
    let expected = resting_on_plane(normal, end.x);
    assert!(end.x > 3.0 && (end.y - expected.y).abs() < 0.01, "{end} vs {expected}");
    let ground = world.character(id).unwrap().ground().copied().unwrap();
    assert_eq!(ground.obstacle.body(), Some(body));
}

/// A jump at 5 m/s rises as the integration predicts: the apex is the sum of the step
/// displacements v_k·dt while v_k = 5 − k·g·dt stays positive (within 1 cm; v²/2g = 1.27 m
/// less about v·dt/2 from the stepping), and it lands on the floor again.
#[test]
fn a_jump_rises_as_predicted_and_lands() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::ZERO);
    world.jump_character(id, 5.0).unwrap();
    let mut apex = 0.0f32;
    for _ in 0..120 {
        step(&mut world);
        apex = apex.max(position(&world, id).y - STANDING);
    }
    let g = 9.81f32;
    let predicted: f32 = (0..).map(|k| 5.0 - k as f32 * g * DT).take_while(|v| *v > 0.0).map(|v| v * DT).sum();
    assert!((apex - predicted).abs() < 0.01, "apex {apex} m, predicted {predicted} m");
    assert!(grounded(&world, id) && (position(&world, id).y - STANDING).abs() < 1e-3);
}

/// `move_character` moves it as far as a wall lets it and reports the wall.
#[test]
fn move_character_stops_at_a_wall() {
    let mut world = world();
    add_ground(&mut world, 0.6);
    let wall = static_box(&mut world, "wall", Vec3::new(3.0, 1.0, 0.0), Quat::IDENTITY, Vec3::new(0.1, 1.0, 3.0));
    let id = walker(&mut world, Vec3::new(0.0, STANDING, 0.0), Vec3::ZERO);
    let end = world.move_character(id, Vec3::new(10.0, 0.0, 1.0)).unwrap();
    assert!((end.x - (2.9 - 0.3 - SKIN)).abs() < 1e-3, "{end}");
    assert!((end.z - 1.0).abs() < 1e-3, "no friction along the wall: {end}");
    assert!(world.character(id).unwrap().contacts().iter().any(|c| c.obstacle.body() == Some(wall)));
}

/// Bad definitions are refused naming the field.
#[test]
fn bad_definitions_are_refused_naming_the_field() {
    let mut world = world();
    let cases = [
        (CharacterDef::default().with_capsule(0.5, -0.1), "capsule.radius"),
        (CharacterDef { max_slope_deg: 95.0, ..Default::default() }, "max_slope_deg"),
        (CharacterDef { step_height: f32::NAN, ..Default::default() }, "step_height"),
        (CharacterDef { mass: 0.0, ..Default::default() }, "mass"),
        (CharacterDef::at(Vec3::new(0.0, 2e6, 0.0)), "position[1]"),
        (
            CharacterDef {
                script: vec![
                    fulcrum::character::ScriptEntry { from: 1.0, velocity: Vec3::X, jump_speed: 0.0 },
                    fulcrum::character::ScriptEntry { from: 0.5, velocity: Vec3::X, jump_speed: 0.0 },
                ],
                ..Default::default()
            },
            "script[1].from",
        ),
    ];
    for (def, field) in cases {
        let error = world.create_character(&def).unwrap_err();
        assert_eq!(error.field, field, "{error}");
    }
    assert_eq!(world.character_count(), 0);
}

/// A thousand characters walking on a 64 × 64 heightfield (1 m cells, rolling hills): prints
/// the milliseconds per step the character stage took (`StepTimings::characters_ms`) and that
/// they stayed on the terrain. Run with `cargo test --release -p fulcrum --test characters --
/// --ignored --nocapture`.
#[test]
#[ignore]
fn a_thousand_characters_on_a_terrain_print_their_time() {
    let mut world = world();
    let heights: Vec<Vec<f32>> =
        (0..64).map(|i| (0..64).map(|j| 0.8 * ((i as f32 * 0.3).sin() + (j as f32 * 0.23).cos())).collect()).collect();
    let terrain = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
    world.create_collider(terrain, &ColliderDef::new(Shape::heightfield(heights, Vec3::ONE).unwrap())).unwrap();
    let ids: Vec<CharacterId> = (0..1000)
        .map(|k| {
            let (x, z) = ((k % 32) as f32 * 1.8 - 28.0, (k / 32) as f32 * 1.8 - 28.0);
            let heading = k as f32 * 2.4;
            walker(&mut world, Vec3::new(x, 3.5, z), Vec3::new(heading.cos(), 0.0, heading.sin()) * 1.5)
        })
        .collect();
    let mut total = 0.0;
    let steps = 120;
    for _ in 0..steps {
        step(&mut world);
        total += world.timings().characters_ms;
    }
    let grounded = ids.iter().filter(|&&id| grounded(&world, id)).count();
    println!(
        "1000 characters on a 64 x 64 heightfield: {:.2} ms per step for the characters ({grounded} grounded at the end)",
        total / steps as f64
    );
    assert!(ids.iter().all(|&id| position(&world, id).is_finite()));
}
