//! Cloths and ropes: particles moved by a position-based solver (XPBD), not by rigid-body
//! dynamics.
//!
//! The talk in shared/seeds describes the Verlet cloth: record the positions at the start of
//! the step, move the particles so the distance constraints hold, take the velocities from
//! the change in position. This module does that with compliance (XPBD: a constraint with
//! compliance α is a spring of stiffness 1/α whatever the step and pass count) over many
//! short substeps with one pass each. Each step (`World::step`, after the rigid bodies and
//! the characters have moved), for every cloth and rope together:
//!
//! ```text
//! contacts    each particle's planes against the colliders near its path this step
//!             (broad phase, then the nearest point of each shape: contact.rs; a dynamic
//!             body's plane in its frame); a cloth's pairs of particles that may touch
//!             (spatial hash: self_collision.rs); the dynamic bodies touching the moved ones
//! substeps    n = ⌈dt / MAX_SUBSTEP⌉ of length h = dt / n, each:
//!   predict     x_prev = x; v += g·h; v /= 1 + h·damping; x += v·h (bodies: x += v·h)
//!   links       stretch and bending distance constraints, XPBD (constraints.rs)
//!   tethers     long-range attachments: no particle further from its nearest fixed
//!               particle than along the material at rest
//!   attachments particles joined to body points; the correction is shared with the body
//!               through its mass and inertia at the anchor (coupling.rs)
//!   contacts    out of each plane, with static and kinetic friction, a dynamic body
//!               pushed back (contact.rs)
//!   self        a cloth's particles apart from each other (self_collision.rs; optional)
//!   velocity    v = (x − x_prev) / h
//!   bodies      contacts between the dynamic bodies of the stage (coupling.rs)
//!   joints      the joints of the stage's bodies, their rigid rows (joints.rs)
//! bodies      each moved body leaves at its last substep's velocities
//! ```

mod constraints;
mod contact;
mod coupling;
mod def;
mod joints;
mod self_collision;
mod stored;
mod system;

pub use def::{
    Attachment, ClothDef, RopeDef, MAX_CLOTH_RESOLUTION, MAX_COMPLIANCE, MAX_PARTICLE_DAMPING, MAX_ROPE_SEGMENTS,
};
pub use stored::{Cloth, Rope};
pub use system::Particles;

pub(crate) use contact::{nearest_on_convex, surface_planes, ParticleContact};
pub(crate) use coupling::{solve_body_contacts, BodyContact, CoupledBody};
pub(crate) use joints::{solve_stage_joints, StageJoint};
pub(crate) use stored::attach;
pub(crate) use system::BodyAttachment;

/// Longest particle substep, seconds: a step is cut into ⌈dt / MAX_SUBSTEP⌉ equal substeps,
/// so 60 Hz and 240 Hz steps both solve in substeps of 1/960 s.
pub const MAX_SUBSTEP: f32 = 1.0 / 960.0;

/// How much further than its motion over the step a particle looks for obstacles, metres.
pub const CONTACT_MARGIN: f32 = 0.01;

/// A cloth or a rope: the particle sets the world's particle API addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParticleSetId {
    /// A cloth.
    Cloth(crate::id::ClothId),
    /// A rope.
    Rope(crate::id::RopeId),
}

impl From<crate::id::ClothId> for ParticleSetId {
    fn from(id: crate::id::ClothId) -> Self {
        ParticleSetId::Cloth(id)
    }
}

impl From<crate::id::RopeId> for ParticleSetId {
    fn from(id: crate::id::RopeId) -> Self {
        ParticleSetId::Rope(id)
    }
}
