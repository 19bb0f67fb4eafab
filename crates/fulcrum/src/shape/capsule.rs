//! Capsule: a segment along the local Y axis swept by a sphere.

use super::{MassProperties, Sphere, MAX_SHAPE_SIZE};
use crate::error::{check_above_zero, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A capsule: all points within `radius` of the segment from `(0, -half_height, 0)` to
/// `(0, half_height, 0)`. `half_height` excludes the caps.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capsule {
    /// Half the length of the inner segment, metres.
    pub half_height: f32,
    /// Radius, metres.
    pub radius: f32,
}

impl Capsule {
    /// A capsule; both sizes must lie in (0, [`MAX_SHAPE_SIZE`]].
    pub fn new(half_height: f32, radius: f32) -> Result<Self> {
        check_above_zero("half_height", half_height, MAX_SHAPE_SIZE)?;
        check_above_zero("radius", radius, MAX_SHAPE_SIZE)?;
        Ok(Self { half_height, radius })
    }

    /// The inner segment's end points in local space (bottom, top).
    #[inline]
    pub fn segment(&self) -> (Vec3, Vec3) {
        (Vec3::new(0.0, -self.half_height, 0.0), Vec3::new(0.0, self.half_height, 0.0))
    }

    /// World bounds at `pose`.
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let axis = pose.rotation * Vec3::new(0.0, self.half_height, 0.0);
        Aabb::from_center_half_extents(pose.position, axis.abs() + Vec3::splat(self.radius))
    }

    /// The surface point furthest along `dir` (local frame).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        let y = if dir.y >= 0.0 { self.half_height } else { -self.half_height };
        Vec3::new(0.0, y, 0.0) + dir.normalize_or(Vec3::X) * self.radius
    }

    /// Solid capsule: a cylinder of length 2h plus two hemispheres.
    ///
    /// Axial: I_y = m_c r²/2 + m_s 2r²/5. Transverse:
    /// I_x = m_c (r²/4 + h²/3) + m_s (2r²/5 + h² + 3hr/4), with the hemispheres' centres of
    /// mass 3r/8 beyond the segment ends.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let (h, r) = (self.half_height, self.radius);
        let pi = std::f32::consts::PI;
        let m_cyl = density * pi * r * r * 2.0 * h;
        let m_sph = density * 4.0 / 3.0 * pi * r * r * r;
        let axial = m_cyl * r * r * 0.5 + m_sph * 0.4 * r * r;
        let transverse = m_cyl * (r * r * 0.25 + h * h / 3.0) + m_sph * (0.4 * r * r + h * h + 0.75 * h * r);
        MassProperties::new(m_cyl + m_sph, Vec3::ZERO, Vec3::new(transverse, axial, transverse))
    }

    /// Ray cast in the local frame.
    ///
    /// The capsule is the union of the finite cylinder `x² + z² <= r², |y| <= h` and the two
    /// end spheres, so for a ray starting outside, the entry is the earliest entry into any
    /// of them. The cylinder's flat ends lie inside the spheres, so only its side counts:
    /// `|(o + t d)_xz|² = r²` gives `a t² + 2 b t + c = 0` with `a = |d_xz|²`,
    /// `b = o_xz·d_xz`, `c = |o_xz|² - r²`, entry root `t = (-b - sqrt(b² - a c)) / a`,
    /// valid where `|y(t)| <= h`. A ray starting inside hits at `t = 0` with the normal
    /// `-direction` normalised.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let (o, d) = (ray.origin, ray.direction);
        let (h, r) = (self.half_height, self.radius);
        let nearest_on_axis = Vec3::new(0.0, o.y.clamp(-h, h), 0.0);
        if (o - nearest_on_axis).length_squared() <= r * r {
            return Some(RayHit { t: 0.0, normal: -d.normalize_or(Vec3::Y) });
        }
        let mut best: Option<RayHit> = None;
        let mut keep = |hit: Option<RayHit>| {
            if let Some(hit) = hit {
                if best.is_none_or(|b| hit.t < b.t) {
                    best = Some(hit);
                }
            }
        };
        keep(side_hit(o, d, h, r, max_t));
        let sphere = Sphere { radius: r };
        for centre in [Vec3::new(0.0, h, 0.0), Vec3::new(0.0, -h, 0.0)] {
            keep(sphere.cast_ray(&Ray { origin: o - centre, direction: d }, max_t));
        }
        best
    }
}

/// Entry of a ray starting outside the infinite cylinder `x² + z² = r²` through its side
/// where `|y| <= h`, within `max_t` (shared with the capsule's cylinder part).
pub(crate) fn side_hit(o: Vec3, d: Vec3, h: f32, r: f32, max_t: f32) -> Option<RayHit> {
    let a = d.x * d.x + d.z * d.z;
    let b = o.x * d.x + o.z * d.z;
    let c = o.x * o.x + o.z * o.z - r * r;
    // NaN input passes these tests but gives a NaN `t`, which the final check refuses.
    if a <= 0.0 || c <= 0.0 || b >= 0.0 {
        return None;
    }
    let discriminant = b * b - a * c;
    if discriminant < 0.0 {
        return None;
    }
    // -b + sqrt(disc) > 0, so c / (-b + sqrt(disc)) is the smaller root without cancellation.
    let t = c / (-b + discriminant.sqrt());
    let p = o + t * d;
    (t <= max_t && p.y.abs() <= h).then(|| RayHit { t, normal: Vec3::new(p.x, 0.0, p.z).normalize_or(Vec3::X) })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        assert_revolution_mass, check_aabb_against_support, check_rays_against_marching, revolution_mass,
    };
    use super::super::Shape;
    use super::*;

    #[test]
    fn mass_matches_slices() {
        let (h, r, density) = (0.7f32, 0.4f32, 2.5f32);
        let got = Capsule::new(h, r).unwrap().mass_properties(density);
        let (h64, r64) = (h as f64, r as f64);
        let radius_sq = |y: f64| {
            let beyond = (y.abs() - h64).max(0.0);
            r64 * r64 - beyond * beyond
        };
        let breaks = [-h64 - r64, -h64, h64, h64 + r64];
        assert_revolution_mass(&got, revolution_mass(&radius_sq, &breaks, density as f64));
    }

    #[test]
    fn aabb_holds_support_points() {
        check_aabb_against_support(&Shape::capsule(0.9, 0.3).unwrap(), 3, 1e-5);
    }

    #[test]
    fn analytic_rays() {
        let (h, r) = (1.0, 0.5);
        let capsule = Capsule::new(h, r).unwrap();
        let cast = |o: Vec3, d: Vec3, max_t: f32| capsule.cast_ray(&Ray::new(o, d), max_t);
        // Down the axis onto the top of the upper cap.
        let hit = cast(Vec3::new(0.0, 10.0, 0.0), -Vec3::Y, 20.0).unwrap();
        assert!((hit.t - 8.5).abs() < 1e-6 && (hit.normal - Vec3::Y).length() < 1e-6);
        // Side on.
        let hit = cast(Vec3::new(5.0, 0.3, 0.0), -Vec3::X, 20.0).unwrap();
        assert!((hit.t - 4.5).abs() < 1e-6 && (hit.normal - Vec3::X).length() < 1e-6);
        // Into the upper cap half a radius above its centre: x = √(r² - r²/4).
        let x = (r * r * 0.75f32).sqrt();
        let hit = cast(Vec3::new(5.0, h + 0.5 * r, 0.0), -Vec3::X * 2.0, 20.0).unwrap();
        assert!((hit.t - (5.0 - x) / 2.0).abs() < 1e-6);
        assert!((hit.normal - Vec3::new(x, 0.5 * r, 0.0) / r).length() < 1e-6);
        // Inside; missing beside; too short.
        let d = Vec3::new(1.0, 2.0, 0.0);
        let hit = cast(Vec3::new(0.1, 1.2, 0.0), d, 1.0).unwrap();
        assert_eq!(hit, RayHit { t: 0.0, normal: -d.normalize() });
        assert_eq!(cast(Vec3::new(5.0, 0.0, 0.6), -Vec3::X, 20.0), None);
        assert_eq!(cast(Vec3::new(5.0, 0.0, 0.0), -Vec3::X, 4.4), None);
    }

    #[test]
    fn ray_casts_match_marching() {
        let capsule = Capsule::new(0.6, 0.35).unwrap();
        let nearest = |p: Vec3| Vec3::new(0.0, p.y.clamp(-0.6, 0.6), 0.0);
        check_rays_against_marching(
            &|ray, t| capsule.cast_ray(ray, t),
            &|p| (p - nearest(p)).length() <= 0.35,
            &|p| (p - nearest(p)).normalize(),
            1.0,
            4,
        );
    }
}
