//! A contact pair: two colliders whose fat bounds overlap, with the manifold the narrow phase
//! found for them and the impulses the solver stored for warm starting.

use crate::collision::manifold::{Manifold, MAX_MANIFOLD_POINTS};
use crate::collision::narrow_phase::PairCache;
use crate::id::{BodyId, ColliderId};

/// Impulses the solver applied at one manifold point last step (warm-starting data).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PointImpulse {
    /// Accumulated normal impulse, N·s.
    pub normal: f32,
    /// Accumulated friction impulse, world space, N·s (perpendicular to the normal).
    pub friction: crate::math::Vec3,
    /// Largest normal impulse applied during the step, N·s (restitution uses it).
    pub max_normal: f32,
}

/// One live pair of colliders.
#[derive(Clone, Debug)]
pub(crate) struct Contact {
    pub collider_a: ColliderId,
    pub collider_b: ColliderId,
    pub body_a: BodyId,
    pub body_b: BodyId,
    pub cache: PairCache,
    pub manifold: Manifold,
    pub impulses: [PointImpulse; MAX_MANIFOLD_POINTS],
    pub friction: f32,
    pub restitution: f32,
    pub sensor: bool,
    pub touching: bool,
}

impl Contact {
    /// Carries impulses from `old` to the points of `manifold` with the same feature id, then
    /// makes `manifold` current.
    pub fn set_manifold(&mut self, manifold: &Manifold) {
        let mut impulses = [PointImpulse::default(); MAX_MANIFOLD_POINTS];
        for (i, point) in manifold.points().iter().enumerate() {
            if let Some(j) = self.manifold.points().iter().position(|p| p.id == point.id) {
                impulses[i] = self.impulses[j];
            }
        }
        self.impulses = impulses;
        self.manifold = *manifold;
    }
}
