//! Angle joint: the relative rotation is locked, translation is free; rigid or soft.
//!
//! ```text
//! rotation lock   C = 2 vec(q_B q_A⁻¹) = 0            3 angular rows, K = I_A⁻¹ + I_B⁻¹
//! ```
//! Rigid, the three rows are one block (or the exact tree solve); with a spring the block is
//! soft at the spring's frequency in every pass and stays out of the tree.

use super::{rows_reaction, visit_point, JointSolver};
use crate::dynamics::parts::equality::PassContext;
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::rotation_lock::{rotation_lock_rows, RotationLockPart};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::Spring;
use crate::math::Vec3;

/// Solver state of an angle joint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct AngleJoint {
    pub rotation: RotationLockPart,
    /// Makes the lock soft.
    pub spring: Option<Spring>,
}

impl AngleJoint {
    /// An angle joint, soft when `spring` is given.
    pub fn new(spring: Option<Spring>) -> Self {
        Self { rotation: RotationLockPart::default(), spring }
    }
}

impl JointSolver for AngleJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        visit_point(&mut self.rotation.impulse, visit);
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        self.rotation.warm_start(frames, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if in_tree {
            return;
        }
        let scales = ctx.spring_or_rigid(self.spring);
        self.rotation.solve(frames, a, b, scales);
    }

    fn equality_dim(&self) -> usize {
        if self.spring.is_some() {
            0
        } else {
            3
        }
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        if self.spring.is_some() {
            return 0;
        }
        let (lock, lock_error) = rotation_lock_rows(frames);
        rows[..3].copy_from_slice(&lock);
        error[..3].copy_from_slice(&lock_error);
        3
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[..3].copy_from_slice(&self.rotation.impulse.to_array());
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        self.rotation.impulse += Vec3::new(delta[0], delta[1], delta[2]);
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        if self.spring.is_none() {
            self.rotation.correct(frames, a, b, beta, max);
        }
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (rows, _) = rotation_lock_rows(frames);
        rows_reaction(&rows, &self.rotation.impulse.to_array(), frames.r_b)
    }
}
