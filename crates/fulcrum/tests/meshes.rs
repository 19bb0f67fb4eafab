//! Triangle meshes and heightfields through the public API and scene files: the shipped OBJ
//! and glTF level load (relative to the scene file) to the same triangles, meshes save as their
//! file reference or their triangles, bad meshes and heightfields are refused with the JSON
//! path and the reason, meshes go on static and kinematic bodies only, and world ray casts
//! report the triangle and its face normal.

use std::path::{Path, PathBuf};

use fulcrum::prelude::*;
use fulcrum::{Ray, Scene, TriMesh};

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/assets");

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fulcrum-meshes-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A scene with one static body carrying `shape` (JSON).
fn static_scene(shape: &str) -> String {
    format!(
        r#"{{"format": 1, "bodies": [{{"name": "level", "kind": "static", "colliders": [{{"shape": {shape}}}]}}]}}"#
    )
}

/// The message of the error loading `text` as "test.json"; fails if it loads.
fn load_error(text: &str) -> String {
    match Scene::from_json_str(text, "test.json") {
        Ok(_) => panic!("expected an error for {text}"),
        Err(e) => e.to_string(),
    }
}

/// Asserts that loading `text` fails naming the file, `path` and a reason containing each of
/// `reasons`.
fn assert_refused(text: &str, path: &str, reasons: &[&str]) {
    let message = load_error(text);
    assert!(message.starts_with(&format!("test.json: {path}: ")), "wrong path in: {message}");
    for reason in reasons {
        assert!(message.contains(reason), "no `{reason}` in: {message}");
    }
}

fn mesh_of(scene: &Scene) -> &TriMesh {
    match &scene.bodies[0].colliders[0].def.shape {
        Shape::TriMesh(mesh) => mesh,
        other => panic!("not a mesh: {other:?}"),
    }
}

/// The triangles as sorted lists of corner coordinates (rounded to 1e-5 m), to compare
/// meshes that number their vertices differently.
fn triangle_set(mesh: &TriMesh) -> Vec<[[i64; 3]; 3]> {
    let key = |v: Vec3| [v.x, v.y, v.z].map(|c| (c * 1e5).round() as i64);
    let mut set: Vec<[[i64; 3]; 3]> = (0..mesh.triangle_count() as u32)
        .map(|t| {
            let corners = mesh.triangle(t).vertices.map(key);
            // Rotate so the smallest corner comes first: keeps the winding.
            let first = (0..3).min_by_key(|&k| corners[k]).unwrap();
            [corners[first], corners[(first + 1) % 3], corners[(first + 2) % 3]]
        })
        .collect();
    set.sort();
    set
}

/// The level (48 triangles: floor, ramp, wall) loads from the OBJ and from the glTF (whose
/// wall sits in a translated child node) to the same triangles with the same windings, with
/// the scene file's directory as the base of the relative name.
#[test]
fn the_obj_and_gltf_levels_load_to_the_same_triangles() {
    let dir = temp_dir("levels");
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    let mut meshes = Vec::new();
    for file in ["level.obj", "level.gltf"] {
        std::fs::copy(Path::new(ASSETS).join(file), dir.join("assets").join(file)).unwrap();
        let scene_path = dir.join(format!("{file}.json"));
        let shape = format!(r#"{{"type": "trimesh", "file": "assets/{file}"}}"#);
        std::fs::write(&scene_path, static_scene(&shape)).unwrap();
        let scene = Scene::load(&scene_path).unwrap_or_else(|e| panic!("{e}"));
        let mesh = mesh_of(&scene);
        assert_eq!(mesh.triangle_count(), 48, "{file}");
        assert_eq!(mesh.source().unwrap().file, format!("assets/{file}"));
        meshes.push(triangle_set(mesh));
        let (world, _) = scene.build().unwrap();
        assert_eq!(world.body_count(), 1);
    }
    assert_eq!(meshes[0], meshes[1]);
    // The floor's top faces look up, the wall's top too.
    let scene = Scene::load(dir.join("level.obj.json")).unwrap();
    let mesh = mesh_of(&scene);
    let up = (0..48).filter(|&t| mesh.triangle(t).normal.dot(Vec3::Y) > 0.999).count();
    assert_eq!(up, 32 + 2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A mesh read from a file is saved as the file reference with its scale and sidedness, and
/// reads back equal; inline meshes save their triangles and heightfields their heights.
#[test]
fn meshes_save_as_their_file_or_their_triangles() {
    let obj = Path::new(ASSETS).join("level.obj").canonicalize().unwrap();
    let shape = format!(r#"{{"type": "trimesh", "file": "{}", "scale": [2, 1, 2], "two_sided": true}}"#, obj.display());
    let scene = Scene::from_json_str(&static_scene(&shape), "file.json").unwrap();
    let mesh = mesh_of(&scene);
    assert!(mesh.two_sided());
    assert!((mesh.local_aabb().max - Vec3::new(8.0, 2.0, 8.0)).length() < 1e-5);
    let text = scene.to_json_string().unwrap();
    assert!(text.contains(&format!(r#""file": "{}""#, obj.display())), "{text}");
    assert!(text.contains(r#""scale": [2.0, 1.0, 2.0]"#) && text.contains(r#""two_sided": true"#), "{text}");
    assert!(!text.contains("vertices"), "{text}");
    assert_eq!(Scene::from_json_str(&text, "again").unwrap(), scene);

    let inline =
        static_scene(r#"{"type": "trimesh", "vertices": [[0, 0, 0], [0, 0, 1], [1, 0, 0]], "indices": [[0, 1, 2]]}"#);
    let scene = Scene::from_json_str(&inline, "inline.json").unwrap();
    let text = scene.to_json_string().unwrap();
    assert!(text.contains(r#""indices": [[0, 1, 2]]"#) && text.contains(r#""two_sided": false"#), "{text}");
    assert_eq!(Scene::from_json_str(&text, "again").unwrap(), scene);

    let field =
        static_scene(r#"{"type": "heightfield", "heights": [[0, 0.1, 0.2], [0.3, 0.4, 0.5]], "scale": [1, 3, 2]}"#);
    let scene = Scene::from_json_str(&field, "field.json").unwrap();
    let text = scene.to_json_string().unwrap();
    assert!(text.contains(r#""heights": [[0.0, 0.1, 0.2], [0.3, 0.4, 0.5]]"#), "{text}");
    assert_eq!(Scene::from_json_str(&text, "again").unwrap(), scene);
}

#[test]
fn bad_meshes_are_refused_with_the_path_and_the_reason() {
    let mesh = |body: &str| static_scene(&format!(r#"{{"type": "trimesh", {body}}}"#));
    let shape = "bodies[0].colliders[0].shape";
    let v = r#""vertices": [[0, 0, 0], [0, 0, 1], [1, 0, 0], [2, 0, 0]]"#;
    assert_refused(&mesh(&format!(r#"{v}, "indices": []"#)), &format!("{shape}.indices"), &["at least one triangle"]);
    assert_refused(
        &mesh(&format!(r#"{v}, "indices": [[0, 1, 2], [0, 4, 1]]"#)),
        &format!("{shape}.indices[1][1]"),
        &["vertex index 4 is out of range: the mesh has 4 vertices"],
    );
    assert_refused(
        &mesh(&format!(r#"{v}, "indices": [[0, 1, 2], [0, 2, 3]]"#)),
        &format!("{shape}.indices[1]"),
        &["degenerate triangle (zero area)"],
    );
    assert_refused(
        &mesh(r#""vertices": [[0, 0, 0], [0, 1e39, 1], [1, 0, 0]], "indices": [[0, 1, 2]]"#),
        &format!("{shape}.vertices[1][1]"),
        &["must be a finite number"],
    );
    assert_refused(&mesh(r#""indices": [[0, 1, 2]]"#), &format!("{shape}.vertices"), &["missing field `vertices`"]);
    assert_refused(
        &mesh(&format!(r#"{v}, "indices": [[0, 1, 2]], "file": "x.obj""#)),
        &format!("{shape}.file"),
        &["not both"],
    );
    assert_refused(
        &mesh(&format!(r#"{v}, "indices": [[0, 1, 2]], "scale": [1, 1, 1]"#)),
        &format!("{shape}.scale"),
        &["`file` only"],
    );
    assert_refused(
        &mesh(r#""file": "level.obj", "scale": [1, 0, 1]"#),
        &format!("{shape}.scale[1]"),
        &["greater than zero"],
    );
}

#[test]
fn bad_heightfields_are_refused_with_the_path_and_the_reason() {
    let field = |body: &str| static_scene(&format!(r#"{{"type": "heightfield", {body}}}"#));
    let shape = "bodies[0].colliders[0].shape";
    assert_refused(
        &field(r#""heights": [[0, 0, 0], [0, 0], [0, 0, 0]], "scale": [1, 1, 1]"#),
        &format!("{shape}.heights[1]"),
        &["row 1 has 2 samples but row 0 has 3"],
    );
    assert_refused(
        &field(r#""heights": [[0, 0, 0]], "scale": [1, 1, 1]"#),
        &format!("{shape}.heights"),
        &["at least 2 × 2"],
    );
    assert_refused(
        &field(r#""heights": [[0], [0]], "scale": [1, 1, 1]"#),
        &format!("{shape}.heights"),
        &["at least 2 × 2"],
    );
    assert_refused(
        &field(r#""heights": [[0, 0], [0, -1e39]], "scale": [1, 1, 1]"#),
        &format!("{shape}.heights[1][1]"),
        &["must be a finite number"],
    );
    assert_refused(
        &field(r#""heights": [[0, 0], [0, 0]], "scale": [1, 1, -2]"#),
        &format!("{shape}.scale[2]"),
        &["greater than zero"],
    );
    assert_refused(&field(r#""heights": [[0, 0], [0, 0]]"#), shape, &["missing field `scale`"]);
}

/// Missing, malformed and empty files are refused at `file`, naming the path and the reason
/// (the OS error, the reader's message, no triangles).
#[test]
fn bad_mesh_files_are_refused_naming_the_file_and_the_reason() {
    let dir = temp_dir("bad-files");
    let file_scene =
        |name: &str| static_scene(&format!(r#"{{"type": "trimesh", "file": "{}"}}"#, dir.join(name).display()));
    let path = "bodies[0].colliders[0].shape.file";
    let missing = dir.join("missing.obj");
    assert_refused(
        &file_scene("missing.obj"),
        path,
        &[&missing.display().to_string(), "cannot read the file", "No such file"],
    );
    std::fs::write(dir.join("bad.obj"), "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 x\n").unwrap();
    assert_refused(&file_scene("bad.obj"), path, &["bad.obj", "not a valid OBJ file"]);
    std::fs::write(dir.join("points.obj"), "v 0 0 0\nv 1 0 0\nv 0 0 1\n").unwrap();
    assert_refused(&file_scene("points.obj"), path, &["points.obj", "the file has no triangles"]);
    std::fs::write(dir.join("flat.obj"), "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n").unwrap();
    assert_refused(&file_scene("flat.obj"), path, &["flat.obj", "indices[0]", "degenerate"]);
    std::fs::write(dir.join("bad.gltf"), r#"{"asset": {"version": "2.0"}, "meshes": [{"primitives": []"#).unwrap();
    assert_refused(&file_scene("bad.gltf"), path, &["bad.gltf", "not a valid glTF file"]);
    std::fs::write(dir.join("bad.glb"), b"glTF\x02\x00\x00\x00garbage").unwrap();
    assert_refused(&file_scene("bad.glb"), path, &["bad.glb", "not a valid glTF file"]);
    std::fs::write(dir.join("empty.gltf"), r#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": []}]}"#).unwrap();
    assert_refused(&file_scene("empty.gltf"), path, &["empty.gltf", "the file has no triangles"]);
    std::fs::write(dir.join("level.stl"), "solid").unwrap();
    assert_refused(&file_scene("level.stl"), path, &["unknown mesh file type"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Meshes and heightfields have no volume: static and kinematic bodies only.
#[test]
fn meshes_go_on_static_and_kinematic_bodies_only() {
    let triangle = Shape::trimesh(vec![Vec3::ZERO, Vec3::Z, Vec3::X], vec![[0, 1, 2]], false).unwrap();
    let field = Shape::heightfield(vec![vec![0.0; 2]; 2], Vec3::ONE).unwrap();
    let mut world = World::new(WorldSettings::default()).unwrap();
    for shape in [triangle, field] {
        assert_eq!(shape.mass_properties(1000.0).mass, 0.0);
        let dynamic = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
        let error = world.create_collider(dynamic, &ColliderDef::new(shape.clone())).unwrap_err();
        assert_eq!(error.field, "shape");
        assert!(error.reason.contains("static or kinematic body (it has no volume), not a dynamic one"), "{error}");
        let kinematic = world.create_body(&BodyDef::kinematic(Vec3::ZERO)).unwrap();
        world.create_collider(kinematic, &ColliderDef::new(shape.clone())).unwrap();
        let fixed = world.create_body(&BodyDef::fixed(Vec3::ZERO)).unwrap();
        world.create_collider(fixed, &ColliderDef::new(shape)).unwrap();
    }
    world.step(1.0 / 60.0).unwrap();
    let text = r#"{"format": 1, "bodies": [{"name": "b", "colliders": [{"shape": {"type": "heightfield", "heights": [[0, 0], [0, 0]], "scale": [1, 1, 1]}}]}]}"#;
    assert_refused(
        text,
        "bodies[0].colliders[0].shape",
        &["a heightfield may only be attached to a static or kinematic body"],
    );
}

/// World ray casts against a rotated and moved mesh and heightfield report the triangle hit
/// and its face normal in world space; other shapes report no triangle.
#[test]
fn world_ray_casts_report_the_triangle_and_its_normal() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    // A 2 × 2 m square of two triangles in the local x-z plane, front faces up (+Y), turned
    // +90° about X, (x, y, z) → (x, −z, y): its front faces +Z, it spans x, y in [−1, 1] at
    // z = 5. World (0.5, 0.2) is local (x, z) = (0.5, −0.2): x + z > 0, the second triangle.
    let turn = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let corners = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)].map(|(x, z)| Vec3::new(x, 0.0, z));
    let mesh = Shape::trimesh(corners.to_vec(), vec![[0, 1, 2], [2, 1, 3]], false).unwrap();
    let body = world.create_body(&BodyDef::fixed(Vec3::new(0.0, 0.0, 5.0)).with_rotation(turn)).unwrap();
    let mesh_collider = world.create_collider(body, &ColliderDef::new(mesh)).unwrap();
    let hit = world.cast_ray(&Ray::new(Vec3::new(0.5, 0.2, 10.0), -Vec3::Z), 100.0, |_| true).unwrap();
    assert_eq!((hit.collider, hit.triangle), (mesh_collider, Some(1)));
    assert!((hit.t - 5.0).abs() < 1e-4 && (hit.normal - Vec3::Z).length() < 1e-5, "{hit:?}");
    assert!((hit.point - Vec3::new(0.5, 0.2, 5.0)).length() < 1e-4);
    // From behind, a one-sided mesh is not hit.
    assert!(world.cast_ray(&Ray::new(Vec3::new(0.5, 0.2, 0.0), Vec3::Z), 100.0, |_| true).is_none());

    // A heightfield of 3 × 3 samples at 2 m spacing, heights 0 but 1 m at the centre, placed
    // at (20, −1, 0): the ray straight down at x = 20.5, z = 0.8 (local 0.5, 0.8) lands in
    // cell (1, 1) at fractions u = 0.25, w = 0.4, half 0 (u ≤ w): triangle 2·(1·2 + 1) = 6,
    // the plane through local (0, 1, 0), (0, 0, 2) and (2, 0, 2): normal ∝ (0, 4, 2),
    // height 1 − 0.4 = 0.6 there, world y = −0.4.
    let field =
        Shape::heightfield(vec![vec![0.0; 3], vec![0.0, 1.0, 0.0], vec![0.0; 3]], Vec3::new(2.0, 1.0, 2.0)).unwrap();
    let ground = world.create_body(&BodyDef::fixed(Vec3::new(20.0, -1.0, 0.0))).unwrap();
    let field_collider = world.create_collider(ground, &ColliderDef::new(field)).unwrap();
    let hit = world.cast_ray(&Ray::new(Vec3::new(20.5, 5.0, 0.8), -Vec3::Y), 100.0, |_| true).unwrap();
    assert_eq!(hit.collider, field_collider);
    assert_eq!(hit.triangle, Some(6));
    assert!((hit.point - Vec3::new(20.5, -0.4, 0.8)).length() < 1e-4, "{hit:?}");
    assert!((hit.normal - Vec3::new(0.0, 1.0, 0.5).normalize()).length() < 1e-5, "{hit:?}");

    let ball = world.create_body(&BodyDef::fixed(Vec3::new(-20.0, 0.0, 0.0))).unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(1.0).unwrap())).unwrap();
    let hit = world.cast_ray(&Ray::new(Vec3::new(-20.0, 5.0, 0.0), -Vec3::Y), 100.0, |_| true).unwrap();
    assert_eq!(hit.triangle, None);
}
