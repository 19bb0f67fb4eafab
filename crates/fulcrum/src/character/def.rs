//! [`CharacterDef`]: everything needed to create a character, and a character's entry in a
//! scene file's `characters` (shared/docs/scene-format.md), where omitted fields take the
//! defaults below. Like [`BodyDef`](crate::BodyDef) it carries a `name` for files and
//! debugging; the scene layer requires it there, the API does not.

use serde::{Deserialize, Serialize};

use crate::body::{check_position, MAX_LINEAR_SPEED, MAX_MASS};
use crate::collider::CollisionGroups;
use crate::error::{check_above_zero, check_range, check_vec3_range, Error, Result};
use crate::math::Vec3;
use crate::shape::{Capsule, MAX_SHAPE_SIZE};

/// Steepest walkable slope a character may be given, degrees. Ground is pushed against
/// straight up (so walking keeps its horizontal speed), which costs 1/cos of the slope: at 80°
/// that is under 6.
pub const MAX_SLOPE_LIMIT_DEG: f32 = 80.0;
/// Largest push force a character may be given, newtons.
pub const MAX_PUSH_FORCE: f32 = 1.0e9;
/// Latest `from` time of a script entry, seconds (about 30 years).
pub const MAX_SCRIPT_TIME: f32 = 1.0e9;

/// A character: an upright capsule moved by the position solver of `character/` rather than
/// by rigid-body dynamics. Start from `CharacterDef::default()` and set what differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CharacterDef {
    /// A name for scene files, trajectories and debugging (may be empty in code; required and
    /// unique among the characters of a scene file).
    pub name: String,
    /// World position of the capsule's centre, metres (each component within
    /// ±[`MAX_POSITION`](crate::body::MAX_POSITION)).
    pub position: Vec3,
    /// The capsule: `half_height` of its inner segment and `radius`, metres (each in
    /// (0, [`MAX_SHAPE_SIZE`]]). Its axis is the world's up, −gravity (+Y without gravity).
    pub capsule: Capsule,
    /// Steepest ground it can stand and walk on, degrees from level (0 to
    /// [`MAX_SLOPE_LIMIT_DEG`]); steeper ground is a wall it slides down.
    pub max_slope_deg: f32,
    /// Highest step it climbs while walking, metres (0 to [`MAX_SHAPE_SIZE`]).
    pub step_height: f32,
    /// How far down it follows the ground while walking (down slopes and stairs), metres
    /// (0 to [`MAX_SHAPE_SIZE`]).
    pub snap_distance: f32,
    /// Mass, kg: its weight presses on dynamic bodies it stands on (above 0, at most
    /// [`MAX_MASS`]).
    pub mass: f32,
    /// Largest force it pushes dynamic bodies with, newtons (0 to [`MAX_PUSH_FORCE`]).
    pub max_push_force: f32,
    /// Which colliders and characters it collides with (default: all).
    #[serde(skip_serializing_if = "is_all")]
    pub groups: CollisionGroups,
    /// What it does when (files: `script`; in code too, run by `World::step`).
    pub script: Vec<ScriptEntry>,
}

/// One entry of a character's script: from time `from` on it wants to move at `velocity`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptEntry {
    /// World time at which the entry starts, seconds (0 to [`MAX_SCRIPT_TIME`]; entries in
    /// order, none before the one above it). It takes effect at the first step that starts
    /// within half a step of it.
    pub from: f32,
    /// Desired velocity, m/s; only its horizontal part (across up) is used (each component
    /// within ±[`MAX_LINEAR_SPEED`]).
    pub velocity: Vec3,
    /// When above 0: a jump at this speed, m/s, once, at `from`, if it stands on ground then
    /// (0 to [`MAX_LINEAR_SPEED`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jump_speed: f32,
}

fn is_all(groups: &CollisionGroups) -> bool {
    *groups == CollisionGroups::ALL
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

impl Default for CharacterDef {
    fn default() -> Self {
        Self {
            name: String::new(),
            position: Vec3::ZERO,
            capsule: Capsule { half_height: 0.5, radius: 0.3 },
            max_slope_deg: 45.0,
            step_height: 0.3,
            snap_distance: 0.3,
            mass: 80.0,
            max_push_force: 500.0,
            groups: CollisionGroups::ALL,
            script: Vec::new(),
        }
    }
}

impl CharacterDef {
    /// The default character with its centre at `position`.
    pub fn at(position: Vec3) -> Self {
        Self { position, ..Self::default() }
    }

    /// Sets the name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the capsule's half height and radius.
    pub fn with_capsule(mut self, half_height: f32, radius: f32) -> Self {
        self.capsule = Capsule { half_height, radius };
        self
    }

    /// Checks every field against its documented range; the error names the field
    /// (`capsule.radius`, `script[2].from`).
    pub fn validate(&self) -> Result<()> {
        check_position(self.position)?;
        Capsule::new(self.capsule.half_height, self.capsule.radius).map_err(|e| e.within("capsule"))?;
        check_range("max_slope_deg", self.max_slope_deg, 0.0, MAX_SLOPE_LIMIT_DEG)?;
        check_range("step_height", self.step_height, 0.0, MAX_SHAPE_SIZE)?;
        check_range("snap_distance", self.snap_distance, 0.0, MAX_SHAPE_SIZE)?;
        check_above_zero("mass", self.mass, MAX_MASS)?;
        check_range("max_push_force", self.max_push_force, 0.0, MAX_PUSH_FORCE)?;
        let mut previous = 0.0f32;
        for (i, entry) in self.script.iter().enumerate() {
            entry.validate(previous).map_err(|e| e.within(&format!("script[{i}]")))?;
            previous = entry.from;
        }
        Ok(())
    }
}

impl ScriptEntry {
    /// Checks the entry; `earliest` is the previous entry's `from`.
    fn validate(&self, earliest: f32) -> Result<()> {
        check_range("from", self.from, 0.0, MAX_SCRIPT_TIME)?;
        if self.from < earliest {
            let reason = format!("must not be before the previous entry's from ({earliest}), got {}", self.from);
            return Err(Error::new("from", reason));
        }
        check_vec3_range("velocity", self.velocity, -MAX_LINEAR_SPEED, MAX_LINEAR_SPEED)?;
        check_range("jump_speed", self.jump_speed, 0.0, MAX_LINEAR_SPEED)
    }
}
