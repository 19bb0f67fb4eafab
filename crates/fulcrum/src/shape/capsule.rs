//! Capsule: a segment along the local Y axis swept by a sphere.

use super::{MassProperties, Sphere};
use crate::error::{check_positive, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A capsule: all points within `radius` of the segment from `(0, -half_height, 0)` to
/// `(0, half_height, 0)`. `half_height` excludes the caps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    /// Half the length of the inner segment, metres.
    pub half_height: f32,
    /// Radius, metres.
    pub radius: f32,
}

impl Capsule {
    /// A capsule; both sizes must be finite and positive.
    pub fn new(half_height: f32, radius: f32) -> Result<Self> {
        check_positive("half_height", half_height)?;
        check_positive("radius", radius)?;
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
        let transverse = m_cyl * (r * r * 0.25 + h * h / 3.0)
            + m_sph * (0.4 * r * r + h * h + 0.75 * h * r);
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
    if !(a > 0.0) || c <= 0.0 || b >= 0.0 {
        return None;
    }
    let discriminant = b * b - a * c;
    if discriminant < 0.0 {
        return None;
    }
    // -b + sqrt(disc) > 0, so c / (-b + sqrt(disc)) is the smaller root without cancellation.
    let t = c / (-b + discriminant.sqrt());
    let p = o + t * d;
    (t <= max_t && p.y.abs() <= h)
        .then(|| RayHit { t, normal: Vec3::new(p.x, 0.0, p.z).normalize_or(Vec3::X) })
}
