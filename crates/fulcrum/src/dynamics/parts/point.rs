//! Point part: the two anchors coincide (three linear rows, solved as one block).
//!
//! ```text
//! C = p_B − p_A = d                               (3 rows, world axes e_x, e_y, e_z)
//! Ċ = v_B + ω_B × r_B − v_A − ω_A × r_A
//! J_i = [ −e_i, −(r_A × e_i), e_i, r_B × e_i ]
//! K = (m_A⁻¹ + m_B⁻¹) I − [r_A]× I_A⁻¹ [r_A]× − [r_B]× I_B⁻¹ [r_B]×
//! ```
//! (Box2D's revolute/weld point constraint; Jolt's PointConstraintPart.)

use super::equality::{correct_positions, RowScales};
use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::{skew, Mat3, Vec3};

/// The accumulated impulse of a point part (world axes, N·s per solver step) and its
/// effective mass K⁻¹, computed at the first solve of each step from the anchors of that
/// moment. The anchors turn a little during the step; K only sets how fast the iterations
/// converge, not where they converge to (the rows themselves always use the current
/// anchors), so one K per step is enough.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PointPart {
    pub impulse: Vec3,
    effective_mass: Mat3,
    /// The step `effective_mass` belongs to (0: none yet).
    prepared_step: u32,
}

/// The three rows and errors at the current frames.
#[inline]
pub(crate) fn point_rows(frames: &Frames) -> ([JacobianRow; 3], [f32; 3]) {
    let rows = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| JacobianRow::linear(axis, frames.r_a, frames.r_b));
    (rows, frames.separation.to_array())
}

/// K⁻¹ of a point part with offsets `r_a`, `r_b` (K from the formula above); zero (the part
/// does nothing) when K cannot be inverted, which only a non-finite state causes.
pub(crate) fn point_mass(r_a: Vec3, r_b: Vec3, a: &SolverBody, b: &SolverBody) -> Mat3 {
    let (skew_a, skew_b) = (skew(r_a), skew(r_b));
    let k = Mat3::from_diagonal(Vec3::splat(a.inv_mass + b.inv_mass))
        - skew_a * a.inv_inertia * skew_a
        - skew_b * b.inv_inertia * skew_b;
    let determinant = k.determinant();
    if determinant.abs() > f32::MIN_POSITIVE && determinant.is_finite() {
        k.inverse()
    } else {
        Mat3::ZERO
    }
}

impl PointPart {
    /// Applies the accumulated impulse.
    pub fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        a.apply_impulse(frames.r_a, -self.impulse);
        b.apply_impulse(frames.r_b, self.impulse);
    }

    /// One block solve with `scales` in step `step` (0: compute K now): the general block
    /// solve of `equality::solve_equality` written out for the three point rows. Does nothing
    /// when K cannot be inverted (non-finite state).
    pub fn solve_in_step(
        &mut self,
        frames: &Frames,
        a: &mut SolverBody,
        b: &mut SolverBody,
        scales: RowScales,
        step: u32,
    ) {
        if self.prepared_step != step || step == 0 {
            self.effective_mass = point_mass(frames.r_a, frames.r_b, a, b);
            self.prepared_step = step;
        }
        let (r_a, r_b) = (frames.r_a, frames.r_b);
        let velocity = b.velocity_at(r_b) - a.velocity_at(r_a);
        let bias = scales.bias_rate * frames.separation;
        let delta =
            scales.mass_scale * (self.effective_mass * -(velocity + bias)) - scales.impulse_scale * self.impulse;
        self.impulse += delta;
        a.apply_impulse(r_a, -delta);
        b.apply_impulse(r_b, delta);
    }

    /// Position correction (pgs + ngs).
    pub fn correct(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (rows, error) = point_rows(frames);
        correct_positions(&rows, &error, a, b, beta, max);
    }
}
