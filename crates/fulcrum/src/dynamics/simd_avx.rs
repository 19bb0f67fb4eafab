//! Eight lanes of `f32` in one AVX register, for the wide constraints on CPUs with AVX2.
//!
//! Every operation is the AVX form of the one `wide`'s four lanes use (the same IEEE
//! operation per lane: no fused multiply-add, negation as a sign flip, `blendv` for
//! selection), so a constraint solved in eight lanes gives the bits it gives in four.
//!
//! The operations are plain functions around the intrinsics, inlined into the solver's
//! kernels, which are compiled for AVX2 (`#[target_feature]`). Values of [`F8`] are made
//! only on the path chosen when the CPU reports AVX2 ([`eight_lanes_available`]): that is
//! what makes calling the intrinsics sound.

use std::fmt;
use std::ops::{Add, AddAssign, BitAnd, BitAndAssign, BitOr, Div, Mul, MulAssign, Neg, Not, Sub, SubAssign};

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::simd::{Lanes, F4, Q4, V3};
use crate::math::{Quat, Vec3A};

/// Does this CPU run the eight-lane kernels (AVX2)? Checked once, then cached by `std`.
pub(crate) fn eight_lanes_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Eight `f32`, one per lane.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct F8(__m256);

#[cfg(target_arch = "x86_64")]
impl F8 {
    fn from_array(values: [f32; 8]) -> F8 {
        // SAFETY: __m256 is eight f32 in memory order, with no invalid bit patterns.
        F8(unsafe { std::mem::transmute::<[f32; 8], __m256>(values) })
    }

    fn to_array(self) -> [f32; 8] {
        // SAFETY: as above.
        unsafe { std::mem::transmute::<__m256, [f32; 8]>(self.0) }
    }

    /// Lanes 0–3 from `low`, 4–7 from `high`.
    #[inline(always)]
    fn join(low: F4, high: F4) -> F8 {
        // SAFETY: f32x4 is one __m128 on x86_64; F8 exists only where AVX is present.
        unsafe {
            let (low, high) = (std::mem::transmute::<F4, __m128>(low), std::mem::transmute::<F4, __m128>(high));
            F8(_mm256_set_m128(high, low))
        }
    }

    /// Lanes 0–3 and lanes 4–7.
    #[inline(always)]
    pub(crate) fn halves(self) -> (F4, F4) {
        // SAFETY: as in `join`.
        unsafe {
            let (low, high) = (_mm256_castps256_ps128(self.0), _mm256_extractf128_ps::<1>(self.0));
            (std::mem::transmute::<__m128, F4>(low), std::mem::transmute::<__m128, F4>(high))
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl V3<F8> {
    /// Lanes 0–3 and lanes 4–7.
    #[inline(always)]
    fn halves(&self) -> (V3<F4>, V3<F4>) {
        let ((x0, x1), (y0, y1), (z0, z1)) = (self.x.halves(), self.y.halves(), self.z.halves());
        (V3 { x: x0, y: y0, z: z0 }, V3 { x: x1, y: y1, z: z1 })
    }
}

#[cfg(target_arch = "x86_64")]
impl Default for F8 {
    fn default() -> F8 {
        F8::from_array([0.0; 8])
    }
}

#[cfg(target_arch = "x86_64")]
impl fmt::Debug for F8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_array().fmt(f)
    }
}

/// A binary operator of F8 through its AVX intrinsic.
macro_rules! binary {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        #[cfg(target_arch = "x86_64")]
        impl $trait for F8 {
            type Output = F8;
            #[inline(always)]
            fn $method(self, other: F8) -> F8 {
                // SAFETY: F8 exists only where AVX is present (module notes).
                F8(unsafe { $intrinsic(self.0, other.0) })
            }
        }
    };
}

binary!(Add, add, _mm256_add_ps);
binary!(Sub, sub, _mm256_sub_ps);
binary!(Mul, mul, _mm256_mul_ps);
binary!(Div, div, _mm256_div_ps);
binary!(BitAnd, bitand, _mm256_and_ps);
binary!(BitOr, bitor, _mm256_or_ps);

#[cfg(target_arch = "x86_64")]
impl Not for F8 {
    type Output = F8;
    #[inline(always)]
    fn not(self) -> F8 {
        // SAFETY: as above. Every bit flipped, as `wide` does.
        F8(unsafe { _mm256_xor_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) })
    }
}

#[cfg(target_arch = "x86_64")]
impl MulAssign for F8 {
    #[inline(always)]
    fn mul_assign(&mut self, other: F8) {
        *self = *self * other;
    }
}

#[cfg(target_arch = "x86_64")]
impl BitAndAssign for F8 {
    #[inline(always)]
    fn bitand_assign(&mut self, other: F8) {
        *self = *self & other;
    }
}

#[cfg(target_arch = "x86_64")]
impl Neg for F8 {
    type Output = F8;
    #[inline(always)]
    fn neg(self) -> F8 {
        // SAFETY: as above. The sign bit flipped, as `wide` does.
        F8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}

#[cfg(target_arch = "x86_64")]
impl AddAssign for F8 {
    #[inline(always)]
    fn add_assign(&mut self, other: F8) {
        *self = *self + other;
    }
}

#[cfg(target_arch = "x86_64")]
impl SubAssign for F8 {
    #[inline(always)]
    fn sub_assign(&mut self, other: F8) {
        *self = *self - other;
    }
}

// SAFETY (every intrinsic below): F8 exists only where AVX is present (module notes).
#[cfg(target_arch = "x86_64")]
impl Lanes for F8 {
    const COUNT: usize = 8;
    type Indices = [u32; 8];
    #[inline(always)]
    fn fill(value: f32) -> F8 {
        F8(unsafe { _mm256_set1_ps(value) })
    }
    #[inline(always)]
    fn build(f: impl FnMut(usize) -> f32) -> F8 {
        F8::from_array(std::array::from_fn(f))
    }
    #[inline(always)]
    fn get(&self, i: usize) -> f32 {
        assert!(i < 8, "lane {i} of 8");
        // SAFETY: F8 is eight f32 in memory order; i is in range.
        unsafe { (self as *const F8).cast::<f32>().add(i).read() }
    }
    #[inline(always)]
    fn set(&mut self, i: usize, value: f32) {
        // Written in place, as `wide` does: a round trip through an array stalls on the store.
        assert!(i < 8, "lane {i} of 8");
        // SAFETY: F8 is eight f32 in memory order; i is in range.
        unsafe { (self as *mut F8).cast::<f32>().add(i).write(value) }
    }
    #[inline(always)]
    fn magnitude(self) -> F8 {
        F8(unsafe { _mm256_and_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX))) })
    }
    #[inline(always)]
    fn above(self, other: F8) -> F8 {
        F8(unsafe { _mm256_cmp_ps::<_CMP_GT_OS>(self.0, other.0) })
    }
    #[inline(always)]
    fn below(self, other: F8) -> F8 {
        F8(unsafe { _mm256_cmp_ps::<_CMP_LT_OS>(self.0, other.0) })
    }
    #[inline(always)]
    fn at_least(self, other: F8) -> F8 {
        F8(unsafe { _mm256_cmp_ps::<_CMP_GE_OS>(self.0, other.0) })
    }
    #[inline(always)]
    fn max(self, other: F8) -> F8 {
        // maxps gives its second operand where either is NaN; `wide` keeps `self` where
        // `other` is NaN.
        let other_nan = F8(unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(other.0, other.0) });
        other_nan.choose(self, F8(unsafe { _mm256_max_ps(self.0, other.0) }))
    }
    #[inline(always)]
    fn min(self, other: F8) -> F8 {
        let other_nan = F8(unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(other.0, other.0) });
        other_nan.choose(self, F8(unsafe { _mm256_min_ps(self.0, other.0) }))
    }
    #[inline(always)]
    fn sqrt(self) -> F8 {
        F8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn bits(self) -> u32 {
        (unsafe { _mm256_movemask_ps(self.0) }) as u32
    }
    #[inline(always)]
    fn choose(self, if_set: F8, if_clear: F8) -> F8 {
        F8(unsafe { _mm256_blendv_ps(if_clear.0, if_set.0, self.0) })
    }
    #[inline(always)]
    fn flag(indices: &[u32; 8], bit: u32) -> F8 {
        // SAFETY: [u32; 8] is 32 bytes, read unaligned; F8 exists only where AVX2 is present.
        unsafe {
            let indices = _mm256_loadu_si256(indices.as_ptr().cast());
            let set = _mm256_and_si256(_mm256_srlv_epi32(indices, _mm256_set1_epi32(bit as i32)), _mm256_set1_epi32(1));
            F8(_mm256_cvtepi32_ps(set))
        }
    }
    #[inline(always)]
    fn vectors(vector: impl Fn(usize) -> Vec3A) -> V3<F8> {
        let (low, high) = (F4::vectors(&vector), F4::vectors(|i| vector(i + 4)));
        V3 { x: F8::join(low.x, high.x), y: F8::join(low.y, high.y), z: F8::join(low.z, high.z) }
    }
    #[inline(always)]
    fn quats(quat: impl Fn(usize) -> Quat) -> Q4<F8> {
        let (low, high) = (F4::quats(&quat), F4::quats(|i| quat(i + 4)));
        let join = F8::join;
        Q4 { x: join(low.x, high.x), y: join(low.y, high.y), z: join(low.z, high.z), w: join(low.w, high.w) }
    }
    #[inline(always)]
    fn each_vector_pair(a: &V3<F8>, b: &V3<F8>, mut f: impl FnMut(usize, Vec3A, Vec3A)) {
        let (a_low, a_high) = a.halves();
        let (b_low, b_high) = b.halves();
        F4::each_vector_pair(&a_low, &b_low, &mut f);
        F4::each_vector_pair(&a_high, &b_high, |i, a, b| f(i + 4, a, b));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Values that probe the corners of IEEE arithmetic: signed zeros, a subnormal, huge and
    /// tiny magnitudes, infinities and NaN, among ordinary numbers.
    const SAMPLES: [f32; 16] = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        1e-40,
        3.4e38,
        -1e-30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.1,
        7.0,
        -0.75,
        1e10,
        123.456,
        -1e-3,
    ];

    /// Every operation of eight lanes gives, lane by lane, the bits four lanes give (on a CPU
    /// without AVX2 there are no eight lanes to compare).
    #[test]
    fn eight_lanes_give_the_bits_of_four() {
        if !eight_lanes_available() {
            return;
        }
        // SAFETY: checked above that the CPU has AVX2.
        unsafe { compare_all() }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn compare_all() {
        for shift in 0..SAMPLES.len() {
            let a: [f32; 8] = std::array::from_fn(|i| SAMPLES[i]);
            let b: [f32; 8] = std::array::from_fn(|i| SAMPLES[(i + shift + 8) % SAMPLES.len()]);
            let (a8, b8) = (F8::from_array(a), F8::from_array(b));
            let (a4, b4) = (|h: usize| F4::build(|i| a[4 * h + i]), |h: usize| F4::build(|i| b[4 * h + i]));
            type Unary = (&'static str, fn(F8) -> F8, fn(F4) -> F4);
            let unary: [Unary; 3] =
                [("neg", |x| -x, |x| -x), ("magnitude", F8::magnitude, F4::magnitude), ("sqrt", F8::sqrt, F4::sqrt)];
            for (name, eight, four) in unary {
                check(name, eight(a8), [four(a4(0)), four(a4(1))]);
            }
            type Binary = (&'static str, fn(F8, F8) -> F8, fn(F4, F4) -> F4);
            let binary: [Binary; 11] = [
                ("add", |x, y| x + y, |x, y| x + y),
                ("sub", |x, y| x - y, |x, y| x - y),
                ("mul", |x, y| x * y, |x, y| x * y),
                ("div", |x, y| x / y, |x, y| x / y),
                ("max", Lanes::max, Lanes::max),
                ("min", Lanes::min, Lanes::min),
                ("above", F8::above, F4::above),
                ("below", F8::below, F4::below),
                ("at_least", F8::at_least, F4::at_least),
                ("and", |x, y| x & y, |x, y| x & y),
                ("or", |x, y| x | y, |x, y| x | y),
            ];
            for (name, eight, four) in binary {
                check(name, eight(a8, b8), [four(a4(0), b4(0)), four(a4(1), b4(1))]);
            }
            let mask8 = a8.above(b8);
            let mask4 = [a4(0).above(b4(0)), a4(1).above(b4(1))];
            check("choose", mask8.choose(a8, b8), [mask4[0].choose(a4(0), b4(0)), mask4[1].choose(a4(1), b4(1))]);
            check("not", !mask8, [!mask4[0], !mask4[1]]);
            assert_eq!(mask8.bits(), mask4[0].bits() | mask4[1].bits() << 4, "bits");
        }
        let indices: [u32; 8] = [0, 1, 2, 0b1010, 0b1111, u32::MAX, 1 << 31, 0b0110];
        for bit in [0, 1, 2, 3, 31] {
            let (low, high): ([u32; 4], [u32; 4]) =
                (std::array::from_fn(|i| indices[i]), std::array::from_fn(|i| indices[i + 4]));
            check("flag", F8::flag(&indices, bit), [F4::flag(&low, bit), F4::flag(&high, bit)]);
            let expected: [f32; 8] = indices.map(|i| if i & (1 << bit) != 0 { 1.0 } else { 0.0 });
            assert_eq!(F8::flag(&indices, bit).to_array(), expected, "flag of bit {bit}");
        }
    }

    /// The eight lanes `eight` against the two halves `four`, bit for bit.
    fn check(name: &str, eight: F8, four: [F4; 2]) {
        let expected: [f32; 8] = std::array::from_fn(|i| four[i / 4].get(i % 4));
        let bits = |v: [f32; 8]| v.map(f32::to_bits);
        assert_eq!(bits(eight.to_array()), bits(expected), "{name}");
    }
}
