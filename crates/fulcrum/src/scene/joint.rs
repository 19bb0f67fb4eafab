//! Joints of the scene format: serde types for every field of the joint table and their
//! validation. `joint_def.rs` converts them to and from the engine's
//! [`JointDef`](crate::joint::JointDef).
//!
//! Besides the contract's fields a joint accepts these engine extensions: `break_torque`,
//! `enabled`, `local_frame_a`/`local_frame_b` (the whole joint frame in each body's frame, which
//! is how a saved world keeps its joints' angle references) and the `target` kind (a body's
//! point pulled towards a world point by a soft spring with a force cap: the viewer's drag).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::types::Rotation;
use super::validate::{
    check_finite_at, check_non_negative_at, check_positive_at, check_rotation_at, check_vec3_at, fail,
};
use crate::error::Result;
use JointKind::{Angle, Ball, Distance, Gear, Hinge, Line, Prismatic, Pulley, SixDof, Target, Weld};

/// The kind of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    /// Ball-and-socket: the anchors coincide.
    Ball,
    /// Revolute about `axis` through `anchor`.
    Hinge,
    /// Slides along `axis`, no relative rotation.
    Prismatic,
    /// Slides along `axis`, rotation free (a wheel).
    Line,
    /// Keeps the two anchors apart.
    Distance,
    /// All six degrees of freedom locked.
    Weld,
    /// Relative rotation locked, translation free.
    Angle,
    /// `len_a + ratio·len_b` constant.
    Pulley,
    /// `θ_b = −ratio·θ_a` between two hinges.
    Gear,
    /// Per-axis locked / free / limited.
    SixDof,
    /// Pulls body B's anchor towards the world point `target` with a soft spring and at most
    /// `max_force` (an engine extension: what the viewer's mouse drag creates).
    Target,
}

impl JointKind {
    /// Joints that pin one point shared by both bodies (`anchor`).
    fn pins_one_point(self) -> bool {
        !matches!(self, JointKind::Distance | JointKind::Pulley | JointKind::Gear)
    }

    /// Joints that need an axis.
    fn needs_axis(self) -> bool {
        matches!(self, JointKind::Hinge | JointKind::Prismatic | JointKind::Line)
    }

    /// The kind's name as the format spells it.
    pub fn name(self) -> &'static str {
        match self {
            JointKind::Ball => "ball",
            JointKind::Hinge => "hinge",
            JointKind::Prismatic => "prismatic",
            JointKind::Line => "line",
            JointKind::Distance => "distance",
            JointKind::Weld => "weld",
            JointKind::Angle => "angle",
            JointKind::Pulley => "pulley",
            JointKind::Gear => "gear",
            JointKind::SixDof => "six_dof",
            JointKind::Target => "target",
        }
    }
}

/// `limits` (rad for angular, m for linear) or `twist_limits_deg` (degrees).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitsSpec {
    /// Lower limit.
    pub lower: f32,
    /// Upper limit (≥ lower).
    pub upper: f32,
}

/// `motor`: a velocity motor (`target_velocity`) or a position motor (`target_position` with
/// `frequency_hz` and `damping_ratio`), both limited by `max_force` (N or N·m).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MotorSpec {
    /// Target relative velocity, m/s or rad/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_velocity: Option<f32>,
    /// Target relative position, m or rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_position: Option<f32>,
    /// Stiffness of the position motor, Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_hz: Option<f32>,
    /// Damping ratio of the position motor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping_ratio: Option<f32>,
    /// Largest force (N) or torque (N·m) the motor applies.
    pub max_force: f32,
}

/// `spring`: makes the joint's constraint soft.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpringSpec {
    /// Frequency, Hz.
    pub frequency_hz: f32,
    /// Damping ratio (1 = critical).
    pub damping_ratio: f32,
}

/// How a six-DOF joint treats one axis: `"locked"`, `"free"` or `[lower, upper]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AxisMotion {
    /// No relative motion along/about the axis.
    Locked,
    /// Unconstrained.
    Free,
    /// Limited to `[lower, upper]` (m or rad).
    Limited(f32, f32),
}

impl Serialize for AxisMotion {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            AxisMotion::Locked => serializer.serialize_str("locked"),
            AxisMotion::Free => serializer.serialize_str("free"),
            AxisMotion::Limited(lower, upper) => [lower, upper].serialize(serializer),
        }
    }
}

struct AxisMotionVisitor;

impl<'de> Visitor<'de> for AxisMotionVisitor {
    type Value = AxisMotion;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("\"locked\", \"free\" or [lower, upper]")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> std::result::Result<AxisMotion, E> {
        match value {
            "locked" => Ok(AxisMotion::Locked),
            "free" => Ok(AxisMotion::Free),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<AxisMotion, A::Error> {
        let lower: f32 = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let upper: f32 = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok(AxisMotion::Limited(lower, upper))
    }
}

impl<'de> Deserialize<'de> for AxisMotion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_any(AxisMotionVisitor)
    }
}

/// `axes` of a six-DOF joint, in the joint frame (`axis` is its X axis). Omitted axes are free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SixDofAxesSpec {
    /// Translation along X.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<AxisMotion>,
    /// Translation along Y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<AxisMotion>,
    /// Translation along Z.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<AxisMotion>,
    /// Rotation about X.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx: Option<AxisMotion>,
    /// Rotation about Y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ry: Option<AxisMotion>,
    /// Rotation about Z.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rz: Option<AxisMotion>,
}

/// An entry of `joints`. Which fields a kind takes is in the format's joint table; a field
/// that does not apply to the joint's kind is refused rather than silently ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointSpec {
    /// Unique name (optional; gears refer to hinges by name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The joint kind.
    pub kind: JointKind,
    /// First body's name; omitted = the static world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_a: Option<String>,
    /// Second body's name (required except for gears, which take their hinges' bodies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_b: Option<String>,
    /// Shared world anchor at load time, metres (one-point joints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<[f32; 3]>,
    /// World anchor on body A at load time (distance, pulley).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_a: Option<[f32; 3]>,
    /// World anchor on body B at load time (distance, pulley).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_b: Option<[f32; 3]>,
    /// Anchor in body A's frame (instead of the world anchors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_anchor_a: Option<[f32; 3]>,
    /// Anchor in body B's frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_anchor_b: Option<[f32; 3]>,
    /// World axis at load time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<[f32; 3]>,
    /// Axis in body A's frame (instead of `axis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_axis_a: Option<[f32; 3]>,
    /// Axis in body B's frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_axis_b: Option<[f32; 3]>,
    /// The whole joint frame (X = axis) in body A's frame, world for the static world (an
    /// engine extension, instead of `axis` or the local axes; saved worlds use it so that
    /// angles keep the reference they were created with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_frame_a: Option<Rotation>,
    /// The whole joint frame in body B's frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_frame_b: Option<Rotation>,
    /// Limits (hinge: rad; prismatic, line: m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitsSpec>,
    /// Motor (hinge, prismatic, line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motor: Option<MotorSpec>,
    /// Spring making the constraint soft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spring: Option<SpringSpec>,
    /// Force above which the joint breaks, N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_force: Option<f32>,
    /// Torque above which the joint breaks, N·m (an engine extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_torque: Option<f32>,
    /// Do the two bodies collide with each other? (default false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collide_connected: Option<bool>,
    /// Does the joint act? (default true; an engine extension)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Ball: half-angle of the swing cone, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cone_limit_deg: Option<f32>,
    /// Ball: twist limits about `axis`, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twist_limits_deg: Option<LimitsSpec>,
    /// Distance: rest length, m (default: the distance at load time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_length: Option<f32>,
    /// Distance: minimum length, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<f32>,
    /// Distance: maximum length, m (a rope gives only this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<f32>,
    /// Pulley: fixed world point above anchor A.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_anchor_a: Option<[f32; 3]>,
    /// Pulley: fixed world point above anchor B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_anchor_b: Option<[f32; 3]>,
    /// Pulley (default 1) or gear ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f32>,
    /// Gear: name of the first hinge joint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hinge_a: Option<String>,
    /// Gear: name of the second hinge joint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hinge_b: Option<String>,
    /// Six-DOF: per-axis motion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axes: Option<SixDofAxesSpec>,
    /// Target: the world point body B's anchor is pulled to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<[f32; 3]>,
    /// Target: the largest pulling force, N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_force: Option<f32>,
}

impl JointSpec {
    /// A joint of `kind` on `body_b` with every other field omitted.
    pub fn new(kind: JointKind, body_b: Option<String>) -> Self {
        JointSpec {
            name: None,
            kind,
            body_a: None,
            body_b,
            anchor: None,
            anchor_a: None,
            anchor_b: None,
            local_anchor_a: None,
            local_anchor_b: None,
            axis: None,
            local_axis_a: None,
            local_axis_b: None,
            local_frame_a: None,
            local_frame_b: None,
            limits: None,
            motor: None,
            spring: None,
            break_force: None,
            break_torque: None,
            collide_connected: None,
            enabled: None,
            cone_limit_deg: None,
            twist_limits_deg: None,
            rest_length: None,
            min_length: None,
            max_length: None,
            ground_anchor_a: None,
            ground_anchor_b: None,
            ratio: None,
            hinge_a: None,
            hinge_b: None,
            axes: None,
            target: None,
            max_force: None,
        }
    }
}

/// Every kind but the gear, which takes its bodies and frames from its hinges.
const ALL_BUT_GEAR: &[JointKind] = &[Ball, Hinge, Prismatic, Line, Distance, Weld, Angle, Pulley, SixDof, Target];

/// Kinds that accept each optional, kind-specific field.
const KIND_FIELDS: &[(&str, &[JointKind])] = &[
    ("body_a", &[Ball, Hinge, Prismatic, Line, Distance, Weld, Angle, Pulley, Gear, SixDof]),
    ("limits", &[Hinge, Prismatic, Line]),
    ("motor", &[Hinge, Prismatic, Line]),
    ("spring", &[Hinge, Prismatic, Line, Distance, Weld, Angle, Target]),
    ("cone_limit_deg", &[Ball]),
    ("twist_limits_deg", &[Ball]),
    ("rest_length", &[Distance]),
    ("min_length", &[Distance]),
    ("max_length", &[Distance]),
    ("ground_anchor_a", &[Pulley]),
    ("ground_anchor_b", &[Pulley]),
    ("ratio", &[Pulley, Gear]),
    ("hinge_a", &[Gear]),
    ("hinge_b", &[Gear]),
    ("axes", &[SixDof]),
    ("target", &[Target]),
    ("max_force", &[Target]),
    ("anchor", &[Ball, Hinge, Prismatic, Line, Weld, Angle, SixDof, Target]),
    ("anchor_a", &[Distance, Pulley]),
    ("anchor_b", &[Distance, Pulley]),
    ("local_anchor_a", ALL_BUT_GEAR),
    ("local_anchor_b", ALL_BUT_GEAR),
    ("axis", ALL_BUT_GEAR),
    ("local_axis_a", ALL_BUT_GEAR),
    ("local_axis_b", ALL_BUT_GEAR),
    ("local_frame_a", ALL_BUT_GEAR),
    ("local_frame_b", ALL_BUT_GEAR),
];

impl JointSpec {
    /// Names of the kind-specific fields this joint gives.
    fn given_fields(&self) -> Vec<&'static str> {
        let given = [
            ("body_a", self.body_a.is_some()),
            ("limits", self.limits.is_some()),
            ("motor", self.motor.is_some()),
            ("spring", self.spring.is_some()),
            ("cone_limit_deg", self.cone_limit_deg.is_some()),
            ("twist_limits_deg", self.twist_limits_deg.is_some()),
            ("rest_length", self.rest_length.is_some()),
            ("min_length", self.min_length.is_some()),
            ("max_length", self.max_length.is_some()),
            ("ground_anchor_a", self.ground_anchor_a.is_some()),
            ("ground_anchor_b", self.ground_anchor_b.is_some()),
            ("ratio", self.ratio.is_some()),
            ("hinge_a", self.hinge_a.is_some()),
            ("hinge_b", self.hinge_b.is_some()),
            ("axes", self.axes.is_some()),
            ("anchor", self.anchor.is_some()),
            ("anchor_a", self.anchor_a.is_some()),
            ("anchor_b", self.anchor_b.is_some()),
            ("target", self.target.is_some()),
            ("max_force", self.max_force.is_some()),
            ("local_anchor_a", self.local_anchor_a.is_some()),
            ("local_anchor_b", self.local_anchor_b.is_some()),
            ("axis", self.axis.is_some()),
            ("local_axis_a", self.local_axis_a.is_some()),
            ("local_axis_b", self.local_axis_b.is_some()),
            ("local_frame_a", self.local_frame_a.is_some()),
            ("local_frame_b", self.local_frame_b.is_some()),
        ];
        given.iter().filter(|(_, present)| *present).map(|(name, _)| *name).collect()
    }
}

/// Validates every joint: field values, the body names it refers to (`body_names`: name ->
/// index in `bodies`), names unique among joints, gears naming hinges.
pub(crate) fn validate_joints(joints: &[JointSpec], body_names: &BTreeMap<&str, usize>) -> Result<()> {
    let mut joint_names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, joint) in joints.iter().enumerate() {
        if let Some(name) = &joint.name {
            let path = format!("joints[{i}].name");
            if name.is_empty() {
                return Err(fail(path, "must not be empty"));
            }
            if let Some(first) = joint_names.insert(name, i) {
                return Err(fail(path, format!("duplicate joint name \"{name}\" (first used by joints[{first}])")));
            }
        }
    }
    for (i, joint) in joints.iter().enumerate() {
        let path = format!("joints[{i}]");
        validate_joint(joint, body_names).map_err(|e| e.within(&path))?;
        if joint.kind == Gear {
            validate_gear_hinges(joint, joints, &joint_names).map_err(|e| e.within(&path))?;
        }
    }
    Ok(())
}

/// Checks one joint; error fields are relative to the joint (`body_b`, `limits.lower`, ...).
fn validate_joint(joint: &JointSpec, body_names: &BTreeMap<&str, usize>) -> Result<()> {
    for field in joint.given_fields() {
        let allowed = KIND_FIELDS.iter().find(|(name, _)| *name == field).map_or(&[][..], |(_, kinds)| *kinds);
        if !allowed.contains(&joint.kind) {
            return Err(fail(field, format!("does not apply to a `{}` joint", joint.kind.name())));
        }
    }
    validate_bodies(joint, body_names)?;
    validate_anchors(joint)?;
    validate_axis(joint)?;
    validate_limits_and_drives(joint)?;
    validate_lengths_and_ratio(joint)?;
    validate_target(joint)
}

/// `body_a` (optional) and `body_b` (required except for gears) name existing, distinct bodies.
fn validate_bodies(joint: &JointSpec, body_names: &BTreeMap<&str, usize>) -> Result<()> {
    for (field, name) in [("body_a", &joint.body_a), ("body_b", &joint.body_b)] {
        if let Some(name) = name {
            if !body_names.contains_key(name.as_str()) {
                return Err(fail(field, format!("unknown body \"{name}\"")));
            }
        }
    }
    if joint.body_b.is_none() && joint.kind != Gear {
        return Err(fail("body_b", "is required (the body the joint moves)"));
    }
    if joint.body_a.is_some() && joint.body_a == joint.body_b {
        return Err(fail("body_b", "must differ from body_a"));
    }
    Ok(())
}

/// One world anchor (or two, for distance and pulley), or both local anchors; not both forms.
fn validate_anchors(joint: &JointSpec) -> Result<()> {
    let vectors = [
        ("anchor", joint.anchor),
        ("anchor_a", joint.anchor_a),
        ("anchor_b", joint.anchor_b),
        ("local_anchor_a", joint.local_anchor_a),
        ("local_anchor_b", joint.local_anchor_b),
        ("ground_anchor_a", joint.ground_anchor_a),
        ("ground_anchor_b", joint.ground_anchor_b),
    ];
    for (field, value) in vectors {
        if let Some(v) = value {
            check_vec3_at(field, &v)?;
        }
    }
    if joint.kind == Gear {
        return Ok(());
    }
    let local = match (joint.local_anchor_a, joint.local_anchor_b) {
        (Some(_), Some(_)) => true,
        (None, None) => false,
        (Some(_), None) => return Err(fail("local_anchor_b", "is required together with local_anchor_a")),
        (None, Some(_)) => return Err(fail("local_anchor_a", "is required together with local_anchor_b")),
    };
    let world = if joint.kind.pins_one_point() {
        joint.anchor.is_some()
    } else {
        match (joint.anchor_a, joint.anchor_b) {
            (Some(_), Some(_)) => true,
            (None, None) => false,
            (Some(_), None) => return Err(fail("anchor_b", "is required together with anchor_a")),
            (None, Some(_)) => return Err(fail("anchor_a", "is required together with anchor_b")),
        }
    };
    let world_form = if joint.kind.pins_one_point() { "`anchor`" } else { "`anchor_a` and `anchor_b`" };
    match (world, local) {
        (true, true) => Err(fail("", format!("give either {world_form} or the local anchors, not both"))),
        (false, false) => Err(fail("", format!("needs {world_form}, or `local_anchor_a` and `local_anchor_b`"))),
        _ => {
            if joint.kind == Pulley {
                for (field, value) in
                    [("ground_anchor_a", joint.ground_anchor_a), ("ground_anchor_b", joint.ground_anchor_b)]
                {
                    if value.is_none() {
                        return Err(fail(field, "is required for a pulley"));
                    }
                }
            }
            Ok(())
        }
    }
}

/// One of `axis`, both local axes or both local frames: axes finite and non-zero, frames unit
/// quaternions. Required for hinge, prismatic and line, and for a ball's cone and twist limits
/// (both are measured about the axis).
fn validate_axis(joint: &JointSpec) -> Result<()> {
    for (field, value) in
        [("axis", joint.axis), ("local_axis_a", joint.local_axis_a), ("local_axis_b", joint.local_axis_b)]
    {
        if let Some(v) = value {
            check_vec3_at(field, &v)?;
            if v.iter().all(|c| c.abs() < 1e-12) {
                return Err(fail(field, "must not be the zero vector"));
            }
        }
    }
    for (field, value) in [("local_frame_a", &joint.local_frame_a), ("local_frame_b", &joint.local_frame_b)] {
        if let Some(rotation) = value {
            check_rotation_at(field, rotation)?;
        }
    }
    let local_axes =
        given_together(("local_axis_a", joint.local_axis_a.is_some()), ("local_axis_b", joint.local_axis_b.is_some()))?;
    let local_frames = given_together(
        ("local_frame_a", joint.local_frame_a.is_some()),
        ("local_frame_b", joint.local_frame_b.is_some()),
    )?;
    if joint.axis.is_some() && local_axes {
        return Err(fail("axis", "give either `axis` or the local axes, not both"));
    }
    if local_frames && (joint.axis.is_some() || local_axes) {
        return Err(fail("local_frame_a", "the local frames replace `axis` and the local axes: give only one form"));
    }
    let has_axis = joint.axis.is_some() || local_axes || local_frames;
    let measured_about_axis = joint.twist_limits_deg.is_some() || joint.cone_limit_deg.is_some();
    if !has_axis && (joint.kind.needs_axis() || measured_about_axis) {
        let what = if joint.kind.needs_axis() {
            format!("a `{}` joint", joint.kind.name())
        } else {
            "cone and twist limits".into()
        };
        return Err(fail("axis", format!("is required for {what}")));
    }
    Ok(())
}

/// Whether a pair of fields that go together is given; one without the other is an error
/// naming the missing one.
fn given_together((first, a): (&str, bool), (second, b): (&str, bool)) -> Result<bool> {
    match (a, b) {
        (true, false) => Err(fail(second, format!("is required together with {first}"))),
        (false, true) => Err(fail(first, format!("is required together with {second}"))),
        _ => Ok(a),
    }
}

/// Limits ordered, motor in one of its two forms, spring soft but stable, break force > 0,
/// cone and twist angles in range, six-DOF ranges ordered.
fn validate_limits_and_drives(joint: &JointSpec) -> Result<()> {
    if let Some(limits) = joint.limits {
        check_limits("limits", limits, None)?;
    }
    if let Some(twist) = joint.twist_limits_deg {
        check_limits("twist_limits_deg", twist, Some(180.0))?;
    }
    if let Some(cone) = joint.cone_limit_deg {
        check_non_negative_at("cone_limit_deg", cone)?;
        if cone > 180.0 {
            return Err(fail("cone_limit_deg", format!("must be at most 180 degrees, got {cone}")));
        }
    }
    if let Some(motor) = joint.motor {
        check_motor(motor).map_err(|e| e.within("motor"))?;
    }
    if let Some(spring) = joint.spring {
        check_positive_at("spring.frequency_hz", spring.frequency_hz)?;
        check_non_negative_at("spring.damping_ratio", spring.damping_ratio)?;
    }
    if let Some(force) = joint.break_force {
        check_positive_at("break_force", force)?;
    }
    if let Some(torque) = joint.break_torque {
        check_positive_at("break_torque", torque)?;
    }
    if let Some(axes) = joint.axes {
        let all = [("x", axes.x), ("y", axes.y), ("z", axes.z), ("rx", axes.rx), ("ry", axes.ry), ("rz", axes.rz)];
        for (name, motion) in all {
            if let Some(AxisMotion::Limited(lower, upper)) = motion {
                check_limits(&format!("axes.{name}"), LimitsSpec { lower, upper }, None)?;
            }
        }
    }
    Ok(())
}

fn check_limits(field: &str, limits: LimitsSpec, magnitude_bound: Option<f32>) -> Result<()> {
    check_finite_at(&format!("{field}.lower"), limits.lower)?;
    check_finite_at(&format!("{field}.upper"), limits.upper)?;
    if limits.lower > limits.upper {
        return Err(fail(
            format!("{field}.upper"),
            format!("must not be below the lower limit ({} > {})", limits.lower, limits.upper),
        ));
    }
    if let Some(bound) = magnitude_bound {
        for (end, value) in [("lower", limits.lower), ("upper", limits.upper)] {
            if value.abs() > bound {
                return Err(fail(format!("{field}.{end}"), format!("must be within ±{bound}, got {value}")));
            }
        }
    }
    Ok(())
}

fn check_motor(motor: MotorSpec) -> Result<()> {
    check_non_negative_at("max_force", motor.max_force)?;
    match (motor.target_velocity, motor.target_position) {
        (Some(v), None) => {
            check_finite_at("target_velocity", v)?;
            for (field, value) in [("frequency_hz", motor.frequency_hz), ("damping_ratio", motor.damping_ratio)] {
                if value.is_some() {
                    return Err(fail(field, "applies only to a position motor (`target_position`)"));
                }
            }
            Ok(())
        }
        (None, Some(x)) => {
            check_finite_at("target_position", x)?;
            let hz = motor.frequency_hz.ok_or_else(|| fail("frequency_hz", "is required for a position motor"))?;
            check_positive_at("frequency_hz", hz)?;
            let zeta = motor.damping_ratio.ok_or_else(|| fail("damping_ratio", "is required for a position motor"))?;
            check_non_negative_at("damping_ratio", zeta)
        }
        (Some(_), Some(_)) => Err(fail("", "give either `target_velocity` or `target_position`, not both")),
        (None, None) => Err(fail("", "needs `target_velocity` or `target_position`")),
    }
}

/// Distance lengths non-negative and ordered min ≤ rest ≤ max; ratios positive (gear: non-zero).
fn validate_lengths_and_ratio(joint: &JointSpec) -> Result<()> {
    let lengths =
        [("min_length", joint.min_length), ("rest_length", joint.rest_length), ("max_length", joint.max_length)];
    for (field, value) in lengths {
        if let Some(length) = value {
            check_non_negative_at(field, length)?;
        }
    }
    let given: Vec<(&str, f32)> = lengths.iter().filter_map(|(f, v)| v.map(|v| (*f, v))).collect();
    for pair in given.windows(2) {
        if pair[0].1 > pair[1].1 {
            return Err(fail(pair[1].0, format!("must not be below {} ({} > {})", pair[0].0, pair[0].1, pair[1].1)));
        }
    }
    if let Some(ratio) = joint.ratio {
        check_finite_at("ratio", ratio)?;
        if joint.kind == Pulley && ratio <= 0.0 {
            return Err(fail("ratio", format!("must be greater than zero, got {ratio}")));
        }
        if ratio == 0.0 {
            return Err(fail("ratio", "must not be zero"));
        }
    }
    Ok(())
}

/// A gear needs `hinge_a` and `hinge_b`, each naming a hinge joint of the scene, turning two
/// different bodies, and a ratio. It acts between the hinges' `body_b`s: `body_a` and
/// `body_b`, when given, must name those.
fn validate_gear_hinges(joint: &JointSpec, joints: &[JointSpec], joint_names: &BTreeMap<&str, usize>) -> Result<()> {
    let mut turned = Vec::with_capacity(2);
    for (field, name) in [("hinge_a", &joint.hinge_a), ("hinge_b", &joint.hinge_b)] {
        let name = name.as_deref().ok_or_else(|| fail(field, "is required for a gear"))?;
        let index = *joint_names.get(name).ok_or_else(|| fail(field, format!("unknown joint \"{name}\"")))?;
        if joints[index].kind != Hinge {
            return Err(fail(field, format!("joint \"{name}\" (joints[{index}]) is not a hinge")));
        }
        turned.push(joints[index].body_b.as_deref().unwrap_or_default());
    }
    if joint.hinge_a == joint.hinge_b {
        return Err(fail("hinge_b", "must differ from hinge_a"));
    }
    if turned[0] == turned[1] {
        return Err(fail("hinge_b", format!("turns the same body as hinge_a (\"{}\")", turned[0])));
    }
    for ((field, given), (hinge, body)) in [("body_a", &joint.body_a), ("body_b", &joint.body_b)]
        .into_iter()
        .zip([("hinge_a", turned[0]), ("hinge_b", turned[1])])
    {
        if let Some(given) = given.as_deref().filter(|given| *given != body) {
            return Err(fail(
                field,
                format!(
                    "a gear acts on its hinges' bodies: \"{given}\" is not \"{body}\", the body_b of {hinge} (omit it)"
                ),
            ));
        }
    }
    if joint.ratio.is_none() {
        return Err(fail("ratio", "is required for a gear"));
    }
    Ok(())
}

/// A target joint needs the `target` point, a `spring` (its softness) and `max_force`.
fn validate_target(joint: &JointSpec) -> Result<()> {
    if joint.kind != Target {
        return Ok(());
    }
    let target = joint.target.ok_or_else(|| fail("target", "is required for a target joint"))?;
    check_vec3_at("target", &target)?;
    if joint.spring.is_none() {
        return Err(fail("spring", "is required for a target joint (its stiffness and damping)"));
    }
    let max_force = joint.max_force.ok_or_else(|| fail("max_force", "is required for a target joint"))?;
    check_non_negative_at("max_force", max_force)
}
