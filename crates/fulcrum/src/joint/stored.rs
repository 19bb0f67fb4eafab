//! A joint as the world stores it, and the event of a joint breaking.

use super::kind::JointKind;
use crate::dynamics::joints::{JointModel, JointSolver};
use crate::dynamics::parts::frames::Frames;
use crate::id::{BodyId, JointId};
use crate::math::{Pose, Vec3};

/// A joint as the world stores it. Read it through [`World::joint`](crate::World::joint);
/// change it through the world's setters so that sleeping bodies wake.
#[derive(Clone, Debug)]
pub struct Joint {
    pub(crate) name: String,
    pub(crate) kind: JointKind,
    pub(crate) body_a: Option<BodyId>,
    pub(crate) body_b: BodyId,
    /// A's joint frame in A's body frame (origin frame); world frame for the static world.
    pub(crate) frame_a: Pose,
    /// B's joint frame in B's body frame.
    pub(crate) frame_b: Pose,
    /// Solver parts and their accumulated impulses.
    pub(crate) model: JointModel,
    pub(crate) collide_connected: bool,
    pub(crate) break_force: Option<f32>,
    pub(crate) break_torque: Option<f32>,
    pub(crate) enabled: bool,
    pub(crate) broken: bool,
    /// The frames at the end of the last step the joint was solved in and that step's
    /// solver step length (s); the reaction is computed from them and the accumulated
    /// impulses when it is read. `None` before the first step.
    pub(crate) last_solve: Option<(Frames, f32)>,
}

impl Joint {
    /// The name given at creation (may be empty).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kind with its current parameters.
    pub fn kind(&self) -> &JointKind {
        &self.kind
    }

    /// Body A, or `None` for the static world.
    pub fn body_a(&self) -> Option<BodyId> {
        self.body_a
    }

    /// Body B.
    pub fn body_b(&self) -> BodyId {
        self.body_b
    }

    /// A's joint frame (anchor and orientation, X = axis) in A's body frame; in world
    /// coordinates when A is the static world.
    pub fn local_frame_a(&self) -> Pose {
        self.frame_a
    }

    /// B's joint frame in B's body frame.
    pub fn local_frame_b(&self) -> Pose {
        self.frame_b
    }

    /// Force the joint applied to body B in the last step, N (world axes).
    pub fn reaction_force(&self) -> Vec3 {
        self.reaction().0
    }

    /// Torque the joint applied to body B about B's anchor in the last step, N·m.
    pub fn reaction_torque(&self) -> Vec3 {
        self.reaction().1
    }

    /// Force and torque on B in the last step: the accumulated impulses over the solver
    /// step length (zero before the first step).
    pub(crate) fn reaction(&self) -> (Vec3, Vec3) {
        match self.last_solve {
            Some((frames, h)) if h > 0.0 => {
                let (linear, angular) = self.model.reaction_impulse(&frames);
                (linear / h, angular / h)
            }
            _ => (Vec3::ZERO, Vec3::ZERO),
        }
    }

    /// Do the connected bodies collide with each other?
    pub fn collide_connected(&self) -> bool {
        self.collide_connected
    }

    /// Break force, N.
    pub fn break_force(&self) -> Option<f32> {
        self.break_force
    }

    /// Break torque, N·m.
    pub fn break_torque(&self) -> Option<f32> {
        self.break_torque
    }

    /// Does the joint act? (false when disabled or broken)
    pub fn is_enabled(&self) -> bool {
        self.enabled && !self.broken
    }

    /// Did the joint break under overload?
    pub fn is_broken(&self) -> bool {
        self.broken
    }
}

/// A joint that broke in the last step: its reaction exceeded its break force or torque. It
/// stays in the world, broken (it no longer acts), until destroyed.
#[derive(Clone, Debug, PartialEq)]
pub struct JointBreak {
    /// The joint.
    pub joint: JointId,
    /// Its name.
    pub name: String,
    /// The reaction force that broke it, N.
    pub force: Vec3,
    /// The reaction torque, N·m.
    pub torque: Vec3,
}
