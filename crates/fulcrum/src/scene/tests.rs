//! Scene tests: samples load and build, round trips (text -> Scene -> text, World -> Scene ->
//! World), defaults and material resolution, one test per refused input (message names the
//! file, the JSON path and the reason), and trajectory frames of a free fall.

use super::*;
use crate::body::BodyDef;
use crate::collider::ColliderDef;
use crate::math::{Quat, Vec3};
use crate::shape::Shape;
use crate::world::WorldSettings;

const SCENES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes");

fn sample_paths() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(SCENES_DIR)
        .expect("scenes/ exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
}

/// A scene file with one dynamic body carrying one collider given as JSON.
fn with_collider(collider: &str) -> String {
    format!(r#"{{"format": 1, "bodies": [{{"name": "b", "colliders": [{collider}]}}]}}"#)
}

/// The message of the error loading `text` as "test.json"; fails if it loads.
fn load_error(text: &str) -> String {
    match Scene::from_json_str(text, "test.json") {
        Ok(_) => panic!("expected an error for {text}"),
        Err(e) => e.to_string(),
    }
}

/// Asserts that loading `text` fails naming the file, `path` and a reason containing `reason`.
fn assert_refused(text: &str, path: &str, reason: &str) {
    let message = load_error(text);
    assert!(message.starts_with(&format!("test.json: {path}: ")), "wrong path in: {message}");
    assert!(message.contains(reason), "wrong reason in: {message}");
}

#[test]
fn every_sample_loads_builds_and_round_trips() {
    let paths = sample_paths();
    assert!(paths.len() >= 7, "samples found: {paths:?}");
    for path in paths {
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(scene.description.is_some(), "{} has no description", path.display());
        let (world, index) = scene.build().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(world.body_count(), scene.bodies.len());
        assert_eq!(index.len(), scene.bodies.len());
        let text = scene.to_json_string().unwrap();
        let again = Scene::from_json_str(&text, "again").unwrap();
        assert_eq!(again, scene, "{} does not round-trip", path.display());
    }
}

/// A scene using every field of the format (joints included, so it is not built).
const EVERYTHING: &str = r#"{
  "format": 1,
  "description": "all fields",
  "settings": {"gravity": [0, -3.5, 0.25], "timestep": 0.01, "substeps": 6, "sleep": false,
    "solver": {"mode": "pgs", "iterations": 12, "relax": false, "warm_start": false,
      "position_correction": "baumgarte", "baumgarte": 0.3, "contact_hertz": 25,
      "contact_damping_ratio": 5, "joint_hertz": 50, "joint_damping_ratio": 1.5,
      "max_push_velocity": 2, "position_iterations": 4, "restitution_threshold": 0.5,
      "linear_slop": 0.004, "speculative_distance": 0.03}},
  "materials": {"wood": {"friction": 0.5, "restitution": 0.1, "density": 600}, "ice": {"friction": 0.02}},
  "bodies": [
    {"name": "frame", "kind": "static", "colliders": [
      {"shape": {"type": "plane", "normal": [0, 2, 0], "offset": -1}},
      {"shape": {"type": "trimesh", "vertices": [[0,0,0],[1,0,0],[0,0,1]], "indices": [[0,1,2]]}},
      {"shape": {"type": "heightfield", "heights": [[0, 1], [0.5, 0.25]], "scale": [1, 2, 1]}}]},
    {"name": "door", "kind": "dynamic", "position": [1, 2, 3], "rotation": [0, 0.6, 0, 0.8],
     "linear_velocity": [0.1, 0.2, 0.3], "angular_velocity": [1, 2, 3], "linear_damping": 0.1,
     "angular_damping": 0.2, "gravity_scale": 0.5, "mass": 12.5, "can_sleep": false, "bullet": true,
     "awake": true, "colliders": [
      {"shape": {"type": "box", "half_extents": [0.5, 1, 0.05]}, "position": [0, 0, 0.1],
       "rotation": {"axis": [0, 1, 0], "angle_deg": 45}, "density": 700, "friction": 0.9,
       "restitution": 0.2, "material": "wood", "sensor": false},
      {"shape": {"type": "sphere", "radius": 0.1}, "material": "ice", "sensor": true},
      {"shape": {"type": "capsule", "half_height": 0.5, "radius": 0.1}},
      {"shape": {"type": "cylinder", "half_height": 0.2, "radius": 0.3}},
      {"shape": {"type": "convex_hull", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}}]},
    {"name": "wheel", "kind": "kinematic", "position": [4, 0, 0]}
  ],
  "joints": [
    {"name": "door_hinge", "kind": "hinge", "body_a": "frame", "body_b": "door", "anchor": [0, 1, 0],
     "axis": [0, 1, 0], "limits": {"lower": -1.5, "upper": 1.5},
     "motor": {"target_velocity": 1.0, "max_force": 50}, "spring": {"frequency_hz": 2, "damping_ratio": 0.5},
     "break_force": 10000, "collide_connected": false},
    {"name": "h2", "kind": "hinge", "body_b": "wheel", "local_anchor_a": [0, 0, 0], "local_anchor_b": [0, 0, 0],
     "local_axis_a": [1, 0, 0], "local_axis_b": [1, 0, 0],
     "motor": {"target_position": 0.5, "frequency_hz": 3, "damping_ratio": 1, "max_force": 5}},
    {"kind": "gear", "hinge_a": "door_hinge", "hinge_b": "h2", "ratio": -2},
    {"kind": "ball", "body_b": "door", "anchor": [0, 0, 0], "axis": [0, 0, 1], "cone_limit_deg": 30,
     "twist_limits_deg": {"lower": -10, "upper": 20}},
    {"kind": "distance", "body_a": "frame", "body_b": "door", "anchor_a": [0, 3, 0], "anchor_b": [1, 2, 3],
     "rest_length": 1, "min_length": 0.5, "max_length": 2},
    {"kind": "pulley", "body_a": "door", "body_b": "wheel", "anchor_a": [1, 2, 3], "anchor_b": [4, 0, 0],
     "ground_anchor_a": [1, 5, 3], "ground_anchor_b": [4, 5, 0], "ratio": 2},
    {"kind": "six_dof", "body_b": "door", "anchor": [0, 0, 0],
     "axes": {"x": "locked", "y": "free", "z": [-1, 1], "rx": "locked", "ry": [0, 0.5], "rz": "free"}},
    {"kind": "weld", "body_b": "wheel", "anchor": [4, 0, 0], "spring": {"frequency_hz": 5, "damping_ratio": 0.7}},
    {"kind": "angle", "body_a": "door", "body_b": "wheel", "anchor": [0, 0, 0]},
    {"kind": "prismatic", "body_b": "door", "anchor": [0, 0, 0], "axis": [1, 0, 0], "limits": {"lower": 0, "upper": 1}},
    {"kind": "line", "body_b": "door", "anchor": [0, 0, 0], "axis": [0, 1, 0]}
  ]
}"#;

#[test]
fn a_scene_with_every_field_round_trips_through_json() {
    let scene = Scene::from_json_str(EVERYTHING, "everything.json").unwrap();
    assert_eq!(scene.bodies.len(), 3);
    assert_eq!(scene.joints.len(), 11);
    assert_eq!(scene.joints[6].axes.unwrap().z, Some(AxisMotion::Limited(-1.0, 1.0)), "six-DOF ranges are parsed");
    let text = scene.to_json_string().unwrap();
    let again = Scene::from_json_str(&text, "again.json").unwrap();
    assert_eq!(again, scene);
    assert_eq!(again.to_json_string().unwrap(), text, "saving is stable");
    // The rotation keeps the form it was written in.
    assert!(text.contains(r#""rotation": {"axis": [0.0, 1.0, 0.0], "angle_deg": 45.0}"#), "{text}");
}

#[test]
fn omitted_fields_take_the_engine_defaults() {
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": 0.5}}"#);
    let (world, index) = Scene::from_json_str(&text, "t").unwrap().build().unwrap();
    assert_eq!(*world.settings(), WorldSettings::default());
    let body = world.body(index.body("b").unwrap()).unwrap();
    let def = BodyDef::default();
    assert_eq!(body.kind(), def.kind);
    assert_eq!(body.position(), def.position);
    assert_eq!(body.rotation(), def.rotation);
    assert_eq!((body.linear_damping(), body.angular_damping(), body.gravity_scale()), (0.0, 0.0, 1.0));
    assert_eq!((body.can_sleep(), body.is_bullet(), body.is_sleeping()), (def.can_sleep, def.bullet, false));
    let collider = world.collider(body.colliders()[0]).unwrap();
    let defaults = ColliderDef::new(Shape::sphere(0.5).unwrap());
    assert_eq!(collider.density(), defaults.density);
    assert_eq!(collider.friction(), defaults.friction);
    assert_eq!(collider.restitution(), defaults.restitution);
    assert!(!collider.is_sensor());
    // Mass from the default density: 1000 · 4/3 π 0.5³ = 523.6 kg.
    let expected = 1000.0 * 4.0 / 3.0 * std::f32::consts::PI * 0.125;
    assert!((body.mass() - expected).abs() < 1e-3 * expected, "{}", body.mass());
}

#[test]
fn settings_fields_reach_the_world() {
    let scene = Scene::from_json_str(EVERYTHING, "e").unwrap();
    let settings = build::world_settings(&scene.settings);
    assert_eq!(settings.gravity, Vec3::new(0.0, -3.5, 0.25));
    assert_eq!((settings.timestep, settings.sleep), (0.01, false));
    let s = settings.solver;
    assert_eq!((s.mode, s.substeps, s.iterations, s.position_iterations), (crate::SolverMode::Pgs, 6, 12, 4));
    assert_eq!((s.relax, s.warm_start, s.position_correction), (false, false, crate::PositionCorrection::Baumgarte));
    assert_eq!((s.baumgarte, s.contact_hertz, s.contact_damping_ratio), (0.3, 25.0, 5.0));
    assert_eq!((s.joint_hertz, s.joint_damping_ratio, s.max_push_velocity), (50.0, 1.5, 2.0));
    assert_eq!((s.restitution_threshold, s.linear_slop, s.speculative_distance), (0.5, 0.004, 0.03));
}

#[test]
fn collider_fields_override_material_fields_which_override_defaults() {
    let text = r#"{"format": 1, "materials": {"wood": {"friction": 0.5, "restitution": 0.1, "density": 600}},
      "bodies": [{"name": "b", "colliders": [
        {"shape": {"type": "sphere", "radius": 1}, "material": "wood", "friction": 0.9},
        {"shape": {"type": "sphere", "radius": 1}, "material": "wood"},
        {"shape": {"type": "sphere", "radius": 1}, "restitution": 0.4}]}]}"#;
    let (world, index) = Scene::from_json_str(text, "t").unwrap().build().unwrap();
    let body = world.body(index.body("b").unwrap()).unwrap();
    let c: Vec<_> = body.colliders().iter().map(|&id| world.collider(id).unwrap()).collect();
    assert_eq!((c[0].friction(), c[0].restitution(), c[0].density()), (0.9, 0.1, 600.0));
    assert_eq!((c[1].friction(), c[1].restitution(), c[1].density()), (0.5, 0.1, 600.0));
    assert_eq!((c[2].friction(), c[2].restitution(), c[2].density()), (0.6, 0.4, 1000.0));
}

#[test]
fn both_rotation_forms_give_the_same_quaternion() {
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let quat = format!(r#"{{"format": 1, "bodies": [{{"name": "b", "rotation": [0, 0, {half}, {half}]}}]}}"#);
    let axis_angle = r#"{"format": 1, "bodies": [{"name": "b", "rotation": {"axis": [0, 0, 2], "angle_deg": 90}}]}"#;
    let expected = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    for text in [quat.as_str(), axis_angle] {
        let (world, index) = Scene::from_json_str(text, "t").unwrap().build().unwrap();
        let q = world.body(index.body("b").unwrap()).unwrap().rotation();
        assert!(q.angle_between(expected) < 1e-6, "{q:?}");
    }
}

#[test]
fn unknown_fields_are_accepted() {
    let text = r#"{"format": 1, "author": "me", "settings": {"colour": "red"},
      "bodies": [{"name": "b", "tag": 3, "colliders": [{"shape": {"type": "sphere", "radius": 1, "note": "x"}, "extra": []}]}]}"#;
    assert!(Scene::from_json_str(text, "t").unwrap().build().is_ok());
}

/// A world with every kind of body and shape the engine can build, after a few steps.
fn varied_world() -> World {
    let settings = WorldSettings { gravity: Vec3::new(0.5, -9.0, 0.0), timestep: 0.01, ..Default::default() };
    let mut world = World::new(settings).unwrap();
    let ground = world.create_body(&BodyDef::fixed(Vec3::ZERO).with_name("ground")).unwrap();
    world.create_collider(ground, &ColliderDef::new(Shape::plane(Vec3::Y, -5.0).unwrap())).unwrap();
    let rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let mut def = BodyDef::dynamic(Vec3::new(1.0, 2.0, 3.0)).with_rotation(rotation).with_name("compound");
    def.mass = Some(7.5);
    def.linear_damping = 0.1;
    def.gravity_scale = 0.5;
    def.bullet = true;
    let compound = world.create_body(&def).unwrap();
    let offset = Quat::from_rotation_x(0.3);
    let shapes = [
        ColliderDef::new(Shape::cuboid(Vec3::new(0.5, 0.2, 0.1)).unwrap()).with_pose(Vec3::new(0.3, 0.0, 0.0), offset),
        ColliderDef::new(Shape::capsule(0.4, 0.1).unwrap()).with_density(300.0).with_friction(0.2),
        ColliderDef::new(Shape::cylinder(0.2, 0.3).unwrap()).with_restitution(0.5).with_pose(Vec3::Y, Quat::IDENTITY),
        ColliderDef::new(Shape::sphere(0.25).unwrap()).with_sensor(true),
    ];
    for shape in &shapes {
        world.create_collider(compound, shape).unwrap();
    }
    // Unnamed and repeated names get generated ones, never taking a later body's own name
    // (slot 3 repeats "compound"; its generated "body3" is taken by slot 4, so "body3_2").
    for (name, x) in [("", 5.0), ("compound", 8.0), ("body3", 11.0)] {
        let id = world
            .create_body(&BodyDef::dynamic(Vec3::new(x, 0.0, 0.0)).with_name(name).with_angular_velocity(Vec3::Z))
            .unwrap();
        world.create_collider(id, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    }
    let spinner =
        world.create_body(&BodyDef::kinematic(Vec3::new(0.0, 3.0, -4.0)).with_angular_velocity(Vec3::Y)).unwrap();
    world.create_collider(spinner, &ColliderDef::new(Shape::cuboid(Vec3::ONE).unwrap())).unwrap();
    let sleeper_def = BodyDef { awake: false, ..BodyDef::dynamic(Vec3::new(0.0, 20.0, 0.0)).with_name("sleeper") };
    let sleeper = world.create_body(&sleeper_def).unwrap();
    world.create_collider(sleeper, &ColliderDef::new(Shape::sphere(0.3).unwrap())).unwrap();
    for _ in 0..5 {
        world.step(0.01).unwrap();
    }
    world
}

#[test]
fn world_to_scene_to_world_keeps_bodies_poses_and_masses() {
    let world = varied_world();
    let scene = Scene::from_world(&world);
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["ground", "compound", "body2", "body3_2", "body3", "body5", "sleeper"]);
    let text = scene.to_json_string().unwrap();
    let reloaded = Scene::from_json_str(&text, "saved.json").unwrap();
    assert_eq!(reloaded, scene);
    let (rebuilt, index) = reloaded.build().unwrap();
    assert_eq!(*rebuilt.settings(), *world.settings());
    assert_eq!(rebuilt.body_count(), world.body_count());
    for ((_, a), (name, id)) in world.bodies().zip(index.iter()) {
        let b = rebuilt.body(id).unwrap();
        assert_eq!(a.kind(), b.kind(), "{name}");
        assert_eq!(a.position(), b.position(), "{name}");
        assert!(a.rotation().angle_between(b.rotation()) < 1e-6, "{name}");
        assert_eq!(a.linear_velocity(), b.linear_velocity(), "{name}");
        assert_eq!(a.angular_velocity(), b.angular_velocity(), "{name}");
        assert!((a.mass() - b.mass()).abs() <= 1e-6 * a.mass(), "{name}: {} vs {}", a.mass(), b.mass());
        let (ia, ib) = (a.inertia_local(), b.inertia_local());
        assert!(ia.abs_diff_eq(ib, 1e-6 * ia.abs().to_cols_array().iter().fold(0.0f32, |m, x| m.max(*x))), "{name}");
        assert!((a.local_center_of_mass() - b.local_center_of_mass()).length() < 1e-6, "{name}");
        assert_eq!(a.mass_override(), b.mass_override(), "{name}");
        assert_eq!(
            (a.linear_damping(), a.angular_damping(), a.gravity_scale()),
            (b.linear_damping(), b.angular_damping(), b.gravity_scale())
        );
        assert_eq!(
            (a.can_sleep(), a.is_bullet(), a.is_sleeping()),
            (b.can_sleep(), b.is_bullet(), b.is_sleeping()),
            "{name}"
        );
        assert_eq!(a.colliders().len(), b.colliders().len());
        for (&ca, &cb) in a.colliders().iter().zip(b.colliders()) {
            let (ca, cb) = (world.collider(ca).unwrap(), rebuilt.collider(cb).unwrap());
            assert_eq!(ca.shape(), cb.shape(), "{name}");
            assert!((ca.local_pose().position - cb.local_pose().position).length() < 1e-7);
            assert!(ca.local_pose().rotation.angle_between(cb.local_pose().rotation) < 1e-6);
            assert_eq!(
                (ca.density(), ca.friction(), ca.restitution(), ca.is_sensor()),
                (cb.density(), cb.friction(), cb.restitution(), cb.is_sensor())
            );
        }
    }
}

// ---- refused inputs: one test per case ----

#[test]
fn invalid_json_is_refused_with_its_position() {
    let message = load_error(r#"{"format": 1, "bodies": [}"#);
    assert!(message.starts_with("test.json: bodies"), "{message}");
    assert!(message.contains("invalid JSON") && message.contains("line 1 column"), "{message}");
    assert!(load_error(r#"{"format": 1, "bodies": []} extra"#).contains("trailing characters"));
}

#[test]
fn a_value_of_the_wrong_type_is_refused_at_its_path() {
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": "big"}}"#);
    assert_refused(&text, "bodies[0].colliders[0].shape.radius", "invalid type: string \"big\", expected f32");
    assert_refused(
        r#"{"format": 1, "bodies": [{"name": "b", "kind": "floating"}]}"#,
        "bodies[0].kind",
        "unknown variant `floating`",
    );
    assert_refused(
        r#"{"format": 1, "bodies": [{"name": "b", "position": [1, 2]}]}"#,
        "bodies[0].position",
        "invalid length 2",
    );
    assert_refused(
        r#"{"format": 1, "bodies": [{"name": "b", "rotation": "up"}]}"#,
        "bodies[0].rotation",
        "a quaternion [x, y, z, w] or",
    );
}

#[test]
fn unsupported_format_versions_are_refused() {
    assert_refused(r#"{"format": 2, "bodies": []}"#, "format", "unsupported format version 2");
    let message = load_error(r#"{"bodies": []}"#);
    assert!(message.starts_with("test.json: ") && message.contains("missing field `format`"), "{message}");
}

#[test]
fn missing_body_names_are_refused() {
    assert_refused(
        r#"{"format": 1, "bodies": [{"name": "a"}, {"kind": "static"}]}"#,
        "bodies[1]",
        "missing field `name`",
    );
    assert_refused(r#"{"format": 1, "bodies": [{"name": ""}]}"#, "bodies[0].name", "must not be empty");
}

#[test]
fn duplicate_body_names_are_refused() {
    let text = r#"{"format": 1, "bodies": [{"name": "a"}, {"name": "b"}, {"name": "a"}]}"#;
    assert_refused(text, "bodies[2].name", "duplicate body name \"a\" (first used by bodies[0])");
}

#[test]
fn joints_naming_unknown_bodies_are_refused() {
    let text = r#"{"format": 1, "bodies": [{"name": "a"}],
      "joints": [{"kind": "ball", "body_a": "a", "body_b": "ghost", "anchor": [0, 0, 0]}]}"#;
    assert_refused(text, "joints[0].body_b", "unknown body \"ghost\"");
}

#[test]
fn joint_fields_are_checked() {
    let joint = |j: &str| format!(r#"{{"format": 1, "bodies": [{{"name": "a"}}, {{"name": "b"}}], "joints": [{j}]}}"#);
    let hinge = r#""kind": "hinge", "body_a": "a", "body_b": "b", "anchor": [0, 0, 0], "axis": [0, 1, 0]"#;
    let cases = [
        (format!(r#"{{{hinge}, "limits": {{"lower": 1, "upper": -1}}}}"#), "joints[0].limits.upper", "must not be below"),
        (format!(r#"{{{hinge}, "motor": {{"target_velocity": 1}}}}"#), "joints[0].motor", "missing field `max_force`"),
        (format!(r#"{{{hinge}, "motor": {{"max_force": 1}}}}"#), "joints[0].motor", "needs `target_velocity` or `target_position`"),
        (format!(r#"{{{hinge}, "spring": {{"frequency_hz": 0, "damping_ratio": 1}}}}"#), "joints[0].spring.frequency_hz", "greater than zero"),
        (format!(r#"{{{hinge}, "rest_length": 1}}"#), "joints[0].rest_length", "does not apply to a `hinge` joint"),
        (format!(r#"{{{hinge}, "break_force": -1}}"#), "joints[0].break_force", "greater than zero"),
        (r#"{"kind": "hinge", "body_b": "b", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].axis", "is required"),
        (r#"{"kind": "hinge", "body_b": "b", "axis": [1, 0, 0]}"#.to_string(), "joints[0]", "needs `anchor`"),
        (r#"{"kind": "ball", "body_a": "a", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].body_b", "is required"),
        (r#"{"kind": "ball", "body_a": "b", "body_b": "b", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].body_b", "must differ"),
        (r#"{"kind": "distance", "body_b": "b", "anchor_a": [0, 0, 0], "anchor_b": [1, 0, 0], "min_length": 2, "max_length": 1}"#.to_string(), "joints[0].max_length", "must not be below min_length"),
        (r#"{"kind": "gear", "hinge_a": "x", "hinge_b": "y", "ratio": 1}"#.to_string(), "joints[0].hinge_a", "unknown joint \"x\""),
        (r#"{"kind": "six_dof", "body_b": "b", "anchor": [0, 0, 0], "axes": {"x": "stuck"}}"#.to_string(), "joints[0].axes.x", "\"locked\", \"free\" or [lower, upper]"),
        (r#"{"kind": "spring", "body_b": "b"}"#.to_string(), "joints[0].kind", "unknown variant `spring`"),
    ];
    for (text, path, reason) in &cases {
        assert_refused(&joint(text), path, reason);
    }
}

#[test]
fn non_finite_numbers_are_refused() {
    // 1e39 is beyond f32: it parses to infinity.
    assert_refused(
        r#"{"format": 1, "bodies": [{"name": "b", "position": [0, 1e39, 0]}]}"#,
        "bodies[0].position[1]",
        "must be a finite number",
    );
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": 1}, "friction": -1e39}"#);
    assert_refused(&text, "bodies[0].colliders[0].friction", "must be a finite number");
    assert_refused(
        r#"{"format": 1, "settings": {"gravity": [0, 1e40, 0]}, "bodies": []}"#,
        "settings.gravity[1]",
        "finite",
    );
}

#[test]
fn non_positive_sizes_masses_and_densities_are_refused() {
    let shape = |s: &str| with_collider(&format!(r#"{{"shape": {s}}}"#));
    assert_refused(
        &shape(r#"{"type": "sphere", "radius": -1}"#),
        "bodies[0].colliders[0].shape.radius",
        "must be greater than zero, got -1",
    );
    assert_refused(
        &shape(r#"{"type": "box", "half_extents": [1, 0, 1]}"#),
        "bodies[0].colliders[0].shape.half_extents[1]",
        "greater than zero",
    );
    assert_refused(
        &shape(r#"{"type": "capsule", "half_height": 0, "radius": 1}"#),
        "bodies[0].colliders[0].shape.half_height",
        "greater than zero",
    );
    assert_refused(
        &shape(r#"{"type": "cylinder", "half_height": 1}"#),
        "bodies[0].colliders[0].shape.radius",
        "is required for a cylinder shape",
    );
    let density = with_collider(r#"{"shape": {"type": "sphere", "radius": 1}, "density": 0}"#);
    assert_refused(&density, "bodies[0].colliders[0].density", "greater than zero");
    assert_refused(r#"{"format": 1, "bodies": [{"name": "b", "mass": -2}]}"#, "bodies[0].mass", "greater than zero");
    let material = r#"{"format": 1, "materials": {"lead": {"density": -1}}, "bodies": []}"#;
    assert_refused(material, "materials.lead.density", "greater than zero");
    assert_refused(
        r#"{"format": 1, "settings": {"timestep": 0}, "bodies": []}"#,
        "settings.timestep",
        "greater than zero",
    );
    assert_refused(
        r#"{"format": 1, "settings": {"substeps": 0}, "bodies": []}"#,
        "settings.substeps",
        "between 1 and 64",
    );
    assert_refused(
        r#"{"format": 1, "settings": {"solver": {"baumgarte": 2}}, "bodies": []}"#,
        "settings.solver.baumgarte",
        "at most 1",
    );
}

#[test]
fn non_unit_rotations_are_refused() {
    assert_refused(
        r#"{"format": 1, "bodies": [{"name": "b", "rotation": [0, 0, 1, 1]}]}"#,
        "bodies[0].rotation",
        "must be a unit quaternion, its length is 1.414",
    );
    let zero_axis = with_collider(
        r#"{"shape": {"type": "sphere", "radius": 1}, "rotation": {"axis": [0, 0, 0], "angle_deg": 10}}"#,
    );
    assert_refused(&zero_axis, "bodies[0].colliders[0].rotation.axis", "must not be the zero vector");
}

#[test]
fn degenerate_hulls_are_refused() {
    let hull = |points: &str| with_collider(&format!(r#"{{"shape": {{"type": "convex_hull", "points": {points}}}}}"#));
    let path = "bodies[0].colliders[0].shape.points";
    assert_refused(&hull("[[0,0,0],[1,0,0],[0,1,0]]"), path, "needs at least 4 points, got 3");
    assert_refused(&hull("[[0,0,0],[1,0,0],[0,1,0],[1,1,0],[0.5,0.5,0.00001]]"), path, "all points lie in one plane");
    assert_refused(&hull("[[0,0,0],[1,1,1],[2,2,2],[3,3,3]]"), path, "all points lie on one line");
    assert_refused(&hull("[[1,1,1],[1,1,1],[1,1,1],[1,1,1]]"), path, "all points coincide");
}

#[test]
fn shapes_a_body_kind_does_not_allow_are_refused() {
    let plane = r#"{"format": 1, "bodies": [{"name": "b", "kind": "kinematic",
      "colliders": [{"shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}}]}]}"#;
    assert_refused(
        plane,
        "bodies[0].colliders[0].shape",
        "a plane may only be attached to a static body, not a kinematic one",
    );
    let mesh =
        with_collider(r#"{"shape": {"type": "trimesh", "vertices": [[0,0,0],[1,0,0],[0,0,1]], "indices": [[0,1,2]]}}"#);
    assert_refused(
        &mesh,
        "bodies[0].colliders[0].shape",
        "a trimesh may only be attached to a static or kinematic body",
    );
    let compound = with_collider(r#"{"shape": {"type": "compound"}}"#);
    assert_refused(&compound, "bodies[0].colliders[0].shape.type", "give the body several colliders");
}

#[test]
fn bad_meshes_and_height_fields_are_refused() {
    let shape = |s: &str| {
        format!(r#"{{"format": 1, "bodies": [{{"name": "b", "kind": "static", "colliders": [{{"shape": {s}}}]}}]}}"#)
    };
    let path = "bodies[0].colliders[0].shape";
    assert_refused(
        &shape(r#"{"type": "trimesh", "vertices": [[0,0,0],[1,0,0],[0,0,1]], "indices": [[0,1,3]]}"#),
        &format!("{path}.indices[0][2]"),
        "out of range",
    );
    assert_refused(
        &shape(r#"{"type": "heightfield", "heights": [[0, 1], [0]], "scale": [1, 1, 1]}"#),
        &format!("{path}.heights[1]"),
        "has 1 columns",
    );
}

#[test]
fn unknown_materials_are_refused() {
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": 1}, "material": "steel"}"#);
    assert_refused(&text, "bodies[0].colliders[0].material", "unknown material \"steel\" (known: none)");
}

#[test]
fn building_refuses_joints_and_unsupported_shapes_naming_them() {
    let scene = Scene::from_json_str(EVERYTHING, "everything.json").unwrap();
    let message = scene.build().err().expect("build must fail").to_string();
    assert!(message.starts_with("everything.json: joints[0]: joints cannot be built yet"), "{message}");
    let mut without_joints = scene.clone();
    without_joints.joints.clear();
    let message = without_joints.build().err().expect("build must fail").to_string();
    assert!(
        message.starts_with("everything.json: bodies[0].colliders[1].shape: trimesh shapes are not supported yet"),
        "{message}"
    );
}

#[test]
fn a_scene_changed_in_code_is_validated_again_when_built() {
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": 1}}"#);
    let mut scene = Scene::from_json_str(&text, "t.json").unwrap();
    scene.bodies[0].colliders[0].shape.radius = Some(f32::NAN);
    let message = scene.build().err().expect("build must fail").to_string();
    assert!(message.starts_with("t.json: bodies[0].colliders[0].shape.radius: must be a finite number"), "{message}");
}

#[test]
fn missing_files_are_refused_naming_them() {
    let message = Scene::load("/nonexistent/scene.json").unwrap_err().to_string();
    assert!(message.starts_with("/nonexistent/scene.json: cannot read the file"), "{message}");
}

// ---- trajectories ----

/// Frames of a free-falling sphere follow the substep recurrence of symplectic Euler:
/// with h = dt/n and k substeps taken, v_k = v0 + k h g and y_k = y0 + k h v0 + h² g k(k+1)/2.
/// Each f32 substep rounds by at most half an ulp of |v|, |y| ≤ 16 (4.8e-7), so after k
/// substeps the engine may differ from the exact recurrence by up to about k · 4.8e-7.
#[test]
fn trajectory_frames_of_a_free_fall_follow_the_recurrence_and_round_trip() {
    let text = r#"{"format": 1, "settings": {"timestep": 0.02, "substeps": 5},
      "bodies": [{"name": "floor", "kind": "static"},
                 {"name": "ball", "position": [1, 10, 0], "linear_velocity": [0.5, 2, 0],
                  "colliders": [{"shape": {"type": "sphere", "radius": 0.5}}]}]}"#;
    let (mut world, index) = Scene::from_json_str(text, "fall.json").unwrap().build().unwrap();
    let header = TrajectoryHeader::new(&world, &index);
    assert_eq!((header.format, header.timestep, header.substeps), (1, 0.02, 5));
    assert_eq!(header.bodies, ["floor", "ball"]);
    let line = header.to_json_line().unwrap();
    assert_eq!(serde_json::from_str::<TrajectoryHeader>(&line).unwrap(), header);
    let h = 0.02f64 / 5.0;
    let g = -9.81f32 as f64;
    for step in 0..=60u64 {
        let frame = TrajectoryFrame::capture(&world, &index);
        assert_eq!(frame.step, step);
        assert_eq!(frame.bodies.len(), 1, "static bodies are not listed");
        let ball = &frame.bodies[0];
        let k = (step * 5) as f64;
        let y = 10.0 + k * h * 2.0 + h * h * g * k * (k + 1.0) / 2.0;
        let vy = 2.0 + k * h * g;
        let tolerance = (k + 1.0) * 6e-7;
        assert!((ball.p[1] as f64 - y).abs() < tolerance, "step {step}: y {} vs {y}", ball.p[1]);
        assert!((ball.p[0] as f64 - (1.0 + 0.5 * k * h)).abs() < tolerance);
        assert!((ball.v[1] as f64 - vy).abs() < tolerance, "step {step}: vy {} vs {vy}", ball.v[1]);
        assert_eq!(ball.q, [0.0, 0.0, 0.0, 1.0]);
        assert!((frame.time as f64 - step as f64 * 0.02).abs() < 1e-5);
        let line = frame.to_json_line().unwrap();
        let parsed: TrajectoryFrame = serde_json::from_str(&line).unwrap();
        assert_eq!(parsed, frame, "f32 values round-trip exactly");
        world.step(0.02).unwrap();
    }
}
