//! Lane arithmetic for the wide solver: one lane per constraint, so a group of constraints
//! that share no body is solved in one pass of straight-line SIMD code.
//!
//! The vector types ([`V3`], [`Sym3`], [`Q4`]) are generic over the lanes ([`Lanes`]): four
//! (`wide`'s `f32x4`, SSE, on every CPU) or eight ([`F8`](super::simd_avx::F8), AVX, used
//! only where the CPU has AVX2, chosen at run time). Both do the same IEEE operations per
//! lane in the same order (no fused multiply-add), so a constraint gives the same bits in
//! either width.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, BitAnd, BitAndAssign, BitOr, Div, Mul, MulAssign, Neg, Not, Sub, SubAssign};

use wide::f32x4;

use crate::math::{Quat, Vec3, Vec3A};

/// Four `f32`, one per lane.
pub(crate) type F4 = f32x4;

/// `f32` in lanes: the operations the wide constraints need. Masks are values of the same
/// type with all bits set in the lanes where they hold.
pub(crate) trait Lanes:
    Copy
    + Default
    + Debug
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + BitAnd<Output = Self>
    + BitAndAssign
    + BitOr<Output = Self>
    + Not<Output = Self>
{
    /// How many lanes.
    const COUNT: usize;
    /// One index (of a body, a joint) per lane.
    type Indices: Copy + Default + Debug + Send + Sync + AsRef<[u32]> + AsMut<[u32]>;
    /// Every lane `value`.
    fn fill(value: f32) -> Self;
    /// Lane i `f(i)`.
    fn build(f: impl FnMut(usize) -> f32) -> Self;
    /// The value of lane `i` (read where it lies, not from a copy of every lane).
    fn get(&self, i: usize) -> f32;
    /// Sets lane `i` to `value`.
    fn set(&mut self, i: usize, value: f32);
    /// |x| per lane.
    fn magnitude(self) -> Self;
    /// The mask of the lanes where `self > other`.
    fn above(self, other: Self) -> Self;
    /// The mask of the lanes where `self < other`.
    fn below(self, other: Self) -> Self;
    /// The mask of the lanes where `self >= other`.
    fn at_least(self, other: Self) -> Self;
    /// The larger per lane; `self` where `other` is NaN (as `wide`'s `max`).
    fn max(self, other: Self) -> Self;
    /// The smaller per lane; `self` where `other` is NaN (as `wide`'s `min`).
    fn min(self, other: Self) -> Self;
    /// √x per lane.
    fn sqrt(self) -> Self;
    /// Bit i set where lane i of this mask is set.
    fn bits(self) -> u32;
    /// Per lane of this mask: `if_set` where it is set, else `if_clear`.
    fn choose(self, if_set: Self, if_clear: Self) -> Self;
    /// 1 in the lanes whose index has bit `bit` set, 0 in the others.
    fn flag(indices: &Self::Indices, bit: u32) -> Self;
    /// Lane i from the aligned vector `vector(i)`.
    fn vectors(vector: impl Fn(usize) -> Vec3A) -> V3<Self>;
    /// Lane i from the quaternion `quat(i)`.
    fn quats(quat: impl Fn(usize) -> Quat) -> Q4<Self>;
    /// Calls `f(i, lane i of a, lane i of b)` for every lane, in order.
    fn each_vector_pair(a: &V3<Self>, b: &V3<Self>, f: impl FnMut(usize, Vec3A, Vec3A));
}

/// The bit mask with one bit per lane of `F`, all set.
#[inline(always)]
pub(crate) fn lane_bits<F: Lanes>() -> u32 {
    (1 << F::COUNT) - 1
}

impl Lanes for F4 {
    const COUNT: usize = 4;
    type Indices = [u32; 4];
    #[inline(always)]
    fn fill(value: f32) -> Self {
        F4::splat(value)
    }
    #[inline(always)]
    fn build(f: impl FnMut(usize) -> f32) -> Self {
        F4::new(std::array::from_fn(f))
    }
    #[inline(always)]
    fn get(&self, i: usize) -> f32 {
        self.as_array()[i]
    }
    #[inline(always)]
    fn set(&mut self, i: usize, value: f32) {
        self.as_mut_array()[i] = value;
    }
    #[inline(always)]
    fn magnitude(self) -> Self {
        self.abs()
    }
    #[inline(always)]
    fn above(self, other: Self) -> Self {
        self.simd_gt(other)
    }
    #[inline(always)]
    fn below(self, other: Self) -> Self {
        self.simd_lt(other)
    }
    #[inline(always)]
    fn at_least(self, other: Self) -> Self {
        self.simd_ge(other)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        f32x4::max(self, other)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        f32x4::min(self, other)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32x4::sqrt(self)
    }
    #[inline(always)]
    fn bits(self) -> u32 {
        self.to_bitmask()
    }
    #[inline(always)]
    fn choose(self, if_set: Self, if_clear: Self) -> Self {
        self.select(if_set, if_clear)
    }
    #[inline(always)]
    fn flag(indices: &[u32; 4], bit: u32) -> Self {
        F4::new(indices.map(|i| ((i >> bit) & 1) as f32))
    }
    #[inline(always)]
    fn vectors(vector: impl Fn(usize) -> Vec3A) -> V3<Self> {
        V3::from_aligned(std::array::from_fn(vector))
    }
    #[inline(always)]
    fn quats(quat: impl Fn(usize) -> Quat) -> Q4<Self> {
        Q4::from_aligned(std::array::from_fn(quat))
    }
    #[inline(always)]
    fn each_vector_pair(a: &V3<Self>, b: &V3<Self>, mut f: impl FnMut(usize, Vec3A, Vec3A)) {
        for (i, (a, b)) in a.to_aligned().into_iter().zip(b.to_aligned()).enumerate() {
            f(i, a, b);
        }
    }
}

/// 3-vectors in lanes, one per lane (structure of arrays).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct V3<F: Lanes = F4> {
    pub x: F,
    pub y: F,
    pub z: F,
}

impl V3<F4> {
    /// Lanes from four vectors.
    #[cfg(test)]
    pub fn from_lanes(v: [Vec3; 4]) -> V3 {
        V3::build(|i| v[i])
    }

    /// Lanes from four aligned vectors: one load each and a 4×4 transpose.
    #[inline(always)]
    pub fn from_aligned(v: [Vec3A; 4]) -> V3 {
        let [x, y, z, _] = F4::transpose(v.map(|v| F4::new([v.x, v.y, v.z, 0.0])));
        V3 { x, y, z }
    }

    /// The four lanes as aligned vectors (the transpose of [`V3::from_aligned`]).
    #[inline(always)]
    pub fn to_aligned(self) -> [Vec3A; 4] {
        F4::transpose([self.x, self.y, self.z, F4::ZERO]).map(|row| {
            let [x, y, z, _] = row.to_array();
            Vec3A::new(x, y, z)
        })
    }
}

impl<F: Lanes> V3<F> {
    /// Lane i from `vector(i)`.
    #[inline(always)]
    pub fn build(vector: impl Fn(usize) -> Vec3) -> V3<F> {
        V3 { x: F::build(|i| vector(i).x), y: F::build(|i| vector(i).y), z: F::build(|i| vector(i).z) }
    }

    /// The vector of lane `i`.
    #[inline(always)]
    pub fn lane(&self, i: usize) -> Vec3 {
        Vec3::new(self.x.get(i), self.y.get(i), self.z.get(i))
    }

    #[inline(always)]
    pub fn dot(&self, o: &V3<F>) -> F {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline(always)]
    pub fn cross(&self, o: &V3<F>) -> V3<F> {
        V3 { x: self.y * o.z - self.z * o.y, y: self.z * o.x - self.x * o.z, z: self.x * o.y - self.y * o.x }
    }

    #[inline(always)]
    pub fn add(&self, o: &V3<F>) -> V3<F> {
        V3 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }

    #[inline(always)]
    pub fn sub(&self, o: &V3<F>) -> V3<F> {
        V3 { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }

    #[inline(always)]
    pub fn scale(&self, s: F) -> V3<F> {
        V3 { x: self.x * s, y: self.y * s, z: self.z * s }
    }

    /// self + o·s
    #[inline(always)]
    pub fn add_scaled(&self, o: &V3<F>, s: F) -> V3<F> {
        V3 { x: self.x + o.x * s, y: self.y + o.y * s, z: self.z + o.z * s }
    }
}

/// Symmetric 3×3 matrices (inverse inertia), one per lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sym3<F: Lanes = F4> {
    pub xx: F,
    pub xy: F,
    pub xz: F,
    pub yy: F,
    pub yz: F,
    pub zz: F,
}

impl Sym3<F4> {
    /// Lanes from four symmetric matrices (the upper triangle is read).
    #[cfg(test)]
    pub fn from_lanes(m: [crate::math::Mat3; 4]) -> Sym3 {
        Sym3::build(|i| m[i])
    }
}

impl<F: Lanes> Sym3<F> {
    /// Lane i from the symmetric matrix `matrix(i)` (its upper triangle is read).
    #[inline(always)]
    pub fn build(matrix: impl Fn(usize) -> crate::math::Mat3) -> Sym3<F> {
        Sym3 {
            xx: F::build(|i| matrix(i).x_axis.x),
            xy: F::build(|i| matrix(i).y_axis.x),
            xz: F::build(|i| matrix(i).z_axis.x),
            yy: F::build(|i| matrix(i).y_axis.y),
            yz: F::build(|i| matrix(i).z_axis.y),
            zz: F::build(|i| matrix(i).z_axis.z),
        }
    }

    /// The matrix of lane `i`.
    pub fn lane(&self, i: usize) -> crate::math::Mat3 {
        let e = |f: &F| f.get(i);
        let (xx, xy, xz, yy, yz, zz) = (e(&self.xx), e(&self.xy), e(&self.xz), e(&self.yy), e(&self.yz), e(&self.zz));
        crate::math::Mat3::from_cols(Vec3::new(xx, xy, xz), Vec3::new(xy, yy, yz), Vec3::new(xz, yz, zz))
    }

    /// M·v per lane.
    #[inline(always)]
    pub fn mul(&self, v: &V3<F>) -> V3<F> {
        V3 {
            x: self.xx * v.x + self.xy * v.y + self.xz * v.z,
            y: self.xy * v.x + self.yy * v.y + self.yz * v.z,
            z: self.xz * v.x + self.yz * v.y + self.zz * v.z,
        }
    }

    /// The sum per lane.
    #[inline(always)]
    pub fn add(&self, o: &Sym3<F>) -> Sym3<F> {
        Sym3 {
            xx: self.xx + o.xx,
            xy: self.xy + o.xy,
            xz: self.xz + o.xz,
            yy: self.yy + o.yy,
            yz: self.yz + o.yz,
            zz: self.zz + o.zz,
        }
    }

    /// −[r]× M [r]× per lane, M being this symmetric matrix: entry (i, j) is
    /// (r × e_i)·M(r × e_j), the angular part of a point's effective mass K through M.
    #[inline(always)]
    pub fn through_arm(&self, r: &V3<F>) -> Sym3<F> {
        let zero = F::fill(0.0);
        let arm_x = V3 { x: zero, y: r.z, z: -r.y };
        let arm_y = V3 { x: -r.z, y: zero, z: r.x };
        let arm_z = V3 { x: r.y, y: -r.x, z: zero };
        let (m_x, m_y, m_z) = (self.mul(&arm_x), self.mul(&arm_y), self.mul(&arm_z));
        Sym3 {
            xx: arm_x.dot(&m_x),
            xy: arm_x.dot(&m_y),
            xz: arm_x.dot(&m_z),
            yy: arm_y.dot(&m_y),
            yz: arm_y.dot(&m_z),
            zz: arm_z.dot(&m_z),
        }
    }

    /// M⁻¹ per lane, from the cofactors: M⁻¹ = adj(M) / det M. A lane whose determinant is
    /// zero, subnormal or not finite gets the zero matrix (its constraint then does nothing).
    #[inline(always)]
    pub fn inverse(&self) -> Sym3<F> {
        let Sym3 { xx, xy, xz, yy, yz, zz } = *self;
        let (c_xx, c_xy, c_xz) = (yy * zz - yz * yz, xz * yz - xy * zz, xy * yz - xz * yy);
        let (c_yy, c_yz, c_zz) = (xx * zz - xz * xz, xy * xz - xx * yz, xx * yy - xy * xy);
        let det = xx * c_xx + xy * c_xy + xz * c_xz;
        let size = det.magnitude();
        let usable = size.above(F::fill(f32::MIN_POSITIVE)) & size.below(F::fill(f32::INFINITY));
        let scale = usable.choose(F::fill(1.0) / det, F::fill(0.0));
        Sym3 {
            xx: c_xx * scale,
            xy: c_xy * scale,
            xz: c_xz * scale,
            yy: c_yy * scale,
            yz: c_yz * scale,
            zz: c_zz * scale,
        }
    }
}

/// Unit quaternions, one per lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Q4<F: Lanes = F4> {
    pub x: F,
    pub y: F,
    pub z: F,
    pub w: F,
}

impl Q4<F4> {
    /// Lanes from four quaternions.
    #[cfg(test)]
    pub fn from_lanes(q: [Quat; 4]) -> Q4 {
        Q4 {
            x: F4::new([q[0].x, q[1].x, q[2].x, q[3].x]),
            y: F4::new([q[0].y, q[1].y, q[2].y, q[3].y]),
            z: F4::new([q[0].z, q[1].z, q[2].z, q[3].z]),
            w: F4::new([q[0].w, q[1].w, q[2].w, q[3].w]),
        }
    }

    /// Lanes from four quaternions by one load each and a 4×4 transpose.
    #[inline(always)]
    pub fn from_aligned(q: [Quat; 4]) -> Q4 {
        let [x, y, z, w] = F4::transpose(q.map(|q| F4::new(q.to_array())));
        Q4 { x, y, z, w }
    }

    /// The four lanes as quaternions (the transpose of [`Q4::from_aligned`]).
    #[inline(always)]
    pub fn to_aligned(self) -> [Quat; 4] {
        F4::transpose([self.x, self.y, self.z, self.w]).map(|row| Quat::from_array(row.to_array()))
    }

    /// Per lane: `self` where `mask` is set, else `other`.
    #[inline(always)]
    pub fn select(&self, mask: F4, other: &Q4) -> Q4 {
        Q4 {
            x: mask.select(self.x, other.x),
            y: mask.select(self.y, other.y),
            z: mask.select(self.z, other.z),
            w: mask.select(self.w, other.w),
        }
    }

    /// Turned by the rotation vector `angle` (rad), to first order and normalised:
    /// q' = normalise(q + ½ (angle, 0) q), as `math::integrate_rotation` with h = 1.
    #[inline(always)]
    pub fn integrate(&self, angle: &V3) -> Q4 {
        let half = angle.scale(F4::splat(0.5));
        // (a, 0)·(u, w) = (w a + a × u, −a·u) with u the vector part of q.
        let u = V3 { x: self.x, y: self.y, z: self.z };
        let turn = half.scale(self.w).add(&half.cross(&u));
        let (x, y, z, w) = (self.x + turn.x, self.y + turn.y, self.z + turn.z, self.w - half.dot(&u));
        let inv_length = F4::ONE / (x * x + y * y + z * z + w * w).sqrt();
        Q4 { x: x * inv_length, y: y * inv_length, z: z * inv_length, w: w * inv_length }
    }
}

impl<F: Lanes> Q4<F> {
    /// The inverse rotation of a unit quaternion.
    #[inline(always)]
    pub fn conjugate(&self) -> Q4<F> {
        Q4 { x: -self.x, y: -self.y, z: -self.z, w: self.w }
    }

    /// Rotates `v` by the quaternion: v + 2w (u × v) + 2 u × (u × v), u = (x, y, z).
    #[inline(always)]
    pub fn rotate(&self, v: &V3<F>) -> V3<F> {
        let u = V3 { x: self.x, y: self.y, z: self.z };
        let t = u.cross(v).scale(F::fill(2.0));
        v.add_scaled(&t, self.w).add(&u.cross(&t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;

    #[test]
    fn lanes_match_scalar_math() {
        let a = [Vec3::new(1.0, 2.0, 3.0), Vec3::X, Vec3::new(-0.5, 0.25, 4.0), Vec3::ZERO];
        let b = [Vec3::new(0.3, -1.0, 2.0), Vec3::Y, Vec3::new(2.0, 1.0, -1.0), Vec3::ONE];
        let q = [Quat::from_rotation_y(0.3), Quat::IDENTITY, Quat::from_rotation_x(-1.2), Quat::from_rotation_z(2.0)];
        let m: [Mat3; 4] = std::array::from_fn(|i| {
            let r = Mat3::from_quat(q[i]);
            r * Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0)) * r.transpose()
        });
        let (va, vb, vq, vm) = (V3::from_lanes(a), V3::from_lanes(b), Q4::from_lanes(q), Sym3::from_lanes(m));
        let aligned = V3::from_aligned(a.map(Vec3A::from));
        assert_eq!(aligned.to_aligned().map(Vec3::from), a);
        let q_aligned = Q4::from_aligned(q);
        assert_eq!(q_aligned.to_aligned(), q);
        for (lane, quat) in q.iter().enumerate() {
            let lane_of = |f: F4| f.as_array()[lane];
            let back =
                Quat::from_xyzw(lane_of(q_aligned.x), lane_of(q_aligned.y), lane_of(q_aligned.z), lane_of(q_aligned.w));
            assert_eq!(back, *quat);
        }
        for i in 0..4 {
            assert!((va.cross(&vb).lane(i) - a[i].cross(b[i])).length() < 1e-5);
            assert!((va.dot(&vb).as_array()[i] - a[i].dot(b[i])).abs() < 1e-5);
            assert!((vq.rotate(&va).lane(i) - q[i] * a[i]).length() < 1e-5);
            assert!((vm.mul(&va).lane(i) - m[i] * a[i]).length() < 1e-4);
            let turned = vq.integrate(&vb).to_aligned()[i];
            let expected = crate::math::integrate_rotation(q[i], b[i], 1.0);
            assert!(turned.abs_diff_eq(expected, 1e-6), "{turned} {expected}");
        }
    }
}
