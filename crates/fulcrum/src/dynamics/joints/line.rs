//! Line joint (point on a line): B's anchor slides along A's axis and B turns freely, with
//! optional slide limits, motor and spring: a wheel on its suspension.
//!
//! ```text
//! perpendicular   C = [b·d, c·d] = 0                 2 rows (B's anchor on A's axis)
//! slide           x = a·d                             1 row along a, r_A taken to p_B,
//!                 with spring (rest 0), motor and limits on x
//! ```
//! (a, b, c: A's frame axes; d = p_B − p_A.) The slide runs first, along its free row within
//! the two equality rows (`equality::FreeRow`: the mass it has while they hold, and no turn
//! left over for the next part to read as slide velocity), then the two rows as one block
//! (or the exact tree solve).

use super::hinge::dof;
use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::dof::Dof;
use crate::dynamics::parts::equality::PassContext;
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::perpendicular::{perpendicular_rows, slide_row, PerpendicularPart};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::{Limits, Motor, Spring};
use crate::math::Vec3;

/// Solver state of a line joint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LineJoint {
    pub perpendicular: PerpendicularPart,
    /// Spring, motor and limits on the slide.
    pub slide: Dof,
}

impl LineJoint {
    /// A line joint with the given options on the slide.
    pub fn new(limits: Option<Limits>, motor: Option<Motor>, spring: Option<Spring>) -> Self {
        Self { perpendicular: PerpendicularPart::default(), slide: dof(limits, motor, spring, 0.0) }
    }
}

impl JointSolver for LineJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        self.perpendicular.impulse.iter_mut().for_each(|x| visit(1, x));
        self.slide.impulses(visit);
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (slide, _) = slide_row(frames);
        self.slide.warm_start(&slide, a, b);
        self.perpendicular.warm_start(frames, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if self.slide.is_active() {
            let (slide, position) = slide_row(frames);
            let (line, _) = perpendicular_rows(frames);
            let booked = self.slide.solve_within(&slide, &line, position, a, b, ctx);
            let impulse = &mut self.perpendicular.impulse;
            impulse.iter_mut().zip(booked).for_each(|(impulse, booked)| *impulse += booked);
        }
        if !in_tree {
            self.perpendicular.solve(frames, a, b, ctx.rigid());
        }
    }

    fn equality_dim(&self) -> usize {
        2
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        let (line, line_error) = perpendicular_rows(frames);
        rows[..2].copy_from_slice(&line);
        error[..2].copy_from_slice(&line_error);
        2
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[..2].copy_from_slice(&self.perpendicular.impulse);
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        self.perpendicular.impulse[0] += delta[0];
        self.perpendicular.impulse[1] += delta[1];
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        self.perpendicular.correct(frames, a, b, beta, max);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (line, _) = perpendicular_rows(frames);
        let (slide, _) = slide_row(frames);
        let [p0, p1] = self.perpendicular.impulse;
        rows_reaction(&[line[0], line[1], slide], &[p0, p1, self.slide.total_impulse()], frames.r_b)
    }
}
