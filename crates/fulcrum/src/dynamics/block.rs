//! Block solver for the normal rows of one manifold: all points solved together as a small
//! linear complementarity problem instead of one after another.
//!
//! With x the accumulated normal impulses (n ≤ 4 points), the velocities after applying them
//! are w = K x + b, where K_ij = J_i M⁻¹ J_jᵀ and b is the normal velocity (plus bias) the
//! points would have without any impulse. Contact requires
//!
//! ```text
//! x ≥ 0,   w ≥ 0,   x_i w_i = 0
//! ```
//!
//! For n ≤ 4 the solution is found by trying active sets S (the points that push), largest
//! first: solve K_SS x_S = −b_S, set the rest to zero, and accept when x_S ≥ 0 and w ≥ 0
//! elsewhere. Solving the points together keeps a symmetric contact symmetric; one point at a
//! time, the first point visited takes more than its share and tilts what rests on it
//! ("Understanding Constraints", shared/seeds/003).
//!
//! Four points on one face make K singular (three independent directions: push and two
//! tilts), so the rows are regularised towards the impulses `prior` the points already carry
//! (a proximal step): (K_SS + εE) x_S = −b_S + ε prior_S with ε = 10⁻³·trace(K)/n. The
//! residual ε (prior − x) vanishes as the solution settles, so a resting stack does not sink,
//! and the part of the load the four points could share in any proportion keeps its
//! warm-started split instead of being re-chosen every pass.
// Small fixed-size matrices read best with explicit row/column indices.
#![allow(clippy::needless_range_loop)]

/// Relative diagonal regularisation of K.
pub(crate) const REGULARISATION: f32 = 1e-3;

/// Upper triangle of a symmetric 4×4 matrix: (0,0) (0,1) (0,2) (0,3) (1,1) (1,2) (1,3) (2,2)
/// (2,3) (3,3).
pub(crate) type Sym4 = [f32; 10];

/// Index of entry (i, j) in a [`Sym4`].
#[inline(always)]
pub(crate) fn sym_index(i: usize, j: usize) -> usize {
    let (i, j) = if i <= j { (i, j) } else { (j, i) };
    // Row offsets of the packed upper triangle: 0, 4, 7, 9.
    const OFFSET: [usize; 4] = [0, 4, 7, 9];
    OFFSET[i] + (j - i)
}

/// Cholesky factor of the regularised block of the points expected to push (the active set
/// `mask`), computed once per step in prepare: rows outside the set are identity rows, so a
/// solve with this factor gives those points zero impulse.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BlockFactor {
    /// Lower-triangular L with L Lᵀ = K_mask + εE, packed like [`Sym4`] (entry (i, j), j ≤ i,
    /// at `sym_index(j, i)`); the diagonal holds 1/L_ii.
    l: Sym4,
    /// The regularisation ε added to the diagonal.
    epsilon: f32,
    /// False when the factorisation failed (the block solver is then skipped).
    valid: bool,
    /// Bit i set: point i is in the active set.
    mask: u8,
}

/// All `n` points in the set.
#[inline]
pub(crate) fn full_mask(n: usize) -> u8 {
    ((1u32 << n) - 1) as u8
}

impl BlockFactor {
    /// Factors K + εE for the first `n` rows, ε = [`REGULARISATION`]·trace(K)/n.
    #[cfg(test)]
    pub(crate) fn new(k: &Sym4, n: usize) -> BlockFactor {
        Self::masked(k, n, full_mask(n))
    }

    /// Factors the rows of `mask` (others become identity rows), ε from the full trace.
    pub(crate) fn masked(k: &Sym4, n: usize, mask: u8) -> BlockFactor {
        let trace: f32 = (0..n).map(|i| k[sym_index(i, i)]).sum();
        let epsilon = REGULARISATION * trace / n.max(1) as f32;
        let inside = |i: usize| mask & (1 << i) != 0;
        let entry = |i: usize, j: usize| -> f32 {
            match (inside(i), inside(j)) {
                (true, true) => k[sym_index(i, j)] + if i == j { epsilon } else { 0.0 },
                _ if i == j => 1.0,
                _ => 0.0,
            }
        };
        let mut l = [0.0f32; 10];
        for j in 0..n {
            let mut diagonal = entry(j, j);
            for p in 0..j {
                let v = l[sym_index(p, j)];
                diagonal -= v * v;
            }
            if !(diagonal > 0.0) {
                return BlockFactor { l, epsilon, valid: false, mask };
            }
            let inv = 1.0 / diagonal.sqrt();
            l[sym_index(j, j)] = inv;
            for i in j + 1..n {
                let mut v = entry(i, j);
                for p in 0..j {
                    v -= l[sym_index(p, i)] * l[sym_index(p, j)];
                }
                l[sym_index(j, i)] = v * inv;
            }
        }
        BlockFactor { l, epsilon, valid: true, mask }
    }

    /// A factor from its packed parts (as returned by [`BlockFactor::parts`]).
    pub(crate) fn from_parts(l: Sym4, epsilon: f32, valid: bool, mask: u8) -> BlockFactor {
        BlockFactor { l, epsilon, valid, mask }
    }

    /// The packed factor (inverted diagonal), ε, whether the factorisation succeeded, and the
    /// active set it was made for.
    pub(crate) fn parts(&self) -> (Sym4, f32, bool, u8) {
        (self.l, self.epsilon, self.valid, self.mask)
    }

    /// Solves (K_mask + εE) x = r for the first `n` rows (r must be zero outside the mask).
    fn solve(&self, r: &[f32; 4], n: usize) -> [f32; 4] {
        let mut y = [0.0f32; 4];
        for i in 0..n {
            let mut v = r[i];
            for p in 0..i {
                v -= self.l[sym_index(p, i)] * y[p];
            }
            y[i] = v * self.l[sym_index(i, i)];
        }
        let mut x = [0.0f32; 4];
        for i in (0..n).rev() {
            let mut v = y[i];
            for p in i + 1..n {
                v -= self.l[sym_index(i, p)] * x[p];
            }
            x[i] = v * self.l[sym_index(i, i)];
        }
        x
    }
}

/// The problem of one manifold: w = (K x)/mass_scale + b, x ≥ 0, w ≥ 0, x·w = 0, with the
/// rows regularised towards `prior`.
pub(crate) struct BlockProblem<'a> {
    /// K of the normal rows.
    pub k: &'a Sym4,
    /// Its factor.
    pub factor: &'a BlockFactor,
    /// b: the velocities (with bias) the points would have without any normal impulse.
    pub b: [f32; 4],
    /// The impulses the points carry now (regularisation target).
    pub prior: [f32; 4],
    /// Softness mass scale of the rows (1 for rigid rows).
    pub mass_scale: f32,
    /// Number of points.
    pub n: usize,
}

/// Solves the contact LCP; `None` when no active set passes (numerical trouble), so the
/// caller can fall back to the sequential solve.
///
/// Cheap cases first: no point approaching (x = 0); the factor's active set (one
/// substitution with the cached factor); the points that pushed last time. Then the most
/// negative impulse leaves the full set and the rest is solved again, and only if that greedy
/// path fails are all subsets tried, largest first.
pub(crate) fn solve_lcp(problem: &BlockProblem) -> Option<[f32; 4]> {
    if !problem.factor.valid {
        return None;
    }
    let n = problem.n;
    if problem.b[..n].iter().all(|&v| v >= 0.0) {
        // Nothing approaches even without impulses: no point pushes (side-by-side boxes).
        return Some([0.0; 4]);
    }
    let full = (1u32 << n) - 1;
    // The factor's active set first: the set that solved this manifold last time.
    let set = problem.factor.mask as u32 & full;
    let rhs: [f32; 4] = std::array::from_fn(|i| {
        if set & (1 << i) != 0 {
            -problem.mass_scale * problem.b[i] + problem.factor.epsilon * problem.prior[i]
        } else {
            0.0
        }
    });
    let x = problem.factor.solve(&rhs, n);
    if x[..n].iter().all(|&v| v >= 0.0) && is_complementary(problem, set, &x) {
        return Some(x);
    }
    if let Some(x) = pivot_from(problem, set, &x) {
        return Some(x);
    }
    if let Some(x) = greedy_active_set(problem, full) {
        return Some(x);
    }
    for size in (0..n as u32).rev() {
        for mask in (0..full).rev().filter(|m| m.count_ones() == size) {
            if let Some(x) = try_active_set(problem, mask) {
                return Some(x);
            }
        }
    }
    None
}

/// Active-set pivoting from `set` (whose solution is `x`): while some impulse is negative,
/// the most negative point leaves the set; otherwise, while some point outside approaches,
/// the one approaching fastest joins it. A few small solves at most; `None` if it cycles.
fn pivot_from(problem: &BlockProblem, mut set: u32, x: &[f32; 4]) -> Option<[f32; 4]> {
    let n = problem.n;
    let mut x = *x;
    for _ in 0..2 * n + 2 {
        let inside = |i: &usize| set & (1 << i) != 0;
        let most_negative = (0..n).filter(inside).min_by(|&i, &j| x[i].total_cmp(&x[j])).filter(|&i| x[i] < 0.0);
        if let Some(i) = most_negative {
            set &= !(1 << i);
        } else {
            let approach = |i: usize| {
                let kx: f32 = (0..n).map(|j| problem.k[sym_index(i, j)] * x[j]).sum();
                kx / problem.mass_scale + problem.b[i]
            };
            let fastest = (0..n)
                .filter(|i| !inside(i))
                .map(|i| (i, approach(i)))
                .filter(|&(i, w)| w < -1e-6 * (1.0 + problem.b[i].abs()))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match fastest {
                Some((i, _)) => set |= 1 << i,
                None => return Some(x),
            }
        }
        x = solve_subset(problem, set)?;
    }
    None
}

/// Drops the most negative impulse from the set until all are non-negative.
fn greedy_active_set(problem: &BlockProblem, mut mask: u32) -> Option<[f32; 4]> {
    while mask != 0 {
        let x = solve_subset(problem, mask)?;
        let worst = (0..problem.n).filter(|&i| mask & (1 << i) != 0).min_by(|&i, &j| x[i].total_cmp(&x[j]))?;
        if x[worst] >= 0.0 {
            return is_complementary(problem, mask, &x).then_some(x);
        }
        mask &= !(1 << worst);
    }
    let zero = [0.0; 4];
    is_complementary(problem, 0, &zero).then_some(zero)
}

/// Solves the rows in `mask` with the others at zero; returns x when it is a valid solution.
fn try_active_set(problem: &BlockProblem, mask: u32) -> Option<[f32; 4]> {
    let x = solve_subset(problem, mask)?;
    let non_negative = (0..problem.n).all(|i| mask & (1 << i) == 0 || x[i] >= 0.0);
    (non_negative && is_complementary(problem, mask, &x)).then_some(x)
}

/// Points outside `mask` must not be approaching: w_i = (K x)_i / mass_scale + b_i ≥ 0.
fn is_complementary(problem: &BlockProblem, mask: u32, x: &[f32; 4]) -> bool {
    (0..problem.n).filter(|i| mask & (1 << i) == 0).all(|i| {
        let kx: f32 = (0..problem.n).map(|j| problem.k[sym_index(i, j)] * x[j]).sum();
        kx / problem.mass_scale + problem.b[i] >= -1e-6 * (1.0 + problem.b[i].abs())
    })
}

/// (K_SS + εE) x_S = −mass_scale·b_S + ε·prior_S for the rows in `mask`, others zero.
fn solve_subset(problem: &BlockProblem, mask: u32) -> Option<[f32; 4]> {
    let mut rows = [0usize; 4];
    let mut m = 0;
    for i in 0..problem.n {
        if mask & (1 << i) != 0 {
            rows[m] = i;
            m += 1;
        }
    }
    let mut a = [[0.0f32; 4]; 4];
    let mut rhs = [0.0f32; 4];
    for r in 0..m {
        for c in 0..m {
            a[r][c] = problem.k[sym_index(rows[r], rows[c])];
        }
        a[r][r] += problem.factor.epsilon;
        rhs[r] = -problem.mass_scale * problem.b[rows[r]] + problem.factor.epsilon * problem.prior[rows[r]];
    }
    let solution = solve_dense(&mut a, &mut rhs, m)?;
    let mut x = [0.0f32; 4];
    for r in 0..m {
        x[rows[r]] = solution[r];
    }
    Some(x)
}

/// Gaussian elimination with partial pivoting on an m×m system (m ≤ 4).
fn solve_dense(a: &mut [[f32; 4]; 4], rhs: &mut [f32; 4], m: usize) -> Option<[f32; 4]> {
    for col in 0..m {
        let pivot = (col..m).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if !(a[pivot][col].abs() > 1e-20) {
            return None;
        }
        a.swap(col, pivot);
        rhs.swap(col, pivot);
        for row in col + 1..m {
            let factor = a[row][col] / a[col][col];
            for c in col..m {
                a[row][c] -= factor * a[col][c];
            }
            rhs[row] -= factor * rhs[col];
        }
    }
    let mut x = [0.0f32; 4];
    for row in (0..m).rev() {
        let tail: f32 = (row + 1..m).map(|c| a[row][c] * x[c]).sum();
        x[row] = (rhs[row] - tail) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(k: &Sym4, b: [f32; 4], n: usize) -> [f32; 4] {
        let factor = BlockFactor::new(k, n);
        solve_lcp(&BlockProblem { k, factor: &factor, b, prior: [0.0; 4], mass_scale: 1.0, n }).unwrap()
    }

    /// The greedy path and the exhaustive search agree on random problems.
    #[test]
    fn greedy_and_enumeration_agree() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        for _ in 0..500 {
            // K = A Aᵀ + diag: symmetric positive definite.
            let a: [[f32; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
            let mut m = [[0.0f32; 4]; 4];
            for i in 0..4 {
                for j in 0..4 {
                    m[i][j] = (0..4).map(|p| a[i][p] * a[j][p]).sum::<f32>() + if i == j { 0.5 } else { 0.0 };
                }
            }
            let k = sym(m);
            let b: [f32; 4] = std::array::from_fn(|_| next());
            let x = solve(&k, b, 4);
            for i in 0..4 {
                let w: f32 = (0..4).map(|j| m[i][j] * x[j]).sum::<f32>() + b[i];
                assert!(x[i] >= 0.0 && w >= -1e-3, "x {x:?} w {w}");
                assert!(x[i] * w.abs() < 1e-3, "not complementary: x {x:?} w {w}");
            }
        }
    }

    fn sym(m: [[f32; 4]; 4]) -> Sym4 {
        let mut k = [0.0; 10];
        for i in 0..4 {
            for j in i..4 {
                k[sym_index(i, j)] = m[i][j];
            }
        }
        k
    }

    #[test]
    fn all_points_push_when_all_approach() {
        let k = sym([[2.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0; 4], [0.0; 4]]);
        let x = solve(&k, [-3.0, -3.0, 0.0, 0.0], 2);
        // Symmetric problem, symmetric answer: 3 x = 3 -> x = 1 each (minus regularisation).
        assert!((x[0] - 1.0).abs() < 1e-3 && (x[0] - x[1]).abs() < 1e-6);
    }

    #[test]
    fn a_separating_point_gets_nothing() {
        let k = sym([[2.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0; 4], [0.0; 4]]);
        let x = solve(&k, [-2.0, 5.0, 0.0, 0.0], 2);
        assert_eq!(x[1], 0.0);
        assert!((x[0] - 1.0).abs() < 1e-3);
        // The second point ends separating: w1 = 5 + 1·x0 ≥ 0.
    }

    #[test]
    fn four_coplanar_points_share_the_load_evenly() {
        // A unit-mass cube (inertia 1/6 about each axis) resting on four corners (±0.5, ±0.5)
        // of its bottom face: K_ij = 1 + 6 ((r_i × n)·(r_j × n)).
        let corners = [(-0.5f32, -0.5f32), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
        let mut m = [[0.0f32; 4]; 4];
        for i in 0..4 {
            for j in 0..4 {
                let (xi, zi) = corners[i];
                let (xj, zj) = corners[j];
                // r × (0,1,0) = (-z, 0, x) for r = (x, ·, z).
                m[i][j] = 1.0 + 6.0 * (zi * zj + xi * xj);
            }
        }
        let x = solve(&sym(m), [-1.0; 4], 4);
        let total: f32 = x.iter().sum();
        assert!((total - 1.0).abs() < 1e-2, "total {total}");
        for v in x {
            assert!((v - 0.25).abs() < 1e-3, "uneven share {x:?}");
        }
    }
}
