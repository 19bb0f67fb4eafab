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
    /// The exact tree solve aims its equality rows at joints closed at the end of the solver
    /// step (J v = −C(pose + h v)/h, see `joints::forest`) instead of at J v = 0: the biased
    /// pass when a position projection follows.
    pub look_ahead: bool,
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

    /// Scales of an equality row made soft by an optional spring: the spring's when there is
    /// one, else [`Self::rigid`].
    #[inline]
    pub fn spring_or_rigid(&self, spring: Option<crate::joint::Spring>) -> RowScales {
        match spring {
            Some(spring) => self.spring(spring.frequency_hz, spring.damping_ratio),
            None => self.rigid(),
        }
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
    let (_, schur) = equality_coupling(row, rows, a, b)?;
    let floor = 1e-4 * row.dot(&row.weighted(a, b));
    (schur > floor && schur.is_finite()).then(|| 1.0 / schur)
}

/// How a row couples to a joint's equality rows: y = K_ee⁻¹ k_ed and the Schur complement
/// S = k_dd − k_edᵀ y (see [`constrained_mass`] and [`FreeRow`]); `None` when K_ee cannot be
/// factored.
fn equality_coupling(
    row: &JacobianRow,
    rows: &[JacobianRow],
    a: &SolverBody,
    b: &SolverBody,
) -> Option<([f32; MAX_ROWS], f32)> {
    let n = rows.len().min(MAX_ROWS);
    let weighted = row.weighted(a, b);
    let mut k = [[0.0; MAX_ROWS]; MAX_ROWS];
    let mut k_ed = [0.0; MAX_ROWS];
    for i in 0..n {
        let w = rows[i].weighted(a, b);
        for j in 0..n {
            k[j][i] = rows[j].dot(&w);
        }
        k_ed[i] = rows[i].dot(&weighted);
    }
    let y = solve_spd(&k, &k_ed, n)?;
    let schur = row.dot(&weighted) - (0..n).map(|i| k_ed[i] * y[i]).sum::<f32>();
    Some((y, schur))
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

/// The row of a joint's free degree of freedom (a hinge angle, a ball's swing or twist) as
/// the joint's own equality rows let it move.
///
/// An impulse along the plain row J_d (a pure torque about the axis) turns each body about
/// its centre of mass; the equality rows (the anchors held together) then take most of that
/// motion back. A door hinged at its edge has I_com = I_hinge / 4, so a limit, motor or
/// spring solved on J_d alone would see a quarter of the door's inertia: a spring would ring
/// at half its frequency and each limit pass would stop only a quarter of the swing. The
/// free row carries with it the equality impulses that keep J_e v unchanged:
///
/// ```text
/// K_ee = J_e M⁻¹ J_eᵀ,   k_ed = J_e M⁻¹ J_dᵀ,   y = K_ee⁻¹ k_ed
/// J_c  = J_d − yᵀ J_e                so that  J_e M⁻¹ J_cᵀ = 0
/// 1 / (J_c M⁻¹ J_cᵀ) = 1 / (k_dd − k_edᵀ y)     the inertia the degree of freedom has
/// ```
///
/// An impulse λ along J_c is λ along J_d plus −y λ along the equality rows; [`FreeRow::book`]
/// adds the latter to the equality rows' accumulated impulses, so warm starting (J_d with
/// the part's impulse, J_e with theirs) and the reaction readout stay exact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FreeRow<const N: usize> {
    /// J_c.
    pub row: JacobianRow,
    /// y: equality impulse per unit impulse along the row (negated).
    coupling: [f32; N],
}

impl<const N: usize> FreeRow<N> {
    /// J_c for the plain row `row` and the joint's equality rows `equality`; the plain row
    /// when the block cannot be factored.
    pub fn new(row: &JacobianRow, equality: &[JacobianRow; N], a: &SolverBody, b: &SolverBody) -> Self {
        let plain = Self { row: *row, coupling: [0.0; N] };
        let Some((y, _)) = equality_coupling(row, equality, a, b) else { return plain };
        let mut free = plain;
        for i in 0..N {
            free.row = free.row.add_scaled(&equality[i], -y[i]);
            free.coupling[i] = y[i];
        }
        free
    }

    /// Books an impulse `delta` along J_c on the equality rows: adds −y Δλ to `impulse`.
    pub fn book(&self, delta: f32, impulse: &mut [f32; N]) {
        for (accumulated, y) in impulse.iter_mut().zip(self.coupling) {
            *accumulated -= y * delta;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::parts::frames::Frames;
    use crate::dynamics::parts::hinge_rotation::hinge_rotation_rows;
    use crate::dynamics::parts::point::point_rows;
    use crate::math::{Mat3, Quat, Vec3};

    /// A 1 m × 2 m × 0.1 m door of 200 kg hinged along its edge to the static world: the free
    /// row of the hinge angle leaves the five hinge rows alone and has the inertia about the
    /// hinge line, m (w² + t²)/12 + m (w/2)², as its effective mass.
    #[test]
    fn free_row_of_a_door_has_the_inertia_about_the_hinge() {
        let (mass, w, t) = (200.0f32, 1.0f32, 0.1f32);
        let inertia =
            Vec3::new(mass * (4.0 + t * t) / 12.0, mass * (w * w + t * t) / 12.0, mass * (w * w + 4.0) / 12.0);
        let door = SolverBody {
            inv_mass: 1.0 / mass,
            inv_inertia: Mat3::from_diagonal(inertia.recip()),
            ..SolverBody::STATIC
        };
        let axis_frame = Quat::from_rotation_arc(Vec3::X, Vec3::Y);
        let frames = Frames {
            r_a: Vec3::ZERO,
            r_b: Vec3::new(-w / 2.0, 0.0, 0.0),
            separation: Vec3::ZERO,
            rotation_a: axis_frame,
            rotation_b: axis_frame,
        };
        let (point, _) = point_rows(&frames);
        let (rotation, _) = hinge_rotation_rows(&frames);
        let equality = [point[0], point[1], point[2], rotation[0], rotation[1]];
        let free = FreeRow::new(&JacobianRow::angular(Vec3::Y), &equality, &SolverBody::STATIC, &door);
        let weighted = free.row.weighted(&SolverBody::STATIC, &door);
        for row in &equality {
            assert!(row.dot(&weighted).abs() < 1e-6, "{}", row.dot(&weighted));
        }
        let about_hinge = inertia.y + mass * (w / 2.0) * (w / 2.0);
        let effective = 1.0 / free.row.dot(&weighted);
        assert!((effective / about_hinge - 1.0).abs() < 1e-3, "{effective} vs {about_hinge}");
    }
}
