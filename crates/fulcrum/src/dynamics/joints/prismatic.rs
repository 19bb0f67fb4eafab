//! Prismatic (slider) joint: B slides along A's axis without turning relative to A, with
//! optional slide limits, motor and spring.
//!
//! ```text
//! perpendicular   C = [b·d, c·d] = 0                 2 rows (B's anchor on A's axis)
//! rotation lock   C = 2 vec(q_B q_A⁻¹) = 0            3 rows
//! slide           x = a·d                             1 row along a, r_A taken to p_B,
//!                 with spring (rest 0), motor and limits on x
//! ```
//! (a, b, c: A's frame axes; d = p_B − p_A.) The five equality rows are solved as one 5×5
//! block, or by the exact tree solve; the slide runs first so the block holds exactly after
//! the motor and limits have acted. The slide is solved along its free row within the block
//! (`equality::FreeRow`): with B's rotation locked, a slider anchored off B's centre of mass
//! still moves B's whole mass, and its spring keeps its set frequency. Solving it along the
//! plain row with that mass (as before) turned B by r × impulse between the parts: with the
//! anchor 2 m from a 350 g slide's centre each of spring, motor and limit saw the last one's
//! turn as slide velocity and the slide reached 1.9e18 m/s in one step.

use super::hinge::dof;
use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::dof::Dof;
use crate::dynamics::parts::equality::{correct_positions, solve_equality, warm_start_rows, PassContext};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::perpendicular::{perpendicular_rows, slide_row};
use crate::dynamics::parts::rotation_lock::rotation_lock_rows;
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::{Limits, Motor, Spring};
use crate::math::Vec3;

/// Number of equality rows.
const ROWS: usize = 5;

/// Solver state of a slider.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PrismaticJoint {
    /// Accumulated impulses of the equality rows: perpendicular (2), then rotation (3).
    pub impulse: [f32; ROWS],
    /// Spring, motor and limits on the slide.
    pub slide: Dof,
}

/// The perpendicular and rotation-lock rows with their errors.
fn prismatic_rows(frames: &Frames) -> ([JacobianRow; ROWS], [f32; ROWS]) {
    let (line, line_error) = perpendicular_rows(frames);
    let (rotation, rotation_error) = rotation_lock_rows(frames);
    let rows = std::array::from_fn(|i| if i < 2 { line[i] } else { rotation[i - 2] });
    let error = std::array::from_fn(|i| if i < 2 { line_error[i] } else { rotation_error[i - 2] });
    (rows, error)
}

impl PrismaticJoint {
    /// A slider with the given options on the slide.
    pub fn new(limits: Option<Limits>, motor: Option<Motor>, spring: Option<Spring>) -> Self {
        Self { impulse: [0.0; ROWS], slide: dof(limits, motor, spring, 0.0) }
    }
}

impl JointSolver for PrismaticJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        self.impulse.iter_mut().for_each(|x| visit(1, x));
        self.slide.impulses(visit);
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (slide, _) = slide_row(frames);
        self.slide.warm_start(&slide, a, b);
        let (rows, _) = prismatic_rows(frames);
        warm_start_rows(&rows, &self.impulse, a, b);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        if in_tree && !self.slide.is_active() {
            return;
        }
        let (rows, error) = prismatic_rows(frames);
        if self.slide.is_active() {
            let (slide, position) = slide_row(frames);
            let booked = self.slide.solve_within(&slide, &rows, position, a, b, ctx);
            self.impulse.iter_mut().zip(booked).for_each(|(impulse, booked)| *impulse += booked);
        }
        if !in_tree {
            solve_equality(&rows, &error, &mut self.impulse, a, b, ctx.rigid());
        }
    }

    fn equality_dim(&self) -> usize {
        ROWS
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        let (block, block_error) = prismatic_rows(frames);
        rows[..ROWS].copy_from_slice(&block);
        error[..ROWS].copy_from_slice(&block_error);
        ROWS
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[..ROWS].copy_from_slice(&self.impulse);
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        for (impulse, d) in self.impulse.iter_mut().zip(delta) {
            *impulse += d;
        }
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (rows, error) = prismatic_rows(frames);
        correct_positions(&rows, &error, a, b, beta, max);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (block, _) = prismatic_rows(frames);
        let (slide, _) = slide_row(frames);
        let rows: [JacobianRow; ROWS + 1] = std::array::from_fn(|i| if i < ROWS { block[i] } else { slide });
        let impulse: [f32; ROWS + 1] =
            std::array::from_fn(|i| if i < ROWS { self.impulse[i] } else { self.slide.total_impulse() });
        rows_reaction(&rows, &impulse, frames.r_b)
    }
}
