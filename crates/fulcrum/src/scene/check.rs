//! Validation of a scene before anything is built: every definition by its own type's
//! validation (the same the world runs when it creates it), plus what ties a scene together:
//! names present and unique (bodies, joints, characters, cloths, ropes), materials, joint
//! references and the bodies particles are attached to that exist. An error names the
//! JSON path of the offending value; engine field names that the file spells differently
//! (`anchors` → `anchor`, `cone_limit` → `cone_limit_deg`) are translated here.

use std::collections::BTreeMap;

use super::{Scene, SceneJoint, FORMAT_VERSION};
use crate::error::{Error, Result};
use crate::joint::{Anchors, JointAxes, JointKind};

/// Validates the whole scene; error fields are JSON paths from the top level.
pub(crate) fn validate_scene(scene: &Scene) -> Result<()> {
    if scene.format != FORMAT_VERSION {
        return Err(Error::new(
            "format",
            format!("unsupported format version {} (this engine reads format {FORMAT_VERSION})", scene.format),
        ));
    }
    scene.settings.validate().map_err(|e| e.within("settings"))?;
    for (name, material) in &scene.materials {
        material.validate().map_err(|e| e.within(&format!("materials.{name}")))?;
    }
    let bodies = body_names(scene)?;
    for i in 0..scene.bodies.len() {
        validate_body(scene, i).map_err(|e| e.within(&format!("bodies[{i}]")))?;
    }
    validate_joints(&scene.joints, &bodies)?;
    validate_characters(scene)?;
    let cloths = scene.cloths.iter().map(|c| (c.name.as_str(), c.validate(), c.attached.iter().map(|a| &a.body)));
    validate_particle_sets("cloths", "cloth", cloths, &bodies)?;
    let ropes = scene.ropes.iter().map(|r| (r.name.as_str(), r.validate(), r.attached.iter().map(|a| &a.body)));
    validate_particle_sets("ropes", "rope", ropes, &bodies)
}

/// Every cloth or rope (`part` is `cloths` or `ropes`): its definition's own check, its name
/// present and unique, the bodies its particles are attached to known.
fn validate_particle_sets<'a, A: Iterator<Item = &'a String>>(
    part: &str,
    what: &str,
    sets: impl Iterator<Item = (&'a str, Result<()>, A)>,
    bodies: &BTreeMap<&str, usize>,
) -> Result<()> {
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, (name, validated, attached)) in sets.enumerate() {
        let path = format!("{part}[{i}]");
        validated.map_err(|e| e.within(&path))?;
        if name.is_empty() {
            let reason = format!("must not be empty (trajectories refer to {part} by name)");
            return Err(Error::new(format!("{path}.name"), reason));
        }
        if let Some(first) = names.insert(name, i) {
            let reason = format!("duplicate {what} name \"{name}\" (first used by {part}[{first}])");
            return Err(Error::new(format!("{path}.name"), reason));
        }
        for (j, body) in attached.enumerate() {
            if !bodies.contains_key(body.as_str()) {
                return Err(Error::new(format!("{path}.attached[{j}].body"), format!("unknown body \"{body}\"")));
            }
        }
    }
    Ok(())
}

/// Every character: its definition, its name present and unique among the characters.
fn validate_characters(scene: &Scene) -> Result<()> {
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, character) in scene.characters.iter().enumerate() {
        let path = format!("characters[{i}]");
        character.validate().map_err(|e| e.within(&path))?;
        let name = character.name.as_str();
        if name.is_empty() {
            return Err(Error::new(
                format!("{path}.name"),
                "must not be empty (trajectories refer to characters by name)",
            ));
        }
        if let Some(first) = names.insert(name, i) {
            let reason = format!("duplicate character name \"{name}\" (first used by characters[{first}])");
            return Err(Error::new(format!("{path}.name"), reason));
        }
    }
    Ok(())
}

/// Names are present and unique; returns name -> index.
fn body_names(scene: &Scene) -> Result<BTreeMap<&str, usize>> {
    let mut names = BTreeMap::new();
    for (i, body) in scene.bodies.iter().enumerate() {
        let path = format!("bodies[{i}].name");
        let name = body.def.name.as_str();
        if name.is_empty() {
            return Err(Error::new(path, "must not be empty (joints and trajectories refer to bodies by name)"));
        }
        if let Some(first) = names.insert(name, i) {
            return Err(Error::new(path, format!("duplicate body name \"{name}\" (first used by bodies[{first}])")));
        }
    }
    Ok(names)
}

/// A body and its colliders (paths relative to the body).
fn validate_body(scene: &Scene, i: usize) -> Result<()> {
    let body = &scene.bodies[i];
    body.def.validated()?;
    for (j, collider) in body.colliders.iter().enumerate() {
        let check = || -> Result<()> {
            collider.def.validated()?;
            collider.def.check_body_kind(body.def.kind)?;
            match &collider.material {
                Some(name) if !scene.materials.contains_key(name) => {
                    Err(Error::new("material", format!("unknown material \"{name}\"")))
                }
                _ => Ok(()),
            }
        };
        check().map_err(|e| e.within(&format!("colliders[{j}]")))?;
    }
    Ok(())
}

/// Every joint: its definition, the bodies it names, names unique among joints, gears naming
/// hinges.
fn validate_joints(joints: &[SceneJoint], bodies: &BTreeMap<&str, usize>) -> Result<()> {
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, joint) in joints.iter().enumerate() {
        if joint.name.is_empty() {
            continue;
        }
        if let Some(first) = names.insert(&joint.name, i) {
            let reason = format!("duplicate joint name \"{}\" (first used by joints[{first}])", joint.name);
            return Err(Error::new(format!("joints[{i}].name"), reason));
        }
    }
    for (i, joint) in joints.iter().enumerate() {
        let check = || -> Result<()> {
            joint.validate().map_err(|e| file_field(joint, e))?;
            for (field, name) in [("body_a", &joint.body_a), ("body_b", &joint.body_b)] {
                if let Some(name) = name.as_deref().filter(|name| !bodies.contains_key(name)) {
                    return Err(Error::new(field, format!("unknown body \"{name}\"")));
                }
            }
            validate_gear(joint, joints, &names)
        };
        check().map_err(|e| e.within(&format!("joints[{i}]")))?;
    }
    Ok(())
}

/// A gear names two hinge joints of the scene, turning two different bodies; it acts between
/// the hinges' `body_b`s, so `body_a` and `body_b`, when given, must name those.
fn validate_gear(joint: &SceneJoint, joints: &[SceneJoint], names: &BTreeMap<&str, usize>) -> Result<()> {
    let JointKind::Gear { hinge_a, hinge_b, .. } = &joint.kind else { return Ok(()) };
    let mut turned = Vec::with_capacity(2);
    for (field, name) in [("hinge_a", hinge_a), ("hinge_b", hinge_b)] {
        let index = *names.get(name.as_str()).ok_or_else(|| Error::new(field, format!("unknown joint \"{name}\"")))?;
        if !matches!(joints[index].kind, JointKind::Hinge { .. }) {
            return Err(Error::new(field, format!("joint \"{name}\" (joints[{index}]) is not a hinge")));
        }
        turned.push(joints[index].body_b.as_deref().unwrap_or_default());
    }
    if hinge_a == hinge_b {
        return Err(Error::new("hinge_b", "must differ from hinge_a"));
    }
    if turned[0] == turned[1] {
        return Err(Error::new("hinge_b", format!("turns the same body as hinge_a (\"{}\")", turned[0])));
    }
    for ((field, given), (hinge, body)) in [("body_a", &joint.body_a), ("body_b", &joint.body_b)]
        .into_iter()
        .zip([("hinge_a", turned[0]), ("hinge_b", turned[1])])
    {
        if let Some(given) = given.as_deref().filter(|given| *given != body) {
            let reason = format!(
                "a gear acts on its hinges' bodies: \"{given}\" is not \"{body}\", the body_b of {hinge} (omit it)"
            );
            return Err(Error::new(field, reason));
        }
    }
    Ok(())
}

/// An error of the engine's joint validation with the field as the file spells it: the
/// anchor and axis forms the joint uses, the ball's angles in degrees.
pub(super) fn file_field(joint: &SceneJoint, mut error: Error) -> Error {
    let (a, b, single) = match joint.anchors {
        Anchors::Shared(_) => ("anchor", "anchor", "anchor"),
        Anchors::World { .. } => ("anchor_a", "anchor_b", "anchor_a"),
        Anchors::Local { .. } => ("local_anchor_a", "local_anchor_b", "local_anchor_a"),
    };
    let (axis_a, axis_b) = match joint.axes {
        JointAxes::World(_) => ("axis", "axis"),
        JointAxes::Local { .. } => ("local_axis_a", "local_axis_b"),
        JointAxes::LocalFrames { .. } => ("local_frame_a", "local_frame_b"),
    };
    if let Some(rest) = error.field.strip_prefix("kind.") {
        error.field = rest.to_string();
    }
    let degrees = "the file gives degrees: a cone within [0, 180], twist limits within [-180, 180]";
    let renames = [
        ("anchors.a", a),
        ("anchors.b", b),
        ("anchors", single),
        ("axes.a", axis_a),
        ("axes.b", axis_b),
        ("axes", axis_a),
        ("cone_limit", "cone_limit_deg"),
        ("twist_limits", "twist_limits_deg"),
    ];
    for (engine, file) in renames {
        if let Some(rest) = error.field.strip_prefix(engine) {
            // `anchors` and `axes` name the whole definition field (`axes.rz` is a six-DOF axis).
            let whole = matches!(engine, "anchors" | "axes");
            if rest.is_empty() || rest.starts_with('[') || (!whole && rest.starts_with('.')) {
                if engine == "cone_limit" || engine == "twist_limits" {
                    error.reason = format!("{} (radians; {degrees})", error.reason);
                }
                error.field = format!("{file}{rest}");
                break;
            }
        }
    }
    error
}
