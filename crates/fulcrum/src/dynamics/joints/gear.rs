//! Gear joint: couples the turns of two hinged bodies, θ_b = −ratio · θ_a. It acts between
//! the two hinges' B bodies, about their hinge axes (X of each body's joint frame, which is
//! the hinge's frame on that body).
//!
//! ```text
//! θ_a = turn of A's frame about its axis since the gear was made (likewise θ_b)
//! C  = θ_b + ratio · θ_a = 0
//! Ċ  = axis_b·ω_B + ratio · axis_a·ω_A
//! J  = [ 0, ratio · axis_a, 0, axis_b ]                      one rigid angular row
//! ```
//! The position error makes the ratio hold in angle, not only in velocity: a gear pair
//! driven for many turns stays in mesh. The turns are measured against each frame's world
//! rotation at creation and unwrapped (kept continuous past ±π) at every solve, so they count
//! whole revolutions. They are turns in the world: the hinges' own bases are taken as not
//! turning (gears on a fixed frame), which is what the single row between the two wheels
//! assumes too. The row is an equality, solved by the exact tree solve when the gear and its
//! hinges form a tree (two wheels hinged to the world).

use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::equality::{correct_positions, solve_equality, PassContext};
use crate::dynamics::parts::frames::{wrap_angle, Frames};
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::{Quat, Vec3};

/// Solver state of a gear.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GearJoint {
    /// θ_b = −ratio · θ_a.
    pub ratio: f32,
    /// World rotations of A's and B's frames when the gear was made.
    pub reference: (Quat, Quat),
    /// θ_a and θ_b (unwrapped) at the last solve, radians.
    pub turns: (f32, f32),
    /// Accumulated impulse of the row.
    pub impulse: f32,
}

/// The turn of `rotation` relative to `reference` about the frame's X axis, in (−π, π].
#[inline]
fn turn_about_axis(reference: Quat, rotation: Quat) -> f32 {
    let q = reference.conjugate() * rotation;
    wrap_angle(2.0 * q.x.atan2(q.w))
}

/// The unwrapped angle nearest `previous` whose wrapped value is `wrapped`.
#[inline]
fn unwrap_near(previous: f32, wrapped: f32) -> f32 {
    previous + wrap_angle(wrapped - previous)
}

impl GearJoint {
    /// A gear of `ratio` between frames whose world rotations are now `rotation_a` and
    /// `rotation_b` (the turns count from here).
    pub fn new(ratio: f32, rotation_a: Quat, rotation_b: Quat) -> Self {
        Self { ratio, reference: (rotation_a, rotation_b), turns: (0.0, 0.0), impulse: 0.0 }
    }

    /// θ_a and θ_b at the current frames.
    fn current_turns(&self, frames: &Frames) -> (f32, f32) {
        let a = turn_about_axis(self.reference.0, frames.rotation_a);
        let b = turn_about_axis(self.reference.1, frames.rotation_b);
        (unwrap_near(self.turns.0, a), unwrap_near(self.turns.1, b))
    }

    /// The row and its error C = θ_b + ratio · θ_a.
    fn row(&self, frames: &Frames) -> (JacobianRow, f32) {
        let (turn_a, turn_b) = self.current_turns(frames);
        let row = JacobianRow {
            linear_a: Vec3::ZERO,
            angular_a: frames.axis_a() * self.ratio,
            linear_b: Vec3::ZERO,
            angular_b: frames.axis_b(),
        };
        (row, turn_b + self.ratio * turn_a)
    }
}

impl JointSolver for GearJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        visit(1, &mut self.impulse);
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (row, _) = self.row(frames);
        row.apply(a, b, self.impulse);
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        // Every pass: the bodies turn far less than half a turn in between.
        self.turns = self.current_turns(frames);
        if !in_tree {
            let (row, error) = self.row(frames);
            let mut impulse = [self.impulse];
            solve_equality(&[row], &[error], &mut impulse, a, b, ctx.rigid());
            self.impulse = impulse[0];
        }
    }

    fn equality_dim(&self) -> usize {
        1
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        (rows[0], error[0]) = self.row(frames);
        1
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[0] = self.impulse;
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        self.impulse += delta[0];
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (row, error) = self.row(frames);
        correct_positions(&[row], &[error], a, b, beta, max);
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (row, _) = self.row(frames);
        rows_reaction(&[row], &[self.impulse], frames.r_b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Turning a frame through several revolutions in small steps counts every one.
    #[test]
    fn turns_unwrap_past_half_a_turn() {
        let reference = Quat::from_rotation_z(0.4);
        let mut turn = 0.0f32;
        for i in 1..=100 {
            let angle = i as f32 * 0.2;
            turn = unwrap_near(turn, turn_about_axis(reference, reference * Quat::from_rotation_x(angle)));
            assert!((turn - angle).abs() < 1e-3, "{turn} vs {angle}");
        }
    }
}
