//! Serde types of the scene format (shared/docs/scene-format.md): settings, materials, bodies,
//! colliders, shapes and rotations.
//!
//! Every optional field is an `Option`: `None` means "omitted in the file", which takes the
//! engine's default when the scene is built and is omitted again when the scene is saved, so a
//! file round-trips without gaining fields. Unknown fields are accepted and dropped (the format
//! allows engines to read more than the contract).

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::body::BodyKind;
use crate::math::{Quat, Vec3};
use crate::shape::Shape;
use crate::world::{PositionCorrection, SolverMode};

/// `settings`: world and solver settings; omitted fields take `WorldSettings::default()`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SettingsSpec {
    /// Gravity acceleration `[x, y, z]`, m/s² (default `[0, -9.81, 0]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity: Option<[f32; 3]>,
    /// Seconds per step (default 1/60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestep: Option<f32>,
    /// Solver substeps per step in `soft_step` mode (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substeps: Option<u32>,
    /// The solver object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverSpec>,
    /// Allow bodies to sleep (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sleep: Option<bool>,
}

impl SettingsSpec {
    /// True when no field is given (the whole object can be left out of the file).
    pub fn is_empty(&self) -> bool {
        *self == SettingsSpec::default()
    }
}

/// `settings.solver`: see [`SolverSettings`](crate::SolverSettings) for meanings and defaults.
/// Besides the contract's fields it accepts the engine's other solver settings
/// (`position_iterations`, `restitution_threshold`, `linear_slop`, `speculative_distance`,
/// `exact_joint_trees`, `block_solver`)
/// and `substeps` (the same as `settings.substeps`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolverSpec {
    /// `soft_step` or `pgs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SolverMode>,
    /// Substeps per step (alternative place for `settings.substeps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substeps: Option<u32>,
    /// Velocity iterations per step in `pgs` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// Position iterations of the `ngs` correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_iterations: Option<u32>,
    /// Relax pass on/off (`soft_step`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relax: Option<bool>,
    /// Warm starting on/off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_start: Option<bool>,
    /// `baumgarte`, `ngs` or `none` (`pgs` mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_correction: Option<PositionCorrection>,
    /// Baumgarte factor β in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baumgarte: Option<f32>,
    /// Contact stiffness, Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_hertz: Option<f32>,
    /// Contact damping ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_damping_ratio: Option<f32>,
    /// Joint stiffness, Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_hertz: Option<f32>,
    /// Joint damping ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_damping_ratio: Option<f32>,
    /// Largest speed at which overlap is pushed apart, m/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_push_velocity: Option<f32>,
    /// Normal approach speed above which restitution applies, m/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution_threshold: Option<f32>,
    /// Penetration allowed without correction, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linear_slop: Option<f32>,
    /// Distance before touching at which contact points are created, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative_distance: Option<f32>,
    /// Solve the rigid rows of tree-shaped joint graphs exactly (an engine extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_joint_trees: Option<bool>,
    /// Solve each manifold's normal rows as one block (an engine extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_solver: Option<bool>,
}

/// An entry of `materials`: defaults for the colliders that name it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MaterialSpec {
    /// Coulomb friction coefficient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f32>,
    /// Restitution (0 = no bounce, 1 = elastic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f32>,
    /// Density, kg/m³.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f32>,
}

/// An entry of `bodies`; omitted fields take `BodyDef::default()`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodySpec {
    /// Unique name (joints and trajectories refer to bodies by name).
    pub name: String,
    /// `static`, `dynamic` (default) or `kinematic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<BodyKind>,
    /// World position of the body origin, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f32; 3]>,
    /// World rotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Rotation>,
    /// Velocity of the centre of mass, m/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linear_velocity: Option<[f32; 3]>,
    /// Angular velocity, rad/s, world axes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_velocity: Option<[f32; 3]>,
    /// Linear damping, 1/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linear_damping: Option<f32>,
    /// Angular damping, 1/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_damping: Option<f32>,
    /// Multiplies the world's gravity for this body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity_scale: Option<f32>,
    /// Total mass override, kg (inertia scaled by the same factor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f32>,
    /// May the body fall asleep?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can_sleep: Option<bool>,
    /// Continuous collision: swept each step against static, kinematic and non-bullet
    /// dynamic colliders (see [`crate::BodyDef::bullet`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bullet: Option<bool>,
    /// Created awake (default) or asleep (an engine extension: a saved sleeping body stays
    /// asleep when loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awake: Option<bool>,
    /// The body's colliders (a compound body has several).
    #[serde(default)]
    pub colliders: Vec<ColliderSpec>,
}

impl BodySpec {
    /// A body with this name and kind and every other field omitted.
    pub fn new(name: impl Into<String>, kind: BodyKind) -> Self {
        BodySpec {
            name: name.into(),
            kind: Some(kind),
            position: None,
            rotation: None,
            linear_velocity: None,
            angular_velocity: None,
            linear_damping: None,
            angular_damping: None,
            gravity_scale: None,
            mass: None,
            can_sleep: None,
            bullet: None,
            awake: None,
            colliders: Vec::new(),
        }
    }

    /// The body kind, `dynamic` when omitted.
    pub fn kind_or_default(&self) -> BodyKind {
        self.kind.unwrap_or_default()
    }
}

/// An entry of a body's `colliders`; material fields resolve as collider > material > engine
/// default (`ColliderDef::new`: density 1000, friction 0.6, restitution 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColliderSpec {
    /// The shape in the collider frame.
    pub shape: ShapeSpec,
    /// Position of the collider frame in the body frame, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f32; 3]>,
    /// Rotation of the collider frame in the body frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Rotation>,
    /// Density, kg/m³.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f32>,
    /// Friction coefficient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f32>,
    /// Restitution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f32>,
    /// Name of an entry of the scene's `materials`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
    /// A sensor reports overlaps but makes no contact forces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensor: Option<bool>,
    /// Collision groups (an engine extension; default: member of every group, colliding with
    /// every group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<GroupsSpec>,
}

/// A collider's `groups`: two colliders touch only when each one's `memberships` shares a bit
/// with the other's `filter` (both bit masks; an omitted mask is all ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupsSpec {
    /// Groups the collider belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memberships: Option<u32>,
    /// Groups the collider collides with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<u32>,
}

impl ColliderSpec {
    /// A collider with this shape and every other field omitted.
    pub fn new(shape: ShapeSpec) -> Self {
        ColliderSpec {
            shape,
            position: None,
            rotation: None,
            density: None,
            friction: None,
            restitution: None,
            material: None,
            sensor: None,
            groups: None,
        }
    }
}

/// The `type` of a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeType {
    /// `radius`.
    Sphere,
    /// `half_extents`.
    Box,
    /// `half_height`, `radius` (axis along local Y).
    Capsule,
    /// `half_height`, `radius` (axis along local Y).
    Cylinder,
    /// `points`.
    ConvexHull,
    /// `normal`, `offset` (static bodies only).
    Plane,
    /// `vertices`, `indices` (static or kinematic bodies only; not built yet).
    Trimesh,
    /// `heights`, `scale` (static or kinematic bodies only; not built yet).
    Heightfield,
    /// Not a shape: parsed only to explain that a body takes several colliders instead.
    Compound,
}

/// A shape: its `type` and the fields that type needs (the others stay `None`). One flat
/// struct rather than a tagged enum, so that a parse error inside a shape still reports the
/// exact JSON path (`...shape.radius`) and a missing field is named by validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeSpec {
    /// Which shape.
    #[serde(rename = "type")]
    pub kind: ShapeType,
    /// Sphere, capsule, cylinder: radius, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Box: half extents, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<[f32; 3]>,
    /// Capsule, cylinder: half the height of the axis (capsule: without the caps), metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_height: Option<f32>,
    /// Convex hull: the point cloud, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<[f32; 3]>>,
    /// Plane: outward normal (normalised when built).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<[f32; 3]>,
    /// Plane: offset `d` along the unit normal, metres (points with n·p ≥ d are outside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<f32>,
    /// Triangle mesh: vertices, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertices: Option<Vec<[f32; 3]>>,
    /// Triangle mesh: triangles as vertex indices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indices: Option<Vec<[u32; 3]>>,
    /// Height field: heights, rows along Z.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heights: Option<Vec<Vec<f32>>>,
    /// Height field: cell size along X and Z and height scale along Y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<[f32; 3]>,
}

/// The file form of an engine shape (a hull is written as its vertices).
impl From<&Shape> for ShapeSpec {
    fn from(shape: &Shape) -> Self {
        match shape {
            Shape::Sphere(s) => ShapeSpec::sphere(s.radius),
            Shape::Cuboid(s) => ShapeSpec::cuboid(s.half_extents.to_array()),
            Shape::Capsule(s) => ShapeSpec::capsule(s.half_height, s.radius),
            Shape::Cylinder(s) => ShapeSpec::cylinder(s.half_height, s.radius),
            Shape::ConvexHull(hull) => ShapeSpec::convex_hull(hull.vertices.iter().map(|v| v.to_array()).collect()),
            Shape::Plane(p) => ShapeSpec::plane(p.normal.to_array(), p.offset),
        }
    }
}

impl ShapeSpec {
    /// A shape of this type with no fields set.
    pub fn empty(kind: ShapeType) -> Self {
        ShapeSpec {
            kind,
            radius: None,
            half_extents: None,
            half_height: None,
            points: None,
            normal: None,
            offset: None,
            vertices: None,
            indices: None,
            heights: None,
            scale: None,
        }
    }

    /// A sphere of `radius` metres.
    pub fn sphere(radius: f32) -> Self {
        Self { radius: Some(radius), ..Self::empty(ShapeType::Sphere) }
    }

    /// A box with `half_extents` metres.
    pub fn cuboid(half_extents: [f32; 3]) -> Self {
        Self { half_extents: Some(half_extents), ..Self::empty(ShapeType::Box) }
    }

    /// A capsule along local Y.
    pub fn capsule(half_height: f32, radius: f32) -> Self {
        Self { half_height: Some(half_height), radius: Some(radius), ..Self::empty(ShapeType::Capsule) }
    }

    /// A cylinder along local Y.
    pub fn cylinder(half_height: f32, radius: f32) -> Self {
        Self { half_height: Some(half_height), radius: Some(radius), ..Self::empty(ShapeType::Cylinder) }
    }

    /// The convex hull of `points`.
    pub fn convex_hull(points: Vec<[f32; 3]>) -> Self {
        Self { points: Some(points), ..Self::empty(ShapeType::ConvexHull) }
    }

    /// The plane `normal·p = offset`.
    pub fn plane(normal: [f32; 3], offset: f32) -> Self {
        Self { normal: Some(normal), offset: Some(offset), ..Self::empty(ShapeType::Plane) }
    }
}

/// A rotation as a scene file writes it: a quaternion `[x, y, z, w]` or
/// `{"axis": [x, y, z], "angle_deg": a}`. It is saved in the form it was read in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rotation {
    /// A quaternion `[x, y, z, w]` (must be of unit length within 10%; normalised when built).
    Quat([f32; 4]),
    /// A right-handed rotation by `angle_deg` degrees about `axis` (any non-zero length).
    AxisAngle {
        /// The rotation axis.
        axis: [f32; 3],
        /// The angle, degrees.
        angle_deg: f32,
    },
}

impl Rotation {
    /// The identity rotation `[0, 0, 0, 1]`.
    pub const IDENTITY: Rotation = Rotation::Quat([0.0, 0.0, 0.0, 1.0]);

    /// The quaternion form of a glam quaternion.
    pub fn from_quat(q: Quat) -> Self {
        Rotation::Quat(q.to_array())
    }

    /// The quaternion, not normalised for the `Quat` form (validation checks its length).
    /// The axis-angle form gives a unit quaternion for a non-zero axis.
    pub fn to_quat(&self) -> Quat {
        match *self {
            Rotation::Quat(q) => Quat::from_array(q),
            Rotation::AxisAngle { axis, angle_deg } => {
                let axis = Vec3::from_array(axis).normalize_or_zero();
                Quat::from_axis_angle(axis, angle_deg.to_radians())
            }
        }
    }
}

impl Serialize for Rotation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Rotation::Quat(q) => q.serialize(serializer),
            Rotation::AxisAngle { axis, angle_deg } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("axis", axis)?;
                map.serialize_entry("angle_deg", angle_deg)?;
                map.end()
            }
        }
    }
}

/// Reads either form of [`Rotation`] with an error that names both.
struct RotationVisitor;

const ROTATION_EXPECTED: &str = "a quaternion [x, y, z, w] or {\"axis\": [x, y, z], \"angle_deg\": a}";

impl<'de> Visitor<'de> for RotationVisitor {
    type Value = Rotation;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(ROTATION_EXPECTED)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rotation, A::Error> {
        let mut q = [0.0f32; 4];
        for (i, slot) in q.iter_mut().enumerate() {
            *slot = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(5, &self));
        }
        Ok(Rotation::Quat(q))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Rotation, A::Error> {
        let mut axis: Option<[f32; 3]> = None;
        let mut angle_deg: Option<f32> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "axis" => axis = Some(map.next_value()?),
                "angle_deg" => angle_deg = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let axis = axis.ok_or_else(|| de::Error::missing_field("axis"))?;
        let angle_deg = angle_deg.ok_or_else(|| de::Error::missing_field("angle_deg"))?;
        Ok(Rotation::AxisAngle { axis, angle_deg })
    }
}

impl<'de> Deserialize<'de> for Rotation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RotationVisitor)
    }
}
