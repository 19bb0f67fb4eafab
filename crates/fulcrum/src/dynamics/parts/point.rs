//! Point part: the two anchors coincide (three linear rows, solved as one block).
//!
//! ```text
//! C = p_B − p_A = d                               (3 rows, world axes e_x, e_y, e_z)
//! Ċ = v_B + ω_B × r_B − v_A − ω_A × r_A
//! J_i = [ −e_i, −(r_A × e_i), e_i, r_B × e_i ]
//! K = (m_A⁻¹ + m_B⁻¹) I − [r_A]× I_A⁻¹ [r_A]× − [r_B]× I_B⁻¹ [r_B]×
//! ```
//! (Box2D's revolute/weld point constraint; Jolt's PointConstraintPart.)

use super::equality::{correct_positions, solve_equality, warm_start_rows, RowScales};
use super::frames::Frames;
use super::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// The accumulated impulse of a point part (world axes, N·s per solver step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PointPart {
    pub impulse: Vec3,
}

/// The three rows and errors at the current frames.
#[inline]
pub(crate) fn point_rows(frames: &Frames) -> ([JacobianRow; 3], [f32; 3]) {
    let rows = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| JacobianRow::linear(axis, frames.r_a, frames.r_b));
    (rows, frames.separation.to_array())
}

impl PointPart {
    /// Applies the accumulated impulse.
    pub fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (rows, _) = point_rows(frames);
        warm_start_rows(&rows, &self.impulse.to_array(), a, b);
    }

    /// One block solve with `scales`.
    pub fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, scales: RowScales) {
        let (rows, error) = point_rows(frames);
        let mut impulse = self.impulse.to_array();
        solve_equality(&rows, &error, &mut impulse, a, b, scales);
        self.impulse = Vec3::from_array(impulse);
    }

    /// Position correction (pgs + ngs).
    pub fn correct(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (rows, error) = point_rows(frames);
        correct_positions(&rows, &error, a, b, beta, max);
    }
}
