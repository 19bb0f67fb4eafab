//! # fulcrum
//!
//! A 3D rigid-body physics engine: rigid bodies with colliders, collision detection (broad
//! phase, SAT, GJK/EPA, face clipping), contacts with friction and restitution, solved by
//! sequential impulses with soft constraints and substepping.
//!
//! ```text
//! World::step(dt)
//!   broad phase   new pairs from the dynamic AABB trees
//!   narrow phase  manifolds (≤ 4 points, feature ids), begin/end events, wake on touch
//!   solve         impacts (restitution), then soft_step: substeps of integrate → warm
//!                 start → solve → integrate → relax; or pgs: iterations + position correction
//!   finalize      poses, bounds, non-finite bodies disabled; bullets swept back to
//!                 their first time of impact (continuous collision)
//!   characters    each character moved by the character solver (sweep, plane projection)
//!   particles     cloths and ropes: XPBD substeps (links, tethers, attachments pulling
//!                 bodies, contacts with friction)
//!   sleep         resting islands fall asleep
//! ```
//! Units are SI throughout: metres, kilograms, seconds, radians.
#![warn(missing_docs)]
// `!(x > 0.0)` is used on purpose where a NaN must count as failure (a factorisation, a
// determinant): the negated comparison is true for NaN, `x <= 0.0` is not.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod body;
pub mod character;
pub mod collider;
pub(crate) mod collision;
pub(crate) mod dynamics;
pub mod error;
pub mod geometry;
pub mod id;
pub mod joint;
pub mod json;
pub(crate) mod key_hash;
pub mod math;
pub mod particles;
pub mod scene;
pub mod settings;
pub mod shape;
pub mod world;

pub use body::{Body, BodyDef, BodyKind};
pub use character::{Character, CharacterDef};
pub use collider::{Collider, ColliderDef, CollisionGroups};
pub use error::{Error, Result};
pub use geometry::{Aabb, Ray, RayHit};
pub use id::{BodyId, CharacterId, ClothId, ColliderId, JointId, RopeId, UserConstraintId};
pub use joint::{Joint, JointDef, JointKind};
pub use math::{Mat3, Pose, Quat, Vec3};
pub use particles::{Cloth, ClothDef, ParticleSetId, Rope, RopeDef};
pub use scene::{Scene, SceneIndex};
pub use shape::{HeightField, MassProperties, Shape, TriMesh, Triangle};
pub use world::{
    ContactEvent, ContactInfo, ContactPointInfo, Events, Integrator, PositionCorrection, RayCastHit, ShapeCastHit,
    SolverMode, SolverSettings, World, WorldSettings,
};

/// The types most programs need: building a world (bodies, colliders, joints with their
/// limits, motors and springs, characters, cloths and ropes), its settings, scene files and queries.
pub mod prelude {
    pub use crate::joint::{Limits, Motor, Spring};
    pub use crate::{
        Aabb, BodyDef, BodyId, BodyKind, CharacterDef, CharacterId, ClothDef, ClothId, ColliderDef, ColliderId,
        CollisionGroups, Integrator, JointDef, JointId, JointKind, Mat3, ParticleSetId, Pose, PositionCorrection, Quat,
        Ray, RopeDef, RopeId, Scene, SceneIndex, Shape, SolverMode, SolverSettings, Vec3, World, WorldSettings,
    };
}

// Every Rust code block of the README is compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
