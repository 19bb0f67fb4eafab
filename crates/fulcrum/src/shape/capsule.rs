//! Capsule: a segment along the local Y axis swept by a sphere.

use super::MassProperties;
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
        let transverse = m_cyl * (r * r * 0.25 + h * h / 3.0) + m_sph * (0.4 * r * r + h * h + 0.75 * h * r);
        MassProperties::new(m_cyl + m_sph, Vec3::ZERO, Vec3::new(transverse, axial, transverse))
    }

    /// Ray cast in the local frame.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let _ = (ray, max_t);
        todo!("capsule ray cast")
    }
}
