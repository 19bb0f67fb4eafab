//! Six-DOF joint: each axis of the joint frame locked, free or limited. Axes 0–2 are the
//! translations along A's frame axes (a, b, c), axes 3–5 the turns about them.
//!
//! ```text
//! translation i   xᵢ = eᵢ·d                  row along eᵢ, r_A taken to p_B (perpendicular part)
//! rotation        (θ_x, θ_y, θ_z)            swing-twist angles of q_A⁻¹ q_B (swing_twist part):
//!                                            twist about a, then the swing's rotation vector
//! locked          C = xᵢ (or θᵢ) = 0         an equality row
//! limited         lower ≤ xᵢ ≤ upper          a Dof with limits on the row
//! free            nothing
//! ```
//! The locked rows form one block of up to six rows (or join the exact tree solve); the
//! limits run first, each with its effective mass while the locked rows hold.
//!
//! The rotation angles hold for swings below π (see `swing_twist`). A turn about one axis
//! alone reads exactly on that axis, so two locked turns leave an exact hinge and a limited
//! turn is a hinge limit; two limited swing angles bound a rectangle of the swing's rotation
//! vector, not a cone. The frame's Y and Z are the ones the world gives it when the joint is
//! created from an axis (the shortest turn of X onto it).

use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::dof::Dof;
use crate::dynamics::parts::equality::{correct_positions_rows, solve_equality_rows, PassContext};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::perpendicular::axis_row;
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::parts::swing_twist::SwingTwist;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::AxisMotion;
use crate::math::Vec3;

/// Solver state of a six-DOF joint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SixDofJoint {
    /// X, Y, Z translation, then rotation about X, Y, Z.
    pub axes: [AxisMotion; 6],
    /// Per axis: the accumulated impulse of a locked axis, or the lower limit's of a limited one.
    pub impulse: [f32; 6],
    /// Per axis: the upper limit's accumulated impulse of a limited axis.
    pub upper_impulse: [f32; 6],
}

/// The six rows and positions (metres, then radians) at the current frames.
fn axis_rows(frames: &Frames) -> ([JacobianRow; 6], [f32; 6]) {
    let mut rows = [JacobianRow::default(); 6];
    let mut positions = [0.0; 6];
    for (i, axis) in frames.basis_a().into_iter().enumerate() {
        (rows[i], positions[i]) = axis_row(frames, axis);
    }
    let (turns, angles) = SwingTwist::of(frames).angle_rows(frames);
    rows[3..].copy_from_slice(&turns);
    positions[3..].copy_from_slice(&angles);
    (rows, positions)
}

impl SixDofJoint {
    /// A six-DOF joint with the given axis motions.
    pub fn new(axes: [AxisMotion; 6]) -> Self {
        Self { axes, impulse: [0.0; 6], upper_impulse: [0.0; 6] }
    }

    /// The locked axes in order, and their number.
    fn locked(&self) -> ([usize; 6], usize) {
        let mut list = [0; 6];
        let mut n = 0;
        for (i, motion) in self.axes.iter().enumerate() {
            if *motion == AxisMotion::Locked {
                list[n] = i;
                n += 1;
            }
        }
        (list, n)
    }

    /// The net accumulated impulse along axis `i`.
    fn net_impulse(&self, i: usize) -> f32 {
        match self.axes[i] {
            AxisMotion::Locked => self.impulse[i],
            AxisMotion::Limited(..) => self.impulse[i] - self.upper_impulse[i],
            AxisMotion::Free => 0.0,
        }
    }

    /// The locked rows (compacted to the front) with their errors; returns their number.
    fn locked_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        let (all, positions) = axis_rows(frames);
        let (locked, n) = self.locked();
        for (k, &i) in locked[..n].iter().enumerate() {
            (rows[k], error[k]) = (all[i], positions[i]);
        }
        n
    }

    /// Runs the limits of the limited axes, each with its effective mass while the `locked`
    /// rows hold.
    fn solve_limits(
        &mut self,
        rows: &[JacobianRow; 6],
        positions: &[f32; 6],
        locked: &[JacobianRow],
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) {
        for i in 0..6 {
            let AxisMotion::Limited(lower, upper) = self.axes[i] else { continue };
            let mut limit = Dof {
                limits: Some((lower, upper)),
                lower_impulse: self.impulse[i],
                upper_impulse: self.upper_impulse[i],
                ..Dof::default()
            };
            limit.solve_constrained(&rows[i], positions[i], locked, a, b, ctx);
            (self.impulse[i], self.upper_impulse[i]) = (limit.lower_impulse, limit.upper_impulse);
        }
    }
}

impl JointSolver for SixDofJoint {
    /// Per axis: the locked row's (tag 1) or the lower limit's (tag 2) impulse, then the
    /// upper limit's; a free axis has none.
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        for (i, motion) in self.axes.iter().enumerate() {
            let tag = match motion {
                AxisMotion::Free => 0,
                AxisMotion::Locked => 1,
                AxisMotion::Limited(..) => 2,
            };
            visit(tag, &mut self.impulse[i]);
            visit(u8::from(tag == 2), &mut self.upper_impulse[i]);
        }
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (rows, _) = axis_rows(frames);
        for (i, row) in rows.iter().enumerate() {
            let impulse = self.net_impulse(i);
            if impulse != 0.0 {
                row.apply(a, b, impulse);
            }
        }
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        let (rows, positions) = axis_rows(frames);
        let (locked, n) = self.locked();
        let block: [JacobianRow; 6] = std::array::from_fn(|k| rows[locked[k]]);
        self.solve_limits(&rows, &positions, &block[..n], a, b, ctx);
        if in_tree {
            return;
        }
        let error: [f32; 6] = std::array::from_fn(|k| positions[locked[k]]);
        let mut impulse: [f32; 6] = std::array::from_fn(|k| self.impulse[locked[k]]);
        solve_equality_rows(&block[..n], &error[..n], &mut impulse[..n], a, b, ctx.rigid());
        for k in 0..n {
            self.impulse[locked[k]] = impulse[k];
        }
    }

    fn equality_dim(&self) -> usize {
        self.locked().1
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        self.locked_rows(frames, rows, error)
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        let (locked, n) = self.locked();
        for (slot, &i) in out.iter_mut().zip(&locked[..n]) {
            *slot = self.impulse[i];
        }
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        let (locked, n) = self.locked();
        for (&i, d) in locked[..n].iter().zip(delta) {
            self.impulse[i] += d;
        }
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let mut rows = [JacobianRow::default(); 6];
        let mut error = [0.0; 6];
        let n = self.locked_rows(frames, &mut rows, &mut error);
        if n > 0 {
            correct_positions_rows(&rows[..n], &error[..n], a, b, beta, max);
        }
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (rows, _) = axis_rows(frames);
        let impulse: [f32; 6] = std::array::from_fn(|i| self.net_impulse(i));
        rows_reaction(&rows, &impulse, frames.r_b)
    }
}
