//! Weld joint: all six degrees of freedom locked, rigid or soft.
//!
//! ```text
//! point           C = p_B − p_A = 0                 3 rows
//! rotation lock   C = 2 vec(q_B q_A⁻¹) = 0           3 rows
//! ```
//! Rigid, the six rows are solved as one 6×6 block (or by the exact tree solve); with a
//! spring, the same block is soft at the spring's frequency in every pass.

use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::equality::{correct_positions, solve_equality, warm_start_rows, PassContext};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::point::point_rows;
use crate::dynamics::parts::rotation_lock::rotation_lock_rows;
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::Spring;
use crate::math::Vec3;

/// Solver state of a weld: the six rows' accumulated impulses (point, then rotation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WeldJoint {
    pub impulse: [f32; 6],
    pub spring: Option<Spring>,
}

/// The point and rotation-lock rows with their errors.
fn weld_rows(frames: &Frames) -> ([JacobianRow; 6], [f32; 6]) {
    let (point, point_error) = point_rows(frames);
    let (rotation, rotation_error) = rotation_lock_rows(frames);
    let rows = std::array::from_fn(|i| if i < 3 { point[i] } else { rotation[i - 3] });
    let error = std::array::from_fn(|i| if i < 3 { point_error[i] } else { rotation_error[i - 3] });
    (rows, error)
}

impl WeldJoint {
    /// A weld, soft when `spring` is given.
    pub fn new(spring: Option<Spring>) -> Self {
        Self { impulse: [0.0; 6], spring }
    }
}

impl JointSolver for WeldJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        self.impulse.iter_mut().for_each(|x| visit(1, x));
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (rows, _) = weld_rows(frames);
        warm_start_rows(&rows, &self.impulse, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if in_tree {
            return;
        }
        let scales = ctx.spring_or_rigid(self.spring);
        let (rows, error) = weld_rows(frames);
        solve_equality(&rows, &error, &mut self.impulse, a, b, scales);
    }

    fn equality_dim(&self) -> usize {
        if self.spring.is_some() {
            0
        } else {
            6
        }
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        if self.spring.is_some() {
            return 0;
        }
        (*rows, *error) = weld_rows(frames);
        6
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        *out = self.impulse;
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        for (impulse, d) in self.impulse.iter_mut().zip(delta) {
            *impulse += d;
        }
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        if self.spring.is_none() {
            let (rows, error) = weld_rows(frames);
            correct_positions(&rows, &error, a, b, beta, max);
        }
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (rows, _) = weld_rows(frames);
        rows_reaction(&rows, &self.impulse, frames.r_b)
    }
}
