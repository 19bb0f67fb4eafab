//! JSON in and out of the engine's own types: scene files, the testbed's messages and anything a
//! tool sends. The engine's definition types (settings, shapes, colliders, bodies, joints)
//! derive or implement serde themselves, so this module only adds what every reader needs:
//!
//! - the JSON path of a bad value in every error (`bodies[3].colliders[0].shape.radius`), also
//!   from inside the engine's hand-written deserializers ([`nested`]);
//! - an unknown field or variant refused with the closest known name (`unknown field `radus`
//!   ... (did you mean `radius`?)`): the types deny unknown fields, this module suggests;
//! - partial updates ([`patch`]): a JSON object of some fields merged into a value, so a
//!   settings message is the settings type itself, never a hand-written copy of its fields;
//! - the plumbing of the file format's flat objects: an internally tagged object
//!   (`{"type": "sphere", "radius": 1}`) read through serde's externally tagged form, which keeps
//!   paths, and one JSON object shared by several types ([`Object`]).

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::math::Quat;

/// Parses `text` into `T`. The error names the JSON path of the first bad value, suggests the
/// closest known name for an unknown one, and says where invalid JSON breaks off.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| located(&e))?;
    deserializer.end().map_err(|e| Error::new("", format!("invalid JSON: {e}")))?;
    Ok(value)
}

/// Reads `T` from a JSON value, with paths and suggestions as [`from_str`].
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| located(&e))
}

/// The JSON value of `value` (the engine's types always have one). Numbers that are `f32`
/// values are kept as the shortest decimal that reads back as the same `f32` (a `Value` holds
/// them as `f64`, which would write `0.1f32` as `0.10000000149011612`).
pub fn to_value<T: Serialize>(value: &T) -> Result<Value> {
    let mut value = serde_json::to_value(value).map_err(|e| Error::new("", format!("cannot write JSON: {e}")))?;
    shorten_floats(&mut value);
    Ok(value)
}

fn shorten_floats(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            let Some(wide) = number.as_f64() else { return };
            let narrow = wide as f32;
            if narrow as f64 == wide {
                let short = format!("{narrow}").parse::<f64>().ok().filter(|&short| short as f32 == narrow);
                if let Some(short) = short.and_then(serde_json::Number::from_f64) {
                    *number = short;
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shorten_floats),
        Value::Object(entries) => entries.values_mut().for_each(shorten_floats),
        _ => {}
    }
}

/// `current` with the fields `changes` gives replaced: objects merge key by key, any other
/// value replaces. The result is read back as `T`, so an unknown or misspelt field, a wrong
/// type or a bad variant is refused with its path; it is not validated beyond that.
pub fn patch<T: Serialize + DeserializeOwned>(current: &T, changes: &Value) -> Result<T> {
    let mut merged = to_value(current)?;
    merge(&mut merged, changes);
    from_value(merged)
}

fn merge(target: &mut Value, changes: &Value) {
    match (target, changes) {
        (Value::Object(target), Value::Object(changes)) => {
            for (key, change) in changes {
                match target.get_mut(key) {
                    Some(existing) => merge(existing, change),
                    None => {
                        target.insert(key.clone(), change.clone());
                    }
                }
            }
        }
        (target, change) => *target = change.clone(),
    }
}

/// Marks an error raised inside a deserializer that knows the path below the value it reads;
/// [`from_str`] and [`from_value`] join it to the path serde reached.
const NESTED: char = '\u{1f}';

/// A deserializer's error carrying the engine error's field as a path below the value being
/// read (for `Deserialize` impls that read parts of an object themselves).
pub(crate) fn nested<E: de::Error>(error: Error) -> E {
    E::custom(format!("{NESTED}{}{NESTED}{}", error.field, error.reason))
}

/// The engine error of a serde error at `path`.
fn located(error: &serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = error.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let inner = error.inner();
    let message = inner.to_string();
    // serde_json ends a message read from text with its position; it is put in brackets so
    // that it does not read as part of the value (`got -1 (line 3, column 7)`).
    let position = format!(" at line {} column {}", inner.line(), inner.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    let (field, reason) = match message.strip_prefix(NESTED).and_then(|rest| rest.split_once(NESTED)) {
        Some((below, reason)) => (join(&path, below), reason.to_string()),
        None => (path, message.to_string()),
    };
    let mut reason = match inner.classify() {
        serde_json::error::Category::Data => with_suggestion(&reason),
        _ => format!("invalid JSON: {reason}"),
    };
    if inner.line() > 0 {
        reason = format!("{reason} (line {}, column {})", inner.line(), inner.column());
    }
    Error::new(field, reason)
}

/// `outer` followed by `inner` (`a.b` + `c[0]` = `a.b.c[0]`, `a` + `[2]` = `a[2]`).
pub(crate) fn join(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (_, true) => outer.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    }
}

/// Appends "(did you mean `x`?)" to serde's "unknown field/variant `y`, expected ..." message
/// when one of the expected names is close to the unknown one.
fn with_suggestion(reason: &str) -> String {
    let Some(rest) = reason.strip_prefix("unknown field `").or_else(|| reason.strip_prefix("unknown variant `")) else {
        return reason.to_string();
    };
    let Some((unknown, expected)) = rest.split_once('`') else { return reason.to_string() };
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    match closest(unknown, &known) {
        Some(name) => format!("{reason} (did you mean `{name}`?)"),
        None => reason.to_string(),
    }
}

/// The known name closest to `unknown` by edit distance, if it is close enough to be a typo
/// (at most a third of the name's length rounded up, and at least 1, edits apart).
pub(crate) fn closest<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let limit = unknown.chars().count().div_ceil(3).max(1);
    known
        .iter()
        .map(|&name| (edit_distance(unknown, name), name))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name)
}

/// Levenshtein distance, with a swap of two neighbouring letters counting as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1).min(rows[i][j - 1] + 1).min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// The refusal of an unknown key, worded as serde words it (so it gets the same suggestion).
pub(crate) fn unknown_field(key: &str, known: &[&str]) -> Error {
    let expected = match known {
        [] => "there are no fields".to_string(),
        [one] => format!("expected `{one}`"),
        many => format!("expected one of {}", many.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")),
    };
    Error::new(key, with_suggestion(&format!("unknown field `{key}`, {expected}")))
}

/// `error` with `extra` names added to the candidates of its "unknown field" suggestion (for a
/// key read by one part of an object that another part also knows).
pub(crate) fn with_more_candidates(error: Error, extra: &[&str]) -> Error {
    let Some(rest) = error.reason.strip_prefix("unknown field `") else { return error };
    let Some((key, expected)) = rest.split_once('`') else { return error };
    let mut known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    for name in extra {
        if !known.contains(name) {
            known.push(name);
        }
    }
    Error::new(error.field.clone(), unknown_field(key, &known).reason)
}

/// The names of the fields a derived `Deserialize` of a struct reads (serde passes them to
/// `deserialize_struct`; this deserializer only records them).
pub(crate) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = FieldNames(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

struct FieldNames(&'static [&'static str]);

#[derive(Debug)]
struct Recorded;

impl std::fmt::Display for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names recorded")
    }
}

impl std::error::Error for Recorded {}

impl de::Error for Recorded {
    fn custom<M: std::fmt::Display>(_message: M) -> Self {
        Recorded
    }
}

impl<'de> Deserializer<'de> for &mut FieldNames {
    type Error = Recorded;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> std::result::Result<V::Value, Recorded> {
        Err(Recorded)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> std::result::Result<V::Value, Recorded> {
        self.0 = fields;
        Err(Recorded)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// One JSON object of the file format whose keys belong to several engine types (a body's own
/// fields and its `colliders`; a joint's definition and its kind's options). Each part takes
/// its keys; a key no part knows is refused with the closest known name.
pub(crate) struct Object {
    entries: Map<String, Value>,
}

impl Object {
    /// An object whose keys are not checked here (the part reading it refuses unknown ones).
    pub(crate) fn from_entries(entries: Map<String, Value>) -> Object {
        Object { entries }
    }

    /// The object's entries; checks that every key is one of `known` (in the order given, for
    /// the message).
    pub(crate) fn new(entries: Map<String, Value>, known: &[&[&str]]) -> Result<Object> {
        let all: Vec<&str> = known.iter().flat_map(|names| names.iter().copied()).collect();
        if let Some(key) = entries.keys().find(|key| !all.contains(&key.as_str())) {
            return Err(unknown_field(key, &all));
        }
        Ok(Object { entries })
    }

    /// Is `key` given?
    pub(crate) fn has(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// Takes `key` and reads it as `T` (`None` when absent); errors are at `key`.
    pub(crate) fn take<T: DeserializeOwned>(&mut self, key: &str) -> Result<Option<T>> {
        match self.entries.remove(key) {
            None => Ok(None),
            Some(value) => from_value(value).map(Some).map_err(|e| e.within(key)),
        }
    }

    /// Takes the keys of `names` as one object read as `T`; errors are at their own keys.
    pub(crate) fn take_part<T: DeserializeOwned>(&mut self, names: &[&str]) -> Result<T> {
        let part: Map<String, Value> =
            names.iter().filter_map(|&name| self.entries.remove(name).map(|value| (name.to_string(), value))).collect();
        from_value(Value::Object(part))
    }

    /// Reads what is left as the variant `tag` of an externally tagged `T`: the object
    /// `{tag: {...rest}}`, whose errors keep their paths (serde reads it without buffering).
    /// Errors are at the keys of the rest; an unknown variant is an error at `tag_field`.
    pub(crate) fn into_variant<T: DeserializeOwned>(self, tag: &str, tag_field: &str) -> Result<T> {
        let external = Value::Object(Map::from_iter([(tag.to_string(), Value::Object(self.entries))]));
        from_value(external).map_err(|e| {
            match e.field.strip_prefix(tag) {
                // Inside the variant: drop the variant's name from the path.
                Some(rest) if !e.field.is_empty() => Error::new(rest.trim_start_matches('.').to_string(), e.reason),
                _ => Error::new(tag_field, e.reason),
            }
        })
    }
}

/// The fields of an externally tagged value `{variant: {...}}` flattened with the variant's name
/// under `tag`: the file format's `{"type": "sphere", "radius": 1}`.
pub(crate) fn internally_tagged<T: Serialize>(value: &T, tag: &str) -> Result<Map<String, Value>> {
    let Value::Object(outer) = to_value(value)? else {
        return Err(Error::new(tag, "expected an object variant"));
    };
    let Some((name, Value::Object(fields))) = outer.into_iter().next() else {
        return Err(Error::new(tag, "expected an object variant"));
    };
    let mut flat = Map::new();
    flat.insert(tag.to_string(), Value::String(name));
    flat.extend(fields);
    Ok(flat)
}

/// Reads the string under `tag` (the variant's name) from an object's entries.
pub(crate) fn take_tag(entries: &mut Map<String, Value>, tag: &str) -> Result<String> {
    match entries.remove(tag) {
        Some(Value::String(name)) => Ok(name),
        Some(other) => Err(Error::new(tag, format!("invalid type: {other}, expected a string"))),
        None => Err(Error::new(tag, format!("missing field `{tag}`"))),
    }
}

/// Rotations in files: a quaternion `[x, y, z, w]` or `{"axis": [x, y, z], "angle_deg": a}`
/// (degrees, right-handed, any non-zero axis length); written as a quaternion. Used with
/// `#[serde(with = "crate::json::rotation")]` on a `Quat` field.
pub(crate) mod rotation {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::math::{Quat, Vec3};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Form {
        Quat([f32; 4]),
        AxisAngle(AxisAngle),
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct AxisAngle {
        axis: [f32; 3],
        angle_deg: f32,
    }

    const EXPECTED: &str = "expected a quaternion [x, y, z, w] or {\"axis\": [x, y, z], \"angle_deg\": a}";

    pub(crate) fn serialize<S: Serializer>(rotation: &Quat, serializer: S) -> Result<S::Ok, S::Error> {
        rotation.to_array().serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Quat, D::Error> {
        let form = Form::deserialize(deserializer).map_err(|_| serde::de::Error::custom(EXPECTED))?;
        match form {
            Form::Quat(q) => Ok(Quat::from_array(q)),
            Form::AxisAngle(AxisAngle { axis, angle_deg }) => {
                let axis = Vec3::from_array(axis);
                if !(axis.is_finite() && angle_deg.is_finite()) {
                    return Err(serde::de::Error::custom("the axis and angle must be finite numbers"));
                }
                let unit = axis
                    .try_normalize()
                    .ok_or_else(|| serde::de::Error::custom("the axis must not be the zero vector"))?;
                Ok(Quat::from_axis_angle(unit, (angle_deg as f64).to_radians() as f32))
            }
        }
    }
}

/// A rotation field in its file forms (see [`rotation`]), for optional fields.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileRotation(#[serde(with = "rotation")] pub Quat);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        radius: f32,
        #[serde(default)]
        half_height: f32,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        items: Vec<Inner>,
    }

    #[test]
    fn errors_carry_the_path_and_a_suggestion() {
        let error = from_str::<Outer>(r#"{"items": [{"radius": 1}, {"radus": 2}]}"#).unwrap_err();
        assert_eq!(error.field, "items[1].radus");
        assert!(error.reason.contains("(did you mean `radius`?)"), "{error}");
        let error = from_str::<Outer>(r#"{"items": [{"radius": "x"}]}"#).unwrap_err();
        assert_eq!(error.field, "items[0].radius");
        let error = from_str::<Outer>(r#"{"itms": []}"#).unwrap_err();
        assert!(error.reason.contains("(did you mean `items`?)"), "{error}");
        let error = from_str::<Outer>(r#"{"colour": []}"#).unwrap_err();
        assert!(!error.reason.contains("did you mean"), "no suggestion for an unrelated name: {error}");
        assert!(from_str::<Outer>("{").unwrap_err().reason.starts_with("invalid JSON"));
    }

    #[test]
    fn field_names_are_read_from_the_derive() {
        assert_eq!(field_names::<Inner>(), ["radius", "half_height"]);
    }

    #[test]
    fn patches_merge_objects_and_refuse_unknown_fields() {
        let current = Outer { items: vec![Inner { radius: 1.0, half_height: 2.0 }] };
        let patched = patch(&current, &serde_json::json!({"items": [{"radius": 3}]})).unwrap();
        assert_eq!(patched.items, [Inner { radius: 3.0, half_height: 0.0 }], "arrays are replaced whole");
        let error = patch(&current, &serde_json::json!({"itemz": []})).unwrap_err();
        assert_eq!(error.field, "itemz");
    }

    #[test]
    fn edit_distance_counts_swaps_once() {
        assert_eq!(edit_distance("positon", "position"), 1);
        assert_eq!(edit_distance("joint", "joints"), 1);
        assert_eq!(edit_distance("raduis", "radius"), 1);
        assert_eq!(closest("joint", &["bodies", "joints", "settings"]), Some("joints"));
    }
}
