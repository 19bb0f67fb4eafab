//! Joint constraints in the solver: one file per joint kind, each assembled from the parts
//! in `dynamics/parts`, dispatched through [`JointModel`] with one `match` per stage; and the
//! exact solve of tree-shaped joint graphs in [`tree`].
//!
//! Per step the world gathers every active joint between awake bodies into a
//! [`JointConstraint`] (solver body indices, the frames at the start of the step, and a copy
//! of the joint's parts with their accumulated impulses); the solver passes call
//! `warm_start` / `solve` / `correct_positions` on them, and the impulses are copied back
//! into the joints at the end of the step for warm starting and the reaction readout.

pub(crate) mod ball;
pub(crate) mod hinge;
pub(crate) mod tree;
pub(crate) mod weld;

use super::parts::equality::PassContext;
use super::parts::frames::{Frames, StartFrames};
use super::parts::row::JacobianRow;
use super::solver_body::SolverBody;
use crate::error::{Error, Result};
use crate::joint::JointKind;
use crate::math::Vec3;

pub(crate) use ball::BallJoint;
pub(crate) use hinge::HingeJoint;
pub(crate) use weld::WeldJoint;

/// What the world knows about a joint's geometry when it is created (world space).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CreationGeometry {
    /// World anchor on A.
    pub anchor_a: Vec3,
    /// World anchor on B.
    pub anchor_b: Vec3,
}

/// The verbs every joint kind implements. Kinds are dispatched by [`JointModel`]'s `match`,
/// never through trait objects.
pub(crate) trait JointSolver {
    /// Forgets the accumulated impulses.
    fn reset(&mut self);
    /// Applies the accumulated impulses (start of a substep).
    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody);
    /// One pass over the joint's parts. When `equality_in_tree` the rigid equality rows are
    /// left to the exact tree solve and only springs, motors and limits run here.
    fn solve(
        &mut self,
        frames: &Frames,
        a: &mut SolverBody,
        b: &mut SolverBody,
        ctx: &PassContext,
        equality_in_tree: bool,
    );
    /// Number of rigid equality rows the tree solve may take over (0: none, or they are soft).
    fn equality_dim(&self) -> usize {
        0
    }
    /// The rigid equality rows and their position errors; returns their number.
    fn equality_rows(&self, _frames: &Frames, _rows: &mut [JacobianRow; 6], _error: &mut [f32; 6]) -> usize {
        0
    }
    /// The accumulated impulses of the equality rows, in row order.
    fn equality_impulse(&self, _out: &mut [f32; 6]) {}
    /// Adds `delta` to the accumulated impulses of the equality rows.
    fn add_equality_impulse(&mut self, _delta: &[f32]) {}
    /// One-sided limit rows (C = gap ≥ 0, λ ≥ 0) the tree solve may hold exactly together with
    /// the equality rows while they push; returns their number. Row i's accumulated impulse
    /// is [`JointSolver::limit_impulse`]`(i)`. The joint's `solve` keeps solving them too:
    /// it detects the contact (and runs them outside a tree).
    fn limit_rows(&self, _frames: &Frames, _rows: &mut [JacobianRow; 6], _gaps: &mut [f32; 6]) -> usize {
        0
    }
    /// The accumulated impulse of limit row `i`.
    fn limit_impulse(&self, _i: usize) -> f32 {
        0.0
    }
    /// Adds `delta` to the accumulated impulse of limit row `i`.
    fn add_limit_impulse(&mut self, _i: usize, _delta: f32) {}
    /// Non-linear Gauss-Seidel position correction (pgs + ngs).
    fn correct_positions(&self, _frames: &Frames, _a: &mut SolverBody, _b: &mut SolverBody, _beta: f32, _max: f32) {}
    /// Accumulated impulse on B: linear (N·s, world) and angular about B's anchor (N·m·s).
    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3);
}

/// Every joint kind's solver state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum JointModel {
    Ball(BallJoint),
    Hinge(HingeJoint),
    Weld(WeldJoint),
}

/// Calls `$body` with `$joint` bound to the kind's solver state.
macro_rules! dispatch {
    ($model:expr, $joint:ident => $body:expr) => {
        match $model {
            JointModel::Ball($joint) => $body,
            JointModel::Hinge($joint) => $body,
            JointModel::Weld($joint) => $body,
        }
    };
}

impl JointModel {
    /// The solver state of a new joint of `kind`.
    pub fn new(kind: &JointKind, geometry: &CreationGeometry) -> Result<JointModel> {
        let _ = geometry;
        match *kind {
            JointKind::Ball { cone_limit, twist_limits } => {
                Ok(JointModel::Ball(BallJoint::new(cone_limit, twist_limits)))
            }
            JointKind::Hinge { limits, motor, spring } => Ok(JointModel::Hinge(HingeJoint::new(limits, motor, spring))),
            JointKind::Weld { spring } => Ok(JointModel::Weld(WeldJoint::new(spring))),
            _ => Err(Error::new("kind", format!("{} joints with these options are not supported yet", kind.name()))),
        }
    }

    /// Takes new parameters of the same kind, keeping the accumulated impulses where the
    /// parts stay.
    pub fn configure(&mut self, kind: &JointKind, geometry: &CreationGeometry) -> Result<()> {
        let mut fresh = JointModel::new(kind, geometry)?;
        match (&mut fresh, &*self) {
            (JointModel::Hinge(new), JointModel::Hinge(old)) => new.keep_impulses(old),
            (JointModel::Weld(new), JointModel::Weld(old)) => new.keep_impulses(old),
            (JointModel::Ball(new), JointModel::Ball(old)) => new.keep_impulses(old),
            _ => {}
        }
        *self = fresh;
        Ok(())
    }
}

impl JointSolver for JointModel {
    fn reset(&mut self) {
        dispatch!(self, j => j.reset())
    }
    fn warm_start(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody) {
        dispatch!(self, j => j.warm_start(frames, a, b))
    }
    fn solve(&mut self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, ctx: &PassContext, in_tree: bool) {
        dispatch!(self, j => j.solve(frames, a, b, ctx, in_tree))
    }
    fn equality_dim(&self) -> usize {
        dispatch!(self, j => j.equality_dim())
    }
    fn equality_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], error: &mut [f32; 6]) -> usize {
        dispatch!(self, j => j.equality_rows(frames, rows, error))
    }
    fn equality_impulse(&self, out: &mut [f32; 6]) {
        dispatch!(self, j => j.equality_impulse(out))
    }
    fn add_equality_impulse(&mut self, delta: &[f32]) {
        dispatch!(self, j => j.add_equality_impulse(delta))
    }
    fn limit_rows(&self, frames: &Frames, rows: &mut [JacobianRow; 6], gaps: &mut [f32; 6]) -> usize {
        dispatch!(self, j => j.limit_rows(frames, rows, gaps))
    }
    fn limit_impulse(&self, i: usize) -> f32 {
        dispatch!(self, j => j.limit_impulse(i))
    }
    fn add_limit_impulse(&mut self, i: usize, delta: f32) {
        dispatch!(self, j => j.add_limit_impulse(i, delta))
    }
    fn correct_positions(&self, frames: &Frames, a: &mut SolverBody, b: &mut SolverBody, beta: f32, max: f32) {
        dispatch!(self, j => j.correct_positions(frames, a, b, beta, max))
    }
    fn reaction_impulse(&self, frames: &Frames) -> (Vec3, Vec3) {
        dispatch!(self, j => j.reaction_impulse(frames))
    }
}

/// One active joint in this step's solver arrays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointConstraint {
    /// Slot of the joint in the world's arena (impulses are written back there).
    pub slot: u32,
    /// Solver index of body A (0: the static world or a static body).
    pub body_a: u32,
    /// Solver index of body B.
    pub body_b: u32,
    /// Frames at the start of the step.
    pub frames: StartFrames,
    /// The joint's parts with their accumulated impulses.
    pub model: JointModel,
    /// Its equality rows are solved by the exact tree solve.
    pub in_tree: bool,
}

impl JointConstraint {
    #[inline]
    fn load(&self, bodies: &[SolverBody]) -> (SolverBody, SolverBody) {
        (bodies[self.body_a as usize], bodies[self.body_b as usize])
    }

    /// Writes the velocities and positions back (index 0 is never written).
    #[inline]
    fn store(&self, bodies: &mut [SolverBody], a: SolverBody, b: SolverBody) {
        if self.body_a != 0 {
            bodies[self.body_a as usize] = a;
        }
        if self.body_b != 0 {
            bodies[self.body_b as usize] = b;
        }
    }

    /// The frames at the bodies' current positions.
    #[inline]
    pub fn current_frames(&self, bodies: &[SolverBody]) -> Frames {
        self.frames.current(&bodies[self.body_a as usize], &bodies[self.body_b as usize])
    }

    /// Applies the accumulated impulses.
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        let (mut a, mut b) = self.load(bodies);
        let frames = self.frames.current(&a, &b);
        self.model.warm_start(&frames, &mut a, &mut b);
        self.store(bodies, a, b);
    }

    /// One pass.
    pub fn solve(&mut self, bodies: &mut [SolverBody], ctx: &PassContext) {
        let (mut a, mut b) = self.load(bodies);
        let frames = self.frames.current(&a, &b);
        self.model.solve(&frames, &mut a, &mut b, ctx, self.in_tree);
        self.store(bodies, a, b);
    }

    /// One position-correction pass (pgs + ngs).
    pub fn correct_positions(&self, bodies: &mut [SolverBody], beta: f32, max: f32) {
        let (mut a, mut b) = self.load(bodies);
        let frames = self.frames.current(&a, &b);
        self.model.correct_positions(&frames, &mut a, &mut b, beta, max);
        self.store(bodies, a, b);
    }
}

/// Sums the reaction of equality rows with accumulated impulses `impulse` on body B: linear
/// impulse Σ l_B λ and angular impulse about B's anchor Σ (a_B λ) − r_B × (l_B λ).
pub(crate) fn rows_reaction(rows: &[JacobianRow], impulse: &[f32], r_b: Vec3) -> (Vec3, Vec3) {
    let mut linear = Vec3::ZERO;
    let mut angular = Vec3::ZERO;
    for (row, &lambda) in rows.iter().zip(impulse) {
        linear += row.linear_b * lambda;
        angular += row.angular_b * lambda;
    }
    (linear, angular - r_b.cross(linear))
}
