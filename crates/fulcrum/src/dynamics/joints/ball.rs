//! Ball-and-socket joint: the anchors coincide, rotation is free.
//!
//! ```text
//! C = p_B − p_A = 0                    (3 rows: the point part)
//! ```
//! Parts: point.

use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::equality::PassContext;
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::point::{point_rows, PointPart};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// Solver state of a ball joint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BallJoint {
    pub point: PointPart,
}

impl BallJoint {
    /// True when the joint is only its point part (no cone or twist limit).
    pub fn is_point_only(&self) -> bool {
        true
    }
}

impl JointSolver for BallJoint {
    fn reset(&mut self) {
        self.point = PointPart::default();
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        self.point.warm_start(frames, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if !in_tree {
            self.point.solve_in_step(frames, a, b, ctx.rigid(), ctx.step);
        }
    }

    fn equality_dim(&self) -> usize {
        3
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        let (point, point_error) = point_rows(frames);
        rows[..3].copy_from_slice(&point);
        error[..3].copy_from_slice(&point_error);
        3
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[..3].copy_from_slice(&self.point.impulse.to_array());
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        self.point.impulse += Vec3::new(delta[0], delta[1], delta[2]);
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        self.point.correct(frames, a, b, beta, max);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (rows, _) = point_rows(frames);
        rows_reaction(&rows, &self.point.impulse.to_array(), frames.r_b)
    }
}
