//! Box centred at the local origin, aligned with the local axes.

use super::{MassProperties, MAX_SHAPE_SIZE};
use crate::error::{check_above_zero_vec3, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// A box with `half_extents` (metres) along the local x, y and z axes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cuboid {
    /// Half the side lengths, metres.
    pub half_extents: Vec3,
}

impl Cuboid {
    /// A box; every half extent must lie in (0, [`MAX_SHAPE_SIZE`]].
    pub fn new(half_extents: Vec3) -> Result<Self> {
        check_above_zero_vec3("half_extents", half_extents, MAX_SHAPE_SIZE)?;
        Ok(Self { half_extents })
    }

    /// World bounds at `pose` (exact).
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        Aabb::of_oriented_box(pose, self.half_extents)
    }

    /// The corner furthest along `dir` (local frame).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        let h = self.half_extents;
        Vec3::new(h.x.copysign(dir.x), h.y.copysign(dir.y), h.z.copysign(dir.z))
    }

    /// Solid box: m = 8 hx hy hz ρ, Ixx = m/3 (hy² + hz²), and so on.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let h = self.half_extents;
        let mass = density * 8.0 * h.x * h.y * h.z;
        let h2 = h * h;
        let inertia = Vec3::new(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y) * (mass / 3.0);
        MassProperties::new(mass, Vec3::ZERO, inertia)
    }

    /// Ray cast in the local frame (slab test).
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let h = self.half_extents;
        let (o, d) = (ray.origin, ray.direction);
        if o.abs().cmple(h).all() {
            return Some(RayHit { t: 0.0, normal: -d.normalize_or(Vec3::Y) });
        }
        let mut t_enter = 0.0f32;
        let mut t_exit = max_t;
        let mut normal = Vec3::ZERO;
        for axis in 0..3 {
            if d[axis].abs() < 1e-12 {
                if o[axis].abs() > h[axis] {
                    return None;
                }
                continue;
            }
            let inv = 1.0 / d[axis];
            let (mut t1, mut t2) = ((-h[axis] - o[axis]) * inv, (h[axis] - o[axis]) * inv);
            let mut sign = -1.0;
            if t1 > t2 {
                std::mem::swap(&mut t1, &mut t2);
                sign = 1.0;
            }
            if t1 > t_enter {
                t_enter = t1;
                normal = Vec3::ZERO;
                normal[axis] = sign;
            }
            t_exit = t_exit.min(t2);
            if t_enter > t_exit {
                return None;
            }
        }
        (normal != Vec3::ZERO).then_some(RayHit { t: t_enter, normal })
    }

    /// The 8 corners in local space; corner `i` has sign bits x = bit 0, y = bit 1, z = bit 2
    /// (bit set = positive).
    pub fn corners(&self) -> [Vec3; 8] {
        let h = self.half_extents;
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 != 0 { h.x } else { -h.x },
                if i & 2 != 0 { h.y } else { -h.y },
                if i & 4 != 0 { h.z } else { -h.z },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{check_aabb_against_support, check_rays_against_marching};
    use super::super::Shape;
    use super::*;
    use crate::math::Mat3;

    #[test]
    fn mass_matches_textbook_values() {
        // Sides 1 × 2 × 3, ρ = 2: m = 12, I = m (b² + c²) / 12 = (13, 10, 5).
        let got = Cuboid::new(Vec3::new(0.5, 1.0, 1.5)).unwrap().mass_properties(2.0);
        assert!((got.mass - 12.0).abs() < 1e-5);
        let want = Mat3::from_diagonal(Vec3::new(13.0, 10.0, 5.0));
        assert!((got.inertia - want).to_cols_array().iter().all(|x| x.abs() < 1e-5));
        assert_eq!(got.center, Vec3::ZERO);
    }

    #[test]
    fn aabb_holds_support_points() {
        check_aabb_against_support(&Shape::cuboid(Vec3::new(0.3, 1.0, 0.6)).unwrap(), 2, 1e-5);
    }

    #[test]
    fn ray_casts_match_marching() {
        let h = Vec3::new(0.3, 1.0, 0.6);
        let cuboid = Cuboid::new(h).unwrap();
        // The face a surface point is on: the axis where it is closest to the face (none
        // near edges, where two axes tie).
        let normal_at = |p: Vec3| {
            let gap = h - p.abs();
            let axis = (0..3).min_by(|&a, &b| gap[a].total_cmp(&gap[b])).unwrap();
            let mut n = Vec3::ZERO;
            if (0..3).all(|b| b == axis || gap[b] > 1e-3) {
                n[axis] = p[axis].signum();
            }
            n
        };
        check_rays_against_marching(&|ray, t| cuboid.cast_ray(ray, t), &|p| p.abs().cmple(h).all(), &normal_at, 1.0, 3);
    }
}
