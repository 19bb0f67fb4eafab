//! Joints: equality constraints C(x) = 0 between two bodies (or a body and the static world),
//! with limits, motors, springs and breaking.
//!
//! Create one with a [`JointDef`] and [`World::create_joint`](crate::World::create_joint):
//!
//! ```
//! use fulcrum::prelude::*;
//! use fulcrum::joint::{JointDef, Limits};
//! let mut world = World::default();
//! let door = world.create_body(&BodyDef::dynamic(Vec3::new(0.5, 1.0, 0.0))).unwrap();
//! world.create_collider(door, &ColliderDef::new(Shape::cuboid(Vec3::new(0.5, 1.0, 0.05)).unwrap())).unwrap();
//! // Hinged to the world along the door's left edge, swinging at most ±1.5 rad.
//! let hinge = JointDef::hinge(None, door, Vec3::new(0.0, 1.0, 0.0), Vec3::Y)
//!     .with_limits(Limits::new(-1.5, 1.5));
//! let id = world.create_joint(&hinge).unwrap();
//! world.step(1.0 / 60.0).unwrap();
//! assert!(!world.joint(id).unwrap().is_broken());
//! ```
//!
//! Every joint has a frame on each body: an anchor point and an orientation whose X axis is
//! the joint axis. The frames are fixed at creation so that they coincide then: angles and
//! slides are measured from the pose the bodies had when the joint was made.
//!
//! Constraints of your own (a bead on a curved wire, a custom contact or coupling) are
//! described row by row through the [`UserConstraint`] trait ([`user`]) and solved by the
//! same parts.

mod def;
mod file_form;
mod kind;
mod stored;
pub mod user;

pub use def::{Anchors, JointAxes, JointDef};
pub use kind::{
    AxisMotion, JointKind, Limits, Motor, Spring, MAX_DAMPING_RATIO, MAX_FREQUENCY_HZ, MAX_JOINT_LENGTH,
    MAX_MOTOR_FORCE, SIX_DOF_AXES,
};
pub(crate) use stored::{CreationGeometry, JointState};
pub use stored::{Joint, JointBreak};
pub use user::{
    RowBounds, UserBody, UserConstraint, UserConstraintEntry, UserConstraintFailure, UserConstraintReaction, UserRow,
    UserRows, MAX_USER_ROWS,
};
