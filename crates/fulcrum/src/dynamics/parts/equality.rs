//! Solving a block of N ≤ 6 equality rows together, with soft-constraint scaling.
//!
//! For rows J (N × 12), position errors C and accumulated impulses λ:
//!
//! ```text
//! K  = J M⁻¹ Jᵀ                                     (N × N)
//! Δλ = −mass_scale · K⁻¹ (J v + bias_rate · C) − impulse_scale · λ
//! λ += Δλ,   v += M⁻¹ Jᵀ Δλ
//! ```
//!
//! With (bias_rate, mass_scale, impulse_scale) = (0, 1, 0) this is the rigid solve that makes
//! J v = 0 exactly; the soft coefficients come from [`Softness`]. Solving the rows as one block
//! (instead of one after the other) is what keeps a point joint from drifting sideways while a
//! heavy body pulls on it.

use super::dense::{solve_spd, MAX_ROWS};
use super::row::JacobianRow;
use crate::dynamics::softness::Softness;
use crate::dynamics::solver_body::SolverBody;
use crate::math::{integrate_rotation, Vec3A};

/// The soft coefficients a row is solved with in one pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RowScales {
    /// Velocity bias per metre (or radian) of error, 1/s.
    pub bias_rate: f32,
    /// Multiplies the effective mass.
    pub mass_scale: f32,
    /// Multiplies the accumulated impulse fed back.
    pub impulse_scale: f32,
}

impl RowScales {
    /// Rigid, no position bias (the relax pass, velocity motors).
    pub const RIGID: RowScales = RowScales { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };

    /// The coefficients of `soft`.
    pub fn from_softness(soft: &Softness) -> RowScales {
        RowScales { bias_rate: soft.bias_rate, mass_scale: soft.mass_scale, impulse_scale: soft.impulse_scale }
    }
}

/// What one solver pass over the joints knows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PassContext {
    /// Length of the solver step (the substep in soft-step mode), seconds.
    pub h: f32,
    /// 1 / h.
    pub inv_h: f32,
    /// True in the solve pass (position errors are corrected), false in the relax pass.
    pub use_bias: bool,
    /// Softness of the rigid joint rows when `use_bias` (joint hertz and damping ratio, or
    /// the Baumgarte rate in pgs mode).
    pub joint_softness: Softness,
    /// Softness of the equality rows in the exact tree solve when `use_bias`: rigid without
    /// bias when a position projection follows it (the projection removes the error, and a
    /// bias would push light links through the same near-singular directions), the
    /// Baumgarte rate in pgs mode with Baumgarte correction.
    pub tree_softness: Softness,
    /// Number of the solver step (never 0): parts that compute something once per step
    /// (an effective mass) recompute it when this changes.
    pub step: u32,
}

impl PassContext {
    /// Scales of a rigid equality row in this pass: the joint softness with bias in the
    /// solve pass, rigid without bias in the relax pass.
    #[inline]
    pub fn rigid(&self) -> RowScales {
        if self.use_bias {
            RowScales::from_softness(&self.joint_softness)
        } else {
            RowScales::RIGID
        }
    }

    /// Scales of the equality rows in the exact tree solve in this pass.
    #[inline]
    pub fn tree_rows(&self) -> RowScales {
        if self.use_bias {
            RowScales::from_softness(&self.tree_softness)
        } else {
            RowScales::RIGID
        }
    }

    /// Scales of a user spring (frequency, damping ratio): a spring is a force and acts in
    /// every pass.
    #[inline]
    pub fn spring(&self, hertz: f32, damping_ratio: f32) -> RowScales {
        RowScales::from_softness(&Softness::new(hertz, damping_ratio, self.h))
    }
}

/// Applies the accumulated impulses of the rows (warm start).
#[inline]
pub(crate) fn warm_start_rows(rows: &[JacobianRow], impulse: &[f32], a: &mut SolverBody, b: &mut SolverBody) {
    for (row, &lambda) in rows.iter().zip(impulse) {
        row.apply(a, b, lambda);
    }
}

/// One soft solve of an equality block (see the module comment). Returns false, changing
/// nothing, when the block cannot be factored (non-finite state).
#[inline]
pub(crate) fn solve_equality<const N: usize>(
    rows: &[JacobianRow; N],
    error: &[f32; N],
    impulse: &mut [f32; N],
    a: &mut SolverBody,
    b: &mut SolverBody,
    scales: RowScales,
) -> bool {
    solve_equality_rows(rows, error, impulse, a, b, scales)
}

/// [`solve_equality`] of a block whose size (at most [`MAX_ROWS`], the length of `rows`) is
/// known only at run time (a six-DOF joint's locked axes).
#[inline]
pub(crate) fn solve_equality_rows(
    rows: &[JacobianRow],
    error: &[f32],
    impulse: &mut [f32],
    a: &mut SolverBody,
    b: &mut SolverBody,
    scales: RowScales,
) -> bool {
    let n = rows.len().min(MAX_ROWS);
    let mut weighted = [JacobianRow::default(); MAX_ROWS];
    for (w, row) in weighted.iter_mut().zip(rows) {
        *w = row.weighted(a, b);
    }
    let Some(delta) = equality_delta_rows(&rows[..n], &weighted[..n], error, impulse, a, b, scales) else {
        return false;
    };
    for i in 0..n {
        impulse[i] += delta[i];
        apply_weighted(&weighted[i], a, b, delta[i]);
    }
    true
}

/// The impulse change Δλ of one soft solve of an equality block, without applying it (for
/// parts that clamp the accumulated impulse first); `weighted` are the rows' M⁻¹ Jᵀ. `None`
/// when the block cannot be factored.
pub(crate) fn equality_delta<const N: usize>(
    rows: &[JacobianRow; N],
    weighted: &[JacobianRow; N],
    error: &[f32; N],
    impulse: &[f32; N],
    a: &SolverBody,
    b: &SolverBody,
    scales: RowScales,
) -> Option<[f32; N]> {
    let delta = equality_delta_rows(rows, weighted, error, impulse, a, b, scales)?;
    Some(std::array::from_fn(|i| delta[i]))
}

/// [`equality_delta`] for a run-time number of rows (at most [`MAX_ROWS`]).
fn equality_delta_rows(
    rows: &[JacobianRow],
    weighted: &[JacobianRow],
    error: &[f32],
    impulse: &[f32],
    a: &SolverBody,
    b: &SolverBody,
    scales: RowScales,
) -> Option<[f32; MAX_ROWS]> {
    let n = rows.len().min(MAX_ROWS);
    let mut k = [[0.0; MAX_ROWS]; MAX_ROWS];
    let mut rhs = [0.0; MAX_ROWS];
    for i in 0..n {
        for j in 0..n {
            k[i][j] = rows[i].dot(&weighted[j]);
        }
        rhs[i] = -(rows[i].velocity(a, b) + scales.bias_rate * error[i]);
    }
    let x = solve_spd(&k, &rhs, n)?;
    Some(std::array::from_fn(
        |i| if i < n { scales.mass_scale * x[i] - scales.impulse_scale * impulse[i] } else { 0.0 },
    ))
}

/// The effective mass of `row` while the equality `rows` hold, or `None` when it cannot be
/// formed (non-finite state, or `row` depends on `rows`).
///
/// An impulse λ along the row moves ẋ by K_ss λ; the equality rows then take back what
/// broke them, μ = −K_ee⁻¹ k_es λ, which moves ẋ by k_se μ. So ẋ moves by the Schur
/// complement S λ and the mass is 1/S:
///
/// ```text
/// K_ss = J_s M⁻¹ J_sᵀ,   k_es = J_e M⁻¹ J_sᵀ,   K_ee = J_e M⁻¹ J_eᵀ
/// S    = K_ss − k_esᵀ K_ee⁻¹ k_es
/// ```
/// A slider anchored away from the body's centre of mass then has the body's whole mass
/// along the slide (its rotation is locked), not the smaller mass of a free body pushed off
/// its centre, so a spring on it oscillates at its set frequency.
pub(crate) fn constrained_mass(row: &JacobianRow, rows: &[JacobianRow], a: &SolverBody, b: &SolverBody) -> Option<f32> {
    let n = rows.len().min(MAX_ROWS);
    let weighted = row.weighted(a, b);
    let mut k = [[0.0; MAX_ROWS]; MAX_ROWS];
    let mut coupling = [0.0; MAX_ROWS];
    for i in 0..n {
        let w = rows[i].weighted(a, b);
        for j in 0..n {
            k[j][i] = rows[j].dot(&w);
        }
        coupling[i] = rows[i].dot(&weighted);
    }
    let y = solve_spd(&k, &coupling, n)?;
    let schur = row.dot(&weighted) - (0..n).map(|i| coupling[i] * y[i]).sum::<f32>();
    let floor = 1e-4 * row.dot(&weighted);
    (schur > floor && schur.is_finite()).then(|| 1.0 / schur)
}

/// v += w λ for a weighted row w = M⁻¹ Jᵀ.
#[inline]
pub(crate) fn apply_weighted(w: &JacobianRow, a: &mut SolverBody, b: &mut SolverBody, lambda: f32) {
    a.linear_velocity += Vec3A::from(w.linear_a * lambda);
    a.angular_velocity += Vec3A::from(w.angular_a * lambda);
    b.linear_velocity += Vec3A::from(w.linear_b * lambda);
    b.angular_velocity += Vec3A::from(w.angular_b * lambda);
}

/// Non-linear Gauss-Seidel position step of an equality block: the pseudo-impulse
/// Δ = −K⁻¹ (β C), applied directly to positions and rotations, with each error first
/// clamped to `max_correction`.
#[inline]
pub(crate) fn correct_positions<const N: usize>(
    rows: &[JacobianRow; N],
    error: &[f32; N],
    a: &mut SolverBody,
    b: &mut SolverBody,
    beta: f32,
    max_correction: f32,
) {
    correct_positions_rows(rows, error, a, b, beta, max_correction);
}

/// [`correct_positions`] of a block whose size is known only at run time.
pub(crate) fn correct_positions_rows(
    rows: &[JacobianRow],
    error: &[f32],
    a: &mut SolverBody,
    b: &mut SolverBody,
    beta: f32,
    max_correction: f32,
) {
    let n = rows.len().min(MAX_ROWS);
    let mut weighted = [JacobianRow::default(); MAX_ROWS];
    for (w, row) in weighted.iter_mut().zip(rows) {
        *w = row.weighted(a, b);
    }
    let mut k = [[0.0; MAX_ROWS]; MAX_ROWS];
    let mut rhs = [0.0; MAX_ROWS];
    for i in 0..n {
        for j in 0..n {
            k[i][j] = rows[i].dot(&weighted[j]);
        }
        rhs[i] = -beta * error[i].clamp(-max_correction, max_correction);
    }
    let Some(x) = solve_spd(&k, &rhs, n) else { return };
    for i in 0..n {
        displace(&weighted[i], a, b, x[i]);
    }
}

/// Moves the bodies by the pseudo-impulse `lambda` along weighted row `w`.
fn displace(w: &JacobianRow, a: &mut SolverBody, b: &mut SolverBody, lambda: f32) {
    if a.inv_mass > 0.0 {
        a.delta_position += Vec3A::from(w.linear_a * lambda);
        a.delta_rotation = integrate_rotation(a.delta_rotation, w.angular_a * lambda, 1.0);
    }
    if b.inv_mass > 0.0 {
        b.delta_position += Vec3A::from(w.linear_b * lambda);
        b.delta_rotation = integrate_rotation(b.delta_rotation, w.angular_b * lambda, 1.0);
    }
}
