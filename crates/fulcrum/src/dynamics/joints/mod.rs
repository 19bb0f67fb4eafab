//! Joint constraints in the solver: one file per joint kind, each assembled from the parts
//! in `dynamics/parts`, dispatched through [`JointModel`] with one `match` per stage; and the
//! exact solve of tree-shaped joint graphs in [`forest`].
//!
//! A joint keeps its parameters once, as its [`JointKind`], and carries only its accumulated
//! impulses (and a gear's turns) from step to step ([`JointState`]). Per step the world hands
//! every active joint between awake bodies to the solver ([`JointInput`]); the solver builds
//! a [`JointConstraint`] from it (solver body indices, the frames at the start of the step,
//! and the kind's parts with the carried impulses loaded), or keeps last step's with its
//! frames refreshed while the gathered joints are the same (when the world knows they are,
//! no inputs are listed: each kept constraint takes its frames from its joint, and the ball
//! joints in lanes start from their [`JointAnchors`] alone); it runs `warm_start` / `solve` /
//! `correct_positions` on it, and at the end of the step saves the impulses back and reports
//! the reaction.

pub(crate) mod angle;
pub(crate) mod ball;
pub(crate) mod distance;
pub(crate) mod forest;
pub(crate) mod gear;
pub(crate) mod hinge;
pub(crate) mod line;
pub(crate) mod point_wide;
pub(crate) mod prismatic;
pub(crate) mod pulley;
pub(crate) mod six_dof;
pub(crate) mod target;
pub(crate) mod user;
pub(crate) mod weld;

use super::parts::equality::PassContext;
use super::parts::frames::{Frames, StartFrames};
use super::parts::row::JacobianRow;
use super::solver_body::SolverBody;
use crate::joint::{CreationGeometry, Joint, JointKind, JointState};
use crate::math::{Pose, Vec3};

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

/// The verbs every joint kind implements. Kinds are dispatched by [`JointModel`]'s `match`,
/// never through trait objects.
pub(crate) trait JointSolver {
    /// Visits every impulse slot of the kind in a fixed order, with the tag of the part the
    /// slot belongs to (0: the part is absent in this configuration). This is all the state
    /// a joint carries between steps (besides a gear's turns): loading, saving and
    /// forgetting impulses go through it.
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32));
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
    /// The rows of a joint of `kind` measured against `reference`, with no impulses yet.
    pub fn new(kind: &JointKind, reference: &CreationGeometry) -> JointModel {
        let (anchor_a, anchor_b) = (reference.anchor_a, reference.anchor_b);
        match *kind {
            JointKind::Ball { cone_limit, twist_limits, friction_torque } => {
                JointModel::Ball(BallJoint::new(cone_limit, twist_limits, friction_torque))
            }
            JointKind::Hinge { limits, motor, spring } => JointModel::Hinge(HingeJoint::new(limits, motor, spring)),
            JointKind::Weld { spring } => JointModel::Weld(WeldJoint::new(spring)),
            JointKind::Distance { rest_length, min_length, max_length, spring } => {
                let length = (anchor_b - anchor_a).length();
                JointModel::Distance(DistanceJoint::new(rest_length, min_length, max_length, spring, length))
            }
            JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } => {
                JointModel::Pulley(PulleyJoint::new(ground_anchor_a, ground_anchor_b, ratio, anchor_a, anchor_b))
            }
            JointKind::Gear { ratio, .. } => {
                JointModel::Gear(GearJoint::new(ratio, reference.rotation_a, reference.rotation_b))
            }
            JointKind::Target { target, spring, max_force } => {
                JointModel::Target(TargetJoint::new(target, spring.frequency_hz, spring.damping_ratio, max_force))
            }
            JointKind::Prismatic { limits, motor, spring } => {
                JointModel::Prismatic(PrismaticJoint::new(limits, motor, spring))
            }
            JointKind::Line { limits, motor, spring } => JointModel::Line(LineJoint::new(limits, motor, spring)),
            JointKind::Angle { spring } => JointModel::Angle(AngleJoint::new(spring)),
            JointKind::SixDof { axes } => JointModel::SixDof(SixDofJoint::new(axes)),
        }
    }

    /// Takes the state carried from the last step: a gear's turns, and (when warm starting)
    /// the impulses of the slots whose part is the same as when they were saved.
    pub fn load(&mut self, state: &JointState, warm: bool) {
        if let JointModel::Gear(gear) = self {
            gear.turns = state.turns;
        }
        if !warm {
            return;
        }
        let mut slot = 0;
        self.impulses(&mut |part, impulse| {
            if part != 0 && state.parts[slot] == part {
                *impulse = state.impulses[slot];
            }
            slot += 1;
        });
    }

    /// Saves what the joint carries to the next step.
    pub fn save(&mut self, state: &mut JointState) {
        if let JointModel::Gear(gear) = self {
            state.turns = gear.turns;
        }
        let mut slot = 0;
        self.impulses(&mut |part, impulse| {
            (state.impulses[slot], state.parts[slot]) = (*impulse, part);
            slot += 1;
        });
    }
}

impl JointSolver for JointModel {
    fn impulses(&mut self, visit: &mut impl FnMut(u8, &mut f32)) {
        dispatch!(self, j => j.impulses(visit))
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

/// One active joint as the world hands it to the solver for a step (the joint itself, its
/// kind, reference geometry and carried state, is in the world's arena at `slot`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointInput {
    /// Slot of the joint in the world's arena.
    pub slot: u32,
    /// Solver indices of A and B (0: the static world or a static body).
    pub bodies: (u32, u32),
    /// The joint's frames at the start of the step.
    pub frames: StartFrames,
    /// World centres of mass of A and B (zero for the static world).
    pub centers: (Vec3, Vec3),
}

impl JointInput {
    /// The input of `joint` (in arena slot `slot`) between the solver bodies `bodies`, with
    /// world poses `poses` and centres of mass `centers`.
    pub fn new(slot: u32, joint: &Joint, bodies: (u32, u32), poses: (Pose, Pose), centers: (Vec3, Vec3)) -> Self {
        let anchors = (joint.frame_a.position, joint.frame_b.position);
        let (r_a, r_b, centers_offset) = anchor_offsets((&poses.0, &poses.1), centers, anchors);
        let frames = StartFrames {
            r_a,
            r_b,
            centers: centers_offset,
            rotation_a: poses.0.rotation * joint.frame_a.rotation,
            rotation_b: poses.1.rotation * joint.frame_b.rotation,
        };
        JointInput { slot, bodies, frames, centers }
    }
}

/// The anchors' offsets from the centres of mass and the centres' offset, (r_A, r_B,
/// c_B − c_A), of bodies at `poses` with centres `centers` and the anchors `anchors` in
/// their body frames: r = p + R a − c.
#[inline(always)]
pub(crate) fn anchor_offsets(
    poses: (&Pose, &Pose),
    centers: (Vec3, Vec3),
    anchors: (Vec3, Vec3),
) -> (Vec3, Vec3, Vec3) {
    let anchor_a = poses.0.transform_point(anchors.0);
    let anchor_b = poses.1.transform_point(anchors.1);
    (anchor_a - centers.0, anchor_b - centers.1, centers.1 - centers.0)
}

/// Where a joint's anchors are: each body's place in the step's table of poses
/// (`SolverData::slot_poses`: its arena slot + 1, or 0 for the static world) and the
/// anchor in that body's frame. The lanes of plain ball joints kept from the last step
/// start each step from these alone.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct JointAnchors {
    pub pose_a: u32,
    pub pose_b: u32,
    pub anchor_a: Vec3,
    pub anchor_b: Vec3,
}

impl JointAnchors {
    /// The anchors of `joint`.
    pub fn of(joint: &Joint) -> JointAnchors {
        JointAnchors {
            pose_a: joint.body_a.map_or(0, |id| id.0.index + 1),
            pose_b: joint.body_b.0.index + 1,
            anchor_a: joint.frame_a.position,
            anchor_b: joint.frame_b.position,
        }
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
    /// Where its anchors are (for the lanes of plain ball joints).
    pub anchors: JointAnchors,
}

/// What the joint forest's loop search and the colouring of the ball joints' lanes read of a
/// joint: its two solver bodies, which of them are dynamic, its equality row count and
/// whether it is a plain ball joint. Both are functions of these alone, so they are kept
/// while every joint's are the same as the last step's (a grid of 19,800 ball joints spent
/// 0.8 ms a step, on one thread, finding the same loops and colours again).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JointEnds {
    pub body_a: u32,
    pub body_b: u32,
    pub dynamic_a: bool,
    pub dynamic_b: bool,
    pub equality_dim: u8,
    pub point_only: bool,
}

impl JointEnds {
    /// The ends of `c` among the solver `bodies` (index 0, the static world, is never dynamic).
    pub fn of(c: &JointConstraint, bodies: &[SolverBody]) -> JointEnds {
        let dynamic = |i: u32| i != 0 && bodies[i as usize].inv_mass > 0.0;
        JointEnds {
            body_a: c.body_a,
            body_b: c.body_b,
            dynamic_a: dynamic(c.body_a),
            dynamic_b: dynamic(c.body_b),
            equality_dim: c.model.equality_dim() as u8,
            point_only: matches!(&c.model, JointModel::Ball(ball) if ball.is_point_only()),
        }
    }
}

impl JointConstraint {
    /// The joint's rows for this step: its frames at the start of the step, and its parts
    /// built from its kind with the state it carried from the last step (its impulses only
    /// when warm starting).
    pub fn prepare(input: &JointInput, joint: &Joint, warm: bool) -> JointConstraint {
        let mut model = JointModel::new(&joint.kind, &joint.reference);
        model.load(&joint.state, warm);
        let mut constraint = JointConstraint {
            slot: input.slot,
            body_a: input.bodies.0,
            body_b: input.bodies.1,
            frames: input.frames,
            model,
            in_tree: false,
            anchors: JointAnchors::of(joint),
        };
        constraint.begin_step(input);
        constraint
    }

    /// Is this the constraint `input` would give: the same joint between the same solver
    /// bodies?
    pub fn matches(&self, input: &JointInput) -> bool {
        self.slot == input.slot && (self.body_a, self.body_b) == input.bodies
    }

    /// Takes this step's frames from `input` and tells the parts the centres of mass
    /// (pulley, target). The parts keep what they carry: a constraint kept from the last step
    /// is the one [`JointConstraint::prepare`] would build from the joint's saved state (its
    /// impulses and a gear's turns are all its parts carry; tested in `world/joints.rs`).
    pub fn begin_step(&mut self, input: &JointInput) {
        self.frames = input.frames;
        self.model.begin_step(input.centers.0, input.centers.1);
    }

    /// Saves what the joint carries to the next step.
    pub fn save(&mut self, state: &mut JointState) {
        self.model.save(state);
    }

    /// The joint's reaction on B over the solver step `h`: force (N) and torque about B's
    /// anchor (N·m).
    pub fn reaction(&self, bodies: &[SolverBody], h: f32) -> (Vec3, Vec3) {
        // A plain ball joint only holds B's anchor on A's: its impulse is the force's, and it
        // has no torque about that anchor (Σ (r_B × e_i) λ_i − r_B × λ = 0), so the frames
        // are not needed (19,800 of them cost 0.2 ms a step in joint_grid).
        if let JointModel::Ball(ball) = &self.model {
            if ball.is_point_only() {
                return (ball.point.impulse / h, Vec3::ZERO);
            }
        }
        let (linear, angular) = self.model.reaction_impulse(&self.current_frames(bodies));
        (linear / h, angular / h)
    }

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

/// Visits the three components of a vector impulse as slots of a present part.
pub(crate) fn visit_point(impulse: &mut Vec3, visit: &mut impl FnMut(u8, &mut f32)) {
    let mut components = impulse.to_array();
    components.iter_mut().for_each(|x| visit(1, x));
    *impulse = Vec3::from_array(components);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint::{Limits, Motor};
    use crate::math::Quat;

    const REFERENCE: CreationGeometry = CreationGeometry {
        anchor_a: Vec3::ZERO,
        anchor_b: Vec3::X,
        rotation_a: Quat::IDENTITY,
        rotation_b: Quat::IDENTITY,
    };

    fn hinge(limits: Option<Limits>, motor: Option<Motor>) -> JointModel {
        JointModel::new(&JointKind::Hinge { limits, motor, spring: None }, &REFERENCE)
    }

    /// Fills every slot with its number plus one and saves it.
    fn saved(mut model: JointModel) -> JointState {
        let mut value = 0.0;
        model.impulses(&mut |_, impulse| {
            value += 1.0;
            *impulse = value;
        });
        let mut state = JointState::default();
        model.save(&mut state);
        state
    }

    fn loaded(mut model: JointModel, state: &JointState, warm: bool) -> Vec<f32> {
        model.load(state, warm);
        let mut out = Vec::new();
        model.impulses(&mut |_, impulse| out.push(*impulse));
        out
    }

    /// A hinge's slots: point 3, rotation 2, then the angle's spring, motor, lower, upper.
    #[test]
    fn changed_parameters_keep_the_impulses_of_the_parts_that_stay() {
        let motor = Some(Motor::Velocity { target_velocity: 1.0, max_force: 10.0 });
        let state = saved(hinge(None, motor));
        // Same parts, new motor speed: everything comes back.
        let faster = Some(Motor::Velocity { target_velocity: 2.0, max_force: 10.0 });
        assert_eq!(loaded(hinge(None, faster), &state, true), [1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 7.0, 0.0, 0.0]);
        // Motor removed, limits added: the equality rows keep theirs, the limits start at 0.
        let limits = Some(Limits::new(-1.0, 1.0));
        assert_eq!(loaded(hinge(limits, None), &state, true), [1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 0.0]);
        // Without warm starting nothing is taken back.
        assert!(loaded(hinge(None, motor), &state, false).iter().all(|&x| x == 0.0));
    }

    /// A plain ball joint's reaction taken without its frames, (λ/h, 0), is what its rows
    /// give at any anchor offsets: force Σ l_B λ = λ, and a torque about B's anchor that
    /// vanishes up to rounding (1e-5 of |r_B||λ|).
    #[test]
    fn plain_ball_reaction_is_its_rows_reaction() {
        let h = 1.0 / 240.0;
        let offsets =
            [(Vec3::new(0.3, -0.2, 0.5), Vec3::new(-1.5, 0.25, 0.0)), (Vec3::ZERO, Vec3::new(0.1, 2.0, -0.7))];
        for (r_a, r_b) in offsets {
            let mut ball = ball::BallJoint::new(None, None, None);
            ball.point.impulse = Vec3::new(0.8, -2.5, 1.25);
            let frames = Frames {
                r_a,
                r_b,
                separation: Vec3::new(1e-3, 0.0, -2e-3),
                rotation_a: Quat::IDENTITY,
                rotation_b: Quat::from_rotation_y(0.4),
            };
            let rows = crate::dynamics::parts::point::point_rows(&frames).0;
            let (linear, angular) = rows_reaction(&rows, &ball.point.impulse.to_array(), r_b);
            let constraint = JointConstraint {
                slot: 0,
                body_a: 0,
                body_b: 0,
                frames: StartFrames {
                    r_a,
                    r_b,
                    centers: Vec3::X,
                    rotation_a: Quat::IDENTITY,
                    rotation_b: Quat::IDENTITY,
                },
                model: JointModel::Ball(ball),
                in_tree: false,
                anchors: JointAnchors::default(),
            };
            let (force, torque) = constraint.reaction(&[SolverBody::STATIC], h);
            assert!((force - linear / h).length() <= 1e-6 * force.length(), "{force} against {}", linear / h);
            assert_eq!(torque, Vec3::ZERO);
            let scale = r_b.length() * ball.point.impulse.length();
            assert!(angular.length() <= 1e-5 * scale, "rows' torque {angular}");
        }
    }

    /// The most slots a kind has fits the state (a six-DOF joint with every axis limited).
    #[test]
    fn every_kind_fits_the_state() {
        let axes = [crate::joint::AxisMotion::Limited(-1.0, 1.0); 6];
        let state = saved(JointModel::new(&JointKind::SixDof { axes }, &REFERENCE));
        assert_eq!(state.parts, [2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1]);
    }
}
