//! Commands from the page (testbed-protocol.md, "Page → server"): size limits, parsing and
//! the checks that need no world. A refused message becomes the text of an `error` reply that
//! names the field (`drag_start.point[1]: ...`) and the reason; it changes nothing.

use fulcrum::{Vec3, WorldSettings};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Largest text message accepted: a `load_scene` with a scene file of up to this size.
pub const MAX_TEXT_BYTES: usize = 8 << 20;
/// Largest message of any other type.
pub const MAX_COMMAND_BYTES: usize = 64 << 10;
/// Slowest and fastest simulation speed, times real time.
pub const SPEED_RANGE: (f32, f32) = (0.05, 4.0);

/// A command from the page, checked as far as possible without the world.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run at real time × speed.
    Play,
    /// Stop stepping.
    Pause,
    /// Pause, then advance exactly one step.
    Step,
    /// Rebuild the current scene from its source.
    Reset,
    /// Keep a snapshot of the world in the server (replacing the one kept before).
    SaveState,
    /// Go back to the kept snapshot.
    RestoreState,
    /// Simulation speed, times real time.
    Speed(f32),
    /// Load a gallery scene by name (known to exist).
    LoadSample(String),
    /// Load a scene file's text.
    LoadScene {
        /// The file's text.
        json: String,
        /// The dropped file's name, if the page sent it.
        name: Option<String>,
    },
    /// Change some settings: any subset of `fulcrum::WorldSettings`' fields but `timestep`, as a
    /// JSON object of the same shape (checked against the type already).
    Settings(Value),
    /// Attach this tab's drag joint to body `body` at world point `point`.
    DragStart {
        /// Index into the scene message's bodies.
        body: usize,
        /// World point on the body, metres.
        point: Vec3,
    },
    /// Hold particle `particle` of cloth or rope `set` (pinned while dragged) and move it
    /// with this tab's drag target.
    DragParticle {
        /// Index into the scene message's `particle_sets`.
        set: usize,
        /// The particle's number in its set (row by row on a cloth).
        particle: usize,
    },
    /// Move this tab's drag target.
    DragMove(Vec3),
    /// Remove this tab's drag joint.
    DragEnd,
    /// Launch a ball from `origin` along the unit `direction`.
    Shoot {
        /// Start point, metres.
        origin: Vec3,
        /// Unit direction of flight.
        direction: Vec3,
    },
    /// Ask for a `body_info` reply about body `body`.
    Inspect(usize),
    /// Include contact points in this tab's frames, or not.
    Overlay(bool),
    /// Drive character `character`: the velocity it wants to walk at from the next step on
    /// (its horizontal part), and a jump at `jump_speed` m/s when above 0 (if it stands on
    /// ground then). The values are checked by the world's character setters.
    Drive {
        /// Index into the scene message's characters.
        character: usize,
        /// Desired velocity, m/s.
        velocity: Vec3,
        /// Jump speed, m/s (0: no jump).
        jump_speed: f32,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeedFields {
    value: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NameFields {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFields {
    json: String,
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DragStartFields {
    body: usize,
    point: [f32; 3],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DragParticleFields {
    set: usize,
    particle: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetFields {
    target: [f32; 3],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShootFields {
    origin: [f32; 3],
    direction: [f32; 3],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyFields {
    body: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OverlayFields {
    contacts: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DriveFields {
    character: usize,
    velocity: [f32; 3],
    #[serde(default)]
    jump_speed: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

/// Parses one text message. `is_sample` tells whether a `load_sample` name exists.
pub fn parse(text: &str, is_sample: impl Fn(&str) -> bool) -> Result<Command, String> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(format!("message too large: {} bytes (at most {MAX_TEXT_BYTES})", text.len()));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON: {e}"))?;
    let Value::Object(mut fields) = value else {
        return Err("malformed message: expected a JSON object with a \"type\" field".to_string());
    };
    let kind = match fields.remove("type") {
        Some(Value::String(kind)) => kind,
        Some(other) => return Err(format!("type: expected a string, got {other}")),
        None => return Err("type: missing field".to_string()),
    };
    if kind != "load_scene" && text.len() > MAX_COMMAND_BYTES {
        return Err(format!("{kind}: message too large: {} bytes (at most {MAX_COMMAND_BYTES})", text.len()));
    }
    command(&kind, fields, is_sample)
}

fn command(kind: &str, fields: Map<String, Value>, is_sample: impl Fn(&str) -> bool) -> Result<Command, String> {
    let command = match kind {
        "play" => no_fields(kind, fields, Command::Play)?,
        "pause" => no_fields(kind, fields, Command::Pause)?,
        "step" => no_fields(kind, fields, Command::Step)?,
        "reset" => no_fields(kind, fields, Command::Reset)?,
        "save_state" => no_fields(kind, fields, Command::SaveState)?,
        "restore_state" => no_fields(kind, fields, Command::RestoreState)?,
        "drag_end" => no_fields(kind, fields, Command::DragEnd)?,
        "speed" => Command::Speed(speed(read::<SpeedFields>(kind, fields)?.value)?),
        "load_sample" => {
            let name = read::<NameFields>(kind, fields)?.name;
            if !is_sample(&name) {
                return Err(format!("load_sample.name: no sample is called {name:?} (hello.samples lists them)"));
            }
            Command::LoadSample(name)
        }
        "load_scene" => {
            let SceneFields { json, name } = read(kind, fields)?;
            Command::LoadScene { json, name }
        }
        "settings" => Command::Settings(settings_changes(fields)?),
        "drag_start" => {
            let DragStartFields { body, point } = read(kind, fields)?;
            Command::DragStart { body, point: finite("drag_start.point", point)? }
        }
        "drag_particle" => {
            let DragParticleFields { set, particle } = read(kind, fields)?;
            Command::DragParticle { set, particle }
        }
        "drag_move" => Command::DragMove(finite("drag_move.target", read::<TargetFields>(kind, fields)?.target)?),
        "shoot" => {
            let ShootFields { origin, direction } = read(kind, fields)?;
            let origin = finite("shoot.origin", origin)?;
            let direction = finite("shoot.direction", direction)?
                .try_normalize()
                .ok_or("shoot.direction: must not be zero".to_string())?;
            Command::Shoot { origin, direction }
        }
        "inspect" => Command::Inspect(read::<BodyFields>(kind, fields)?.body),
        "overlay" => Command::Overlay(read::<OverlayFields>(kind, fields)?.contacts),
        "drive" => {
            let DriveFields { character, velocity, jump_speed } = read(kind, fields)?;
            Command::Drive { character, velocity: Vec3::from(velocity), jump_speed }
        }
        other => return Err(format!("type: unknown message type {other:?}")),
    };
    Ok(command)
}

/// Deserialises a message's fields (without `type`), naming the path of a bad one.
fn read<T: DeserializeOwned>(kind: &str, fields: Map<String, Value>) -> Result<T, String> {
    serde_path_to_error::deserialize(Value::Object(fields)).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            format!("{kind}: {}", e.inner())
        } else {
            format!("{kind}.{path}: {}", e.inner())
        }
    })
}

/// A settings change: the fields of `WorldSettings` it gives, refused here when one is unknown,
/// of the wrong type or the read-only `timestep` (values are checked against the world's).
fn settings_changes(fields: Map<String, Value>) -> Result<Value, String> {
    if fields.contains_key("timestep") {
        return Err("settings.timestep: is the scene's and read-only".to_string());
    }
    let changes = Value::Object(fields);
    fulcrum::json::patch(&WorldSettings::default(), &changes).map_err(|e| format!("settings.{e}"))?;
    Ok(changes)
}

fn no_fields(kind: &str, fields: Map<String, Value>, command: Command) -> Result<Command, String> {
    read::<NoFields>(kind, fields).map(|_| command)
}

fn speed(value: f32) -> Result<f32, String> {
    let (low, high) = SPEED_RANGE;
    if (low..=high).contains(&value) {
        Ok(value)
    } else {
        Err(format!("speed.value: must be between {low} and {high}, got {value}"))
    }
}

fn finite(field: &str, value: [f32; 3]) -> Result<Vec3, String> {
    let vector = Vec3::from(value);
    if vector.is_finite() {
        Ok(vector)
    } else {
        Err(format!("{field}: must be finite, got {value:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_any(text: &str) -> Result<Command, String> {
        parse(text, |name| name == "pyramid")
    }

    #[test]
    fn simple_commands_parse() {
        assert_eq!(parse_any(r#"{"type":"play"}"#), Ok(Command::Play));
        assert_eq!(parse_any(r#"{"type":"speed","value":0.5}"#), Ok(Command::Speed(0.5)));
        let particle = parse_any(r#"{"type":"drag_particle","set":1,"particle":40}"#);
        assert_eq!(particle, Ok(Command::DragParticle { set: 1, particle: 40 }));
        assert_eq!(parse_any(r#"{"type":"load_sample","name":"pyramid"}"#), Ok(Command::LoadSample("pyramid".into())));
        let shoot = parse_any(r#"{"type":"shoot","origin":[0,1,2],"direction":[0,0,-2]}"#);
        assert_eq!(
            shoot,
            Ok(Command::Shoot { origin: Vec3::new(0.0, 1.0, 2.0), direction: Vec3::new(0.0, 0.0, -1.0) })
        );
    }

    /// `drive` carries the engine's desired velocity and an optional jump speed; unknown fields
    /// are refused by name.
    #[test]
    fn drive_parses_with_and_without_a_jump() {
        assert_eq!(
            parse_any(r#"{"type":"drive","character":0,"velocity":[4,0,0]}"#),
            Ok(Command::Drive { character: 0, velocity: Vec3::new(4.0, 0.0, 0.0), jump_speed: 0.0 })
        );
        assert_eq!(
            parse_any(r#"{"type":"drive","character":2,"velocity":[0,0,-1],"jump_speed":5}"#),
            Ok(Command::Drive { character: 2, velocity: Vec3::new(0.0, 0.0, -1.0), jump_speed: 5.0 })
        );
        let error = parse_any(r#"{"type":"drive","character":0,"velocity":[0,0,0],"jump":true}"#).unwrap_err();
        assert!(error.starts_with("drive.jump: unknown field `jump`"), "{error}");
    }

    #[test]
    fn settings_take_any_subset() {
        let command = parse_any(r#"{"type":"settings","solver":{"mode":"pgs","warm_start":false}}"#).unwrap();
        let Command::Settings(changes) = command else { panic!("not settings: {command:?}") };
        let settings = fulcrum::json::patch(&WorldSettings::default(), &changes).unwrap();
        assert_eq!(settings.solver.mode, fulcrum::SolverMode::Pgs);
        assert!(!settings.solver.warm_start);
        assert_eq!(settings.gravity, WorldSettings::default().gravity);
    }

    #[test]
    fn errors_name_the_field() {
        let error = |text: &str| parse_any(text).unwrap_err();
        assert!(error("{").starts_with("malformed JSON"), "{}", error("{"));
        assert!(error("[1]").starts_with("malformed message"));
        assert!(error(r#"{"kind":"play"}"#).starts_with("type: missing"));
        assert!(error(r#"{"type":"fly"}"#).starts_with("type: unknown message type \"fly\""));
        assert!(error(r#"{"type":"play","now":true}"#).starts_with("play.now: unknown field `now`"));
        assert!(error(r#"{"type":"speed","value":9}"#).starts_with("speed.value: must be between"));
        assert!(error(r#"{"type":"speed"}"#).starts_with("speed: missing field `value`"));
        assert!(error(r#"{"type":"drag_start","body":1,"point":[0,"a",0]}"#)
            .starts_with("drag_start.point[1]: invalid type"));
        assert!(error(r#"{"type":"drag_move","target":[0,1e300,0]}"#).starts_with("drag_move.target: must be finite"));
        assert!(error(r#"{"type":"shoot","origin":[0,0,0],"direction":[0,0,0]}"#).starts_with("shoot.direction"));
        assert!(error(r#"{"type":"load_sample","name":"nope"}"#).starts_with("load_sample.name: no sample"));
        let bad_mode = error(r#"{"type":"settings","solver":{"mode":"fast"}}"#);
        assert!(bad_mode.starts_with("settings.solver.mode: unknown variant `fast`"), "{bad_mode}");
        let unknown = error(r#"{"type":"settings","solver":{"speed":1}}"#);
        assert!(unknown.starts_with("settings.solver.speed: unknown field"), "{unknown}");
        let typo = error(r#"{"type":"settings","solver":{"warm_strat":false}}"#);
        assert!(typo.contains("did you mean `warm_start`"), "{typo}");
        let read_only = error(r#"{"type":"settings","timestep":0.01}"#);
        assert!(read_only.starts_with("settings.timestep: is the scene's and read-only"), "{read_only}");
    }

    #[test]
    fn sizes_are_limited() {
        let padding = " ".repeat(MAX_COMMAND_BYTES);
        let big_play = format!(r#"{{"type":"play"{padding}}}"#);
        assert!(parse_any(&big_play).unwrap_err().starts_with("play: message too large"));
        let scene = format!(r#"{{"type":"load_scene","json":"{{}}"{padding}}}"#);
        assert!(matches!(parse_any(&scene), Ok(Command::LoadScene { .. })));
        let huge = format!(r#"{{"type":"load_scene","json":"{}"}}"#, "x".repeat(MAX_TEXT_BYTES));
        assert!(parse_any(&huge).unwrap_err().starts_with("message too large"));
    }
}
