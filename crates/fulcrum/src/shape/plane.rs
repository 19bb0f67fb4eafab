//! Infinite plane, for static bodies only.

use super::MAX_SHAPE_SIZE;
use crate::error::{check_range, check_vec3, Error, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// Half extent used for a plane's bounding box: planes are infinite, the broad phase is not.
pub const PLANE_EXTENT: f32 = 1.0e5;

/// The half space `n·p <= offset` in the collider's local frame is solid; points with
/// `n·p >= offset` are outside.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plane {
    /// Unit outward normal (local frame).
    pub normal: Vec3,
    /// Signed distance of the plane from the local origin along `normal`, metres.
    pub offset: f32,
}

impl Plane {
    /// A plane from a normal (any finite vector longer than 1e-6, not necessarily unit) and an
    /// offset along the unit normal within ±[`MAX_SHAPE_SIZE`].
    pub fn new(normal: Vec3, offset: f32) -> Result<Self> {
        check_vec3("normal", normal)?;
        check_range("offset", offset, -MAX_SHAPE_SIZE, MAX_SHAPE_SIZE)?;
        // A normal whose length overflows is scaled down first (its direction is all that counts).
        let normal = if normal.length().is_finite() { normal } else { normal / normal.abs().max_element() };
        let len = normal.length();
        if len <= 1e-6 {
            return Err(Error::new("normal", "must not be the zero vector"));
        }
        Ok(Self { normal: normal / len, offset })
    }

    /// World bounds: a huge box, flat along an axis-aligned normal.
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let n = pose.rotation * self.normal;
        let point = pose.transform_point(self.normal * self.offset);
        let mut min = Vec3::splat(-PLANE_EXTENT);
        let mut max = Vec3::splat(PLANE_EXTENT);
        for axis in 0..3 {
            if (n[axis].abs() - 1.0).abs() < 1e-6 {
                // Axis-aligned plane: the solid side extends a finite depth below it.
                if n[axis] > 0.0 {
                    max[axis] = point[axis];
                    min[axis] = point[axis] - PLANE_EXTENT;
                } else {
                    min[axis] = point[axis];
                    max[axis] = point[axis] + PLANE_EXTENT;
                }
            }
        }
        Aabb::new(min, max)
    }

    /// Ray cast in the local frame against the solid half space.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let dist = self.normal.dot(ray.origin) - self.offset;
        if dist <= 0.0 {
            return Some(RayHit { t: 0.0, normal: -ray.direction.normalize_or(self.normal) });
        }
        let speed = self.normal.dot(ray.direction);
        if speed >= 0.0 {
            return None;
        }
        let t = -dist / speed;
        (t <= max_t).then_some(RayHit { t, normal: self.normal })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_casts_are_analytic() {
        // The plane y = 1 tilted: normal (0, 1, 1)/√2 at offset 1.
        let plane = Plane::new(Vec3::new(0.0, 1.0, 1.0), 1.0).unwrap();
        let n = Vec3::new(0.0, 1.0, 1.0).normalize();
        // From 3 m above along -n at speed 2: reaches the plane at t = 1.
        let origin = n * 4.0;
        let hit = plane.cast_ray(&Ray::new(origin, -n * 3.0), 5.0).unwrap();
        assert!((hit.t - 1.0).abs() < 1e-6 && (hit.normal - n).length() < 1e-6);
        assert_eq!(plane.cast_ray(&Ray::new(origin, -n * 3.0), 0.9), None);
        assert_eq!(plane.cast_ray(&Ray::new(origin, Vec3::X), 100.0), None);
        let below = plane.cast_ray(&Ray::new(Vec3::ZERO, Vec3::X * 2.0), 1.0).unwrap();
        assert_eq!(below, RayHit { t: 0.0, normal: -Vec3::X });
    }
}
