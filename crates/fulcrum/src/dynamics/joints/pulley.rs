//! Pulley joint: two bodies hang from two fixed world points (the ground anchors) on one rope
//! of constant length, `len_a + ratio · len_b` (a block and tackle when ratio ≠ 1).
//!
//! ```text
//! len_a = |p_A − g_A|,  u_a = (p_A − g_A) / len_a       (likewise for B)
//! C = total − (len_a + ratio · len_b) ≥ 0               total: the sum at creation
//! J = [ −u_a, −(r_A × u_a), −ratio u_b, −ratio (r_B × u_b) ],   λ ≥ 0
//! ```
//! The rope only pulls: C is the slack, held by the lower limit of a [`Dof`] (speculative
//! while slack, so a body falls freely until the rope goes taut within the step). The
//! anchors are measured in the world, from the centres at the start of the step (handed in
//! by [`JointSolver::begin_step`]) and each body's motion since. A rope segment of zero
//! length has no direction; it then contributes nothing to the row.

use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::dof::Dof;
use crate::dynamics::parts::equality::{correct_positions, PassContext};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::length::{direction_and_length, world_anchor};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::Vec3;

/// Solver state of a pulley.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PulleyJoint {
    /// World point the rope from A runs to.
    pub ground_a: Vec3,
    /// World point the rope from B runs to.
    pub ground_b: Vec3,
    /// Block-and-tackle ratio.
    pub ratio: f32,
    /// len_a + ratio · len_b at creation, metres.
    pub total: f32,
    /// Centres of mass of A and B at the start of the step (world).
    pub start_centers: (Vec3, Vec3),
    /// Direction of B's rope at the last solve of this step (for the reaction readout).
    pub direction_b: Vec3,
    /// The rope's slack, a lower limit at zero.
    pub slack: Dof,
}

impl PulleyJoint {
    /// A pulley with anchors at `anchor_a`, `anchor_b` (world, at creation).
    pub fn new(ground_a: Vec3, ground_b: Vec3, ratio: f32, anchor_a: Vec3, anchor_b: Vec3) -> Self {
        let total = (anchor_a - ground_a).length() + ratio * (anchor_b - ground_b).length();
        Self {
            ground_a,
            ground_b,
            ratio,
            total,
            start_centers: (Vec3::ZERO, Vec3::ZERO),
            direction_b: Vec3::ZERO,
            slack: Dof { limits: Some((0.0, f32::INFINITY)), ..Dof::default() },
        }
    }

    /// The row and the slack C at the bodies' current positions.
    fn row(&self, frames: &Frames, a: &SolverBody, b: &SolverBody) -> (JacobianRow, f32) {
        let anchor_a = world_anchor(self.start_centers.0, a, frames.r_a);
        let anchor_b = world_anchor(self.start_centers.1, b, frames.r_b);
        let (u_a, len_a) = direction_and_length(anchor_a - self.ground_a, Vec3::ZERO);
        let (u_b, len_b) = direction_and_length(anchor_b - self.ground_b, Vec3::ZERO);
        let pull_b = u_b * self.ratio;
        let row = JacobianRow {
            linear_a: -u_a,
            angular_a: -frames.r_a.cross(u_a),
            linear_b: -pull_b,
            angular_b: -frames.r_b.cross(pull_b),
        };
        (row, self.total - len_a - self.ratio * len_b)
    }
}

impl JointSolver for PulleyJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        self.slack.impulses(visit);
    }

    fn begin_step(&mut self, center_a: Vec3, center_b: Vec3) {
        self.start_centers = (center_a, center_b);
        self.direction_b = Vec3::ZERO;
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (row, _) = self.row(frames, a, b);
        self.slack.warm_start(&row, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, _in_tree: bool) {
        let (row, slack) = self.row(frames, a, b);
        self.direction_b = -row.linear_b / self.ratio;
        self.slack.solve(&row, slack, a, b, ctx);
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (row, slack) = self.row(frames, a, b);
        if slack < 0.0 {
            correct_positions(&[row], &[slack], a, b, beta, max);
        }
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let pull_b = self.direction_b * self.ratio;
        let row = JacobianRow { linear_b: -pull_b, angular_b: -frames.r_b.cross(pull_b), ..JacobianRow::default() };
        rows_reaction(&[row], &[self.slack.total_impulse()], frames.r_b)
    }
}
