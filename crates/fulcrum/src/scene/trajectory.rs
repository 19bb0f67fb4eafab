//! The trajectory format `fulcrum run` writes (shared/docs/scene-format.md, "Trajectory
//! output"): JSON lines, a header then one frame per recorded step. These types serialise to
//! exactly those lines and read them back; numbers are `f32` written with the fewest digits
//! that round-trip.

use serde::{Deserialize, Serialize};

use super::{SceneIndex, FORMAT_VERSION};
use crate::body::BodyKind;
use crate::error::{Error, Result};
use crate::particles::ParticleSetId;
use crate::world::World;

/// The first line: format, step length, substeps, and the names of all bodies and joints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryHeader {
    /// Format version ([`FORMAT_VERSION`]).
    pub format: u32,
    /// Seconds per step.
    pub timestep: f32,
    /// Solver substeps per step.
    pub substeps: u32,
    /// Every body's name (static ones too), in scene order.
    pub bodies: Vec<String>,
    /// Every joint's name, in scene order (generated for unnamed joints; see
    /// [`SceneIndex`]).
    pub joints: Vec<String>,
}

/// The state of one non-static body in a frame, world space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// The body's name.
    pub name: String,
    /// Position of the body origin, metres.
    pub p: [f32; 3],
    /// Rotation `[x, y, z, w]`.
    pub q: [f32; 4],
    /// Velocity of the centre of mass, m/s.
    pub v: [f32; 3],
    /// Angular velocity, rad/s.
    pub w: [f32; 3],
    /// Is the body asleep?
    pub sleeping: bool,
}

/// The state of one joint in a frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointState {
    /// The joint's name.
    pub name: String,
    /// Force the joint applied to body B in the last step, N, world axes.
    pub force: [f32; 3],
    /// Torque the joint applied to body B about B's anchor in the last step, N·m, world axes.
    pub torque: [f32; 3],
    /// Has the joint broken?
    pub broken: bool,
}

/// The state of one character in a frame, world space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CharacterState {
    /// The character's name.
    pub name: String,
    /// Position of the capsule's centre, metres.
    pub p: [f32; 3],
    /// Its motion over the last step divided by the step, m/s.
    pub v: [f32; 3],
    /// Does it stand on ground it can walk on?
    pub grounded: bool,
    /// The name of the body it stands on (null on another character or in the air).
    pub ground: Option<String>,
}

/// The particles of one cloth or rope in a frame, world space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParticleSetState {
    /// The cloth's or rope's name.
    pub name: String,
    /// Particle positions, metres, in their numbering (a cloth's row by row, a fastest).
    pub particles: Vec<[f32; 3]>,
}

/// One recorded step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryFrame {
    /// Steps taken so far (0 = the initial state).
    pub step: u64,
    /// Simulated time, seconds.
    pub time: f32,
    /// Non-static bodies, in scene order.
    pub bodies: Vec<BodyState>,
    /// Joints, in scene order.
    pub joints: Vec<JointState>,
    /// Touching contact points.
    pub contacts: usize,
    /// Characters, in scene order (the key is left out for scenes without characters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub characters: Vec<CharacterState>,
    /// Cloths, in scene order (the key is left out for scenes without cloths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cloths: Vec<ParticleSetState>,
    /// Ropes, in scene order (the key is left out for scenes without ropes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ropes: Vec<ParticleSetState>,
}

impl TrajectoryHeader {
    /// The header for a world built from a scene with this index.
    pub fn new(world: &World, index: &SceneIndex) -> Self {
        TrajectoryHeader {
            format: FORMAT_VERSION,
            timestep: world.settings().timestep,
            substeps: world.settings().substeps,
            bodies: index.iter().map(|(name, _)| name.to_string()).collect(),
            joints: index.joints().map(|(name, _)| name.to_string()).collect(),
        }
    }

    /// The header as one line of compact JSON (no newline).
    pub fn to_json_line(&self) -> Result<String> {
        to_line(self)
    }
}

impl TrajectoryFrame {
    /// The world's state now: every non-static body, joint, character, cloth and rope of
    /// `index` that still exists.
    pub fn capture(world: &World, index: &SceneIndex) -> Self {
        let bodies = index
            .iter()
            .filter_map(|(name, id)| world.body(id).map(|body| (name, body)))
            .filter(|(_, body)| body.kind() != BodyKind::Static)
            .map(|(name, body)| BodyState {
                name: name.to_string(),
                p: body.position().to_array(),
                q: body.rotation().to_array(),
                v: body.linear_velocity().to_array(),
                w: body.angular_velocity().to_array(),
                sleeping: body.is_sleeping(),
            })
            .collect();
        let joints = index
            .joints()
            .filter_map(|(name, id)| world.joint(id).map(|joint| (name, joint)))
            .map(|(name, joint)| JointState {
                name: name.to_string(),
                force: joint.reaction_force().to_array(),
                torque: joint.reaction_torque().to_array(),
                broken: joint.is_broken(),
            })
            .collect();
        let characters = index
            .characters()
            .filter_map(|(name, id)| world.character(id).map(|c| (name, c)))
            .map(|(name, character)| CharacterState {
                name: name.to_string(),
                p: character.position().to_array(),
                v: character.velocity().to_array(),
                grounded: character.is_grounded(),
                ground: character
                    .ground()
                    .and_then(|g| g.obstacle.body())
                    .and_then(|b| index.name(b))
                    .map(str::to_string),
            })
            .collect();
        TrajectoryFrame {
            step: world.step_count(),
            time: world.time() as f32,
            bodies,
            joints,
            contacts: world.contact_point_count(),
            characters,
            cloths: index.cloths().filter_map(|(name, id)| particle_state(world, name, id)).collect(),
            ropes: index.ropes().filter_map(|(name, id)| particle_state(world, name, id)).collect(),
        }
    }

    /// The frame as one line of compact JSON (no newline).
    pub fn to_json_line(&self) -> Result<String> {
        to_line(self)
    }
}

/// The particles of a cloth or rope that still exists.
fn particle_state(world: &World, name: &str, id: impl Into<ParticleSetId>) -> Option<ParticleSetState> {
    let particles = world.particles(id)?;
    Some(ParticleSetState {
        name: name.to_string(),
        particles: particles.positions().iter().map(|p| p.to_array()).collect(),
    })
}

fn to_line<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::new("trajectory", format!("cannot write JSON: {e}")))
}
