//! Characters: upright capsules moved by a position solver, not by rigid-body dynamics.
//!
//! A game decides where its avatar wants to go; the character solver only keeps it out of
//! the world. Each step (`World::step`, after the rigid bodies have moved) every character,
//! in creation order:
//!
//! ```text
//! script      entries whose time has come set the desired velocity and ask for a jump
//! velocity    walking: the desired velocity across up; free: gravity while airborne, the
//!             jump speed, what a platform gave it when it left; standing: riding, the
//!             ground body's motion under it since the last step (interaction.rs)
//! move        the mover (mover.rs): depenetrate, sweep, step up, settle (the plane solver
//!             of solver.rs over the planes of planes.rs), snap, find the ground
//! bodies      dynamic bodies it walked into get a bounded push, dynamic ground its weight
//! ```
//!
//! Other characters are obstacles as capsules (each sees the others where they are at its
//! turn); a character never pushes another. `World::move_character` runs the mover alone
//! with a displacement of the caller's.

mod def;
mod interaction;
mod mover;
mod planes;
mod solver;
mod state;

pub use def::{CharacterDef, ScriptEntry, MAX_PUSH_FORCE, MAX_SCRIPT_TIME, MAX_SLOPE_LIMIT_DEG};
pub use mover::{MAX_DEPENETRATION_SPEED, SKIN};
pub use state::{Character, CharacterContact, Ground, Obstacle};

pub(crate) use interaction::{pressed, push_impulse, pushed, ride_displacement};
pub(crate) use mover::Mover;
pub(crate) use planes::OtherCapsule;
