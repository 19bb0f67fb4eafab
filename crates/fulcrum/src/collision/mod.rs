//! Collision detection: broad phase (which pairs may touch), narrow phase (contact manifolds
//! for a pair of shapes) and the manifold type they share.

pub mod broad_phase;
pub(crate) mod contact;
pub mod manifold;
pub(crate) mod manifold_cache;
pub mod narrow_phase;

pub use manifold::{ContactPoint, Manifold, MAX_MANIFOLD_POINTS};
