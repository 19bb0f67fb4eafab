//! Building a validated scene into a fresh [`World`]: settings, bodies in file order with their
//! colliders, then the joints with names resolved to ids, then the characters (which find
//! the ground under them when created), then the cloths and the ropes. The definitions are the engine's own
//! (defaults and validation included), so an omitted field means the same in a file as in code.

use std::collections::BTreeMap;

use super::check::file_field;
use super::from_world::unique_names;
use super::{Scene, SceneIndex, SceneJoint};
use crate::error::{Error, Result};
use crate::id::{BodyId, JointId};
use crate::joint::{Anchors, JointDef, JointKind};
use crate::math::Pose;
use crate::world::World;

/// Builds the scene into a fresh world. The scene must have been validated.
pub(crate) fn build_world(scene: &Scene) -> Result<(World, SceneIndex)> {
    let mut world = World::new(scene.settings).map_err(|e| e.within("settings"))?;
    let mut index = SceneIndex::default();
    for (i, body) in scene.bodies.iter().enumerate() {
        let path = format!("bodies[{i}]");
        let id = world.create_body(&body.def).map_err(|e| e.within(&path))?;
        for (j, collider) in body.colliders.iter().enumerate() {
            world.create_collider(id, &collider.def).map_err(|e| e.within(&format!("{path}.colliders[{j}]")))?;
        }
        index.push(body.def.name.clone(), id);
    }
    build_joints(&scene.joints, &mut world, &mut index)?;
    for (i, character) in scene.characters.iter().enumerate() {
        let id = world.create_character(character).map_err(|e| e.within(&format!("characters[{i}]")))?;
        index.push_character(character.name.clone(), id);
    }
    let body = |field: &str, name: String| {
        index.body(&name).ok_or_else(|| Error::new(field, format!("unknown body \"{name}\"")))
    };
    let mut cloths = Vec::new();
    for (i, cloth) in scene.cloths.iter().enumerate() {
        let within = |e: Error| e.within(&format!("cloths[{i}]"));
        let def = cloth.clone().map_bodies(&body).map_err(within)?;
        cloths.push((cloth.name.clone(), world.create_cloth(&def).map_err(within)?));
    }
    let mut ropes = Vec::new();
    for (i, rope) in scene.ropes.iter().enumerate() {
        let within = |e: Error| e.within(&format!("ropes[{i}]"));
        let def = rope.clone().map_bodies(&body).map_err(within)?;
        ropes.push((rope.name.clone(), world.create_rope(&def).map_err(within)?));
    }
    cloths.into_iter().for_each(|(name, id)| index.push_cloth(name, id));
    ropes.into_iter().for_each(|(name, id)| index.push_rope(name, id));
    Ok((world, index))
}

/// Creates the joints: every other kind in file order, then the gears (which need their
/// hinges). Adds them to `index` in file order. An error names the joint (`joints[i]`) and
/// passes the engine's reason through.
fn build_joints(joints: &[SceneJoint], world: &mut World, index: &mut SceneIndex) -> Result<()> {
    let is_gear = |i: &usize| matches!(joints[*i].kind, JointKind::Gear { .. });
    let order: Vec<usize> =
        (0..joints.len()).filter(|i| !is_gear(i)).chain((0..joints.len()).filter(is_gear)).collect();
    let mut created: Vec<Option<JointId>> = vec![None; joints.len()];
    let mut by_name: BTreeMap<&str, JointId> = BTreeMap::new();
    for i in order {
        let joint = &joints[i];
        let path = format!("joints[{i}]");
        let mut def = engine_def(joint, index, &by_name).map_err(|e| e.within(&path))?;
        fix_creation_lengths(&mut def, world);
        let id = world.create_joint(&def).map_err(|e| file_field(joint, e).within(&path))?;
        if !joint.name.is_empty() {
            by_name.insert(&joint.name, id);
        }
        created[i] = Some(id);
    }
    let own: Vec<&str> = joints.iter().map(|joint| joint.name.as_str()).collect();
    for (name, id) in unique_names(&own, "joint").into_iter().zip(created) {
        if let Some(id) = id {
            index.push_joint(name, id);
        }
    }
    Ok(())
}

/// The engine definition of a scene joint: body and joint names replaced by ids. A gear's
/// bodies are its hinges' (the world takes them from there; validation checked any given).
fn engine_def(joint: &SceneJoint, index: &SceneIndex, joints: &BTreeMap<&str, JointId>) -> Result<JointDef> {
    let mut joint = joint.clone();
    if matches!(joint.kind, JointKind::Gear { .. }) {
        (joint.body_a, joint.body_b) = (None, None);
    }
    joint.map_references(
        |field, name| index.body(&name).ok_or_else(|| Error::new(field, format!("unknown body \"{name}\""))),
        |field, name| {
            joints.get(name.as_str()).copied().ok_or_else(|| Error::new(field, format!("unknown joint \"{name}\"")))
        },
    )
}

/// A distance joint without a rest length takes the distance at creation. The file means the
/// distance at load time, so it is written into the definition where it matters (a rod; or a
/// spring with a maximum, whose minimum then becomes explicit: 0 when omitted, as the engine
/// reads a rope's): a world saved after moving reloads with the same lengths.
pub(super) fn fix_creation_lengths(def: &mut JointDef, world: &World) {
    let pose = |id: Option<BodyId>| id.and_then(|id| world.body(id)).map_or(Pose::IDENTITY, |body| body.pose());
    let (a, b) = match def.anchors {
        Anchors::Shared(p) => (p, p),
        Anchors::World { a, b } => (a, b),
        Anchors::Local { a, b } => (pose(def.body_a).transform_point(a), pose(def.body_b).transform_point(b)),
    };
    let distance = (b - a).length();
    if let JointKind::Distance { rest_length: rest @ None, min_length, max_length, spring } = &mut def.kind {
        match (*min_length, *max_length) {
            (None, None) => *rest = Some(distance),
            (min, Some(max)) if spring.is_some() => {
                let min = min.unwrap_or(0.0);
                *min_length = Some(min);
                *rest = Some(distance.clamp(min, max.max(min)));
            }
            _ => {}
        }
    }
}
