//! Hinge (revolute) joint: the anchors coincide and B turns relative to A about the axis
//! only, with optional angle limits, motor and spring.
//!
//! ```text
//! point           C = p_B − p_A = 0                         3 rows
//! hinge rotation  C = [a_B·b, a_B·c] = 0                    2 rows (axes parallel)
//! angle           θ = twist of q_A⁻¹ q_B about the axis     1 row, J = [0, −a, 0, a]
//!                 with spring (rest 0), motor and limits on θ
//! ```
//! The angle part runs first and the equality parts last, so the hinge holds its axis and
//! anchor exactly while the motor and limits act. The angle row is solved within the five
//! equality rows (`FreeRow`): its effective mass is the inertia about the hinge line. In a
//! joint tree the tree solve also holds the limits while they push (`limit_rows`: lower,
//! upper).

use super::{rows_reaction, visit_point, JointSolver};
use crate::dynamics::parts::dof::{Dof, DofMotor, DofSpring};
use crate::dynamics::parts::equality::PassContext;
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::hinge_rotation::{hinge_rotation_rows, HingeRotationPart};
use crate::dynamics::parts::point::{point_rows, PointPart};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::{Limits, Motor, Spring};
use crate::math::Vec3;

/// Solver state of a hinge.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct HingeJoint {
    pub point: PointPart,
    pub rotation: HingeRotationPart,
    pub angle: Dof,
}

/// The motor of a joint's free degree of freedom as the [`Dof`] part takes it.
pub(crate) fn dof_motor(motor: Motor) -> DofMotor {
    match motor {
        Motor::Velocity { target_velocity, max_force } => DofMotor::Velocity { target: target_velocity, max_force },
        Motor::Position { target_position, frequency_hz, damping_ratio, max_force } => {
            DofMotor::Position { target: target_position, hertz: frequency_hz, damping_ratio, max_force }
        }
    }
}

/// A [`Dof`] with the joint's limits, motor and a spring relaxed at `rest`.
pub(crate) fn dof(limits: Option<Limits>, motor: Option<Motor>, spring: Option<Spring>, rest: f32) -> Dof {
    Dof {
        spring: spring.map(|s| DofSpring { hertz: s.frequency_hz, damping_ratio: s.damping_ratio, rest }),
        motor: motor.map(dof_motor),
        limits: limits.map(|l| (l.lower, l.upper)),
        ..Dof::default()
    }
}

impl HingeJoint {
    /// A hinge with the given options.
    pub fn new(limits: Option<Limits>, motor: Option<Motor>, spring: Option<Spring>) -> Self {
        Self { angle: dof(limits, motor, spring, 0.0), ..Self::default() }
    }

    fn angle_row(frames: &Frames) -> JacobianRow {
        JacobianRow::angular(frames.axis_a())
    }

    /// Spring, motor and limits on the angle, along its row within the point and
    /// hinge-rotation rows (so they see the inertia about the hinge line, not about the
    /// centre of mass).
    fn solve_angle(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext) {
        let mut rows = [JacobianRow::default(); 6];
        let mut error = [0.0; 6];
        self.equality_rows(frames, &mut rows, &mut error);
        let equality: [JacobianRow; 5] = std::array::from_fn(|i| rows[i]);
        let booked = self.angle.solve_within(&Self::angle_row(frames), &equality, frames.twist_angle(), a, b, ctx);
        self.add_equality_impulse(&booked);
    }
}

impl JointSolver for HingeJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        visit_point(&mut self.point.impulse, visit);
        self.rotation.impulse.iter_mut().for_each(|x| visit(1, x));
        self.angle.impulses(visit);
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        self.angle.warm_start(&Self::angle_row(frames), a, b);
        self.rotation.warm_start(frames, a, b);
        self.point.warm_start(frames, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if self.angle.is_active() {
            self.solve_angle(frames, a, b, ctx);
        }
        if !in_tree {
            self.rotation.solve(frames, a, b, ctx.rigid());
            self.point.solve_in_step(frames, a, b, ctx.rigid(), ctx.step);
        }
    }

    fn equality_dim(&self) -> usize {
        5
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        let (point, point_error) = point_rows(frames);
        let (rotation, rotation_error) = hinge_rotation_rows(frames);
        rows[..3].copy_from_slice(&point);
        rows[3..5].copy_from_slice(&rotation);
        error[..3].copy_from_slice(&point_error);
        error[3..5].copy_from_slice(&rotation_error);
        5
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[..3].copy_from_slice(&self.point.impulse.to_array());
        out[3..5].copy_from_slice(&self.rotation.impulse);
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        self.point.impulse += Vec3::new(delta[0], delta[1], delta[2]);
        self.rotation.impulse[0] += delta[3];
        self.rotation.impulse[1] += delta[4];
    }

    fn limit_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], gaps: &mut [f32; 6]) -> usize {
        let Some(sides) = self.angle.limit_rows(&Self::angle_row(frames), frames.twist_angle()) else { return 0 };
        for (i, (row, gap)) in sides.into_iter().enumerate() {
            (rows[i], gaps[i]) = (row, gap);
        }
        2
    }

    fn limit_impulse(&self, i: usize) -> f32 {
        self.angle.limit_impulse(i)
    }

    fn add_limit_impulse(&mut self, i: usize, delta: f32) {
        self.angle.add_limit_impulse(i, delta);
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        // Both from the frames at the start of the pass: the next pass sees the new pose.
        self.rotation.correct(frames, a, b, beta, max);
        self.point.correct(frames, a, b, beta, max);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let mut rows = [JacobianRow::default(); 6];
        let mut error = [0.0; 6];
        self.equality_rows(frames, &mut rows, &mut error);
        rows[5] = Self::angle_row(frames);
        let mut impulse = [0.0; 6];
        self.equality_impulse(&mut impulse);
        impulse[5] = self.angle.total_impulse();
        rows_reaction(&rows, &impulse, frames.r_b)
    }
}
