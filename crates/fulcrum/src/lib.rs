//! # fulcrum
//!
//! A 3D rigid-body physics engine: rigid bodies with colliders, collision detection (broad
//! phase, SAT, GJK/EPA, face clipping), contacts with friction and restitution, solved by
//! sequential impulses with soft constraints and substepping.
#![warn(missing_docs)]

pub mod collision;
pub mod error;
pub mod geometry;
pub mod id;
pub mod math;
pub mod shape;

pub use error::{Error, Result};
pub use geometry::{Aabb, Ray, RayHit};
pub use id::{BodyId, ColliderId, JointId};
pub use math::{Mat3, Pose, Quat, Vec3};
pub use shape::{MassProperties, Shape};
