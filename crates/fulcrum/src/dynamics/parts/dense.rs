//! Small dense symmetric systems (at most six rows): the effective-mass blocks of joints and
//! the per-joint blocks of the exact tree solve.
//!
//! K is symmetric positive definite for independent rows. Rows that are dependent (a joint
//! that locks a degree of freedom twice, or a degenerate pose) make it singular; every
//! factorisation adds a relative regularisation ε·(trace/n) to the diagonal so it stays
//! well posed, and reports failure only for non-finite input. The tree solve's blocks leave
//! dependent rows out instead (`inverse_independent`).
// Small fixed-size matrices read best with explicit row/column indices.
#![allow(clippy::needless_range_loop)]

/// Largest block size.
pub(crate) const MAX_ROWS: usize = 6;

/// Relative diagonal regularisation of every factorisation.
pub(crate) const REGULARISATION: f32 = 1e-5;

/// A dense square matrix of at most [`MAX_ROWS`] rows; only the leading `n × n` is used.
pub(crate) type Mat6 = [[f32; MAX_ROWS]; MAX_ROWS];

/// A vector of at most [`MAX_ROWS`] entries.
pub(crate) type Vec6 = [f32; MAX_ROWS];

/// The scalars the factorisations run in: f32 for the joints' own blocks, f64 for the exact
/// tree solve (see `joints::forest`).
pub(crate) trait Real:
    Copy
    + PartialOrd
    + std::iter::Sum
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::SubAssign
{
    const ZERO: Self;
    const ONE: Self;
    const MIN_POSITIVE: Self;
    /// A pivot at most this fraction of its row's own size is taken for zero in
    /// [`inverse_independent`]: rounding, not a row of its own.
    const DEPENDENT_PIVOT: Self;
    /// The relative diagonal regularisation of [`inverse_independent`] (times trace/n).
    const REGULARISATION: Self;
    fn from_f32(x: f32) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn is_finite(self) -> bool;
}

macro_rules! real {
    ($t:ty, $dependent:expr, $regularisation:expr) => {
        impl Real for $t {
            const DEPENDENT_PIVOT: Self = $dependent;
            const REGULARISATION: Self = $regularisation;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            #[inline]
            fn from_f32(x: f32) -> Self {
                x as $t
            }
            #[inline]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
        }
    };
}
real!(f32, DEPENDENT_PIVOT, REGULARISATION);
// f64 rounding is 10⁹ times finer; rows that repeat others by geometry are found and left out
// before (`joints::forest::loops`), so only exact repeats (zeroed rows) remain to be caught,
// and a thin link's own small pivots (10⁻⁵ of its row's size for a 10 m rail 2 cm thick) stay.
// The trace is dominated by such a link's axial inverse inertia: 10⁻⁵ of it made its point
// rows 1–6% soft (a welded ladder's joints moved by 1 cm/s after a solve).
real!(f64, 1e-9, 1e-12);

/// A square matrix of at most [`MAX_ROWS`] rows of `T`.
pub(crate) type Square<T> = [[T; MAX_ROWS]; MAX_ROWS];

/// The lower Cholesky factor L (K + εI = L Lᵀ) of the leading `n × n` block, or `None` when a
/// pivot is not positive and finite.
pub(crate) fn cholesky(k: &Mat6, n: usize) -> Option<Mat6> {
    let trace: f32 = (0..n).map(|i| k[i][i].abs()).sum();
    let epsilon = REGULARISATION * trace / n.max(1) as f32 + f32::MIN_POSITIVE;
    let mut l = [[0.0; MAX_ROWS]; MAX_ROWS];
    for j in 0..n {
        let mut diagonal = k[j][j] + epsilon;
        for p in 0..j {
            diagonal -= l[j][p] * l[j][p];
        }
        if !(diagonal > 0.0) || !diagonal.is_finite() {
            return None;
        }
        let pivot = diagonal.sqrt();
        l[j][j] = pivot;
        fill_column(k, &mut l, j, n);
    }
    Some(l)
}

/// Solves L Lᵀ x = b with a factor from [`cholesky`].
pub(crate) fn cholesky_solve<T: Real>(l: &Square<T>, b: &[T; MAX_ROWS], n: usize) -> [T; MAX_ROWS] {
    let mut y = [T::ZERO; MAX_ROWS];
    for i in 0..n {
        let mut value = b[i];
        for p in 0..i {
            value -= l[i][p] * y[p];
        }
        y[i] = value / l[i][i];
    }
    let mut x = [T::ZERO; MAX_ROWS];
    for i in (0..n).rev() {
        let mut value = y[i];
        for p in i + 1..n {
            value -= l[p][i] * x[p];
        }
        x[i] = value / l[i][i];
    }
    x
}

/// A pivot at most this fraction of its row's reference size marks the row as dependent in
/// [`inverse_independent`].
pub(crate) const DEPENDENT_PIVOT: f32 = 1e-4;

/// The inverse of a symmetric positive semi-definite `n × n` block on its independent rows
/// (regularised like [`cholesky`]). Row j is left out when its pivot is at most
/// [`DEPENDENT_PIVOT`] times `reference[j]`, the size the row would have on its own (J M⁻¹ Jᵀ
/// with nothing else holding the bodies): what earlier rows and the rest of the system
/// already hold. The last hinge of a closed planar linkage is such a row three times over
/// (its out-of-plane rows see a body the rest of the loop keeps in the plane). Its row and
/// column of the inverse are zero, so it takes no impulse, and its error (inconsistent with
/// the others' by rounding) is not amplified by 1/ε into a growing self-stress of the loop.
/// `None` when a pivot is not finite.
pub(crate) fn inverse_independent<T: Real>(k: &Square<T>, n: usize, reference: &[T; MAX_ROWS]) -> Option<Square<T>> {
    let trace: T = (0..n).map(|i| k[i][i].abs()).sum();
    let epsilon = T::REGULARISATION * trace / T::from_f32(n.max(1) as f32) + T::MIN_POSITIVE;
    let mut l = [[T::ZERO; MAX_ROWS]; MAX_ROWS];
    let mut independent = [false; MAX_ROWS];
    for j in 0..n {
        let mut diagonal = k[j][j];
        for p in 0..j {
            diagonal -= l[j][p] * l[j][p];
        }
        if !diagonal.is_finite() {
            return None;
        }
        if diagonal <= T::DEPENDENT_PIVOT * reference[j] {
            // Left out: a unit pivot in an otherwise zero row and column keeps the other
            // rows' solve intact.
            l[j] = [T::ZERO; MAX_ROWS];
            l[j][j] = T::ONE;
            continue;
        }
        independent[j] = true;
        let pivot = (diagonal + epsilon).sqrt();
        l[j][j] = pivot;
        fill_column(k, &mut l, j, n);
    }
    let mut inverse = [[T::ZERO; MAX_ROWS]; MAX_ROWS];
    for column in (0..n).filter(|&c| independent[c]) {
        let mut unit = [T::ZERO; MAX_ROWS];
        unit[column] = T::ONE;
        let x = cholesky_solve(&l, &unit, n);
        for row in (0..n).filter(|&r| independent[r]) {
            inverse[row][column] = x[row];
        }
    }
    Some(inverse)
}

/// Column j of the Cholesky factor below its pivot `l[j][j]`:
/// L_ij = (K_ij − Σ_{p<j} L_ip L_jp) / L_jj.
fn fill_column<T: Real>(k: &Square<T>, l: &mut Square<T>, j: usize, n: usize) {
    let pivot = l[j][j];
    for i in j + 1..n {
        let mut value = k[i][j];
        for p in 0..j {
            value -= l[i][p] * l[j][p];
        }
        l[i][j] = value / pivot;
    }
}

/// Solves K x = b for a symmetric positive definite block; `None` when K cannot be factored.
pub(crate) fn solve_spd(k: &Mat6, b: &Vec6, n: usize) -> Option<Vec6> {
    cholesky(k, n).map(|l| cholesky_solve(&l, b, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spd(n: usize) -> Mat6 {
        // A = B Bᵀ + I for a fixed B.
        let b: Mat6 = std::array::from_fn(|i| std::array::from_fn(|j| ((i * 7 + j * 3) % 5) as f32 - 2.0));
        let mut a = [[0.0; MAX_ROWS]; MAX_ROWS];
        for i in 0..n {
            for j in 0..n {
                a[i][j] = (0..n).map(|p| b[i][p] * b[j][p]).sum::<f32>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        a
    }

    #[test]
    fn solves_and_inverts_every_size() {
        for n in 1..=MAX_ROWS {
            let a = spd(n);
            let b: Vec6 = std::array::from_fn(|i| i as f32 - 1.5);
            let x = solve_spd(&a, &b, n).unwrap();
            for i in 0..n {
                let ax: f32 = (0..n).map(|j| a[i][j] * x[j]).sum();
                assert!((ax - b[i]).abs() < 1e-3 * (1.0 + b[i].abs()), "n {n} row {i}: {ax} vs {}", b[i]);
            }
            let diagonal: Vec6 = std::array::from_fn(|i| a[i][i]);
            let inverse = inverse_independent(&a, n, &diagonal).unwrap();
            for i in 0..n {
                for j in 0..n {
                    let product: f32 = (0..n).map(|p| a[i][p] * inverse[p][j]).sum();
                    let expected = if i == j { 1.0 } else { 0.0 };
                    assert!((product - expected).abs() < 1e-3, "n {n}: A A⁻¹ [{i}][{j}] = {product}");
                }
            }
        }
    }

    /// Two identical rows (a redundant constraint) still factor thanks to the regularisation,
    /// and the solution splits the demand between them.
    #[test]
    fn redundant_rows_stay_solvable() {
        let mut k = [[0.0; MAX_ROWS]; MAX_ROWS];
        k[0] = [2.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        k[1] = [2.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        let x = solve_spd(&k, &[1.0, 1.0, 0.0, 0.0, 0.0, 0.0], 2).unwrap();
        assert!((2.0 * x[0] + 2.0 * x[1] - 1.0).abs() < 1e-3, "the demand is met: {x:?}");
        // f32 rounding in the near-zero pivot decides the split only to a few per cent.
        assert!((x[0] - x[1]).abs() < 0.02, "the demand is split evenly: {x:?}");
        let mut nan = k;
        nan[0][0] = f32::NAN;
        assert!(cholesky(&nan, 2).is_none());
    }

    /// The inverse on independent rows leaves the repeat of a row out: the first row takes
    /// the whole demand, the second none (its row and column are zero).
    #[test]
    fn repeated_row_is_left_out_of_the_inverse() {
        let mut k = [[0.0; MAX_ROWS]; MAX_ROWS];
        k[0] = [2.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        k[1] = [2.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        k[2] = [0.0, 0.0, 3.0, 0.0, 0.0, 0.0];
        let inverse = inverse_independent(&k, 3, &[2.0, 2.0, 3.0, 0.0, 0.0, 0.0]).unwrap();
        assert!((inverse[0][0] - 0.5).abs() < 1e-4, "{inverse:?}");
        assert!((inverse[2][2] - 1.0 / 3.0).abs() < 1e-4, "{inverse:?}");
        assert!(inverse[1].iter().chain((0..3).map(|i| &inverse[i][1])).all(|&x| x == 0.0), "{inverse:?}");
    }
}
