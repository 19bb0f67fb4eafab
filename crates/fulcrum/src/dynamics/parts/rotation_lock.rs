//! Rotation-lock part: the two frames keep their relative orientation (three angular rows).
//!
//! ```text
//! q_e = q_B q_A⁻¹ (w ≥ 0)          rotation from A's frame to B's, world axes
//! C   = 2 (q_e.x, q_e.y, q_e.z)    ≈ the rotation vector for small errors
//! Ċ   ≈ ω_B − ω_A,   J_i = [ 0, −e_i, 0, e_i ],   K = I_A⁻¹ + I_B⁻¹
//! ```
//! (Box2D's weld angular block; Jolt's RotationEulerConstraintPart.)

use super::equality::{correct_positions, solve_equality, warm_start_rows, RowScales};
use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// The accumulated angular impulse of a rotation lock (world axes, N·m·s per solver step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RotationLockPart {
    pub impulse: Vec3,
}

/// The rotation error of B's frame relative to A's as a rotation vector (world axes).
#[inline]
pub(crate) fn rotation_error(frames: &Frames) -> Vec3 {
    let q = frames.rotation_b * frames.rotation_a.conjugate();
    let sign = if q.w < 0.0 { -2.0 } else { 2.0 };
    Vec3::new(q.x, q.y, q.z) * sign
}

/// The three rows and errors at the current frames.
#[inline]
pub(crate) fn rotation_lock_rows(frames: &Frames) -> ([JacobianRow; 3], [f32; 3]) {
    ([Vec3::X, Vec3::Y, Vec3::Z].map(JacobianRow::angular), rotation_error(frames).to_array())
}

impl RotationLockPart {
    /// Applies the accumulated impulse.
    pub fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (rows, _) = rotation_lock_rows(frames);
        warm_start_rows(&rows, &self.impulse.to_array(), a, b);
    }

    /// One block solve with `scales`.
    pub fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, scales: RowScales) {
        let (rows, error) = rotation_lock_rows(frames);
        let mut impulse = self.impulse.to_array();
        solve_equality(&rows, &error, &mut impulse, a, b, scales);
        self.impulse = Vec3::from_array(impulse);
    }

    /// Position correction (pgs + ngs).
    pub fn correct(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (rows, error) = rotation_lock_rows(frames);
        correct_positions(&rows, &error, a, b, beta, max);
    }
}
