//! Cylinder along the local Y axis.

use super::capsule::side_hit;
use super::MassProperties;
use crate::error::{check_positive, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A solid cylinder of `radius` from `y = -half_height` to `y = half_height` (local frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cylinder {
    /// Half the height, metres.
    pub half_height: f32,
    /// Radius, metres.
    pub radius: f32,
}

impl Cylinder {
    /// A cylinder; both sizes must be finite and positive.
    pub fn new(half_height: f32, radius: f32) -> Result<Self> {
        check_positive("half_height", half_height)?;
        check_positive("radius", radius)?;
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
