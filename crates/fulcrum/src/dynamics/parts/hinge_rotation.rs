//! Hinge-rotation part: B's axis stays parallel to A's axis, leaving one rotation free (two
//! angular rows).
//!
//! With a = A's axis, (b, c) two unit vectors completing it, a₂ = B's axis:
//!
//! ```text
//! C = [ a₂·b, a₂·c ]                    both zero when a₂ ∥ a
//! Ċ_1 = (ω_B × a₂)·b + a₂·(ω_A × b) = (ω_B − ω_A)·(a₂ × b)
//! J_1 = [ 0, −(a₂ × b), 0, a₂ × b ],   J_2 likewise with c
//! ```
//! (Jolt's HingeRotationConstraintPart.)

use super::equality::{correct_positions, solve_equality, warm_start_rows, RowScales};
use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::{orthonormal_basis, Vec3};

/// The accumulated impulses of the two rows (N·m·s per solver step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct HingeRotationPart {
    pub impulse: [f32; 2],
}

/// The two rows and errors at the current frames.
#[inline]
pub(crate) fn hinge_rotation_rows(frames: &Frames) -> ([JacobianRow; 2], [f32; 2]) {
    let axis_b = frames.axis_b();
    let (b, c) = orthonormal_basis(frames.axis_a());
    let rows = [axis_b.cross(b), axis_b.cross(c)].map(|u| JacobianRow {
        linear_a: Vec3::ZERO,
        angular_a: -u,
        linear_b: Vec3::ZERO,
        angular_b: u,
    });
    (rows, [axis_b.dot(b), axis_b.dot(c)])
}

impl HingeRotationPart {
    /// Applies the accumulated impulse.
    pub fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (rows, _) = hinge_rotation_rows(frames);
        warm_start_rows(&rows, &self.impulse, a, b);
    }

    /// One block solve with `scales`.
    pub fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, scales: RowScales) {
        let (rows, error) = hinge_rotation_rows(frames);
        solve_equality(&rows, &error, &mut self.impulse, a, b, scales);
    }

    /// Position correction (pgs + ngs).
    pub fn correct(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (rows, error) = hinge_rotation_rows(frames);
        correct_positions(&rows, &error, a, b, beta, max);
    }
}
