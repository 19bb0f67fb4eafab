//! Conversions between a scene joint ([`JointSpec`]) and the engine's [`JointDef`]: names to
//! ids and back, degrees to radians and back, the file's optional fields to the engine's
//! options and back.
//!
//! ```text
//! JointSpec --joint_def (names -> ids, deg -> rad, omitted -> the engine's defaults)--> JointDef
//! JointDef --joint_spec (ids -> names, rad -> deg, every field explicit)--> JointSpec
//! ```
//! `joint_spec(joint_def(spec)) == spec` for a spec written the way `joint_spec` writes one:
//! every option the definition holds given explicitly (`collide_connected`, `enabled`, a
//! pulley's `ratio`, all six six-DOF axes).

use super::joint::{
    AxisMotion as FileMotion, JointKind as FileKind, JointSpec, LimitsSpec, MotorSpec, SixDofAxesSpec, SpringSpec,
};
use super::types::Rotation;
use super::validate::{check_rotation_at, fail};
use super::SceneIndex;
use crate::error::Result;
use crate::id::{BodyId, JointId};
use crate::joint::{Anchors, AxisMotion, JointAxes, JointDef, JointKind, Limits, Motor, Spring};
use crate::math::Vec3;

/// Finds bodies and joints by name, and names them by id.
pub(crate) trait Names {
    /// The body called `name`.
    fn body_id(&self, name: &str) -> Option<BodyId>;
    /// The joint called `name`.
    fn joint_id(&self, name: &str) -> Option<JointId>;
    /// The name of body `id`.
    fn body_name(&self, id: BodyId) -> Option<&str>;
    /// The name of joint `id`.
    fn joint_name(&self, id: JointId) -> Option<&str>;
}

impl Names for SceneIndex {
    fn body_id(&self, name: &str) -> Option<BodyId> {
        self.body(name)
    }
    fn joint_id(&self, name: &str) -> Option<JointId> {
        self.joint(name)
    }
    fn body_name(&self, id: BodyId) -> Option<&str> {
        self.name(id)
    }
    fn joint_name(&self, id: JointId) -> Option<&str> {
        SceneIndex::joint_name(self, id)
    }
}

/// The engine definition of a validated joint. `hinge_body` gives a hinge's body B: a gear's
/// definition carries it as its (unused) body. Error fields are relative to the joint.
pub(crate) fn joint_def(
    spec: &JointSpec,
    names: &impl Names,
    hinge_body: impl Fn(JointId) -> Option<BodyId>,
) -> Result<JointDef> {
    let mut def = match spec.kind {
        FileKind::Gear => gear_def(spec, names, hinge_body)?,
        _ => {
            let body_a = spec.body_a.as_deref().map(|name| find_body(names, "body_a", name)).transpose()?;
            let body_b = find_body(names, "body_b", required("body_b", spec.body_b.as_deref())?)?;
            let mut def = JointDef::new(engine_kind(spec)?, body_a, body_b, Vec3::ZERO);
            def.anchors = anchors(spec)?;
            if let Some(axes) = axes(spec)? {
                def.axes = axes;
            }
            def
        }
    };
    def = def.with_name(spec.name.clone().unwrap_or_default());
    if let Some(collide) = spec.collide_connected {
        def = def.with_collide_connected(collide);
    }
    if let Some(enabled) = spec.enabled {
        def = def.with_enabled(enabled);
    }
    if let Some(force) = spec.break_force {
        def = def.with_break_force(force);
    }
    if let Some(torque) = spec.break_torque {
        def = def.with_break_torque(torque);
    }
    Ok(def)
}

/// The scene joint of a definition, every field explicit. Fails when the definition names a
/// body or hinge `names` does not know, or gives a one-point joint two different world anchors
/// (the format has no field for that: use local anchors). Error fields are the engine's.
pub(crate) fn joint_spec(def: &JointDef, names: &impl Names) -> Result<JointSpec> {
    let kind = file_kind(&def.kind);
    let mut spec = JointSpec::new(kind, None);
    spec.name = (!def.name.is_empty()).then(|| def.name.clone());
    spec.collide_connected = Some(def.collide_connected);
    spec.enabled = Some(def.enabled);
    spec.break_force = def.break_force;
    spec.break_torque = def.break_torque;
    write_kind_fields(&mut spec, &def.kind, names)?;
    if kind == FileKind::Gear {
        return Ok(spec);
    }
    spec.body_a = def.body_a.map(|id| body_name(names, "body_a", id)).transpose()?;
    spec.body_b = def.body_b.map(|id| body_name(names, "body_b", id)).transpose()?;
    write_anchors(&mut spec, def.anchors)?;
    write_axes(&mut spec, def.axes);
    Ok(spec)
}

fn required<T>(field: &str, value: Option<T>) -> Result<T> {
    value.ok_or_else(|| fail(field, "is required"))
}

fn find_body(names: &impl Names, field: &str, name: &str) -> Result<BodyId> {
    names.body_id(name).ok_or_else(|| fail(field, format!("unknown body \"{name}\"")))
}

fn body_name(names: &impl Names, field: &str, id: BodyId) -> Result<String> {
    let name = names
        .body_name(id)
        .ok_or_else(|| fail(field, format!("body {}:{} has no name", id.0.index, id.0.generation)))?;
    Ok(name.to_string())
}

fn joint_name(names: &impl Names, field: &str, id: JointId) -> Result<String> {
    let name = names
        .joint_name(id)
        .ok_or_else(|| fail(field, format!("joint {}:{} has no name", id.0.index, id.0.generation)))?;
    Ok(name.to_string())
}

/// A gear between the hinges it names; its body is hinge A's body B (the world takes both
/// bodies from the hinges).
fn gear_def(spec: &JointSpec, names: &impl Names, hinge_body: impl Fn(JointId) -> Option<BodyId>) -> Result<JointDef> {
    let hinge = |field: &str, name: Option<&str>| -> Result<JointId> {
        let name = required(field, name)?;
        names.joint_id(name).ok_or_else(|| fail(field, format!("unknown joint \"{name}\"")))
    };
    let hinge_a = hinge("hinge_a", spec.hinge_a.as_deref())?;
    let hinge_b = hinge("hinge_b", spec.hinge_b.as_deref())?;
    let body = hinge_body(hinge_a).ok_or_else(|| fail("hinge_a", "the hinge does not exist"))?;
    let _ = body;
    Ok(JointDef::gear(hinge_a, hinge_b, required("ratio", spec.ratio)?))
}

/// The engine kind with its options (not for gears, which need their hinges' ids).
fn engine_kind(spec: &JointSpec) -> Result<JointKind> {
    let limits = spec.limits.map(|l| Limits::new(l.lower, l.upper));
    let motor = spec.motor.map(engine_motor).transpose()?;
    let spring = spec.spring.map(|s| Spring::new(s.frequency_hz, s.damping_ratio));
    let kind = match spec.kind {
        FileKind::Ball => JointKind::Ball {
            cone_limit: spec.cone_limit_deg.map(radians),
            twist_limits: spec.twist_limits_deg.map(|l| Limits::new(radians(l.lower), radians(l.upper))),
        },
        FileKind::Hinge => JointKind::Hinge { limits, motor, spring },
        FileKind::Prismatic => JointKind::Prismatic { limits, motor, spring },
        FileKind::Line => JointKind::Line { limits, motor, spring },
        FileKind::Distance => JointKind::Distance {
            rest_length: spec.rest_length,
            min_length: spec.min_length,
            max_length: spec.max_length,
            spring,
        },
        FileKind::Weld => JointKind::Weld { spring },
        FileKind::Angle => JointKind::Angle { spring },
        FileKind::Pulley => JointKind::Pulley {
            ground_anchor_a: Vec3::from_array(required("ground_anchor_a", spec.ground_anchor_a)?),
            ground_anchor_b: Vec3::from_array(required("ground_anchor_b", spec.ground_anchor_b)?),
            ratio: spec.ratio.unwrap_or(1.0),
        },
        FileKind::SixDof => JointKind::SixDof { axes: engine_axes(&spec.axes.unwrap_or_default()) },
        FileKind::Target => {
            let spring = required("spring", spring)?;
            JointKind::Target {
                target: Vec3::from_array(required("target", spec.target)?),
                spring,
                max_force: required("max_force", spec.max_force)?,
            }
        }
        FileKind::Gear => return Err(fail("kind", "a gear is built from its hinges")),
    };
    Ok(kind)
}

fn engine_motor(motor: MotorSpec) -> Result<Motor> {
    let max_force = motor.max_force;
    match (motor.target_velocity, motor.target_position) {
        (Some(target_velocity), _) => Ok(Motor::Velocity { target_velocity, max_force }),
        (None, Some(target_position)) => Ok(Motor::Position {
            target_position,
            frequency_hz: required("motor.frequency_hz", motor.frequency_hz)?,
            damping_ratio: required("motor.damping_ratio", motor.damping_ratio)?,
            max_force,
        }),
        (None, None) => Err(fail("motor", "needs `target_velocity` or `target_position`")),
    }
}

/// Six-DOF axes in engine order (x, y, z, rx, ry, rz); an omitted axis is free.
fn engine_axes(spec: &SixDofAxesSpec) -> [AxisMotion; 6] {
    [spec.x, spec.y, spec.z, spec.rx, spec.ry, spec.rz].map(|motion| match motion {
        None | Some(FileMotion::Free) => AxisMotion::Free,
        Some(FileMotion::Locked) => AxisMotion::Locked,
        Some(FileMotion::Limited(lower, upper)) => AxisMotion::Limited(lower, upper),
    })
}

/// Local anchors, else the shared `anchor`, else `anchor_a` and `anchor_b`.
fn anchors(spec: &JointSpec) -> Result<Anchors> {
    let v = Vec3::from_array;
    if let (Some(a), Some(b)) = (spec.local_anchor_a, spec.local_anchor_b) {
        return Ok(Anchors::Local { a: v(a), b: v(b) });
    }
    if let Some(p) = spec.anchor {
        return Ok(Anchors::Shared(v(p)));
    }
    match (spec.anchor_a, spec.anchor_b) {
        (Some(a), Some(b)) => Ok(Anchors::World { a: v(a), b: v(b) }),
        _ => Err(fail("", "needs an anchor")),
    }
}

/// Local frames, else local axes, else the world axis; `None` when the file gives none (the
/// constructor's X axis stays).
fn axes(spec: &JointSpec) -> Result<Option<JointAxes>> {
    if let (Some(a), Some(b)) = (&spec.local_frame_a, &spec.local_frame_b) {
        let a = check_rotation_at("local_frame_a", a)?;
        let b = check_rotation_at("local_frame_b", b)?;
        return Ok(Some(JointAxes::LocalFrames { a, b }));
    }
    if let (Some(a), Some(b)) = (spec.local_axis_a, spec.local_axis_b) {
        return Ok(Some(JointAxes::Local { a: Vec3::from_array(a), b: Vec3::from_array(b) }));
    }
    Ok(spec.axis.map(|axis| JointAxes::World(Vec3::from_array(axis))))
}

fn file_kind(kind: &JointKind) -> FileKind {
    match kind {
        JointKind::Ball { .. } => FileKind::Ball,
        JointKind::Hinge { .. } => FileKind::Hinge,
        JointKind::Prismatic { .. } => FileKind::Prismatic,
        JointKind::Line { .. } => FileKind::Line,
        JointKind::Distance { .. } => FileKind::Distance,
        JointKind::Weld { .. } => FileKind::Weld,
        JointKind::Angle { .. } => FileKind::Angle,
        JointKind::Pulley { .. } => FileKind::Pulley,
        JointKind::Gear { .. } => FileKind::Gear,
        JointKind::SixDof { .. } => FileKind::SixDof,
        JointKind::Target { .. } => FileKind::Target,
    }
}

/// The kind's own fields, in the file's units.
fn write_kind_fields(spec: &mut JointSpec, kind: &JointKind, names: &impl Names) -> Result<()> {
    let limits = |l: &Option<Limits>| l.map(|l| LimitsSpec { lower: l.lower, upper: l.upper });
    let spring =
        |s: &Option<Spring>| s.map(|s| SpringSpec { frequency_hz: s.frequency_hz, damping_ratio: s.damping_ratio });
    match kind {
        JointKind::Ball { cone_limit, twist_limits } => {
            spec.cone_limit_deg = cone_limit.map(degrees);
            spec.twist_limits_deg =
                twist_limits.map(|l| LimitsSpec { lower: degrees(l.lower), upper: degrees(l.upper) });
        }
        JointKind::Hinge { limits: l, motor, spring: s }
        | JointKind::Prismatic { limits: l, motor, spring: s }
        | JointKind::Line { limits: l, motor, spring: s } => {
            spec.limits = limits(l);
            spec.motor = motor.map(file_motor);
            spec.spring = spring(s);
        }
        JointKind::Distance { rest_length, min_length, max_length, spring: s } => {
            (spec.rest_length, spec.min_length, spec.max_length) = (*rest_length, *min_length, *max_length);
            spec.spring = spring(s);
        }
        JointKind::Weld { spring: s } | JointKind::Angle { spring: s } => spec.spring = spring(s),
        JointKind::Pulley { ground_anchor_a, ground_anchor_b, ratio } => {
            spec.ground_anchor_a = Some(ground_anchor_a.to_array());
            spec.ground_anchor_b = Some(ground_anchor_b.to_array());
            spec.ratio = Some(*ratio);
        }
        JointKind::Gear { hinge_a, hinge_b, ratio } => {
            spec.hinge_a = Some(joint_name(names, "kind.hinge_a", *hinge_a)?);
            spec.hinge_b = Some(joint_name(names, "kind.hinge_b", *hinge_b)?);
            spec.ratio = Some(*ratio);
        }
        JointKind::SixDof { axes } => {
            let [x, y, z, rx, ry, rz] = axes.map(|motion| {
                Some(match motion {
                    AxisMotion::Locked => FileMotion::Locked,
                    AxisMotion::Free => FileMotion::Free,
                    AxisMotion::Limited(lower, upper) => FileMotion::Limited(lower, upper),
                })
            });
            spec.axes = Some(SixDofAxesSpec { x, y, z, rx, ry, rz });
        }
        JointKind::Target { target, spring, max_force } => {
            spec.target = Some(target.to_array());
            spec.spring = Some(SpringSpec { frequency_hz: spring.frequency_hz, damping_ratio: spring.damping_ratio });
            spec.max_force = Some(*max_force);
        }
    }
    Ok(())
}

fn file_motor(motor: Motor) -> MotorSpec {
    match motor {
        Motor::Velocity { target_velocity, max_force } => MotorSpec {
            target_velocity: Some(target_velocity),
            target_position: None,
            frequency_hz: None,
            damping_ratio: None,
            max_force,
        },
        Motor::Position { target_position, frequency_hz, damping_ratio, max_force } => MotorSpec {
            target_velocity: None,
            target_position: Some(target_position),
            frequency_hz: Some(frequency_hz),
            damping_ratio: Some(damping_ratio),
            max_force,
        },
    }
}

/// The anchors in the file's form for the kind: one `anchor` for joints that pin one point,
/// `anchor_a` and `anchor_b` for the others, or the local anchors.
fn write_anchors(spec: &mut JointSpec, anchors: Anchors) -> Result<()> {
    let one_point = !matches!(spec.kind, FileKind::Distance | FileKind::Pulley);
    match anchors {
        Anchors::Local { a, b } => {
            spec.local_anchor_a = Some(a.to_array());
            spec.local_anchor_b = Some(b.to_array());
        }
        Anchors::Shared(p) if one_point => spec.anchor = Some(p.to_array()),
        Anchors::World { a, b } if one_point && a == b => spec.anchor = Some(a.to_array()),
        Anchors::World { .. } if one_point => {
            let reason = format!("a {} joint pins one point: its world anchors must coincide", spec.kind.name());
            return Err(fail("anchors", reason));
        }
        Anchors::Shared(p) => (spec.anchor_a, spec.anchor_b) = (Some(p.to_array()), Some(p.to_array())),
        Anchors::World { a, b } => (spec.anchor_a, spec.anchor_b) = (Some(a.to_array()), Some(b.to_array())),
    }
    Ok(())
}

fn write_axes(spec: &mut JointSpec, axes: JointAxes) {
    match axes {
        JointAxes::World(axis) => spec.axis = Some(axis.to_array()),
        JointAxes::Local { a, b } => (spec.local_axis_a, spec.local_axis_b) = (Some(a.to_array()), Some(b.to_array())),
        JointAxes::LocalFrames { a, b } => {
            (spec.local_frame_a, spec.local_frame_b) = (Some(Rotation::from_quat(a)), Some(Rotation::from_quat(b)))
        }
    }
}

/// Degrees to radians (through f64, so that [`degrees`] can find the degrees back).
pub(crate) fn radians(degrees: f32) -> f32 {
    (degrees as f64).to_radians() as f32
}

/// Radians to degrees. Near a degree value, neighbouring f32 numbers can give the same
/// radians: of the nearest value and its two neighbours, the one [`radians`] turns back into
/// exactly `angle` with the fewest digits is taken, so that a file's `127.8` is saved as
/// `127.8`, not `127.799995`.
pub(crate) fn degrees(angle: f32) -> f32 {
    let nearest = (angle as f64).to_degrees() as f32;
    // One step of the bit pattern either way is the next f32 towards and away from zero.
    let bits = nearest.to_bits();
    [nearest, f32::from_bits(bits.wrapping_sub(1)), f32::from_bits(bits.wrapping_add(1))]
        .into_iter()
        .filter(|&d| radians(d) == angle)
        .min_by_key(|d| d.to_string().len())
        .unwrap_or(nearest)
}
