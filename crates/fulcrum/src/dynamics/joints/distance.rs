//! Distance joint: keeps the length L = |p_B − p_A| between the two anchors as a rod, a rope,
//! a range or a spring.
//!
//! ```text
//! L = |d|, u = d / L,  J = [ −u, −(r_A × u), u, r_B × u ]      (the length part)
//! rod     min = max:  C = L − max = 0              one rigid equality row
//! range   min < max:  L − min ≥ 0, max − L ≥ 0     the length's limits (λ ≥ 0 each)
//! rope    only max:   max − L ≥ 0                  pulls, never pushes
//! spring  C = L − rest, soft at (hertz, ζ)         inside the limits when min < max;
//!                                                  it replaces the rod's rigid row when
//!                                                  min = max
//! ```
//!
//! Unset fields resolve as `JointKind::Distance` documents: the rest length is the distance
//! at creation; the minimum and maximum are the rest length unless only the other bound is
//! given (only a maximum: no minimum, a rope; only a minimum: no maximum). The rest length is
//! clamped into [min, max]. A minimum of 0 is no limit at all (a length cannot be shorter),
//! so a rope with coincident anchors pushes nothing. The rod's row is solved by the exact
//! tree solve when the joint is part of a tree; limits and springs always run here, through
//! the [`Dof`] part along the length row.

use super::{rows_reaction, JointSolver};
use crate::dynamics::parts::dof::{Dof, DofSpring};
use crate::dynamics::parts::equality::{correct_positions, solve_equality, PassContext};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::length::length_row;
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::joint::Spring;
use crate::math::Vec3;

/// The parameters of a distance joint with every unset field resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DistanceLengths {
    /// Rest length of the spring (inside [min, max]), metres.
    pub rest: f32,
    /// Shortest length; 0 is no lower limit.
    pub min: f32,
    /// Longest length; infinite is no upper limit.
    pub max: f32,
}

impl DistanceLengths {
    /// Resolves the optional fields of `JointKind::Distance` against the distance between
    /// the anchors at creation.
    pub fn resolve(rest: Option<f32>, min: Option<f32>, max: Option<f32>, creation_length: f32) -> Self {
        let rest = rest.unwrap_or(creation_length);
        let (min, max) = match (min, max) {
            (Some(min), Some(max)) => (min, max),
            (None, Some(max)) => (0.0, max),
            (Some(min), None) => (min, f32::INFINITY),
            (None, None) => (rest, rest),
        };
        Self { rest: rest.clamp(min, max), min, max }
    }

    /// A rod: the length is fixed.
    pub fn is_rigid(&self) -> bool {
        self.min == self.max
    }
}

/// Solver state of a distance joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DistanceJoint {
    /// The resolved lengths.
    pub lengths: DistanceLengths,
    /// The distance between the anchors at creation (what an unset rest length resolves to,
    /// kept so that changing the spring later does not move the rest length).
    pub creation_length: f32,
    /// The rod's rigid row (none with a spring or a range).
    pub rigid: bool,
    /// Accumulated impulse of the rod's row.
    pub impulse: f32,
    /// Spring and limits along the length.
    pub length: Dof,
}

impl DistanceJoint {
    /// A distance joint with the given options; `creation_length` is the anchors' distance.
    pub fn new(
        rest: Option<f32>,
        min: Option<f32>,
        max: Option<f32>,
        spring: Option<Spring>,
        creation_length: f32,
    ) -> Self {
        let lengths = DistanceLengths::resolve(rest, min, max, creation_length);
        let rigid = lengths.is_rigid() && spring.is_none();
        let limits = (!lengths.is_rigid()).then(|| {
            let lower = if lengths.min > 0.0 { lengths.min } else { f32::NEG_INFINITY };
            (lower, lengths.max)
        });
        let length = Dof {
            spring: spring.map(|s| DofSpring {
                hertz: s.frequency_hz,
                damping_ratio: s.damping_ratio,
                rest: lengths.rest,
            }),
            limits: if rigid { None } else { limits },
            ..Dof::default()
        };
        Self { lengths, creation_length, rigid, impulse: 0.0, length }
    }

    /// Position error of the length outside its limits (0 inside, or without limits: a
    /// spring alone is never corrected), metres.
    fn limit_error(&self, length: f32) -> f32 {
        match self.length.limits {
            Some((_, upper)) if length > upper => length - upper,
            Some((lower, _)) if length < lower => length - lower,
            _ => 0.0,
        }
    }
}

impl JointSolver for DistanceJoint {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        visit(u8::from(self.rigid), &mut self.impulse);
        self.length.impulses(visit);
    }

    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        let (row, _) = length_row(frames);
        row.apply(a, b, self.impulse + self.length.total_impulse());
    }

    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        let (row, length) = length_row(frames);
        if self.length.is_active() {
            self.length.solve(&row, length, a, b, ctx);
        }
        if self.rigid && !in_tree {
            let mut impulse = [self.impulse];
            solve_equality(&[row], &[length - self.lengths.max], &mut impulse, a, b, ctx.rigid());
            self.impulse = impulse[0];
        }
    }

    fn equality_dim(&self) -> usize {
        usize::from(self.rigid)
    }

    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        if !self.rigid {
            return 0;
        }
        let (row, length) = length_row(frames);
        rows[0] = row;
        error[0] = length - self.lengths.max;
        1
    }

    fn equality_impulse(&self, out: &mut [f32; 6]) {
        out[0] = self.impulse;
    }

    fn add_equality_impulse(&mut self, delta: &[f32]) {
        self.impulse += delta[0];
    }

    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        let (row, length) = length_row(frames);
        let error = if self.rigid { length - self.lengths.max } else { self.limit_error(length) };
        if error != 0.0 {
            correct_positions(&[row], &[error], a, b, beta, max);
        }
    }

    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        let (row, _) = length_row(frames);
        rows_reaction(&[row], &[self.impulse + self.length.total_impulse()], frames.r_b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_fields_resolve_as_documented() {
        let rod = DistanceLengths::resolve(None, None, None, 2.0);
        assert_eq!((rod.rest, rod.min, rod.max), (2.0, 2.0, 2.0));
        let rope = DistanceLengths::resolve(None, None, Some(3.0), 2.0);
        assert_eq!((rope.rest, rope.min, rope.max), (2.0, 0.0, 3.0));
        let strut = DistanceLengths::resolve(Some(1.0), Some(1.5), None, 2.0);
        assert_eq!((strut.rest, strut.min, strut.max), (1.5, 1.5, f32::INFINITY));
        let range = DistanceLengths::resolve(Some(5.0), Some(1.0), Some(4.0), 2.0);
        assert_eq!(range.rest, 4.0, "the rest length is clamped into the range");
    }

    #[test]
    fn a_rope_has_no_lower_limit_and_a_spring_softens_a_rod() {
        let rope = DistanceJoint::new(None, Some(0.0), Some(3.0), None, 2.0);
        assert_eq!(rope.length.limits, Some((f32::NEG_INFINITY, 3.0)));
        assert_eq!(rope.equality_dim(), 0);
        let rod = DistanceJoint::new(None, None, None, None, 2.0);
        assert_eq!(rod.equality_dim(), 1);
        let soft = DistanceJoint::new(None, None, None, Some(Spring::new(2.0, 0.1)), 2.0);
        assert_eq!((soft.equality_dim(), soft.length.limits), (0, None));
        assert_eq!(soft.limit_error(2.5), 0.0, "a spring alone is never position-corrected");
        assert_eq!((rope.limit_error(3.5), rope.limit_error(0.0)), (0.5, 0.0));
    }
}
