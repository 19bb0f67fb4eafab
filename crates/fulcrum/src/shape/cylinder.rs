//! Cylinder along the local Y axis.

use super::capsule::side_hit;
use super::{MassProperties, MAX_SHAPE_SIZE};
use crate::error::{check_above_zero, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A solid cylinder of `radius` from `y = -half_height` to `y = half_height` (local frame).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cylinder {
    /// Half the height, metres.
    pub half_height: f32,
    /// Radius, metres.
    pub radius: f32,
}

impl Cylinder {
    /// A cylinder; both sizes must lie in (0, [`MAX_SHAPE_SIZE`]].
    pub fn new(half_height: f32, radius: f32) -> Result<Self> {
        check_above_zero("half_height", half_height, MAX_SHAPE_SIZE)?;
        check_above_zero("radius", radius, MAX_SHAPE_SIZE)?;
        Ok(Self { half_height, radius })
    }

    /// World bounds at `pose` (exact: the caps are discs).
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let axis = pose.rotation * Vec3::Y;
        // A disc of radius r with normal a spans r·sqrt(1 - a_i²) along world axis i.
        let disc = (Vec3::ONE - axis * axis).max(Vec3::ZERO).map(f32::sqrt) * self.radius;
        let extent = axis.abs() * self.half_height + disc;
        Aabb::from_center_half_extents(pose.position, extent)
    }

    /// The surface point furthest along `dir` (local frame): a rim point.
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        let radial = Vec3::new(dir.x, 0.0, dir.z);
        let len = radial.length();
        let rim = if len > 1e-12 { radial * (self.radius / len) } else { Vec3::ZERO };
        let y = if dir.y >= 0.0 { self.half_height } else { -self.half_height };
        Vec3::new(rim.x, y, rim.z)
    }

    /// Solid cylinder: m = ρ π r² 2h, I_y = m r²/2, I_x = I_z = m (3r² + (2h)²)/12.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let (h, r) = (self.half_height, self.radius);
        let mass = density * std::f32::consts::PI * r * r * 2.0 * h;
        let axial = 0.5 * mass * r * r;
        let transverse = mass * (3.0 * r * r + 4.0 * h * h) / 12.0;
        MassProperties::new(mass, Vec3::ZERO, Vec3::new(transverse, axial, transverse))
    }

    /// Ray cast in the local frame.
    ///
    /// For a ray starting outside, the entry point lies either on the side (the entry root of
    /// `|(o + t d)_xz|² = r²` with `|y| <= h`, see [`Capsule::cast_ray`](super::Capsule)) or
    /// on the cap facing the origin: `t = (±h - o_y) / d_y` with `|p_xz| <= r`. The earliest
    /// of the two wins. A ray starting inside hits at `t = 0` with the normal `-direction`
    /// normalised.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let (o, d) = (ray.origin, ray.direction);
        let (h, r) = (self.half_height, self.radius);
        if o.y.abs() <= h && o.x * o.x + o.z * o.z <= r * r {
            return Some(RayHit { t: 0.0, normal: -d.normalize_or(Vec3::Y) });
        }
        let side = side_hit(o, d, h, r, max_t);
        // The cap facing the origin, entered when moving towards it from beyond it.
        let cap_y = if o.y > h { h } else { -h };
        let cap = if o.y.abs() > h && d.y * cap_y < 0.0 {
            let t = (cap_y - o.y) / d.y;
            let p = o + t * d;
            (t <= max_t && p.x * p.x + p.z * p.z <= r * r)
                .then(|| RayHit { t, normal: Vec3::new(0.0, cap_y.signum(), 0.0) })
        } else {
            None
        };
        match (side, cap) {
            (Some(s), Some(c)) => Some(if c.t < s.t { c } else { s }),
            (s, c) => s.or(c),
        }
    }
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
        let got = Cylinder::new(h, r).unwrap().mass_properties(density);
        let (h64, r64) = (h as f64, r as f64);
        assert_revolution_mass(&got, revolution_mass(&|_| r64 * r64, &[-h64, h64], density as f64));
    }

    #[test]
    fn aabb_holds_support_points() {
        check_aabb_against_support(&Shape::cylinder(0.9, 0.3).unwrap(), 4, 1e-5);
    }

    #[test]
    fn analytic_rays() {
        let (h, r) = (1.0, 0.5);
        let cylinder = Cylinder::new(h, r).unwrap();
        let cast = |o: Vec3, d: Vec3, max_t: f32| cylinder.cast_ray(&Ray::new(o, d), max_t);
        let hit = cast(Vec3::new(0.0, 10.0, 0.1), -Vec3::Y, 20.0).unwrap();
        assert!((hit.t - 9.0).abs() < 1e-6 && (hit.normal - Vec3::Y).length() < 1e-6);
        let hit = cast(Vec3::new(0.0, -10.0, 0.0), Vec3::Y * 4.0, 20.0).unwrap();
        assert!((hit.t - 9.0 / 4.0).abs() < 1e-6 && (hit.normal + Vec3::Y).length() < 1e-6);
        let hit = cast(Vec3::new(5.0, 0.2, 0.0), -Vec3::X, 20.0).unwrap();
        assert!((hit.t - 4.5).abs() < 1e-6 && (hit.normal - Vec3::X).length() < 1e-6);
        // From beside and above, through the cap at x = r/2.
        let o = Vec3::new(2.0 * r, h + 2.0, 0.0);
        let hit = cast(o, Vec3::new(0.5 * r, h, 0.0) - o, 20.0).unwrap();
        assert!((hit.t - 1.0).abs() < 1e-6 && (hit.normal - Vec3::Y).length() < 1e-6);
        // Parallel to the axis outside the radius; inside; too short.
        assert_eq!(cast(Vec3::new(0.6, -5.0, 0.0), Vec3::Y, 20.0), None);
        let d = Vec3::new(0.0, 0.0, -3.0);
        assert_eq!(cast(Vec3::new(0.2, 0.9, 0.1), d, 1.0), Some(RayHit { t: 0.0, normal: Vec3::Z }));
        assert_eq!(cast(Vec3::new(5.0, 0.2, 0.0), -Vec3::X, 4.4), None);
    }

    #[test]
    fn ray_casts_match_marching() {
        let (h, r) = (0.6, 0.45);
        let cylinder = Cylinder::new(h, r).unwrap();
        // Side or cap, whichever surface the point is on (none near the rim).
        let normal_at = |p: Vec3| {
            let radial = Vec3::new(p.x, 0.0, p.z);
            let (side_gap, cap_gap) = ((r - radial.length()).abs(), (h - p.y.abs()).abs());
            if (side_gap - cap_gap).abs() < 1e-3 {
                Vec3::ZERO
            } else if side_gap < cap_gap {
                radial.normalize()
            } else {
                Vec3::Y * p.y.signum()
            }
        };
        check_rays_against_marching(
            &|ray, t| cylinder.cast_ray(ray, t),
            &|p| p.y.abs() <= h && p.x * p.x + p.z * p.z <= r * r,
            &normal_at,
            1.0,
            5,
        );
    }
}
