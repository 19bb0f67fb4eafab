//! Queries against the world's colliders.

use super::World;
use crate::geometry::Ray;
use crate::id::{BodyId, ColliderId};
use crate::math::Vec3;

/// The closest hit of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCastHit {
    /// The collider hit.
    pub collider: ColliderId,
    /// Its body.
    pub body: BodyId,
    /// Ray parameter of the hit.
    pub t: f32,
    /// World hit point.
    pub point: Vec3,
    /// World surface normal at the hit (a mesh's or heightfield's face normal).
    pub normal: Vec3,
    /// The index of the triangle hit, for meshes and heightfields (`None` for other shapes).
    pub triangle: Option<u32>,
}

impl World {
    /// Casts a ray up to `max_t` and returns the closest hit among colliders accepted by
    /// `filter` (sensors included only if the filter accepts them).
    pub fn cast_ray(&self, ray: &Ray, max_t: f32, mut filter: impl FnMut(ColliderId) -> bool) -> Option<RayCastHit> {
        if !ray.origin.is_finite() || !ray.direction.is_finite() || max_t.is_nan() {
            return None;
        }
        let mut best: Option<RayCastHit> = None;
        self.broad_phase.cast_ray(ray, max_t, |user, _entry| {
            let limit = best.map_or(max_t, |b| b.t);
            let Some(id) = self.colliders.id_at(user as usize) else { return limit };
            let Some(collider) = self.colliders.get(id) else { return limit };
            if !filter(id) {
                return limit;
            }
            if let Some((hit, triangle)) = collider.shape.cast_ray(&collider.world_pose, ray, limit) {
                if hit.t <= limit {
                    best = Some(RayCastHit {
                        collider: id,
                        body: collider.body,
                        t: hit.t,
                        point: ray.at(hit.t),
                        normal: hit.normal,
                        triangle,
                    });
                    return hit.t;
                }
            }
            limit
        });
        best
    }
}
