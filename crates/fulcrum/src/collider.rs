//! Colliders: a shape attached to a body at a local pose, with material properties.

use crate::body::BodyKind;
use crate::collision::broad_phase::ProxyId;
use crate::error::{check_above_zero, check_range, check_rotation, check_vec3_range, Error, Result};
use crate::geometry::Aabb;
use crate::id::BodyId;
use crate::math::{Pose, Quat, Vec3};
use crate::shape::{MassProperties, Shape, MAX_SHAPE_SIZE};

/// Which colliders may touch: a pair collides when each one's `memberships` share a bit with
/// the other's `filter`. In files an omitted mask is all ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CollisionGroups {
    /// Groups this collider belongs to (bit mask).
    pub memberships: u32,
    /// Groups this collider collides with (bit mask).
    pub filter: u32,
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self::ALL
    }
}

impl CollisionGroups {
    /// Member of every group, colliding with every group.
    pub const ALL: CollisionGroups = CollisionGroups { memberships: u32::MAX, filter: u32::MAX };

    /// Groups from a membership mask and a filter mask.
    pub fn new(memberships: u32, filter: u32) -> Self {
        Self { memberships, filter }
    }

    /// Do two colliders with these groups collide?
    #[inline]
    pub fn interacts_with(&self, other: &CollisionGroups) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

/// Density of a collider unless given, kg/m³ (water).
pub const DEFAULT_DENSITY: f32 = 1000.0;
/// Friction coefficient of a collider unless given.
pub const DEFAULT_FRICTION: f32 = 0.6;
/// Largest density, kg/m³ (four times that of osmium, the densest element).
pub const MAX_DENSITY: f32 = 1.0e5;
/// Largest friction coefficient (real pairs of materials stay below 2).
pub const MAX_FRICTION: f32 = 100.0;
/// Largest restitution: 1 is a perfectly elastic bounce; more would add energy at every
/// bounce.
pub const MAX_RESTITUTION: f32 = 1.0;

/// Largest rolling resistance coefficient: at 1 the resisting torque is the normal force times
/// the rolling radius, enough to hold a ball on a 45° slope.
pub const MAX_ROLLING_RESISTANCE: f32 = 1.0;

/// Everything needed to attach a collider to a body. Also a collider's entry in scene files,
/// where everything but the shape may be omitted.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColliderDef {
    /// The shape, in the collider's local frame.
    pub shape: Shape,
    /// Position of the collider frame in the body frame, metres (each component within
    /// ±[`MAX_SHAPE_SIZE`]: a collider is part of its body).
    #[serde(default)]
    pub position: Vec3,
    /// Rotation of the collider frame in the body frame.
    #[serde(default = "identity", with = "crate::json::rotation")]
    pub rotation: Quat,
    /// Density in kg/m³ (default [`DEFAULT_DENSITY`]; above 0, at most [`MAX_DENSITY`]).
    #[serde(default = "default_density")]
    pub density: f32,
    /// Coulomb friction coefficient (pairs use the geometric mean; default [`DEFAULT_FRICTION`];
    /// 0 to [`MAX_FRICTION`]).
    #[serde(default = "default_friction")]
    pub friction: f32,
    /// Restitution (pairs use the maximum): 0 = no bounce (default) to 1 = elastic
    /// ([`MAX_RESTITUTION`]).
    #[serde(default)]
    pub restitution: f32,
    /// Rolling resistance coefficient c: a body rolling on this collider feels a torque of at
    /// most c·N·ρ against its rolling, and as much against spinning about the contact normal,
    /// N the normal force and ρ its rolling radius (pairs use the maximum; default 0 = rolls
    /// for ever on level ground; 0 to [`MAX_ROLLING_RESISTANCE`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rolling_resistance: f32,
    /// A sensor reports overlaps but makes no contact forces.
    #[serde(default)]
    pub sensor: bool,
    /// Which colliders this one may touch.
    #[serde(default)]
    pub groups: CollisionGroups,
}

fn identity() -> Quat {
    Quat::IDENTITY
}

fn default_density() -> f32 {
    DEFAULT_DENSITY
}

fn default_friction() -> f32 {
    DEFAULT_FRICTION
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

impl ColliderDef {
    /// A collider with `shape` at the body origin and default material.
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            density: DEFAULT_DENSITY,
            friction: DEFAULT_FRICTION,
            restitution: 0.0,
            rolling_resistance: 0.0,
            sensor: false,
            groups: CollisionGroups::ALL,
        }
    }

    /// Sets the density (kg/m³).
    pub fn with_density(mut self, density: f32) -> Self {
        self.density = density;
        self
    }

    /// Sets the friction coefficient.
    pub fn with_friction(mut self, friction: f32) -> Self {
        self.friction = friction;
        self
    }

    /// Sets the restitution.
    pub fn with_restitution(mut self, restitution: f32) -> Self {
        self.restitution = restitution;
        self
    }

    /// Sets the rolling resistance coefficient.
    pub fn with_rolling_resistance(mut self, rolling_resistance: f32) -> Self {
        self.rolling_resistance = rolling_resistance;
        self
    }

    /// Sets the local pose in the body frame.
    pub fn with_pose(mut self, position: Vec3, rotation: Quat) -> Self {
        self.position = position;
        self.rotation = rotation;
        self
    }

    /// Sets the collision groups.
    pub fn with_groups(mut self, groups: CollisionGroups) -> Self {
        self.groups = groups;
        self
    }

    /// Makes it a sensor.
    pub fn with_sensor(mut self, sensor: bool) -> Self {
        self.sensor = sensor;
        self
    }

    /// Refuses a shape the body's kind may not carry: a plane only on a static body; a
    /// triangle mesh or heightfield only on a static or kinematic one (they have no volume,
    /// hence no mass).
    pub(crate) fn check_body_kind(&self, kind: BodyKind) -> Result<()> {
        let kind_name = match kind {
            BodyKind::Static => "static",
            BodyKind::Dynamic => "dynamic",
            BodyKind::Kinematic => "kinematic",
        };
        let refused = match self.shape {
            Shape::Plane(_) if kind != BodyKind::Static => "a plane may only be attached to a static body",
            Shape::TriMesh(_) if kind == BodyKind::Dynamic => {
                "a triangle mesh may only be attached to a static or kinematic body (it has no volume)"
            }
            Shape::HeightField(_) if kind == BodyKind::Dynamic => {
                "a heightfield may only be attached to a static or kinematic body (it has no volume)"
            }
            _ => return Ok(()),
        };
        Err(Error::new("shape", format!("{refused}, not a {kind_name} one")))
    }

    /// Checks every field (the shape's sizes too); returns the definition with its rotation
    /// normalised.
    pub(crate) fn validated(&self) -> Result<ColliderDef> {
        let mut def = self.clone();
        def.shape.validate().map_err(|e| e.within("shape"))?;
        check_vec3_range("position", def.position, -MAX_SHAPE_SIZE, MAX_SHAPE_SIZE)?;
        def.rotation = check_rotation("rotation", def.rotation)?;
        check_above_zero("density", def.density, MAX_DENSITY)?;
        check_range("friction", def.friction, 0.0, MAX_FRICTION)?;
        check_range("restitution", def.restitution, 0.0, MAX_RESTITUTION)?;
        check_range("rolling_resistance", def.rolling_resistance, 0.0, MAX_ROLLING_RESISTANCE)?;
        Ok(def)
    }
}

/// A collider as the world stores it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Collider {
    pub(crate) body: BodyId,
    #[serde(with = "crate::world::snapshot::shape_form")]
    pub(crate) shape: Shape,
    pub(crate) local_pose: Pose,
    pub(crate) density: f32,
    pub(crate) friction: f32,
    pub(crate) restitution: f32,
    pub(crate) rolling_resistance: f32,
    pub(crate) sensor: bool,
    pub(crate) groups: CollisionGroups,
    /// World pose, refreshed whenever the body moves.
    pub(crate) world_pose: Pose,
    /// Tight world bounds at `world_pose`.
    pub(crate) aabb: Aabb,
    pub(crate) proxy: ProxyId,
}

impl Collider {
    /// The body it is attached to.
    pub fn body(&self) -> BodyId {
        self.body
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Pose in the body frame.
    pub fn local_pose(&self) -> Pose {
        self.local_pose
    }

    /// Pose in the world.
    pub fn world_pose(&self) -> Pose {
        self.world_pose
    }

    /// Tight world bounds.
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// Density, kg/m³.
    pub fn density(&self) -> f32 {
        self.density
    }

    /// Friction coefficient.
    pub fn friction(&self) -> f32 {
        self.friction
    }

    /// Restitution coefficient.
    pub fn restitution(&self) -> f32 {
        self.restitution
    }

    /// Rolling resistance coefficient.
    pub fn rolling_resistance(&self) -> f32 {
        self.rolling_resistance
    }

    /// Collision groups.
    pub fn groups(&self) -> CollisionGroups {
        self.groups
    }

    /// Is it a sensor?
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    /// Mass properties in the body frame.
    pub(crate) fn mass_properties(&self) -> MassProperties {
        self.shape.mass_properties(self.density).transformed(&self.local_pose)
    }

    /// Refreshes the world pose and bounds from the body's pose.
    pub(crate) fn update_world_pose(&mut self, body_pose: &Pose) {
        self.world_pose = body_pose.mul_pose(&self.local_pose);
        self.aabb = self.shape.aabb(&self.world_pose);
    }
}
