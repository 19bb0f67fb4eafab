//! Scene tests: samples load and build, round trips (text -> Scene -> text, World -> Scene ->
//! World, API joint -> file -> API joint), defaults and material resolution, one test per
//! refused input (message names the file, the JSON path and the reason; a misspelt field at
//! any level gets the closest known name), and trajectory frames of a free fall and of joints.

use super::*;
use crate::body::BodyDef;
use crate::collider::{ColliderDef, CollisionGroups};
use crate::id::{JointId, RawId};
use crate::joint::{self as engine, JointAxes, JointKind};
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

/// Every sample parses, validates (what `fulcrum check` reads), round-trips as text and
/// builds with all its bodies and joints.
#[test]
fn every_sample_loads_builds_and_round_trips() {
    let paths = sample_paths();
    assert!(paths.len() >= 18, "samples found: {paths:?}");
    for path in paths {
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(scene.description.is_some(), "{} has no description", path.display());
        let text = scene.to_json_string().unwrap();
        let dir = path.parent().expect("a sample file lies in scenes/");
        let again = Scene::from_json_str_in(&text, "again", dir).unwrap();
        assert_eq!(again, scene, "{} does not round-trip", path.display());
        let (world, index) = scene.build().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(world.body_count(), scene.bodies.len());
        assert_eq!(index.len(), scene.bodies.len());
        assert_eq!((world.joint_count(), index.joint_count()), (scene.joints.len(), scene.joints.len()));
    }
}

/// A scene using every field of the format the engine builds.
const EVERYTHING: &str = r#"{
  "format": 1,
  "description": "all fields",
  "settings": {"gravity": [0, -3.5, 0.25], "timestep": 0.01, "substeps": 6, "sleep": false,
    "solver": {"mode": "pgs", "iterations": 12, "relax": false, "warm_start": false,
      "position_correction": "baumgarte", "baumgarte": 0.3, "contact_hertz": 25,
      "contact_damping_ratio": 5, "joint_hertz": 50, "joint_damping_ratio": 1.5,
      "max_push_velocity": 2, "position_iterations": 4, "restitution_threshold": 0.5,
      "linear_slop": 0.004, "speculative_distance": 0.03, "exact_joint_trees": false,
      "block_solver": false}},
  "materials": {"wood": {"friction": 0.5, "restitution": 0.1, "density": 600}, "ice": {"friction": 0.02}},
  "bodies": [
    {"name": "frame", "kind": "static", "colliders": [
      {"shape": {"type": "plane", "normal": [0, 2, 0], "offset": -1}}]},
    {"name": "door", "kind": "dynamic", "position": [1, 2, 3], "rotation": [0, 0.6, 0, 0.8],
     "linear_velocity": [0.1, 0.2, 0.3], "angular_velocity": [1, 2, 3], "linear_damping": 0.1,
     "angular_damping": 0.2, "gravity_scale": 0.5, "mass": 12.5, "can_sleep": false, "bullet": true,
     "awake": true, "colliders": [
      {"shape": {"type": "box", "half_extents": [0.5, 1, 0.05]}, "position": [0, 0, 0.1],
       "rotation": {"axis": [0, 1, 0], "angle_deg": 45}, "density": 700, "friction": 0.9,
       "restitution": 0.2, "material": "wood", "sensor": false},
      {"shape": {"type": "sphere", "radius": 0.1}, "material": "ice", "sensor": true,
       "groups": {"memberships": 2, "filter": 4294967293}},
      {"shape": {"type": "capsule", "half_height": 0.5, "radius": 0.1}},
      {"shape": {"type": "cylinder", "half_height": 0.2, "radius": 0.3}},
      {"shape": {"type": "convex_hull", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}}]},
    {"name": "wheel", "kind": "kinematic", "position": [4, 0, 0]}
  ],
  "joints": [
    {"name": "door_hinge", "kind": "hinge", "body_a": "frame", "body_b": "door", "anchor": [0, 1, 0],
     "axis": [0, 1, 0], "limits": {"lower": -1.5, "upper": 1.5},
     "motor": {"target_velocity": 1.0, "max_force": 50}, "spring": {"frequency_hz": 2, "damping_ratio": 0.5},
     "break_force": 10000, "break_torque": 500, "collide_connected": false, "enabled": true},
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
    {"kind": "weld", "body_b": "wheel", "anchor": [4, 0, 0], "spring": {"frequency_hz": 5, "damping_ratio": 0.7},
     "local_frame_a": [0, 0, 0, 1], "local_frame_b": {"axis": [0, 0, 1], "angle_deg": 90}},
    {"kind": "angle", "body_a": "door", "body_b": "wheel", "anchor": [0, 0, 0], "enabled": false},
    {"kind": "prismatic", "body_b": "door", "anchor": [0, 0, 0], "axis": [1, 0, 0], "limits": {"lower": 0, "upper": 1}},
    {"kind": "line", "body_b": "door", "anchor": [0, 0, 0], "axis": [0, 1, 0]},
    {"name": "drag", "kind": "target", "body_b": "door", "anchor": [1, 2, 3], "target": [1, 3, 3],
     "spring": {"frequency_hz": 4, "damping_ratio": 1}, "max_force": 300}
  ]
}"#;

#[test]
fn a_scene_with_every_field_round_trips_through_json() {
    let scene = Scene::from_json_str(EVERYTHING, "everything.json").unwrap();
    assert_eq!(scene.bodies.len(), 3);
    assert_eq!(scene.joints.len(), 12);
    let JointKind::SixDof { axes } = scene.joints[6].kind else { panic!("{:?}", scene.joints[6].kind) };
    assert_eq!(axes[2], engine::AxisMotion::Limited(-1.0, 1.0), "six-DOF ranges are parsed");
    let text = scene.to_json_string().unwrap();
    let again = Scene::from_json_str(&text, "again.json").unwrap();
    assert_eq!(again, scene);
    assert_eq!(again.to_json_string().unwrap(), text, "saving is stable");
    // An axis-angle rotation is read, and written as the quaternion it is.
    let rotation = scene.bodies[1].colliders[0].def.rotation;
    assert!(rotation.angle_between(Quat::from_rotation_y(45f32.to_radians())) < 1e-6, "{rotation:?}");
    let (world, index) = scene.build().unwrap();
    assert_eq!((world.joint_count(), index.joint_count()), (12, 12), "every joint kind builds");
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
    let (world, _) = scene.build().unwrap();
    let settings = *world.settings();
    assert_eq!(settings.gravity, Vec3::new(0.0, -3.5, 0.25));
    assert_eq!((settings.timestep, settings.sleep), (0.01, false));
    let s = settings.solver;
    assert_eq!((s.mode, settings.substeps, s.iterations, s.position_iterations), (crate::SolverMode::Pgs, 6, 12, 4));
    assert_eq!((s.relax, s.warm_start, s.position_correction), (false, false, crate::PositionCorrection::Baumgarte));
    assert_eq!((s.baumgarte, s.contact_hertz, s.contact_damping_ratio), (0.3, 25.0, 5.0));
    assert_eq!((s.joint_hertz, s.joint_damping_ratio, s.max_push_velocity), (50.0, 1.5, 2.0));
    assert_eq!((s.restitution_threshold, s.linear_slop, s.speculative_distance), (0.5, 0.004, 0.03));
    assert!(!s.exact_joint_trees);
    assert!(!s.block_solver);
}

#[test]
fn collider_fields_override_material_fields_which_override_defaults() {
    let text = r#"{"format": 1, "materials": {"wood": {"friction": 0.5, "restitution": 0.1, "density": 600,
      "rolling_resistance": 0.02}},
      "bodies": [{"name": "b", "colliders": [
        {"shape": {"type": "sphere", "radius": 1}, "material": "wood", "friction": 0.9, "rolling_resistance": 0.3},
        {"shape": {"type": "sphere", "radius": 1}, "material": "wood"},
        {"shape": {"type": "sphere", "radius": 1}, "restitution": 0.4}]}]}"#;
    let (world, index) = Scene::from_json_str(text, "t").unwrap().build().unwrap();
    let body = world.body(index.body("b").unwrap()).unwrap();
    let c: Vec<_> = body.colliders().iter().map(|&id| world.collider(id).unwrap()).collect();
    assert_eq!((c[0].friction(), c[0].restitution(), c[0].density()), (0.9, 0.1, 600.0));
    assert_eq!((c[1].friction(), c[1].restitution(), c[1].density()), (0.5, 0.1, 600.0));
    assert_eq!((c[2].friction(), c[2].restitution(), c[2].density()), (0.6, 0.4, 1000.0));
    let rolling: Vec<f32> = c.iter().map(|c| c.rolling_resistance()).collect();
    assert_eq!(rolling, [0.3, 0.02, 0.0]);
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

/// A misspelt field at every level of a scene file is refused with its path and the closest
/// known name, never silently ignored.
#[test]
fn misspelt_fields_are_refused_with_a_suggestion_at_every_level() {
    let body = |fields: &str| format!(r#"{{"format": 1, "bodies": [{{"name": "b"{fields}}}]}}"#);
    let joint = |fields: &str| {
        format!(
            r#"{{"format": 1, "bodies": [{{"name": "a"}}], "joints": [{{"kind": "hinge", "body_b": "a", "anchor": [0, 0, 0], "axis": [0, 1, 0]{fields}}}]}}"#
        )
    };
    let sphere = r#""shape": {"type": "sphere", "radius": 1}"#;
    let cases = [
        (r#"{"format": 1, "bodies": [], "joint": []}"#.to_string(), "joint", "joints"),
        (r#"{"format": 1, "bodys": []}"#.to_string(), "bodys", "bodies"),
        (
            r#"{"format": 1, "bodies": [], "settings": {"gravty": [0, -1, 0]}}"#.to_string(),
            "settings.gravty",
            "gravity",
        ),
        (
            r#"{"format": 1, "bodies": [], "settings": {"solver": {"warm_strat": false}}}"#.to_string(),
            "settings.solver.warm_strat",
            "warm_start",
        ),
        (
            r#"{"format": 1, "bodies": [], "materials": {"wood": {"frction": 0.5}}}"#.to_string(),
            "materials.wood.frction",
            "friction",
        ),
        (body(r#", "positon": [0, 1, 0]"#), "bodies[0].positon", "position"),
        (body(r#", "coliders": []"#), "bodies[0].coliders", "colliders"),
        (
            body(&format!(r#", "colliders": [{{{sphere}, "frition": 1}}]"#)),
            "bodies[0].colliders[0].frition",
            "friction",
        ),
        (
            body(r#", "colliders": [{"shape": {"type": "sphere", "radus": 1}}]"#),
            "bodies[0].colliders[0].shape.radus",
            "radius",
        ),
        (
            body(r#", "colliders": [{"shape": {"type": "sphre", "radius": 1}}]"#),
            "bodies[0].colliders[0].shape.type",
            "sphere",
        ),
        (
            body(&format!(r#", "colliders": [{{{sphere}, "groups": {{"filtr": 1}}}}]"#)),
            "bodies[0].colliders[0].groups.filtr",
            "filter",
        ),
        (joint(r#", "limts": {"lower": 0, "upper": 1}"#), "joints[0].limts", "limits"),
        (joint(r#", "colide_connected": true"#), "joints[0].colide_connected", "collide_connected"),
        (
            joint(r#", "motor": {"target_velocty": 1, "max_force": 1}"#),
            "joints[0].motor.target_velocty",
            "target_velocity",
        ),
        (joint(r#", "spring": {"frequency": 1, "damping_ratio": 1}"#), "joints[0].spring.frequency", "frequency_hz"),
    ];
    for (text, path, suggestion) in &cases {
        assert_refused(text, path, &format!("(did you mean `{suggestion}`?)"));
    }
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
        ColliderDef::new(Shape::sphere(0.25).unwrap()).with_sensor(true).with_groups(CollisionGroups::new(4, !6)),
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
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.def.name.as_str()).collect();
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
                (ca.density(), ca.friction(), ca.restitution(), ca.is_sensor(), ca.groups()),
                (cb.density(), cb.friction(), cb.restitution(), cb.is_sensor(), cb.groups())
            );
        }
    }
}

// ---- refused inputs: one test per case ----

#[test]
fn invalid_json_is_refused_with_its_position() {
    let message = load_error(r#"{"format": 1, "bodies": [}"#);
    assert!(message.starts_with("test.json: bodies"), "{message}");
    assert!(message.contains("invalid JSON") && message.contains("(line 1, column"), "{message}");
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
        "expected a quaternion [x, y, z, w] or",
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
        "bodies[1].name",
        "must not be empty",
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
        (format!(r#"{{{hinge}, "rest_length": 1}}"#), "joints[0].rest_length", "unknown field `rest_length`"),
        (format!(r#"{{{hinge}, "break_force": -1}}"#), "joints[0].break_force", "greater than zero"),
        (r#"{"kind": "hinge", "body_b": "b", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].axis", "is required"),
        (r#"{"kind": "hinge", "body_b": "b", "axis": [1, 0, 0]}"#.to_string(), "joints[0]", "needs `anchor`"),
        (r#"{"kind": "ball", "body_a": "a", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].body_b", "is required"),
        (r#"{"kind": "ball", "body_a": "b", "body_b": "b", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].body_b", "must differ"),
        (r#"{"kind": "distance", "body_b": "b", "anchor_a": [0, 0, 0], "anchor_b": [1, 0, 0], "min_length": 2, "max_length": 1}"#.to_string(), "joints[0].max_length", "must not be below min_length"),
        (r#"{"kind": "gear", "hinge_a": "x", "hinge_b": "y", "ratio": 1}"#.to_string(), "joints[0].hinge_a", "unknown joint \"x\""),
        (r#"{"kind": "six_dof", "body_b": "b", "anchor": [0, 0, 0], "axes": {"x": "stuck"}}"#.to_string(), "joints[0].axes.x", "\"locked\", \"free\" or [lower, upper]"),
        (r#"{"kind": "spring", "body_b": "b"}"#.to_string(), "joints[0].kind", "unknown variant `spring`"),
        (format!(r#"{{{hinge}, "break_torque": 0}}"#), "joints[0].break_torque", "greater than zero"),
        (format!(r#"{{{hinge}, "enabled": 1}}"#), "joints[0].enabled", "expected a boolean"),
        (format!(r#"{{{hinge}, "max_force": 1}}"#), "joints[0].max_force", "unknown field `max_force`"),
        (format!(r#"{{{hinge}, "local_axis_a": [1, 0, 0], "local_axis_b": [1, 0, 0]}}"#), "joints[0].axis", "not both"),
        (format!(r#"{{{hinge}, "local_frame_a": [0, 0, 0, 1]}}"#), "joints[0].local_frame_b", "is required together with local_frame_a"),
        (r#"{"kind": "hinge", "body_b": "b", "anchor": [0, 0, 0], "axis": [0, 0, 0]}"#.to_string(), "joints[0].axis", "must not be the zero vector"),
        (r#"{"kind": "hinge", "body_b": "b", "anchor": [0, 0, 0], "axis": [0, 1e39, 0]}"#.to_string(), "joints[0].axis[1]", "finite"),
        (r#"{"kind": "hinge", "body_b": "b", "anchor": [0, 0, 0], "local_frame_a": [0, 0, 0, 2], "local_frame_b": [0, 0, 0, 1]}"#.to_string(), "joints[0].local_frame_a", "must be a unit quaternion"),
        (r#"{"kind": "weld", "body_b": "b", "anchor": [0, 0, 0], "local_frame_a": [0, 0, 0, 1], "local_frame_b": [0, 0, 0, 1], "axis": [1, 0, 0]}"#.to_string(), "joints[0].local_frame_a", "give only one form"),
        (r#"{"kind": "ball", "body_b": "b", "anchor": [0, 0, 0], "cone_limit_deg": 30}"#.to_string(), "joints[0].axis", "is required for cone and twist limits"),
        (r#"{"kind": "ball", "body_b": "b", "anchor": [0, 0, 0], "axis": [0, 1, 0], "cone_limit_deg": 200}"#.to_string(), "joints[0].cone_limit_deg", "a cone within [0, 180]"),
        (r#"{"kind": "ball", "body_b": "b", "anchor": [0, 0, 0], "axis": [0, 1, 0], "twist_limits_deg": {"lower": 10, "upper": 5}}"#.to_string(), "joints[0].twist_limits_deg.upper", "must not be below"),
        (r#"{"kind": "distance", "body_b": "b", "anchor_a": [0, 0, 0]}"#.to_string(), "joints[0].anchor_b", "is required together with anchor_a"),
        (r#"{"kind": "distance", "body_b": "b", "anchor": [0, 0, 0]}"#.to_string(), "joints[0].anchor", "a distance joint takes `anchor_a` and `anchor_b`"),
        (r#"{"kind": "distance", "body_b": "b", "anchor_a": [0, 0, 0], "anchor_b": [1, 0, 0], "rest_length": -1}"#.to_string(), "joints[0].rest_length", "must not be negative"),
        (r#"{"kind": "pulley", "body_a": "a", "body_b": "b", "anchor_a": [0, 0, 0], "anchor_b": [1, 0, 0], "ground_anchor_a": [0, 1, 0]}"#.to_string(), "joints[0]", "missing field `ground_anchor_b`"),
        (r#"{"kind": "pulley", "body_a": "a", "body_b": "b", "anchor_a": [0, 0, 0], "anchor_b": [1, 0, 0], "ground_anchor_a": [0, 1, 0], "ground_anchor_b": [1, 1, 0], "ratio": -2}"#.to_string(), "joints[0].ratio", "greater than zero"),
        (r#"{"kind": "six_dof", "body_b": "b", "anchor": [0, 0, 0], "axes": {"rz": [1, -1]}}"#.to_string(), "joints[0].axes.rz.upper", "must not be below"),
        (r#"{"kind": "target", "body_b": "b", "anchor": [0, 0, 0], "spring": {"frequency_hz": 1, "damping_ratio": 1}, "max_force": 1}"#.to_string(), "joints[0]", "missing field `target`"),
        (r#"{"kind": "target", "body_b": "b", "anchor": [0, 0, 0], "target": [0, 1, 0], "max_force": 1}"#.to_string(), "joints[0]", "missing field `spring`"),
        (r#"{"kind": "target", "body_b": "b", "anchor": [0, 0, 0], "target": [0, 1, 0], "spring": {"frequency_hz": 1, "damping_ratio": 1}, "max_force": -1}"#.to_string(), "joints[0].max_force", "must not be negative"),
        (r#"{"kind": "target", "body_a": "a", "body_b": "b", "anchor": [0, 0, 0], "target": [0, 1, 0], "spring": {"frequency_hz": 1, "damping_ratio": 1}, "max_force": 1}"#.to_string(), "joints[0].body_a", "a target joint pulls body_b towards a world point"),
        (r#"{"kind": "gear", "hinge_a": "x", "hinge_b": "y", "ratio": 1, "local_anchor_a": [0, 0, 0], "local_anchor_b": [0, 0, 0]}"#.to_string(), "joints[0].local_anchor_a", "does not apply to a `gear` joint"),
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
        "bodies[0].colliders[0].shape",
        "missing field `radius`",
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
    assert_refused(&zero_axis, "bodies[0].colliders[0].rotation", "must not be the zero vector");
}

#[test]
fn degenerate_hulls_are_refused() {
    let hull = |points: &str| with_collider(&format!(r#"{{"shape": {{"type": "convex_hull", "points": {points}}}}}"#));
    let path = "bodies[0].colliders[0].shape.points";
    assert_refused(&hull("[[0,0,0],[1,0,0],[0,1,0]]"), path, "needs at least 4 points, got 3");
    assert_refused(&hull("[[0,0,0],[1,0,0],[0,1,0],[1,1,0],[0.5,0.5,0.0000001]]"), path, "all points lie in one plane");
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
        with_collider(r#"{"shape": {"type": "trimesh", "vertices": [[0,0,0],[0,0,1],[1,0,0]], "indices": [[0,1,2]]}}"#);
    assert_refused(
        &mesh,
        "bodies[0].colliders[0].shape",
        "a triangle mesh may only be attached to a static or kinematic body (it has no volume), not a dynamic one",
    );
    let compound = with_collider(r#"{"shape": {"type": "compound"}}"#);
    assert_refused(&compound, "bodies[0].colliders[0].shape.type", "give the body several colliders");
}

#[test]
fn unknown_materials_are_refused() {
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": 1}, "material": "steel"}"#);
    assert_refused(&text, "bodies[0].colliders[0].material", "unknown material \"steel\" (known: none)");
}

#[test]
fn a_scene_changed_in_code_is_validated_again_when_built() {
    let text = with_collider(r#"{"shape": {"type": "sphere", "radius": 1}}"#);
    let mut scene = Scene::from_json_str(&text, "t.json").unwrap();
    scene.bodies[0].colliders[0].def.shape = Shape::Sphere(crate::shape::Sphere { radius: f32::NAN });
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

#[test]
fn gear_errors_name_the_gear_field() {
    let scene = |gear: &str| {
        format!(
            r#"{{"format": 1, "bodies": [{{"name": "a"}}, {{"name": "b"}}, {{"name": "c"}}], "joints": [
              {{"name": "h1", "kind": "hinge", "body_b": "a", "anchor": [0, 0, 0], "axis": [0, 0, 1]}},
              {{"name": "h2", "kind": "hinge", "body_b": "b", "anchor": [1, 0, 0], "axis": [0, 0, 1]}},
              {{"name": "h3", "kind": "hinge", "body_a": "c", "body_b": "b", "anchor": [1, 0, 0], "axis": [0, 0, 1]}},
              {{"name": "w", "kind": "weld", "body_b": "c", "anchor": [2, 0, 0]}},
              {gear}]}}"#
        )
    };
    let cases = [
        (
            r#"{"kind": "gear", "hinge_a": "h1", "hinge_b": "nope", "ratio": 2}"#,
            "joints[4].hinge_b",
            "unknown joint \"nope\"",
        ),
        (
            r#"{"kind": "gear", "hinge_a": "w", "hinge_b": "h2", "ratio": 2}"#,
            "joints[4].hinge_a",
            "joint \"w\" (joints[3]) is not a hinge",
        ),
        (
            r#"{"kind": "gear", "hinge_a": "h1", "hinge_b": "h1", "ratio": 2}"#,
            "joints[4].hinge_b",
            "must differ from hinge_a",
        ),
        (
            r#"{"kind": "gear", "hinge_a": "h2", "hinge_b": "h3", "ratio": 2}"#,
            "joints[4].hinge_b",
            "turns the same body as hinge_a (\"b\")",
        ),
        (r#"{"kind": "gear", "hinge_a": "h1", "hinge_b": "h2"}"#, "joints[4]", "missing field `ratio`"),
        (r#"{"kind": "gear", "hinge_a": "h1", "hinge_b": "h2", "ratio": 0}"#, "joints[4].ratio", "must be non-zero"),
        (r#"{"kind": "gear", "hinge_b": "h2", "ratio": 2}"#, "joints[4]", "missing field `hinge_a`"),
        (
            r#"{"kind": "gear", "body_a": "c", "hinge_a": "h1", "hinge_b": "h2", "ratio": 2}"#,
            "joints[4].body_a",
            "\"c\" is not \"a\", the body_b of hinge_a",
        ),
        (
            r#"{"kind": "gear", "body_b": "ghost", "hinge_a": "h1", "hinge_b": "h2", "ratio": 2}"#,
            "joints[4].body_b",
            "unknown body \"ghost\"",
        ),
    ];
    for (gear, path, reason) in cases {
        assert_refused(&scene(gear), path, reason);
    }
    // Naming the hinges' bodies is allowed.
    let named = r#"{"kind": "gear", "body_a": "a", "body_b": "b", "hinge_a": "h1", "hinge_b": "h2", "ratio": 2}"#;
    assert!(Scene::from_json_str(&scene(named), "t").is_ok());
}

#[test]
fn duplicate_joint_names_are_refused() {
    let text = r#"{"format": 1, "bodies": [{"name": "a"}], "joints": [
      {"name": "j", "kind": "ball", "body_b": "a", "anchor": [0, 0, 0]},
      {"name": "j", "kind": "weld", "body_b": "a", "anchor": [0, 0, 0]}]}"#;
    assert_refused(text, "joints[1].name", "duplicate joint name \"j\" (first used by joints[0])");
}

/// Every joint kind written the way saving writes it: every option explicit, each anchor and
/// axis form used once.
const EVERY_KIND: &str = r#"{"format": 1, "bodies": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "joints": [
  {"name": "ball", "kind": "ball", "body_a": "a", "body_b": "b", "anchor": [0, 1, 0], "axis": [0, -1, 0],
   "cone_limit_deg": 30, "twist_limits_deg": {"lower": -10, "upper": 45}, "collide_connected": false, "enabled": true},
  {"name": "h1", "kind": "hinge", "body_a": "a", "body_b": "b", "local_anchor_a": [0, 0.5, 0], "local_anchor_b": [0.25, 0, -1],
   "local_axis_a": [0, 0, 1], "local_axis_b": [1, 0, 0], "limits": {"lower": -1.5, "upper": 0.75},
   "motor": {"target_velocity": 2, "max_force": 40}, "spring": {"frequency_hz": 2, "damping_ratio": 0.5},
   "break_force": 1000, "break_torque": 250, "collide_connected": true, "enabled": false},
  {"name": "h2", "kind": "hinge", "body_b": "c", "anchor": [3, 0, 0], "local_frame_a": [0, 0, 0, 1],
   "local_frame_b": [0.5, 0.5, 0.5, 0.5], "motor": {"target_position": 0.5, "frequency_hz": 3, "damping_ratio": 1, "max_force": 5},
   "collide_connected": false, "enabled": true},
  {"kind": "prismatic", "body_a": "b", "body_b": "c", "anchor": [1, 2, 3], "axis": [1, 0, 0], "limits": {"lower": 0, "upper": 0.25},
   "motor": {"target_velocity": -1, "max_force": 10}, "spring": {"frequency_hz": 8, "damping_ratio": 0.2},
   "collide_connected": false, "enabled": true},
  {"kind": "line", "body_a": "a", "body_b": "c", "anchor": [0, 0, 0], "axis": [0, 1, 0], "limits": {"lower": -0.5, "upper": 0.5},
   "spring": {"frequency_hz": 1.5, "damping_ratio": 0.7}, "collide_connected": false, "enabled": true},
  {"kind": "distance", "body_a": "a", "body_b": "b", "anchor_a": [0, 3, 0], "anchor_b": [1, 2, 3], "axis": [1, 0, 0],
   "spring": {"frequency_hz": 4, "damping_ratio": 0.1}, "rest_length": 1, "min_length": 0.5, "max_length": 2,
   "collide_connected": true, "enabled": true},
  {"kind": "distance", "body_b": "b", "anchor_a": [0, 3, 0], "anchor_b": [0, 1, 0], "axis": [1, 0, 0], "max_length": 2.5,
   "collide_connected": false, "enabled": true},
  {"kind": "weld", "body_a": "a", "body_b": "c", "anchor": [4, 0, 0], "axis": [1, 0, 0],
   "spring": {"frequency_hz": 5, "damping_ratio": 0.7}, "break_force": 50, "collide_connected": false, "enabled": true},
  {"kind": "angle", "body_a": "b", "body_b": "c", "anchor": [0, 0, 0], "axis": [1, 0, 0], "spring": {"frequency_hz": 3, "damping_ratio": 1},
   "collide_connected": false, "enabled": true},
  {"kind": "pulley", "body_a": "b", "body_b": "c", "anchor_a": [1, 2, 3], "anchor_b": [4, 0, 0], "axis": [1, 0, 0],
   "ground_anchor_a": [1, 5, 3], "ground_anchor_b": [4, 5, 0], "ratio": 2, "collide_connected": false, "enabled": true},
  {"kind": "gear", "hinge_a": "h1", "hinge_b": "h2", "ratio": -2, "collide_connected": false, "enabled": true},
  {"kind": "six_dof", "body_b": "b", "anchor": [0, 0, 0], "axis": [0, 0, 1],
   "axes": {"x": "locked", "y": "free", "z": [-1, 1], "rx": "locked", "ry": [0, 0.5], "rz": "free"},
   "collide_connected": false, "enabled": true},
  {"name": "drag", "kind": "target", "body_b": "a", "anchor": [1, 2, 3], "axis": [1, 0, 0], "target": [1, 3, 3],
   "spring": {"frequency_hz": 4, "damping_ratio": 1}, "max_force": 300, "collide_connected": false, "enabled": true}
]}"#;

fn body_id(index: u32) -> crate::BodyId {
    crate::BodyId(RawId { index, generation: 1 })
}

fn joint_id(index: u32) -> JointId {
    JointId(RawId { index, generation: 1 })
}

/// Names for EVERY_KIND without a world: bodies a, b, c are 0, 1, 2; hinges h1, h2 are 1, 2.
fn every_kind_names() -> SceneIndex {
    let mut index = SceneIndex::default();
    for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
        index.push(name.to_string(), body_id(i as u32));
    }
    index.push_joint("h1".to_string(), joint_id(1));
    index.push_joint("h2".to_string(), joint_id(2));
    index
}

/// A scene joint with names replaced by the ids of `index`, and back.
fn with_ids(joint: &SceneJoint, index: &SceneIndex) -> engine::JointDef {
    joint.clone().map_references(|_, name| index.body(&name).ok_or(()), |_, name| index.joint(&name).ok_or(())).unwrap()
}

fn with_names(def: &engine::JointDef, index: &SceneIndex) -> SceneJoint {
    def.clone()
        .map_references(
            |_, id| index.name(id).map(str::to_string).ok_or(()),
            |_, id| index.joint_name(id).map(str::to_string).ok_or(()),
        )
        .unwrap()
}

/// file -> definition -> file gives every kind's entry back; the definitions hold what the
/// file says in the engine's units.
#[test]
fn every_joint_kind_converts_to_a_definition_and_back() {
    let scene = Scene::from_json_str(EVERY_KIND, "every_kind.json").unwrap();
    let names = every_kind_names();
    let kinds: Vec<&str> = scene.joints.iter().map(|j| j.kind.name()).collect();
    for kind in
        ["ball", "hinge", "prismatic", "line", "distance", "weld", "angle", "pulley", "gear", "six_dof", "target"]
    {
        assert!(kinds.contains(&kind), "{kind} is not covered");
    }
    let defs: Vec<engine::JointDef> = scene.joints.iter().map(|joint| with_ids(joint, &names)).collect();
    for (i, (joint, def)) in scene.joints.iter().zip(&defs).enumerate() {
        def.validate().unwrap_or_else(|e| panic!("joints[{i}]: {e}"));
        assert_eq!(&with_names(def, &names), joint, "joints[{i}] does not come back");
    }
    let (deg30, deg10, deg45) = (30f32.to_radians(), 10f32.to_radians(), 45f32.to_radians());
    match defs[0].kind {
        JointKind::Ball { cone_limit: Some(cone), twist_limits: Some(twist), .. } => {
            assert!(
                (cone - deg30).abs() < 1e-7 && (twist.lower + deg10).abs() < 1e-7 && (twist.upper - deg45).abs() < 1e-7
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(defs[0].anchors, engine::Anchors::Shared(Vec3::Y));
    assert_eq!(defs[0].axes, JointAxes::World(-Vec3::Y));
    assert_eq!((defs[0].body_a, defs[0].body_b), (Some(body_id(0)), Some(body_id(1))));
    let h1 = &defs[1];
    assert_eq!(h1.anchors, engine::Anchors::Local { a: Vec3::new(0.0, 0.5, 0.0), b: Vec3::new(0.25, 0.0, -1.0) });
    assert_eq!(h1.axes, JointAxes::Local { a: Vec3::Z, b: Vec3::X });
    assert_eq!(
        (h1.break_force, h1.break_torque, h1.collide_connected, h1.enabled),
        (Some(1000.0), Some(250.0), true, false)
    );
    assert_eq!(
        h1.kind,
        JointKind::Hinge {
            limits: Some(engine::Limits::new(-1.5, 0.75)),
            motor: Some(engine::Motor::Velocity { target_velocity: 2.0, max_force: 40.0 }),
            spring: Some(engine::Spring::new(2.0, 0.5)),
        }
    );
    assert_eq!(defs[2].axes, JointAxes::LocalFrames { a: Quat::IDENTITY, b: Quat::from_xyzw(0.5, 0.5, 0.5, 0.5) });
    assert_eq!(defs[2].body_a, None, "body_a omitted: the static world");
    assert_eq!(defs[5].anchors, engine::Anchors::World { a: Vec3::new(0.0, 3.0, 0.0), b: Vec3::new(1.0, 2.0, 3.0) });
    assert_eq!(defs[10].kind, JointKind::Gear { hinge_a: joint_id(1), hinge_b: joint_id(2), ratio: -2.0 });
    assert_eq!(
        defs[11].kind,
        JointKind::SixDof {
            axes: [
                engine::AxisMotion::Locked,
                engine::AxisMotion::Free,
                engine::AxisMotion::Limited(-1.0, 1.0),
                engine::AxisMotion::Locked,
                engine::AxisMotion::Limited(0.0, 0.5),
                engine::AxisMotion::Free,
            ]
        }
    );
    assert_eq!(
        defs[12].kind,
        JointKind::Target { target: Vec3::new(1.0, 3.0, 3.0), spring: engine::Spring::new(4.0, 1.0), max_force: 300.0 }
    );
    assert_eq!((defs[12].name.as_str(), defs[12].body_a), ("drag", None));
}

/// A joint given with only its required fields is the constructor's definition: the file's
/// defaults are the engine's.
#[test]
fn omitted_joint_options_take_the_engine_defaults() {
    let text = r#"{"format": 1, "bodies": [{"name": "a"}, {"name": "b"}], "joints": [
      {"kind": "hinge", "body_a": "a", "body_b": "b", "anchor": [0, 1, 0], "axis": [0, 0, 1]},
      {"kind": "ball", "body_b": "b", "anchor": [0, 1, 0]},
      {"kind": "distance", "body_a": "a", "body_b": "b", "anchor_a": [0, 1, 0], "anchor_b": [0, 0, 0]},
      {"kind": "pulley", "body_a": "a", "body_b": "b", "anchor_a": [0, 1, 0], "anchor_b": [2, 0, 0],
       "ground_anchor_a": [0, 3, 0], "ground_anchor_b": [2, 3, 0]}]}"#;
    let scene = Scene::from_json_str(text, "t").unwrap();
    let names = every_kind_names();
    let (a, b) = (body_id(0), body_id(1));
    let expected = [
        engine::JointDef::hinge(Some(a), b, Vec3::Y, Vec3::Z),
        engine::JointDef::ball(None, b, Vec3::Y),
        engine::JointDef::distance(Some(a), b, Vec3::Y, Vec3::ZERO),
        engine::JointDef::pulley(
            Some(a),
            b,
            (Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.0, 3.0, 0.0)),
            (Vec3::Y, Vec3::X * 2.0),
            1.0,
        ),
    ];
    for (joint, expected) in scene.joints.iter().zip(expected) {
        assert_eq!(with_ids(joint, &names), expected);
    }
}

/// Every joint kind built through the API, with limits, motors and springs (a distance joint
/// with a rest length inside its range among them), saves and reloads to the same joints: the
/// same kind with the same options, bodies, frames and flags. A rest length outside the range
/// is refused by the API and by the loader alike, so no world can be saved that cannot be
/// loaded.
#[test]
fn a_world_built_in_code_with_every_joint_kind_saves_and_reloads_the_same() {
    use engine::{AxisMotion, JointDef, Limits, Motor, Spring};
    let mut world = World::default();
    let bodies: Vec<crate::BodyId> = (0..4)
        .map(|i| {
            let id =
                world.create_body(&BodyDef::dynamic(Vec3::new(i as f32, 2.0, 0.0)).with_name(format!("b{i}"))).unwrap();
            world.create_collider(id, &ColliderDef::new(Shape::sphere(0.2).unwrap())).unwrap();
            id
        })
        .collect();
    let [a, b, c, d] = [bodies[0], bodies[1], bodies[2], bodies[3]];
    let spring = Spring::new(3.0, 0.4);
    let velocity = Motor::Velocity { target_velocity: 1.5, max_force: 20.0 };
    let position = Motor::Position { target_position: 0.25, frequency_hz: 4.0, damping_ratio: 0.9, max_force: 8.0 };
    let hinge_a = world
        .create_joint(
            &JointDef::hinge(Some(a), b, Vec3::new(0.5, 2.0, 0.0), Vec3::Z)
                .with_limits(Limits::new(-1.0, 1.25))
                .with_motor(velocity)
                .with_spring(spring)
                .with_name("hinge_a"),
        )
        .unwrap();
    let hinge_b =
        world.create_joint(&JointDef::hinge(None, c, Vec3::new(2.0, 2.0, 0.0), Vec3::Z).with_motor(position)).unwrap();
    let defs = [
        JointDef::gear(hinge_a, hinge_b, -1.5),
        JointDef::ball(Some(b), c, Vec3::new(1.5, 2.0, 0.0))
            .with_axis(Vec3::X)
            .with_cone_limit(0.7)
            .with_limits(Limits::new(-0.3, 0.4)),
        JointDef::prismatic(Some(c), d, Vec3::new(2.5, 2.0, 0.0), Vec3::X)
            .with_limits(Limits::new(-0.5, 0.5))
            .with_motor(position)
            .with_spring(spring),
        JointDef::line(None, d, Vec3::new(3.0, 2.0, 0.0), Vec3::Y)
            .with_limits(Limits::new(-0.25, 0.25))
            .with_spring(spring)
            .with_motor(velocity),
        JointDef::distance(Some(a), d, Vec3::new(0.0, 2.0, 0.0), Vec3::new(3.0, 2.0, 0.0))
            .with_length_range(2.0, 4.0)
            .with_rest_length(3.5)
            .with_spring(spring),
        JointDef::rope(None, a, Vec3::new(0.0, 5.0, 0.0), Vec3::new(0.0, 2.0, 0.0), 3.5),
        JointDef::weld(Some(a), c, Vec3::new(1.0, 2.0, 0.0))
            .with_spring(spring)
            .with_break_force(1e5)
            .with_break_torque(1e4),
        JointDef::angle(Some(b), d).with_spring(spring).with_collide_connected(true),
        JointDef::pulley(
            Some(b),
            c,
            (Vec3::new(1.0, 4.0, 0.0), Vec3::new(2.0, 4.0, 0.0)),
            (Vec3::new(1.0, 2.0, 0.0), Vec3::new(2.0, 2.0, 0.0)),
            2.0,
        ),
        JointDef::six_dof(
            Some(a),
            b,
            Vec3::new(0.5, 2.0, 0.0),
            Vec3::Y,
            [
                AxisMotion::Locked,
                AxisMotion::Free,
                AxisMotion::Limited(-0.1, 0.2),
                AxisMotion::Locked,
                AxisMotion::Limited(-0.5, 0.5),
                AxisMotion::Free,
            ],
        ),
        JointDef::target(d, Vec3::new(3.0, 2.0, 0.0), Vec3::new(3.0, 3.0, 0.0), spring, 50.0).with_enabled(false),
    ];
    for def in &defs {
        world.create_joint(def).unwrap_or_else(|e| panic!("{}: {e}", def.kind.name()));
    }
    let outside = JointDef::distance(Some(a), d, Vec3::ZERO, Vec3::X).with_length_range(2.0, 4.0).with_rest_length(5.0);
    assert_eq!(
        world.create_joint(&outside).unwrap_err().field,
        "max_length",
        "the API refuses a rest length above the range"
    );
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
    }
    let text = Scene::from_world(&world).to_json_string().unwrap();
    let (again, _) = Scene::from_json_str(&text, "saved.json").unwrap().build().unwrap();
    assert_eq!(again.joint_count(), world.joint_count());
    let body_name = |w: &World, id: Option<crate::BodyId>| id.map(|id| w.body(id).unwrap().name().to_string());
    let signature =
        |w: &World, j: &crate::Joint| (j.kind().name(), body_name(w, j.body_a()), body_name(w, Some(j.body_b())));
    for (_, x) in world.joints() {
        let kind = x.kind().name();
        let (_, y) = again.joints().find(|(_, y)| signature(&again, y) == signature(&world, x)).unwrap();
        let hinge_names = |w: &World, k: &JointKind| match *k {
            JointKind::Gear { hinge_a, hinge_b, ratio } => {
                Some((w.joint(hinge_a).unwrap().body_b(), w.joint(hinge_b).unwrap().body_b(), ratio))
                    .map(|(p, q, r)| (body_name(w, Some(p)), body_name(w, Some(q)), r))
            }
            _ => None,
        };
        match x.kind() {
            JointKind::Gear { .. } => assert_eq!(hinge_names(&world, x.kind()), hinge_names(&again, y.kind())),
            other => assert_eq!(other, y.kind(), "{kind}"),
        }
        assert_eq!(body_name(&world, x.body_a()), body_name(&again, y.body_a()), "{kind}");
        assert_eq!(body_name(&world, Some(x.body_b())), body_name(&again, Some(y.body_b())), "{kind}");
        for (fa, fb) in [(x.local_frame_a(), y.local_frame_a()), (x.local_frame_b(), y.local_frame_b())] {
            assert!((fa.position - fb.position).length() < 1e-6, "{kind}");
            assert!(fa.rotation.angle_between(fb.rotation) < 1e-5, "{kind}");
        }
        assert_eq!(
            (x.collide_connected(), x.break_force(), x.break_torque(), x.is_enabled()),
            (y.collide_connected(), y.break_force(), y.break_torque(), y.is_enabled()),
            "{kind}"
        );
    }
    let outside_in_a_file = r#"{"format": 1, "bodies": [{"name": "a"}, {"name": "b"}], "joints": [
      {"kind": "distance", "body_a": "a", "body_b": "b", "anchor_a": [0, 0, 0], "anchor_b": [1, 0, 0],
       "min_length": 2, "max_length": 4, "rest_length": 5}]}"#;
    assert_refused(outside_in_a_file, "joints[0].max_length", "must not be below rest_length");
}

/// A small jointed scene: a hinged arm (limits, motor, spring), a bob on a ball joint at its
/// end, a plate welded under the bob, a disabled hinge and a breakable weld.
const JOINTED: &str = r#"{"format": 1,
  "settings": {"sleep": false, "solver": {"warm_start": false}},
  "bodies": [
    {"name": "post", "kind": "static", "position": [0, 3, 0], "colliders": [{"shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}}]},
    {"name": "arm", "position": [0.5, 3, 0], "angular_velocity": [0, 0, 2], "linear_velocity": [0, 1, 0],
     "colliders": [{"shape": {"type": "box", "half_extents": [0.5, 0.05, 0.05]}}]},
    {"name": "bob", "position": [1.0, 2.5, 0], "linear_velocity": [0.5, 0, 0.5],
     "colliders": [{"shape": {"type": "sphere", "radius": 0.1}}]},
    {"name": "plate", "position": [1.0, 2.38, 0], "colliders": [{"shape": {"type": "box", "half_extents": [0.1, 0.02, 0.1]}}]},
    {"name": "spare", "position": [-2, 3, 0], "colliders": [{"shape": {"type": "sphere", "radius": 0.1}}]}
  ],
  "joints": [
    {"name": "shoulder", "kind": "hinge", "body_a": "post", "body_b": "arm", "anchor": [0, 3, 0], "axis": [0, 0, 1],
     "limits": {"lower": -0.6, "upper": 0.8}, "motor": {"target_velocity": 0, "max_force": 0.5},
     "spring": {"frequency_hz": 1, "damping_ratio": 0.05}, "break_force": 1e6, "break_torque": 1e6},
    {"name": "wrist", "kind": "ball", "body_a": "arm", "body_b": "bob", "anchor": [1.0, 3, 0]},
    {"name": "glue", "kind": "weld", "body_a": "bob", "body_b": "plate", "anchor": [1.0, 2.4, 0], "collide_connected": true},
    {"name": "off", "kind": "hinge", "body_b": "spare", "anchor": [-2, 3.5, 0], "axis": [1, 0, 0], "enabled": false},
    {"kind": "weld", "body_b": "spare", "anchor": [-2, 3, 0], "break_force": 1}
  ]}"#;

/// Largest distance between the same bodies' positions in two worlds, metres.
fn largest_gap(a: &World, a_index: &SceneIndex, b: &World, b_index: &SceneIndex) -> f32 {
    a_index
        .iter()
        .map(|(name, id)| {
            let other = b_index.body(name).unwrap();
            (a.body(id).unwrap().position() - b.body(other).unwrap().position()).length()
        })
        .fold(0.0, f32::max)
}

/// A jointed world saved after moving comes back with the same joints: kinds, bodies, frames
/// in each body (so the hinge angle keeps its reference), options and flags, and moves on as
/// the original does. Rebuilt with the axes alone (the reference lost), it would not.
#[test]
fn a_jointed_world_saved_after_moving_reloads_the_same() {
    let (mut world, index) = Scene::from_json_str(JOINTED, "jointed.json").unwrap().build().unwrap();
    for _ in 0..45 {
        world.step(1.0 / 60.0).unwrap();
    }
    let shoulder = world.joint(index.joint("shoulder").unwrap()).unwrap();
    let arm = world.body(index.body("arm").unwrap()).unwrap();
    let angle = 2.0
        * (shoulder.local_frame_a().rotation.conjugate() * arm.rotation() * shoulder.local_frame_b().rotation).x.atan2(
            (shoulder.local_frame_a().rotation.conjugate() * arm.rotation() * shoulder.local_frame_b().rotation).w,
        );
    eprintln!("hinge angle when saved: {angle:.4} rad");
    assert!(angle.abs() > 0.2, "the arm must have turned for the test to mean anything");
    let broken: Vec<_> = world.joints().filter(|(_, j)| j.is_broken()).map(|(_, j)| j.name().to_string()).collect();
    assert_eq!(broken, [""], "the 1 N weld broke");

    let saved = Scene::from_world(&world);
    let text = saved.to_json_string().unwrap();
    let reloaded = Scene::from_json_str(&text, "saved.json").unwrap();
    assert_eq!(reloaded, saved);
    assert_eq!(reloaded.joints.len(), 5);
    assert_eq!(reloaded.joints[4].name, "", "an unnamed joint stays unnamed");
    assert!(!reloaded.joints[4].enabled, "a broken joint is saved disabled");
    let (mut again, again_index) = reloaded.build().unwrap();
    assert_eq!(again.joint_count(), world.joint_count());
    for ((_, a), (_, b)) in world.joints().zip(again.joints()) {
        let name = a.name();
        assert_eq!((a.name(), a.kind()), (b.name(), b.kind()), "{name}");
        let body_name = |w: &World, id: Option<crate::BodyId>| id.map(|id| w.body(id).unwrap().name().to_string());
        assert_eq!(body_name(&world, a.body_a()), body_name(&again, b.body_a()), "{name}");
        assert_eq!(body_name(&world, Some(a.body_b())), body_name(&again, Some(b.body_b())), "{name}");
        for (fa, fb) in [(a.local_frame_a(), b.local_frame_a()), (a.local_frame_b(), b.local_frame_b())] {
            assert!((fa.position - fb.position).length() < 1e-6, "{name}");
            assert!(fa.rotation.angle_between(fb.rotation) < 1e-5, "{name}");
        }
        assert_eq!(
            (a.collide_connected(), a.break_force(), a.break_torque(), a.is_enabled()),
            (b.collide_connected(), b.break_force(), b.break_torque(), b.is_enabled()),
            "{name}"
        );
    }

    // Lose the references: the same scene with each joint's frames replaced by its X axes.
    let mut axes_only = reloaded.clone();
    for joint in &mut axes_only.joints {
        if let JointAxes::LocalFrames { a, b } = joint.axes {
            joint.axes = JointAxes::Local { a: a * Vec3::X, b: b * Vec3::X };
        }
    }
    let (mut reset, reset_index) = axes_only.build().unwrap();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
        again.step(1.0 / 60.0).unwrap();
        reset.step(1.0 / 60.0).unwrap();
    }
    let same = largest_gap(&world, &index, &again, &again_index);
    let lost = largest_gap(&world, &index, &reset, &reset_index);
    eprintln!("after 60 more steps: reloaded world within {same:.2e} m, with references lost {lost:.3} m");
    assert!(same < 1e-4, "{same}");
    assert!(lost > 0.01, "{lost}");
}

/// Joints on a body the world took out of the simulation are left out, and so is a gear whose
/// hinge went with them; a hinge a gear needs gets a name when it has none. (The gear part runs
/// where the engine builds gears.)
#[test]
fn saving_names_geared_hinges_and_leaves_out_joints_on_removed_bodies() {
    let mut world = World::default();
    let mut wheel = |x: f32| {
        let id = world.create_body(&BodyDef::dynamic(Vec3::new(x, 0.0, 0.0)).with_name(format!("wheel{x}"))).unwrap();
        world.create_collider(id, &ColliderDef::new(Shape::sphere(0.2).unwrap())).unwrap();
        id
    };
    let (w0, w1, w2) = (wheel(0.0), wheel(1.0), wheel(2.0));
    let h0 = world.create_joint(&engine::JointDef::hinge(None, w0, Vec3::ZERO, Vec3::Z)).unwrap();
    let h1 = world.create_joint(&engine::JointDef::hinge(None, w1, Vec3::X, Vec3::Z).with_name("second")).unwrap();
    let h2 = world.create_joint(&engine::JointDef::hinge(None, w2, Vec3::X * 2.0, Vec3::Z)).unwrap();
    let gears = [
        world.create_joint(&engine::JointDef::gear(h0, h1, 2.0)),
        world.create_joint(&engine::JointDef::gear(h1, h2, 3.0)),
    ];
    let geared = match gears {
        [Ok(_), Ok(_)] => true,
        [Err(e), _] if e.reason.contains("not supported yet") => {
            eprintln!("gears are not built on this branch: only the removed body is checked");
            false
        }
        [a, b] => panic!("{a:?} {b:?}"),
    };
    world.disable_body(w2, "test");
    let scene = Scene::from_world(&world);
    let summary: Vec<(&str, &str)> = scene.joints.iter().map(|j| (j.name.as_str(), j.kind.name())).collect();
    if geared {
        assert_eq!(summary, [("joint0", "hinge"), ("second", "hinge"), ("", "gear")]);
        let JointKind::Gear { hinge_a, hinge_b, .. } = &scene.joints[2].kind else { panic!() };
        assert_eq!((hinge_a.as_str(), hinge_b.as_str()), ("joint0", "second"));
    } else {
        assert_eq!(summary, [("", "hinge"), ("second", "hinge")]);
    }
    let (rebuilt, index) = scene.build().unwrap();
    assert_eq!((rebuilt.joint_count(), index.joint_count()), (scene.joints.len(), scene.joints.len()));
}

/// A ball of 2 kg hanging at rest under a ball joint: the joint pulls it up with m·g and no
/// torque. A 2 kg box on a weld that breaks above 5 N is reported broken after the first step.
/// Trajectory lines carry both under their names (generated for the unnamed one).
#[test]
fn trajectory_frames_report_joint_forces_and_breaks() {
    let text = r#"{"format": 1, "settings": {"sleep": false},
      "bodies": [{"name": "bob", "position": [0, 0.5, 0], "mass": 2, "colliders": [{"shape": {"type": "sphere", "radius": 0.1}}]},
                 {"name": "box", "position": [3, 0.5, 0], "mass": 2, "colliders": [{"shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}}]}],
      "joints": [{"name": "string", "kind": "ball", "body_b": "bob", "anchor": [0, 1, 0]},
                 {"kind": "weld", "body_b": "box", "anchor": [3, 0.6, 0], "break_force": 5}]}"#;
    let (mut world, index) = Scene::from_json_str(text, "hang.json").unwrap().build().unwrap();
    let header = TrajectoryHeader::new(&world, &index);
    assert_eq!(header.joints, ["string", "joint1"]);
    let first = TrajectoryFrame::capture(&world, &index);
    assert_eq!(first.joints.len(), 2);
    assert_eq!((first.joints[0].force, first.joints[1].broken), ([0.0; 3], false));
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let frame = TrajectoryFrame::capture(&world, &index);
    let string = &frame.joints[0];
    let weight = 2.0 * 9.81;
    eprintln!("hanging ball: joint force {:?} N (m·g = {weight} N), torque {:?} N·m", string.force, string.torque);
    assert_eq!(string.name, "string");
    assert!((string.force[1] - weight).abs() < 0.005 * weight, "{:?}", string.force);
    assert!(string.force[0].abs() < 1e-3 * weight && string.force[2].abs() < 1e-3 * weight);
    assert!(Vec3::from_array(string.torque).length() < 1e-3, "{:?}", string.torque);
    assert!(!string.broken);
    assert_eq!((frame.joints[1].name.as_str(), frame.joints[1].broken), ("joint1", true));
    let line = frame.to_json_line().unwrap();
    assert!(line.contains(r#""joints":[{"name":"string","force":["#), "{line}");
    assert_eq!(serde_json::from_str::<TrajectoryFrame>(&line).unwrap(), frame);
}

/// A distance joint's lengths "at load time" are written into the definition where the
/// engine would otherwise take them at creation: a rod's rest length, and the rest length of
/// a spring with a maximum (its minimum made explicit: 0 when omitted, as for a rope). Other
/// combinations keep what the file says.
#[test]
fn distance_lengths_are_fixed_at_load_time() {
    let mut world = World::default();
    let a = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    let b = world.create_body(&BodyDef::dynamic(Vec3::new(3.0, 4.0, 0.0))).unwrap();
    let spring = Some(engine::Spring::new(2.0, 0.5));
    let fixed = |rest, min, max, spring, local: bool| {
        let kind = engine::JointKind::Distance { rest_length: rest, min_length: min, max_length: max, spring };
        let mut def = engine::JointDef::new(kind, Some(a), b, Vec3::ZERO);
        def.anchors = if local {
            engine::Anchors::Local { a: Vec3::X, b: Vec3::ZERO } // world (1, 0, 0) and (3, 4, 0)
        } else {
            engine::Anchors::World { a: Vec3::ZERO, b: Vec3::new(3.0, 4.0, 0.0) }
        };
        build::fix_creation_lengths(&mut def, &world);
        match def.kind {
            engine::JointKind::Distance { rest_length, min_length, max_length, .. } => {
                (rest_length, min_length, max_length)
            }
            _ => unreachable!(),
        }
    };
    assert_eq!(fixed(None, None, None, None, false), (Some(5.0), None, None), "a rod");
    let local = fixed(None, None, None, None, true).0.unwrap();
    assert!((local - 20f32.sqrt()).abs() < 1e-6, "local anchors are placed on the bodies: {local}");
    assert_eq!(fixed(None, None, Some(8.0), None, false), (None, None, Some(8.0)), "a rope stays a rope");
    assert_eq!(fixed(None, None, Some(8.0), spring, false), (Some(5.0), Some(0.0), Some(8.0)), "a sprung rope");
    assert_eq!(fixed(None, Some(1.0), Some(4.0), spring, false), (Some(4.0), Some(1.0), Some(4.0)), "rest clamped");
    assert_eq!(fixed(None, Some(1.0), None, spring, false), (None, Some(1.0), None), "minimum only: as given");
    assert_eq!(fixed(Some(2.0), None, None, None, false), (Some(2.0), None, None), "a given rest length stays");
}

/// A floor and a character walking on it, as the format's `characters` example.
const CHARACTER_SCENE: &str = r#"{"format": 1,
    "bodies": [{"name": "floor", "kind": "static", "position": [0, -0.5, 0],
                "colliders": [{"shape": {"type": "box", "half_extents": [20, 0.5, 20]}}]}],
    "characters": [{"name": "hero", "position": [0, 0.81, 0], "capsule": {"half_height": 0.5, "radius": 0.3},
                    "max_slope_deg": 45, "step_height": 0.3, "snap_distance": 0.3, "mass": 80, "max_push_force": 500,
                    "script": [{"from": 0.0, "velocity": [2, 0, 0]},
                               {"from": 1.0, "velocity": [0, 0, 0], "jump_speed": 5}]}]}"#;

/// A scene's characters are built, scripted, written to trajectories (with the ground's name)
/// and round-trip through `from_world` and JSON.
#[test]
fn characters_are_built_scripted_recorded_and_round_trip() {
    let scene = Scene::from_json_str(CHARACTER_SCENE, "test.json").unwrap();
    let (mut world, index) = scene.build().unwrap();
    let hero = index.character("hero").unwrap();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    // One second at 2 m/s, within the first step's start-up.
    let walked = world.character(hero).unwrap().position().x;
    assert!((walked - 2.0).abs() < 0.04, "walked {walked} m");
    let frame = TrajectoryFrame::capture(&world, &index);
    let state = &frame.characters[0];
    assert_eq!((state.name.as_str(), state.grounded, state.ground.as_deref()), ("hero", true, Some("floor")));
    world.step(1.0 / 60.0).unwrap();
    world.step(1.0 / 60.0).unwrap();
    let frame = TrajectoryFrame::capture(&world, &index);
    assert!(!frame.characters[0].grounded && frame.characters[0].ground.is_none(), "the scripted jump at 1 s");
    let line = frame.to_json_line().unwrap();
    assert!(line.contains(r#""characters":[{"name":"hero","p":["#), "{line}");

    let saved = Scene::from_world(&world);
    let text = saved.to_json_string().unwrap();
    let reread = Scene::from_json_str(&text, "saved.json").unwrap();
    assert_eq!(reread, saved);
    assert_eq!(reread.characters[0].position, world.character(hero).unwrap().position());
    assert_eq!(reread.characters[0].script, scene.characters[0].script);
}

/// Scenes without characters write no `characters` key in their trajectory lines.
#[test]
fn trajectories_of_scenes_without_characters_have_no_characters_key() {
    let scene =
        Scene::from_json_str(&with_collider(r#"{"shape": {"type": "sphere", "radius": 1}}"#), "t.json").unwrap();
    let (world, index) = scene.build().unwrap();
    assert!(!TrajectoryFrame::capture(&world, &index).to_json_line().unwrap().contains("characters"));
}

/// Bad characters are refused at their JSON path.
#[test]
fn bad_characters_are_refused_at_their_path() {
    let with = |from: &str, to: &str| CHARACTER_SCENE.replace(from, to);
    assert_refused(&with(r#""radius": 0.3"#, r#""radius": -1"#), "characters[0].capsule.radius", "greater than zero");
    assert_refused(&with(r#""max_slope_deg": 45"#, r#""max_slope_deg": 90"#), "characters[0].max_slope_deg", "[0, 80]");
    assert_refused(&with(r#""max_slope_deg""#, r#""max_slope""#), "characters[0].max_slope", "max_slope_deg");
    assert_refused(&with(r#""from": 1.0"#, r#""from": -1"#), "characters[0].script[1].from", "negative");
    assert_refused(&with(r#""name": "hero", "#, ""), "characters[0].name", "must not be empty");
    let two = CHARACTER_SCENE.replace(r#""characters": [{"#, r#""characters": [{"name": "hero"}, {"#);
    assert_refused(&two, "characters[1].name", "duplicate character name \"hero\"");
}
