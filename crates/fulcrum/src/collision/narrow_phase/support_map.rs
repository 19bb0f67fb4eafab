//! A core's support mapping in world space, prepared once per GJK or EPA query.
//!
//! [`ConvexCore::support`] turns the direction into the core's frame and the answer back, two
//! quaternion rotations per call; GJK and EPA call it a few dozen times per query. Prepared
//! here, the rotation is a matrix `R` with columns `x, y, z` (the core's axes in the world),
//! and each kind finds its support point with dot products against those axes:
//! - point: `p`;
//! - segment (`±h` along `y`): `p + sign(d·y) h y`;
//! - box (half extents `h`): `p + Σ_i sign(d·e_i) h_i e_i` over the axes `e_i`;
//! - cylinder (axis `y`, half height `h`, radius `r`): in its own frame, `l = Rᵀ d`, the rim
//!   point `(r l_x/ρ, sign(l_y) h, r l_z/ρ)` with `ρ = |(l_x, l_z)|` (the cap centre when
//!   `ρ = 0`), turned back by `R` (in the world, `d − (d·y) y` would keep a rounding residue
//!   along the axis that, normalised, can point anywhere when `d` is nearly axial);
//! - hull: `p + R s(Rᵀ d)` with the hull's own support `s` (local frame);
//! - triangle: the corner with the largest `d·v_i`, corners moved to the world once.

use super::gjk::{cylinder_support, furthest_corner, ConvexCore, CoreKind, SupportPoint};
use crate::math::{Mat3, Vec3};
use crate::shape::ConvexHull;

/// Where a core's support points come from, in world space.
#[derive(Clone, Copy, Debug)]
enum WorldKind<'a> {
    Point,
    Segment { half_axis: Vec3 },
    Box { half_axes: [Vec3; 3] },
    Cylinder { half_height: f32, radius: f32 },
    Hull(&'a ConvexHull),
    Triangle([Vec3; 3]),
}

/// A [`ConvexCore`]'s support mapping with its pose folded in.
#[derive(Clone, Copy, Debug)]
pub struct SupportMap<'a> {
    kind: WorldKind<'a>,
    rotation: Mat3,
    position: Vec3,
}

impl<'a> SupportMap<'a> {
    /// The support mapping of `core` (its core only; the radius is the caller's).
    pub fn new(core: &ConvexCore<'a>) -> Self {
        let rotation = Mat3::from_quat(core.pose.rotation);
        let kind = match core.kind {
            CoreKind::Point => WorldKind::Point,
            CoreKind::Segment { half_height } => WorldKind::Segment { half_axis: rotation.y_axis * half_height },
            CoreKind::Box { half_extents: h } => {
                WorldKind::Box { half_axes: [rotation.x_axis * h.x, rotation.y_axis * h.y, rotation.z_axis * h.z] }
            }
            CoreKind::Cylinder { half_height, radius } => WorldKind::Cylinder { half_height, radius },
            CoreKind::Hull(hull) => WorldKind::Hull(hull),
            CoreKind::Triangle(v) => WorldKind::Triangle(v.map(|corner| core.pose.transform_point(corner))),
        };
        let position = match kind {
            WorldKind::Triangle(_) => Vec3::ZERO,
            _ => core.pose.position,
        };
        Self { kind, rotation, position }
    }

    /// The core point furthest along `d` (world; need not be unit).
    #[inline]
    pub fn support(&self, d: Vec3) -> Vec3 {
        match self.kind {
            WorldKind::Point => self.position,
            WorldKind::Segment { half_axis } => {
                if half_axis.dot(d) >= 0.0 {
                    self.position + half_axis
                } else {
                    self.position - half_axis
                }
            }
            WorldKind::Box { half_axes: [x, y, z] } => self.position + toward(x, d) + toward(y, d) + toward(z, d),
            WorldKind::Cylinder { half_height, radius } => {
                // In the cylinder's frame the radial part (d_x, 0, d_z) is exactly
                // perpendicular to the axis, however small it is.
                let local = cylinder_support(self.rotation.transpose() * d, half_height, radius);
                self.position + self.rotation * local
            }
            WorldKind::Hull(hull) => self.position + self.rotation * hull.support(self.rotation.transpose() * d),
            WorldKind::Triangle(v) => furthest_corner(&v, d),
        }
    }
}

/// `axis` or `-axis`, whichever points along `d`.
#[inline]
fn toward(axis: Vec3, d: Vec3) -> Vec3 {
    axis * 1.0f32.copysign(axis.dot(d))
}

/// `s_D(d) = s_A(d) - s_B(-d)`: the point of `A - B` furthest along `direction`.
#[inline]
pub fn minkowski_support(a: &SupportMap, b: &SupportMap, direction: Vec3) -> SupportPoint {
    let pa = a.support(direction);
    let pb = b.support(-direction);
    SupportPoint { w: pa - pb, a: pa, b: pb }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::narrow_phase::tests::{sample_shapes, Rng};

    /// The prepared mapping gives the support point of the core's own (local-frame) mapping,
    /// for every kind, in random poses and directions.
    #[test]
    fn prepared_support_matches_the_cores_own() {
        let mut rng = Rng::new(3);
        for shape in sample_shapes().iter().filter(|s| !matches!(s, crate::shape::Shape::Plane(_))) {
            for _ in 0..200 {
                let core = ConvexCore::from_shape(shape, &rng.pose(2.0)).unwrap();
                // A random direction, and one along the core's own Y axis (a cylinder's cap,
                // where the rim point is ill-conditioned): the support values must agree.
                let random = rng.pose(1.0).rotation * Vec3::new(0.3, 1.0, -0.2);
                for direction in [random, core.pose.rotation * Vec3::Y] {
                    let expected = core.support(direction).dot(direction);
                    let found = SupportMap::new(&core).support(direction).dot(direction);
                    assert!((found - expected).abs() < 1e-5, "{shape:?} along {direction}: {found} vs {expected}");
                }
            }
        }
    }
}
