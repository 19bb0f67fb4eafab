//! Collision detection: broad phase (which pairs may touch), narrow phase (contact manifolds
//! for a pair of shapes), the manifold type they share, and time of impact ([`toi`]).

pub mod broad_phase;
pub(crate) mod contact;
pub mod manifold;
pub(crate) mod manifold_cache;
pub mod narrow_phase;
pub mod toi;
