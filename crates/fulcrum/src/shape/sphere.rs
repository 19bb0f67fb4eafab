//! Sphere centred at the local origin.

use super::MassProperties;
use crate::error::{check_positive, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A sphere of `radius` metres centred at the collider origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Radius in metres.
    pub radius: f32,
}

impl Sphere {
    /// A sphere; the radius must be finite and positive.
    pub fn new(radius: f32) -> Result<Self> {
        check_positive("radius", radius)?;
        Ok(Self { radius })
    }

    /// World bounds at `pose`.
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        Aabb::from_center_half_extents(pose.position, Vec3::splat(self.radius))
    }

    /// The point of the surface furthest along `dir` (local frame).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        dir.normalize_or(Vec3::X) * self.radius
    }

    /// Solid sphere of uniform `density`: m = 4/3 π r³ ρ, I = 2/5 m r².
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let r = self.radius;
        let mass = density * 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
        MassProperties::new(mass, Vec3::ZERO, Vec3::splat(0.4 * mass * r * r))
    }

    /// Ray cast in the local frame, solving |o + t d|² = r².
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let (o, d) = (ray.origin, ray.direction);
        let a = d.length_squared();
        let c = o.length_squared() - self.radius * self.radius;
        if c <= 0.0 {
            return Some(RayHit { t: 0.0, normal: -d.normalize_or(Vec3::Y) });
        }
        if a == 0.0 {
            return None;
        }
        let b = o.dot(d);
        let disc = b * b - a * c;
        if b > 0.0 || disc < 0.0 {
            return None;
        }
        let t = (-b - disc.sqrt()) / a;
        (t <= max_t).then(|| RayHit { t, normal: (o + t * d).normalize_or(Vec3::Y) })
    }
}
