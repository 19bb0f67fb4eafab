//! Ball-and-socket joint: the anchors coincide, rotation is free, optionally within a swing
//! cone about the joint axis and a twist range about it.
//!
//! ```text
//! point   C = p_B − p_A = 0                 3 rows (equality: the tree solve may take them)
//! cone    C = α − φ ≥ 0                     1 row about the swing axis (cone part)
//! twist   lower ≤ τ ≤ upper                 1 row about the twist axis (a Dof with limits)
//! friction ω_B − ω_A = 0, |λ_k| ≤ τ_f·h       3 rows about A's frame axes (velocity motors
//!                                            with target 0: the joint's friction torque)
//! ```
//! φ and τ are the swing and twist angles of q_A⁻¹ q_B (see `parts::swing_twist`). The limits run
//! first, each along its row within the point rows (`FreeRow`), and the point block last. In
//! a joint tree the tree solve also holds the limit rows while they push (`limit_rows`:
//! cone, twist lower, twist upper).

use super::{rows_reaction, visit_point, JointSolver};
use crate::dynamics::parts::cone::ConePart;
use crate::dynamics::parts::dof::{Dof, DofMotor};
use crate::dynamics::parts::equality::PassContext;
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::point::{point_rows, PointPart};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::parts::swing_twist::SwingTwist;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::Limits;
use crate::math::Vec3;

/// Solver state of a ball joint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BallJoint {
    pub point: PointPart,
    pub cone: Option<ConePart>,
    /// Twist limits only (no spring or motor).
    pub twist: Dof,
    /// Friction torque, N·m (0: none).
    pub friction_torque: f32,
    /// Accumulated friction impulses about A's frame axes X, Y, Z.
    pub friction_impulse: [f32; 3],
}

impl BallJoint {
    /// True when the joint is only its point part (no cone or twist limit).
    pub fn is_point_only(&self) -> bool {
        !self.has_limits()
    }

    /// A ball joint with an optional cone half-angle and twist limits (radians) and friction
    /// torque (N·m).
    pub fn new(cone_limit: Option<f32>, twist_limits: Option<Limits>, friction_torque: Option<f32>) -> Self {
        Self {
            point: PointPart::default(),
            cone: cone_limit.map(ConePart::new),
            twist: Dof { limits: twist_limits.map(|l| (l.lower, l.upper)), ..Dof::default() },
            friction_torque: friction_torque.unwrap_or(0.0),
            friction_impulse: [0.0; 3],
        }
    }

    /// Rows besides the point: limits or friction.
    fn has_limits(&self) -> bool {
        self.cone.is_some() || self.twist.is_active() || self.friction_torque > 0.0
    }

    /// Friction row `k` as a velocity motor at rest holding its accumulated impulse (the
    /// joint keeps only the impulses, so a ball joint stays small in the joint arrays).
    fn friction_row(&self, k: usize) -> Dof {
        let motor = DofMotor::Velocity { target: 0.0, max_force: self.friction_torque };
        Dof { motor: Some(motor), motor_impulse: self.friction_impulse[k], ..Dof::default() }
    }

    /// Friction rows about A's frame axes, each within the point rows (the ball turns freely
    /// about its centre, so that is the inertia the friction meets).
    fn solve_friction(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext) {
        let (point, _) = point_rows(frames);
        for k in 0..3 {
            let mut part = self.friction_row(k);
            let row = JacobianRow::angular(frames.rotation_a * Vec3::AXES[k]);
            self.point.impulse += Vec3::from_array(part.solve_within(&row, &point, 0.0, a, b, ctx));
            self.friction_impulse[k] = part.motor_impulse;
        }
    }

    /// Friction, then cone, then twist (the limits last so they win), each within the point
    /// rows.
    fn solve_limits(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext) {
        if self.friction_torque > 0.0 {
            self.solve_friction(frames, a, b, ctx);
        }
        let angles = SwingTwist::of(frames);
        let (point, _) = point_rows(frames);
        if let Some(cone) = &mut self.cone {
            self.point.impulse += Vec3::from_array(cone.solve(&angles, &point, a, b, ctx));
        }
        if self.twist.is_active() {
            let booked = self.twist.solve_within(&angles.twist_row(), &point, angles.twist, a, b, ctx);
            self.point.impulse += Vec3::from_array(booked);
        }
    }
}

impl JointSolver for BallJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        visit_point(&mut self.point.impulse, visit);
        match &mut self.cone {
            Some(cone) => visit(1, &mut cone.impulse),
            None => visit(0, &mut 0.0),
        }
        self.twist.impulses(visit);
        // One slot per friction row, so a ball fits the 12 slots: 3 + 1 + 4 + 3.
        let friction = u8::from(self.friction_torque > 0.0);
        for impulse in &mut self.friction_impulse {
            visit(friction, impulse);
        }
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        if self.has_limits() {
            let angles = SwingTwist::of(frames);
            if let Some(cone) = &self.cone {
                cone.warm_start(&angles, a, b);
            }
            self.twist.warm_start(&angles.twist_row(), a, b);
            for k in 0..3 {
                let row = JacobianRow::angular(frames.rotation_a * Vec3::AXES[k]);
                row.apply(a, b, self.friction_impulse[k]);
            }
        }
        self.point.warm_start(frames, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if self.has_limits() {
            self.solve_limits(frames, a, b, ctx);
        }
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

    /// Row 0: the cone; rows 1, 2: the twist's lower and upper sides. A joint without a cone
    /// gives the cone row with an infinite gap (never engaged).
    fn limit_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], gaps: &mut [f32; 6]) -> usize {
        if !self.has_limits() {
            return 0;
        }
        let angles = SwingTwist::of(frames);
        (rows[0], gaps[0]) = match self.cone {
            Some(cone) => angles.cone_row(cone.half_angle),
            None => (JacobianRow::default(), f32::INFINITY),
        };
        let sides = self.twist.limit_rows(&angles.twist_row(), angles.twist);
        for (i, (row, gap)) in sides.into_iter().flatten().enumerate() {
            (rows[1 + i], gaps[1 + i]) = (row, gap);
        }
        if sides.is_none() {
            return 1;
        }
        3
    }

    fn limit_impulse(&self, i: usize) -> f32 {
        match i {
            0 => self.cone.map_or(0.0, |c| c.impulse),
            _ => self.twist.limit_impulse(i - 1),
        }
    }

    fn add_limit_impulse(&mut self, i: usize, delta: f32) {
        match (i, &mut self.cone) {
            (0, Some(cone)) => cone.impulse += delta,
            (0, None) => {}
            _ => self.twist.add_limit_impulse(i - 1, delta),
        }
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        self.point.correct(frames, a, b, beta, max);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (point, _) = point_rows(frames);
        if self.cone.is_none() && self.twist.total_impulse() == 0.0 {
            // A plain ball joint: only the point rows carry impulse (no swing–twist split).
            return rows_reaction(&point, &self.point.impulse.to_array(), frames.r_b);
        }
        let angles = SwingTwist::of(frames);
        let cone = self.cone.map_or((JacobianRow::default(), 0.0), |c| (angles.cone_row(c.half_angle).0, c.impulse));
        let rows = [point[0], point[1], point[2], cone.0, angles.twist_row()];
        let impulse =
            [self.point.impulse.x, self.point.impulse.y, self.point.impulse.z, cone.1, self.twist.total_impulse()];
        rows_reaction(&rows, &impulse, frames.r_b)
    }
}
