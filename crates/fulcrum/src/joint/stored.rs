//! A joint as the world stores it (its parameters once, as its kind; what it measured at
//! creation; and what it carries from step to step), and the event of a joint breaking.

use super::kind::JointKind;
use crate::id::{BodyId, JointId};
use crate::math::{Pose, Quat, Vec3};

/// Most impulse slots any joint kind has (a six-DOF joint: six axes, two limit sides each).
pub(crate) const MAX_JOINT_IMPULSES: usize = 12;

/// The world geometry of a joint when it was made (or, for a pulley and a gear, when its
/// parameters last changed): what a distance joint's unset lengths, a pulley's total rope
/// length and a gear's turns are measured against.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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

/// What a joint carries from one step to the next besides its parameters: the accumulated
/// impulses of its rows (warm starting) and a gear's unwrapped turns. The solver builds the
/// joint's rows from its kind every step and loads these into them.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct JointState {
    /// Accumulated impulses, in the kind's slot order.
    pub impulses: [f32; MAX_JOINT_IMPULSES],
    /// The part each slot belonged to when saved (0: absent). An impulse is taken back only
    /// into the same part, so changing a joint's parameters keeps the impulses of the parts
    /// that stay and starts new parts from zero.
    pub parts: [u8; MAX_JOINT_IMPULSES],
    /// A gear's turns (θ_a, θ_b), unwrapped past ±π, radians.
    pub turns: (f32, f32),
}

/// A joint as the world stores it. Read it through [`World::joint`](crate::World::joint);
/// change it through the world's setters so that sleeping bodies wake.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[repr(C)]
pub struct Joint {
    // In this order (`repr(C)`): what the end of every step writes (the state, the
    // reaction, the break check) shares the first two cache lines, then what starting a step
    // reads (the bodies and frames), then what only creating the joint's parts reads.
    pub(crate) enabled: bool,
    pub(crate) broken: bool,
    pub(crate) collide_connected: bool,
    pub(crate) break_force: Option<f32>,
    pub(crate) break_torque: Option<f32>,
    /// Impulses (and a gear's turns) carried between steps.
    pub(crate) state: JointState,
    /// Force and torque on B in the last step it was solved in (zero before).
    pub(crate) reaction: (Vec3, Vec3),
    pub(crate) body_a: Option<BodyId>,
    pub(crate) body_b: BodyId,
    /// A's joint frame in A's body frame (origin frame); world frame for the static world.
    pub(crate) frame_a: Pose,
    /// B's joint frame in B's body frame.
    pub(crate) frame_b: Pose,
    /// The world geometry the joint measures against.
    pub(crate) reference: CreationGeometry,
    #[serde(with = "crate::world::snapshot::file_form")]
    pub(crate) kind: JointKind,
    pub(crate) name: String,
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
        self.reaction.0
    }

    /// Torque the joint applied to body B about B's anchor in the last step, N·m.
    pub fn reaction_torque(&self) -> Vec3 {
        self.reaction.1
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
