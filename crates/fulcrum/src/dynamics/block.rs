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
//! (a proximal step): (K_SS + εE) x_S = −b_S + ε prior_S with ε = 10⁻⁴·trace(K)/n. The
//! residual ε (prior − x) vanishes as the solution settles, so a resting stack does not sink,
//! and the part of the load the four points could share in any proportion keeps its
//! warm-started split instead of being re-chosen every pass.

/// Relative diagonal regularisation of K.
const REGULARISATION: f32 = 1e-4;

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

/// Solves the contact LCP for `n` points; `None` when no active set passes (numerical
/// trouble), so the caller can fall back to the sequential solve.
pub(crate) fn solve_lcp(k: &Sym4, b: &[f32; 4], prior: &[f32; 4], n: usize) -> Option<[f32; 4]> {
    let trace: f32 = (0..n).map(|i| k[sym_index(i, i)]).sum();
    let epsilon = REGULARISATION * trace / n.max(1) as f32;
    // Subsets as bit masks, largest first, then by index for determinism.
    let full = (1u32 << n) - 1;
    for size in (0..=n as u32).rev() {
        for mask in (0..=full).rev().filter(|m| m.count_ones() == size) {
            if let Some(x) = try_active_set(k, b, prior, n, mask, epsilon) {
                return Some(x);
            }
        }
    }
    None
}

/// Solves the rows in `mask` with the others at zero; returns x when it is a valid solution.
fn try_active_set(k: &Sym4, b: &[f32; 4], prior: &[f32; 4], n: usize, mask: u32, epsilon: f32) -> Option<[f32; 4]> {
    let mut rows = [0usize; 4];
    let mut m = 0;
    for i in 0..n {
        if mask & (1 << i) != 0 {
            rows[m] = i;
            m += 1;
        }
    }
    let mut a = [[0.0f32; 4]; 4];
    let mut rhs = [0.0f32; 4];
    for r in 0..m {
        for c in 0..m {
            a[r][c] = k[sym_index(rows[r], rows[c])];
        }
        a[r][r] += epsilon;
        rhs[r] = -b[rows[r]] + epsilon * prior[rows[r]];
    }
    let solution = solve_dense(&mut a, &mut rhs, m)?;
    let mut x = [0.0f32; 4];
    for r in 0..m {
        if solution[r] < 0.0 {
            return None;
        }
        x[rows[r]] = solution[r];
    }
    // Points outside the set must not be approaching.
    for i in (0..n).filter(|i| mask & (1 << i) == 0) {
        let w: f32 = b[i] + (0..n).map(|j| k[sym_index(i, j)] * x[j]).sum::<f32>();
        if w < -1e-6 * (1.0 + b[i].abs()) {
            return None;
        }
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
        let x = solve_lcp(&k, &[-3.0, -3.0, 0.0, 0.0], &[0.0; 4], 2).unwrap();
        // Symmetric problem, symmetric answer: 3 x = 3 -> x = 1 each (minus regularisation).
        assert!((x[0] - 1.0).abs() < 1e-3 && (x[0] - x[1]).abs() < 1e-6);
    }

    #[test]
    fn a_separating_point_gets_nothing() {
        let k = sym([[2.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0; 4], [0.0; 4]]);
        let x = solve_lcp(&k, &[-2.0, 5.0, 0.0, 0.0], &[0.0; 4], 2).unwrap();
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
        let x = solve_lcp(&sym(m), &[-1.0; 4], &[0.0; 4], 4).unwrap();
        let total: f32 = x.iter().sum();
        assert!((total - 1.0).abs() < 1e-2, "total {total}");
        for v in x {
            assert!((v - 0.25).abs() < 1e-3, "uneven share {x:?}");
        }
    }
}
