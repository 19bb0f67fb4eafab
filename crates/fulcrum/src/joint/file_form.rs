//! A joint as scene files write it: one flat object with the definition's fields (names of
//! bodies, anchors and axes in the file's forms, breaking, collision, enabled) and the kind's
//! options, tagged by `kind`:
//!
//! ```json
//! {"name": "door", "kind": "hinge", "body_a": "frame", "body_b": "door", "anchor": [0, 1, 0],
//!  "axis": [0, 1, 0], "limits": {"lower": -1.5, "upper": 1.5}}
//! ```
//!
//! [`JointDef`] reads and writes itself in this form (with `B`, `J` = names in files); the
//! kind's options are [`JointKind`]'s own serde form. What only files have is here: the
//! anchor and axis forms (`anchor` | `anchor_a` + `anchor_b` | `local_anchor_a` +
//! `local_anchor_b`; `axis` | `local_axis_a` + `local_axis_b` | `local_frame_a` + `local_frame_b`),
//! which are required where, and the ball's angles in degrees.

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::def::{Anchors, JointAxes, JointDef};
use super::kind::{AxisMotion, JointKind, Limits, Motor, SIX_DOF_AXES};
use crate::error::{Error, Result};
use crate::json::{self, FileRotation, Object};
use crate::math::Vec3;

/// The definition's own fields in their file forms (everything but the kind's options).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JointFields<B> {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    body_a: Option<B>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body_b: Option<B>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    anchor: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    anchor_a: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    anchor_b: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local_anchor_a: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local_anchor_b: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    axis: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local_axis_a: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local_axis_b: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local_frame_a: Option<FileRotation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local_frame_b: Option<FileRotation>,
    #[serde(default)]
    collide_connected: bool,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    break_force: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    break_torque: Option<f32>,
}

fn yes() -> bool {
    true
}

/// The pulley's default ratio.
pub(super) fn one() -> f32 {
    1.0
}

/// Which of two fields that go together are given: both, neither, or an error naming the
/// missing one.
fn pair<T: Copy>(first: (&str, Option<T>), second: (&str, Option<T>)) -> Result<Option<(T, T)>> {
    match (first.1, second.1) {
        (Some(a), Some(b)) => Ok(Some((a, b))),
        (None, None) => Ok(None),
        (Some(_), None) => Err(Error::new(second.0, format!("is required together with {}", first.0))),
        (None, Some(_)) => Err(Error::new(first.0, format!("is required together with {}", second.0))),
    }
}

impl<B> JointFields<B> {
    /// The anchors: exactly one form, the world form the kind's (one `anchor`, or `anchor_a`
    /// and `anchor_b` for joints between two points). A gear has none.
    fn anchors<J>(&self, kind: &JointKind<J>) -> Result<Anchors> {
        let local = pair(("local_anchor_a", self.local_anchor_a), ("local_anchor_b", self.local_anchor_b))?;
        let two = pair(("anchor_a", self.anchor_a), ("anchor_b", self.anchor_b))?;
        let given = [self.anchor.is_some(), two.is_some(), local.is_some()].iter().filter(|&&g| g).count();
        if given > 1 {
            return Err(Error::new(
                "",
                "give one form of anchors: `anchor`, `anchor_a` and `anchor_b`, or the local anchors",
            ));
        }
        let world_form = if kind.joins_two_points() { "`anchor_a` and `anchor_b`" } else { "`anchor`" };
        match (self.anchor, two, local) {
            (_, _, Some((a, b))) => Ok(Anchors::Local { a, b }),
            (Some(p), ..) if !kind.joins_two_points() => Ok(Anchors::Shared(p)),
            (_, Some((a, b)), _) if kind.joins_two_points() => Ok(Anchors::World { a, b }),
            _ if matches!(kind, JointKind::Gear { .. }) => Ok(Anchors::Shared(Vec3::ZERO)),
            (None, None, None) => {
                Err(Error::new("", format!("needs {world_form}, or `local_anchor_a` and `local_anchor_b`")))
            }
            (Some(_), ..) => Err(Error::new("anchor", format!("a {} joint takes {world_form}", kind.name()))),
            _ => Err(Error::new("anchor_a", format!("a {} joint takes {world_form}", kind.name()))),
        }
    }

    /// The axes: at most one form; required for hinges, sliders and lines, and for a ball's
    /// cone and twist limits (both are measured about the axis).
    fn axes<J>(&self, kind: &JointKind<J>) -> Result<JointAxes> {
        let local = pair(("local_axis_a", self.local_axis_a), ("local_axis_b", self.local_axis_b))?;
        let frames = pair(("local_frame_a", self.local_frame_a), ("local_frame_b", self.local_frame_b))?;
        match (self.axis, local, frames) {
            (Some(_), Some(_), _) => Err(Error::new("axis", "give either `axis` or the local axes, not both")),
            (_, _, Some(_)) if self.axis.is_some() || local.is_some() => Err(Error::new(
                "local_frame_a",
                "the local frames replace `axis` and the local axes: give only one form",
            )),
            (_, _, Some((a, b))) => Ok(JointAxes::LocalFrames { a: a.0, b: b.0 }),
            (_, Some((a, b)), _) => Ok(JointAxes::Local { a, b }),
            (Some(axis), ..) => Ok(JointAxes::World(axis)),
            (None, None, None) => match axis_needed_for(kind) {
                Some(what) => Err(Error::new("axis", format!("is required for {what}"))),
                None => Ok(JointAxes::World(Vec3::X)),
            },
        }
    }

    /// A gear acts about its hinges' frames: it has no anchors or axes of its own.
    fn refuse_frames_of_gear(&self) -> Result<()> {
        let given = [
            ("anchor", self.anchor.is_some()),
            ("anchor_a", self.anchor_a.is_some()),
            ("anchor_b", self.anchor_b.is_some()),
            ("local_anchor_a", self.local_anchor_a.is_some()),
            ("local_anchor_b", self.local_anchor_b.is_some()),
            ("axis", self.axis.is_some()),
            ("local_axis_a", self.local_axis_a.is_some()),
            ("local_axis_b", self.local_axis_b.is_some()),
            ("local_frame_a", self.local_frame_a.is_some()),
            ("local_frame_b", self.local_frame_b.is_some()),
        ];
        match given.iter().find(|(_, present)| *present) {
            Some((field, _)) => {
                Err(Error::new(*field, "does not apply to a `gear` joint (it acts about its hinges' axes)"))
            }
            None => Ok(()),
        }
    }

    /// The file fields of a definition.
    fn of<J>(def: &JointDef<B, J>) -> JointFields<B>
    where
        B: Clone,
    {
        let mut fields = JointFields {
            name: def.name.clone(),
            body_a: def.body_a.clone(),
            body_b: def.body_b.clone(),
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
            collide_connected: def.collide_connected,
            enabled: def.enabled,
            break_force: def.break_force,
            break_torque: def.break_torque,
        };
        match def.anchors {
            _ if matches!(def.kind, JointKind::Gear { .. }) => {}
            Anchors::Local { a, b } => (fields.local_anchor_a, fields.local_anchor_b) = (Some(a), Some(b)),
            Anchors::Shared(p) if def.kind.joins_two_points() => {
                (fields.anchor_a, fields.anchor_b) = (Some(p), Some(p))
            }
            Anchors::Shared(p) => fields.anchor = Some(p),
            Anchors::World { a, b } if def.kind.joins_two_points() => {
                (fields.anchor_a, fields.anchor_b) = (Some(a), Some(b))
            }
            // A one-point joint's world anchors coincide (the definition's validation).
            Anchors::World { a, .. } => fields.anchor = Some(a),
        }
        match def.axes {
            _ if matches!(def.kind, JointKind::Gear { .. }) => {}
            JointAxes::World(axis) => fields.axis = Some(axis),
            JointAxes::Local { a, b } => (fields.local_axis_a, fields.local_axis_b) = (Some(a), Some(b)),
            JointAxes::LocalFrames { a, b } => {
                (fields.local_frame_a, fields.local_frame_b) = (Some(FileRotation(a)), Some(FileRotation(b)))
            }
        }
        fields
    }
}

/// What needs an axis in a file, if the kind does.
fn axis_needed_for<J>(kind: &JointKind<J>) -> Option<String> {
    match kind {
        JointKind::Hinge { .. } | JointKind::Prismatic { .. } | JointKind::Line { .. } => {
            Some(format!("a `{}` joint", kind.name()))
        }
        JointKind::Ball { cone_limit, twist_limits, .. } if cone_limit.is_some() || twist_limits.is_some() => {
            Some("cone and twist limits".to_string())
        }
        _ => None,
    }
}

/// Reads a joint from its object's entries.
fn read<B: DeserializeOwned, J: DeserializeOwned>(mut entries: Map<String, Value>) -> Result<JointDef<B, J>> {
    let tag = json::take_tag(&mut entries, "kind")?;
    let own_names = json::field_names::<JointFields<B>>();
    let mut object = Object::from_entries(entries);
    let fields: JointFields<B> = object.take_part(own_names)?;
    let kind: JointKind<J> = object.into_variant(&tag, "kind").map_err(|e| json::with_more_candidates(e, own_names))?;
    if matches!(kind, JointKind::Gear { .. }) {
        fields.refuse_frames_of_gear()?;
    }
    let anchors = fields.anchors(&kind)?;
    let axes = fields.axes(&kind)?;
    let mut def = JointDef::with_parts(kind, fields.body_a, fields.body_b, anchors);
    def.axes = axes;
    def.name = fields.name;
    def.collide_connected = fields.collide_connected;
    def.enabled = fields.enabled;
    def.break_force = fields.break_force;
    def.break_torque = fields.break_torque;
    Ok(def)
}

impl<B: Serialize + Clone, J: Serialize> Serialize for JointDef<B, J> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let Value::Object(mut own) = json::to_value(&JointFields::of(self)).map_err(S::Error::custom)? else {
            return Err(S::Error::custom("a joint's fields are an object"));
        };
        let kind = json::internally_tagged(&self.kind, "kind").map_err(S::Error::custom)?;
        let mut map = serializer.serialize_map(None)?;
        if let Some(name) = own.shift_remove("name") {
            map.serialize_entry("name", &name)?;
        }
        for (key, value) in kind.iter().take(1).chain(own.iter()).chain(kind.iter().skip(1)) {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, B: DeserializeOwned, J: DeserializeOwned> Deserialize<'de> for JointDef<B, J> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        read(Map::deserialize(deserializer)?).map_err(json::nested)
    }
}

/// The motor's file form: which fields are given decides the kind of motor.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MotorFields {
    target_velocity: Option<f32>,
    target_position: Option<f32>,
    frequency_hz: Option<f32>,
    damping_ratio: Option<f32>,
    max_force: f32,
}

impl MotorFields {
    fn motor(self) -> Result<Motor> {
        let max_force = self.max_force;
        match (self.target_velocity, self.target_position) {
            (Some(target_velocity), None) => {
                for (field, value) in [("frequency_hz", self.frequency_hz), ("damping_ratio", self.damping_ratio)] {
                    if value.is_some() {
                        return Err(Error::new(field, "applies only to a position motor (`target_position`)"));
                    }
                }
                Ok(Motor::Velocity { target_velocity, max_force })
            }
            (None, Some(target_position)) => {
                let required = |field: &str, value: Option<f32>| {
                    value.ok_or_else(|| Error::new(field, "is required for a position motor"))
                };
                Ok(Motor::Position {
                    target_position,
                    frequency_hz: required("frequency_hz", self.frequency_hz)?,
                    damping_ratio: required("damping_ratio", self.damping_ratio)?,
                    max_force,
                })
            }
            (Some(_), Some(_)) => Err(Error::new("", "give either `target_velocity` or `target_position`, not both")),
            (None, None) => Err(Error::new("", "needs `target_velocity` or `target_position`")),
        }
    }
}

impl<'de> Deserialize<'de> for Motor {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Motor, D::Error> {
        let fields: Value = Value::deserialize(deserializer)?;
        json::from_value::<MotorFields>(fields).and_then(MotorFields::motor).map_err(json::nested)
    }
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

impl<'de> Deserialize<'de> for AxisMotion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<AxisMotion, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Name(String),
            Range([f32; 2]),
        }
        const EXPECTED: &str = "expected \"locked\", \"free\" or [lower, upper]";
        match Form::deserialize(deserializer).map_err(|_| de::Error::custom(EXPECTED))? {
            Form::Name(name) if name == "locked" => Ok(AxisMotion::Locked),
            Form::Name(name) if name == "free" => Ok(AxisMotion::Free),
            Form::Name(name) => Err(de::Error::custom(format!("unknown axis motion \"{name}\", {EXPECTED}"))),
            Form::Range([lower, upper]) => Ok(AxisMotion::Limited(lower, upper)),
        }
    }
}

/// A six-DOF joint's axes as an object keyed by [`SIX_DOF_AXES`] (an omitted axis is free;
/// every axis is written).
pub(super) mod six_dof_axes {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        axes: &[AxisMotion; 6],
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(6))?;
        for (name, motion) in SIX_DOF_AXES.iter().zip(axes) {
            map.serialize_entry(name, motion)?;
        }
        map.end()
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<[AxisMotion; 6], D::Error> {
        let entries = Map::<String, Value>::deserialize(deserializer)?;
        let mut axes = [AxisMotion::Free; 6];
        for (key, value) in entries {
            let index = SIX_DOF_AXES
                .iter()
                .position(|name| *name == key)
                .ok_or_else(|| json::nested(json::unknown_field(&key, &SIX_DOF_AXES)))?;
            axes[index] = json::from_value(value).map_err(|e| json::nested(e.within(&key)))?;
        }
        Ok(axes)
    }
}

/// Degrees to radians through f64, so that [`to_degrees`] finds the file's degrees back.
fn to_radians(degrees: f32) -> f32 {
    (degrees as f64).to_radians() as f32
}

/// Radians to degrees: of the nearest f32 and its two neighbours, the one that [`to_radians`]
/// turns back into exactly `angle` with the fewest digits, so that a file's `127.8` is saved
/// as `127.8`, not `127.799995`.
fn to_degrees(angle: f32) -> f32 {
    let nearest = (angle as f64).to_degrees() as f32;
    let bits = nearest.to_bits();
    [nearest, f32::from_bits(bits.wrapping_sub(1)), f32::from_bits(bits.wrapping_add(1))]
        .into_iter()
        .filter(|&d| to_radians(d) == angle)
        .min_by_key(|d| d.to_string().len())
        .unwrap_or(nearest)
}

/// An optional angle stored in radians, written in degrees.
pub(super) mod degrees {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(angle: &Option<f32>, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        angle.map(to_degrees).serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Option<f32>, D::Error> {
        Ok(Option::<f32>::deserialize(deserializer)?.map(to_radians))
    }
}

/// Optional limits stored in radians, written in degrees.
pub(super) mod degree_limits {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        limits: &Option<Limits>,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        limits.map(|l| Limits::new(to_degrees(l.lower), to_degrees(l.upper))).serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Option<Limits>, D::Error> {
        Ok(Option::<Limits>::deserialize(deserializer)?.map(|l| Limits::new(to_radians(l.lower), to_radians(l.upper))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type FileJoint = JointDef<String, String>;

    fn read(text: &str) -> Result<FileJoint> {
        json::from_str(text)
    }

    #[test]
    fn a_hinge_reads_and_writes_the_file_form() {
        let text = r#"{"name":"door","kind":"hinge","body_a":"frame","body_b":"door","anchor":[0.0,1.0,0.0],"axis":[0.0,1.0,0.0],"limits":{"lower":-1.5,"upper":1.5},"collide_connected":false,"enabled":true}"#;
        let def = read(text).unwrap();
        assert_eq!(def.kind, JointKind::Hinge { limits: Some(Limits::new(-1.5, 1.5)), motor: None, spring: None });
        assert_eq!(def.anchors, Anchors::Shared(Vec3::Y));
        let written = serde_json::to_string(&def).unwrap();
        let reread = read(&written).unwrap();
        assert_eq!(reread, def, "{written}");
        assert!(written.starts_with(r#"{"name":"door","kind":"hinge","body_a":"frame""#), "{written}");
    }

    #[test]
    fn degrees_come_back_as_written() {
        let text = r#"{"kind":"ball","body_b":"b","anchor":[0,0,0],"axis":[1,0,0],"cone_limit_deg":127.8,"twist_limits_deg":{"lower":-33.3,"upper":45}}"#;
        let def = read(text).unwrap();
        let written = serde_json::to_string(&def).unwrap();
        assert!(written.contains(r#""cone_limit_deg":127.8"#), "{written}");
        assert!(written.contains(r#""lower":-33.3"#), "{written}");
    }

    /// Degrees survive radians: every whole and tenth degree in ±180 comes back as written.
    #[test]
    fn every_tenth_of_a_degree_comes_back() {
        let changed =
            (-1800..=1800).map(|tenth| tenth as f32 / 10.0).filter(|&d| to_degrees(to_radians(d)) != d).count();
        assert_eq!(changed, 0, "tenths of a degree that do not come back");
    }

    #[test]
    fn file_rules_name_their_field() {
        let field = |text: &str| read(text).unwrap_err().field;
        assert_eq!(field(r#"{"kind":"hinge","body_b":"b","anchor":[0,0,0]}"#), "axis");
        assert_eq!(field(r#"{"kind":"hinge","body_b":"b","anchor":[0,0,0],"axis":[0,1,0],"limts":{}}"#), "limts");
        assert_eq!(
            field(r#"{"kind":"hinge","body_b":"b","anchor":[0,0,0],"axis":[0,1,0],"cone_limit_deg":3}"#),
            "cone_limit_deg"
        );
        assert_eq!(field(r#"{"kind":"distance","body_b":"b","anchor":[0,0,0]}"#), "anchor");
        assert_eq!(field(r#"{"kind":"ball","body_b":"b","local_anchor_a":[0,0,0]}"#), "local_anchor_b");
        assert_eq!(
            field(r#"{"kind":"hinge","body_b":"b","anchor":[0,0,0],"axis":[0,1,0],"motor":{"max_force":1}}"#),
            "motor"
        );
        assert_eq!(
            field(r#"{"kind":"hinge","body_b":"b","anchor":[0,0,0],"axis":[0,1,0],"limits":{"lower":"x","upper":1}}"#),
            "limits.lower"
        );
        assert_eq!(field(r#"{"kind":"six_dof","body_b":"b","anchor":[0,0,0],"axes":{"rw":"locked"}}"#), "axes.rw");
        assert_eq!(field(r#"{"kind":"hnge","body_b":"b"}"#), "kind");
        let typo = read(r#"{"kind":"ball","body_b":"b","anchor":[0,0,0],"colide_connected":true}"#).unwrap_err();
        assert!(typo.reason.contains("did you mean `collide_connected`"), "{typo}");
    }
}
