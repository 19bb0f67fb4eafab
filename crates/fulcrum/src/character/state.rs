//! A character as the world stores it ([`Character`]) and what it reports after a step: its
//! ground ([`Ground`]) and what it touched ([`CharacterContact`]).

use super::def::CharacterDef;
use crate::id::{BodyId, CharacterId, ColliderId};
use crate::math::{Pose, Vec3};

/// Something a character touches: a collider of a body, or another character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Obstacle {
    /// A collider and its body.
    Collider {
        /// The collider touched.
        collider: ColliderId,
        /// Its body.
        body: BodyId,
    },
    /// Another character.
    Character(CharacterId),
}

impl Obstacle {
    /// The body, for a collider.
    pub fn body(&self) -> Option<BodyId> {
        match *self {
            Obstacle::Collider { body, .. } => Some(body),
            Obstacle::Character(_) => None,
        }
    }
}

/// A contact of a character with an obstacle during its last move.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CharacterContact {
    /// What it touched.
    pub obstacle: Obstacle,
    /// World point on the obstacle's surface.
    pub point: Vec3,
    /// World unit normal of the obstacle there, pointing towards the character.
    pub normal: Vec3,
}

/// The ground a character stands on.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ground {
    /// What it stands on.
    pub obstacle: Obstacle,
    /// World point of support, on the obstacle.
    pub point: Vec3,
    /// World unit normal of the support, pointing up into the character (the contact normal:
    /// on a step's edge it leans towards the character).
    pub normal: Vec3,
}

/// A character in a world: its definition and its state. Read it with
/// [`World::character`](crate::World::character).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Character {
    /// The definition it was created from (its `position` is the creation position).
    #[serde(with = "crate::world::snapshot::file_form")]
    pub(crate) def: CharacterDef,
    /// Centre of the capsule, world, metres.
    pub(crate) position: Vec3,
    /// Its motion over the last step divided by the step, m/s (riding included).
    pub(crate) velocity: Vec3,
    /// The velocity it wants to walk at, m/s (horizontal).
    pub(crate) desired_velocity: Vec3,
    /// Velocity not chosen by the player: falling, sliding, a jump, what a platform gave it
    /// when it left, m/s. Zero while it stands on walkable ground.
    pub(crate) free_velocity: Vec3,
    /// Jump speed asked for the next step (0: none), m/s.
    pub(crate) jump_request: f32,
    /// What it stands on, if anything.
    pub(crate) ground: Option<Ground>,
    /// The pose of the ground's body when the character last stood on it (riding follows
    /// that body's motion from there).
    pub(crate) ground_pose: Pose,
    /// What it touched in its last move.
    pub(crate) contacts: Vec<CharacterContact>,
    /// The first script entry not yet run.
    pub(crate) next_script_entry: usize,
}

impl Character {
    pub(crate) fn new(def: CharacterDef) -> Self {
        Character {
            position: def.position,
            def,
            velocity: Vec3::ZERO,
            desired_velocity: Vec3::ZERO,
            free_velocity: Vec3::ZERO,
            jump_request: 0.0,
            ground: None,
            ground_pose: Pose::IDENTITY,
            contacts: Vec::new(),
            next_script_entry: 0,
        }
    }

    /// Its name (may be empty).
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The definition it was created from.
    pub fn def(&self) -> &CharacterDef {
        &self.def
    }

    /// World position of the capsule's centre, metres.
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// Its motion over the last step divided by the step, m/s (riding included).
    pub fn velocity(&self) -> Vec3 {
        self.velocity
    }

    /// The velocity it wants to walk at (horizontal), m/s.
    pub fn desired_velocity(&self) -> Vec3 {
        self.desired_velocity
    }

    /// Does it stand on ground it can walk on?
    pub fn is_grounded(&self) -> bool {
        self.ground.is_some()
    }

    /// The ground it stands on, if any.
    pub fn ground(&self) -> Option<&Ground> {
        self.ground.as_ref()
    }

    /// What it touched in its last move (one entry per collider or character).
    pub fn contacts(&self) -> &[CharacterContact] {
        &self.contacts
    }
}
