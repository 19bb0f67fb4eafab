//! Joint constraints in the solver: one file per joint kind, each assembled from the parts
//! in `dynamics/parts`, dispatched through [`JointModel`] with one `match` per stage; and the
//! exact solve of tree-shaped joint graphs in [`tree`].
//!
//! Per step the world gathers every active joint between awake bodies into a
//! [`JointConstraint`] (solver body indices, the frames at the start of the step, and a copy
//! of the joint's parts with their accumulated impulses); the solver passes call
//! `warm_start` / `solve` / `correct_positions` on them, and the impulses are copied back
//! into the joints at the end of the step for warm starting and the reaction readout.

pub(crate) mod angle;
pub(crate) mod ball;
pub(crate) mod distance;
pub(crate) mod gear;
pub(crate) mod hinge;
pub(crate) mod line;
pub(crate) mod point_wide;
pub(crate) mod prismatic;
pub(crate) mod pulley;
pub(crate) mod six_dof;
pub(crate) mod target;
pub(crate) mod tree;
pub(crate) mod user;
pub(crate) mod weld;

use super::parts::equality::PassContext;
use super::parts::frames::{Frames, StartFrames};
use super::parts::row::JacobianRow;
use super::solver_body::SolverBody;
use crate::error::Result;
use crate::joint::JointKind;
use crate::math::{Quat, Vec3};

pub(crate) use angle::AngleJoint;
pub(crate) use ball::BallJoint;
pub(crate) use distance::DistanceJoint;
pub(crate) use gear::GearJoint;
pub(crate) use hinge::HingeJoint;
pub(crate) use line::LineJoint;
pub(crate) use prismatic::PrismaticJoint;
pub(crate) use pulley::PulleyJoint;
pub(crate) use six_dof::SixDofJoint;
pub(crate) use target::TargetJoint;
pub(crate) use weld::WeldJoint;

/// What the world knows about a joint's geometry when it is created (world space).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CreationGeometry {
    /// World anchor on A.
    pub anchor_a: Vec3,
    /// World anchor on B.
    pub anchor_b: Vec3,
    /// World rotation of A's joint frame.
    pub rotation_a: Quat,
    /// World rotation of B's joint frame.
    pub rotation_b: Quat,
}

/// The verbs every joint kind implements. Kinds are dispatched by [`JointModel`]'s `match`,
/// never through trait objects.
pub(crate) trait JointSolver {
    /// Forgets the accumulated impulses.
    fn reset(&mut self);
    /// Takes the bodies' centres of mass (world) at the start of the step, for joints that
    /// measure against fixed world points (pulley, target).
    fn begin_step(&mut self, _center_a: Vec3, _center_b: Vec3) {}
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
    Distance(DistanceJoint),
    Pulley(PulleyJoint),
    Gear(GearJoint),
    Target(TargetJoint),
    Prismatic(PrismaticJoint),
    Line(LineJoint),
    Angle(AngleJoint),
    SixDof(SixDofJoint),
}

/// Calls `$body` with `$joint` bound to the kind's solver state.
macro_rules! dispatch {
    ($model:expr, $joint:ident => $body:expr) => {
        match $model {
            JointModel::Ball($joint) => $body,
            JointModel::Hinge($joint) => $body,
            JointModel::Weld($joint) => $body,
            JointModel::Distance($joint) => $body,
            JointModel::Pulley($joint) => $body,
            JointModel::Gear($joint) => $body,
            JointModel::Target($joint) => $body,
            JointModel::Prismatic($joint) => $body,
            JointModel::Line($joint) => $body,
            JointModel::Angle($joint) => $body,
            JointModel::SixDof($joint) => $body,
        }
    };
}

impl JointModel {
    /// The solver state of a new joint of `kind`.
    pub fn new(kind: &JointKind, geometry: &CreationGeometry) -> Result<JointModel> {
        let (anchor_a, anchor_b) = (geometry.anchor_a, geometry.anchor_b);
        match *kind {
            JointKind::Ball { cone_limit, twist_limits } => {
                Ok(JointModel::Ball(BallJoint::new(cone_limit, twist_limits)))
            }
            JointKind::Hinge { limits, motor, spring } => Ok(JointModel::Hinge(HingeJoint::new(limits, motor, spring))),
            JointKind::Weld { spring } => Ok(JointModel::Weld(WeldJoint::new(spring))),
            JointKind::Distance { rest_length, min_length, max_length, spring } => {
                let length = (anchor_b - anchor_a).length();
                Ok(JointModel::Distance(DistanceJoint::new(rest_length, min_length, max_length, spring, length)))
            }
            JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } => {
                Ok(JointModel::Pulley(PulleyJoint::new(ground_anchor_a, ground_anchor_b, ratio, anchor_a, anchor_b)))
            }
            JointKind::Gear { ratio, .. } => {
                Ok(JointModel::Gear(GearJoint::new(ratio, geometry.rotation_a, geometry.rotation_b)))
            }
            JointKind::Target { target, spring, max_force } => {
                Ok(JointModel::Target(TargetJoint::new(target, spring.frequency_hz, spring.damping_ratio, max_force)))
            }
            JointKind::Prismatic { limits, motor, spring } => {
                Ok(JointModel::Prismatic(PrismaticJoint::new(limits, motor, spring)))
            }
            JointKind::Line { limits, motor, spring } => Ok(JointModel::Line(LineJoint::new(limits, motor, spring))),
            JointKind::Angle { spring } => Ok(JointModel::Angle(AngleJoint::new(spring))),
            JointKind::SixDof { axes } => Ok(JointModel::SixDof(SixDofJoint::new(axes))),
        }
    }

    /// Takes new parameters of the same kind, keeping the accumulated impulses where the
    /// parts stay.
    pub fn configure(&mut self, kind: &JointKind, geometry: &CreationGeometry) -> Result<()> {
        let mut fresh = JointModel::new(kind, geometry)?;
        match (&mut fresh, &*self) {
            (JointModel::Distance(new), JointModel::Distance(old)) => {
                // Unset lengths still resolve against the distance at creation.
                if let JointKind::Distance { rest_length, min_length, max_length, spring } = *kind {
                    *new = DistanceJoint::new(rest_length, min_length, max_length, spring, old.creation_length);
                }
                new.keep_impulses(old)
            }
            (JointModel::Pulley(new), JointModel::Pulley(old)) => new.keep_impulses(old),
            (JointModel::Gear(new), JointModel::Gear(old)) => new.keep_impulses(old),
            (JointModel::Target(new), JointModel::Target(old)) => new.keep_impulses(old),
            (JointModel::Hinge(new), JointModel::Hinge(old)) => new.keep_impulses(old),
            (JointModel::Weld(new), JointModel::Weld(old)) => new.keep_impulses(old),
            (JointModel::Ball(new), JointModel::Ball(old)) => new.keep_impulses(old),
            (JointModel::Prismatic(new), JointModel::Prismatic(old)) => new.keep_impulses(old),
            (JointModel::Line(new), JointModel::Line(old)) => new.keep_impulses(old),
            (JointModel::Angle(new), JointModel::Angle(old)) => new.keep_impulses(old),
            (JointModel::SixDof(new), JointModel::SixDof(old)) => new.keep_impulses(old),
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
    fn begin_step(&mut self, center_a: Vec3, center_b: Vec3) {
        dispatch!(self, j => j.begin_step(center_a, center_b))
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
    /// It is solved in lanes by `point_wide` (and skipped by the per-joint loops).
    pub wide: bool,
}

impl JointConstraint {
    /// The frames at the bodies' current positions.
    #[inline]
    pub fn current_frames(&self, bodies: &[SolverBody]) -> Frames {
        self.frames.current(&bodies[self.body_a as usize], &bodies[self.body_b as usize])
    }

    /// Applies the accumulated impulses.
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        with_bodies(bodies, self.body_a, self.body_b, |a, b| {
            let frames = self.frames.current(a, b);
            self.model.warm_start(&frames, a, b);
        });
    }

    /// One pass.
    pub fn solve(&mut self, bodies: &mut [SolverBody], ctx: &PassContext) {
        let (start, in_tree, model) = (&self.frames, self.in_tree, &mut self.model);
        with_bodies(bodies, self.body_a, self.body_b, |a, b| {
            let frames = start.current(a, b);
            model.solve(&frames, a, b, ctx, in_tree);
        });
    }

    /// One position-correction pass (pgs + ngs).
    pub fn correct_positions(&self, bodies: &mut [SolverBody], beta: f32, max: f32) {
        with_bodies(bodies, self.body_a, self.body_b, |a, b| {
            let frames = self.frames.current(a, b);
            self.model.correct_positions(&frames, a, b, beta, max);
        });
    }
}

/// Runs `f` on the solver bodies `a` and `b` in place. The shared static body (index 0) is
/// passed as a copy and never written, so nothing a joint does can reach the other joints
/// and contacts that read it. A joint whose two bodies are both static does nothing.
#[inline]
pub(crate) fn with_bodies(bodies: &mut [SolverBody], a: u32, b: u32, f: impl FnOnce(&mut SolverBody, &mut SolverBody)) {
    let mut fixed = SolverBody::STATIC;
    match (a as usize, b as usize) {
        (0, 0) => {}
        (0, b) => f(&mut fixed, &mut bodies[b]),
        (a, 0) => f(&mut bodies[a], &mut fixed),
        (a, b) if a < b => {
            let (low, high) = bodies.split_at_mut(b);
            f(&mut low[a], &mut high[0]);
        }
        (a, b) if a > b => {
            let (low, high) = bodies.split_at_mut(a);
            f(&mut high[0], &mut low[b]);
        }
        _ => {}
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
