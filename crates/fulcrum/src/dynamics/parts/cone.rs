//! Cone limit of a ball joint (ragdoll shoulders, hips, necks): a circular cone of
//! half-angle α on the swing φ of the joint's frames (see `swing_twist`).
//!
//! ```text
//! C = α − φ ≥ 0,   J = [0, n, 0, −n],   λ ≥ 0
//! ```
//! One inequality row about the swing axis n, speculative like the limits of
//! [`Dof`](super::dof::Dof): the joint may close the gap within a step but not cross it. The
//! twist limits are a `Dof` on τ along the twist row. (Jolt's SwingTwistConstraintPart takes
//! an elliptic cone from the swing quaternion's y, z; a circular cone needs only the angle
//! between the axes.)

use super::dof::limit_impulse;
use super::equality::{FreeRow, PassContext};
use super::row::JacobianRow;
use super::swing_twist::SwingTwist;
use crate::dynamics::solver_body::SolverBody;

/// A circular cone limit on the swing with its accumulated impulse (N·m·s per solver step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ConePart {
    /// α, radians.
    pub half_angle: f32,
    /// λ ≥ 0 along the cone row.
    pub impulse: f32,
}

impl ConePart {
    /// A cone of half-angle `half_angle`.
    pub fn new(half_angle: f32) -> Self {
        Self { half_angle, impulse: 0.0 }
    }

    /// Applies the accumulated impulse.
    pub fn warm_start(&self, angles: &SwingTwist, a: &mut SolverBody, b: &mut SolverBody) {
        angles.cone_row(self.half_angle).0.apply(a, b, self.impulse);
    }

    /// One pass along the cone row within the joint's equality rows (see [`FreeRow`]);
    /// returns the equality impulses that came with it.
    pub fn solve<const N: usize>(
        &mut self,
        angles: &SwingTwist,
        equality: &[JacobianRow; N],
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
    ) -> [f32; N] {
        let (row, gap) = angles.cone_row(self.half_angle);
        let free = FreeRow::new(&row, equality, a, b);
        let mut booked = [0.0; N];
        let k = free.row.dot(&free.row.weighted(a, b));
        if !(k > 0.0) {
            return booked;
        }
        let delta = limit_impulse(&free.row, a, b, 1.0 / k, gap, ctx, &mut self.impulse);
        free.row.apply(a, b, delta);
        free.book(delta, &mut booked);
        booked
    }
}
