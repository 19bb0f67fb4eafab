//! Sphere centred at the local origin.

use super::{MassProperties, MAX_SHAPE_SIZE};
use crate::error::{check_above_zero, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A sphere of `radius` metres centred at the collider origin.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sphere {
    /// Radius in metres.
    pub radius: f32,
}

impl Sphere {
    /// A sphere; the radius must lie in (0, [`MAX_SHAPE_SIZE`]].
    pub fn new(radius: f32) -> Result<Self> {
        check_above_zero("radius", radius, MAX_SHAPE_SIZE)?;
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{check_aabb_against_support, check_rays_against_marching, revolution_mass};
    use super::super::Shape;
    use super::*;

    #[test]
    fn mass_matches_closed_form_and_slices() {
        // r = 2, ρ = 3: m = 4/3 π 8 · 3 = 32 π, I = 2/5 m r² = 51.2 π.
        let got = Sphere::new(2.0).unwrap().mass_properties(3.0);
        let pi = std::f32::consts::PI;
        assert!((got.mass - 32.0 * pi).abs() < 1e-4);
        let [mass, axial, transverse] = revolution_mass(&|y| 4.0 - y * y, &[-2.0, 2.0], 3.0);
        assert!((got.mass as f64 / mass - 1.0).abs() < 1e-6);
        for i in 0..3 {
            let want = if i == 1 { axial } else { transverse };
            assert!((got.inertia.col(i)[i] as f64 / want - 1.0).abs() < 1e-6);
            assert!((51.2 * pi - got.inertia.col(i)[i]).abs() < 1e-3);
        }
        assert_eq!(got.center, Vec3::ZERO);
    }

    #[test]
    fn aabb_holds_support_points() {
        check_aabb_against_support(&Shape::sphere(0.7).unwrap(), 1, 1e-5);
    }

    #[test]
    fn ray_casts_match_marching() {
        let sphere = Sphere::new(0.8).unwrap();
        check_rays_against_marching(
            &|ray, t| sphere.cast_ray(ray, t),
            &|p| p.length() <= 0.8,
            &|p| p.normalize(),
            0.8,
            2,
        );
        let hit = sphere.cast_ray(&Ray::new(Vec3::new(0.0, 0.0, -5.0), Vec3::Z * 2.0), 10.0);
        let hit = hit.unwrap();
        assert!((hit.t - 2.1).abs() < 1e-6 && (hit.normal + Vec3::Z).length() < 1e-6);
    }
}
