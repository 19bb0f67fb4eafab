//! The `fulcrum` binary end to end: the trajectory format of a free fall and of joints, every
//! sample through list / check / run / export, and exit codes and one-line messages for bad
//! input.

use std::path::PathBuf;
use std::process::{Command, Output};

use fulcrum::scene::{TrajectoryFrame, TrajectoryHeader};
use fulcrum::Scene;
use serde_json::Value;

const SAMPLES: [&str; 27] = [
    "pyramid",
    "vertical_stack",
    "box_on_pole",
    "slope",
    "bouncing_balls",
    "heavy_on_light",
    "tumbling_box",
    "rope_bridge",
    "newtons_cradle",
    "swinging_rope",
    "door_hinge",
    "pistol_slide",
    "roller_coaster",
    "block_and_tackle",
    "weld_cantilever",
    "gear_pair",
    "heavy_chain",
    "ragdoll_pile",
    "terrain_pile",
    "ramp_and_bowl",
    "mesh_level",
    "terrain_car",
    "character_playground",
    "flag_on_pole",
    "cloth_drop",
    "crate_on_rope",
    "plank_bridge",
];

/// Is this failure the engine refusing a joint kind it does not simulate yet (on a branch where
/// not every kind is merged)? The message must still name the joint.
fn unsupported_joint(output: &Output) -> bool {
    let err = stderr(output);
    output.status.code() == Some(1) && err.contains(": joints[") && err.contains("not supported yet")
}

fn fulcrum(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fulcrum")).args(args).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A file in this test binary's scratch directory, named after the test.
fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Asserts a failure with exit `code` and exactly one stderr line containing every `part`.
fn assert_fails(output: &Output, code: i32, parts: &[&str]) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for part in parts {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
}

const FREE_FALL: &str = r#"{"format": 1, "settings": {"timestep": 0.01, "substeps": 2},
  "bodies": [{"name": "ground", "kind": "static"},
             {"name": "ball", "position": [0, 20, 0], "linear_velocity": [1, 0, 0],
              "colliders": [{"shape": {"type": "sphere", "radius": 0.25}}]}]}"#;

/// `run --steps 30 --every 7`: header + steps 0, 7, 14, 21, 28. Values parse back to exactly
/// the library's f32 state after the same steps, and follow the substep recurrence of free fall
/// (h = dt/2, k substeps: y = y0 + h² g k(k+1)/2) within k · 6e-7 m of f32 rounding.
#[test]
fn run_writes_the_trajectory_format() {
    let scene_path = scratch("free_fall.json");
    let out_path = scratch("free_fall.jsonl");
    std::fs::write(&scene_path, FREE_FALL).unwrap();
    let output = fulcrum(&[
        "run",
        scene_path.to_str().unwrap(),
        "--steps",
        "30",
        "--every",
        "7",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("30 steps") && stdout(&output).contains("(6 lines)"), "{}", stdout(&output));
    let text = std::fs::read_to_string(&out_path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);

    let header: Value = serde_json::from_str(lines[0]).unwrap();
    let keys: Vec<&String> = header.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["format", "timestep", "substeps", "bodies", "joints"], "the contract's order");
    assert_eq!(header["format"], 1);
    assert_eq!(header["timestep"].as_f64().unwrap() as f32, 0.01f32);
    assert_eq!(header["substeps"], 2);
    assert_eq!(header["bodies"], serde_json::json!(["ground", "ball"]));
    assert_eq!(header["joints"], serde_json::json!([]));
    assert!(lines[0].contains("\"timestep\":0.01,"), "f32 written with its shortest digits: {}", lines[0]);

    let (mut world, index) = Scene::from_json_str(FREE_FALL, "f").unwrap().build().unwrap();
    assert_eq!(serde_json::from_str::<TrajectoryHeader>(lines[0]).unwrap(), TrajectoryHeader::new(&world, &index));
    let h = 0.005f64;
    for (line, step) in lines[1..].iter().zip([0u64, 7, 14, 21, 28]) {
        let raw: Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&String> = raw.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["step", "time", "bodies", "joints", "contacts"]);
        let body_keys: Vec<&String> = raw["bodies"][0].as_object().unwrap().keys().collect();
        assert_eq!(body_keys, ["name", "p", "q", "v", "w", "sleeping"]);
        let frame: TrajectoryFrame = serde_json::from_str(line).unwrap();
        while world.step_count() < step {
            world.step(0.01).unwrap();
        }
        assert_eq!(frame, TrajectoryFrame::capture(&world, &index), "step {step}: values round-trip exactly");
        assert_eq!(frame.bodies.len(), 1, "only non-static bodies");
        let k = (2 * step) as f64;
        let y = 20.0 + h * h * (-9.81f32 as f64) * k * (k + 1.0) / 2.0;
        let ball = &frame.bodies[0];
        assert!((ball.p[1] as f64 - y).abs() < (k + 1.0) * 6e-7, "step {step}: {} vs {y}", ball.p[1]);
        assert!((ball.p[0] as f64 - k * h).abs() < (k + 1.0) * 6e-7);
        assert_eq!((frame.contacts, frame.joints.len(), ball.sleeping), (0, 0, false));
    }
}

/// Every sample is listed, checked, run and exported; a sample using a joint kind the engine
/// does not simulate yet must fail `check` and `run` naming that joint (and is listed).
/// A 2 kg ball hanging at rest from a ball joint, and a weld that breaks at once: `check`
/// counts the joints, `run --trajectory` lists them in the header and writes each one's force
/// (the ball's weight, upwards), torque and broken flag on every line.
#[test]
fn run_writes_joint_lines() {
    let scene = scratch("hanging.json");
    std::fs::write(
        &scene,
        r#"{"format": 1, "settings": {"sleep": false},
          "bodies": [{"name": "bob", "position": [0, 0.5, 0], "mass": 2, "colliders": [{"shape": {"type": "sphere", "radius": 0.1}}]},
                     {"name": "box", "position": [3, 0.5, 0], "mass": 2, "colliders": [{"shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}}]}],
          "joints": [{"name": "string", "kind": "ball", "body_b": "bob", "anchor": [0, 1, 0]},
                     {"name": "glue", "kind": "weld", "body_b": "box", "anchor": [3, 0.6, 0], "break_force": 5}]}"#,
    )
    .unwrap();
    let check = fulcrum(&["check", scene.to_str().unwrap()]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(stdout(&check).contains("2 joints (1 ball, 1 weld)"), "{}", stdout(&check));
    let out = scratch("hanging.jsonl");
    let run = fulcrum(&[
        "run",
        scene.to_str().unwrap(),
        "--steps",
        "30",
        "--every",
        "10",
        "--trajectory",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines.len(), 5, "header + steps 0, 10, 20, 30");
    assert_eq!(lines[0]["joints"], serde_json::json!(["string", "glue"]));
    for line in &lines[1..] {
        let joints = line["joints"].as_array().unwrap();
        assert_eq!(joints.len(), 2);
        let keys: Vec<&String> = joints[0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "force", "torque", "broken"]);
        assert_eq!((joints[0]["name"].as_str(), joints[1]["name"].as_str()), (Some("string"), Some("glue")));
    }
    assert_eq!(lines[1]["joints"][1]["broken"], false, "step 0: nothing has broken");
    let last = &lines[4]["joints"];
    let lift = last[0]["force"][1].as_f64().unwrap();
    eprintln!("hanging ball: joint force {} N (m·g = 19.62 N)", last[0]["force"]);
    assert!((lift - 19.62).abs() < 0.005 * 19.62, "{lift}");
    assert_eq!((last[0]["broken"].as_bool(), last[1]["broken"].as_bool()), (Some(false), Some(true)));
}

#[test]
fn every_sample_is_listed_checked_run_and_exported() {
    let listed = stdout(&fulcrum(&["list"]));
    let mut unsupported = Vec::new();
    for name in SAMPLES {
        assert!(listed.lines().any(|line| line.starts_with(name)), "{name} not listed: {listed}");
        let exported = scratch(&format!("{name}.json"));
        let export = fulcrum(&["export", name, "--out", exported.to_str().unwrap()]);
        assert!(export.status.success(), "{name}: {}", stderr(&export));
        let shipped =
            std::fs::read_to_string(format!("{}/../../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert_eq!(std::fs::read_to_string(&exported).unwrap(), shipped);
        let check = fulcrum(&["check", name]);
        let out = scratch(&format!("{name}.jsonl"));
        let run = fulcrum(&["run", name, "--steps", "3", "--out", out.to_str().unwrap()]);
        if unsupported_joint(&check) {
            assert!(unsupported_joint(&run), "{name}: {}", stderr(&run));
            assert!(unsupported_joint(&fulcrum(&["check", exported.to_str().unwrap()])));
            unsupported.push(format!("{name}: {}", stderr(&check).trim()));
            continue;
        }
        assert!(check.status.success(), "{name}: {}", stderr(&check));
        assert!(stdout(&check).starts_with(&format!("{name} (built-in sample): ok")), "{}", stdout(&check));
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 5, "header + steps 0..=3");
        assert!(fulcrum(&["check", exported.to_str().unwrap()]).status.success());
    }
    eprintln!("samples whose joints are not simulated on this branch ({}):", unsupported.len());
    for line in &unsupported {
        eprintln!("  {line}");
    }
    let to_stdout = fulcrum(&["export", "slope"]);
    assert!(Scene::from_json_str(&stdout(&to_stdout), "stdout").is_ok());
}

/// `fulcrum list` says what each sample shows, one line each, without pointing at the files
/// the samples were drawn from.
#[test]
fn list_describes_each_sample_in_its_own_words() {
    let listed = stdout(&fulcrum(&["list"]));
    assert_eq!(listed.lines().count(), SAMPLES.len(), "{listed}");
    for line in listed.lines() {
        let description = line.split_once("  ").map_or("", |(_, rest)| rest.trim());
        assert!(description.len() > 20, "a sentence expected: {line}");
        for source_reference in ["shared/", ".txt", "seed"] {
            assert!(!line.contains(source_reference), "{source_reference:?} in: {line}");
        }
    }
}

/// `bench --json` prints one SCENES.md line per scene with every key; the figures are not
/// asserted (timing is never a test), only their presence and the scene's body count.
#[test]
fn bench_writes_scenes_md_json_lines() {
    let output = fulcrum(&["bench", "--scene", "pyramid3d", "--steps", "3", "--repeats", "1", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = stdout(&output);
    let line: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(line["scene"], "pyramid3d");
    assert_eq!(line["engine"], "fulcrum");
    assert_eq!(line["bodies"], 385);
    assert_eq!(line["steps"], 3);
    for key in ["joints", "threads", "ms_per_step_median", "ms_per_step_min", "peak_rss_bytes", "quality"] {
        assert!(line.get(key).is_some(), "missing {key}");
    }
    assert!(line["quality"]["top_drop_m"].is_number());
    assert_fails(&fulcrum(&["bench", "--scene", "nowhere"]), 1, &["nowhere"]);
}

/// Asserts a bad command line: exit code 2, one line containing every `part`, and one hint
/// (clap's tips, its "For more information" line and its `-- VALUE` advice are not shown).
fn assert_usage_error(args: &[&str], parts: &[&str]) {
    let output = fulcrum(args);
    assert_fails(&output, 2, parts);
    let err = stderr(&output);
    assert!(err.starts_with("error: "), "{err}");
    let hints = err.matches("--help").count() + err.matches("did you mean").count();
    assert_eq!(hints, 1, "one hint expected: {err}");
    for noise in ["tip:", "For more information", "Usage:", "-- -"] {
        assert!(!err.contains(noise), "{noise:?} in: {err}");
    }
}

#[test]
fn bad_command_lines_exit_2_with_one_line() {
    let steps_range = "expected a whole number from 1 to 4294967295";
    assert_usage_error(&["run", "pyramid", "--steps", "abc"], &["'abc'", "--steps", steps_range, "fulcrum run --help"]);
    assert_usage_error(&["run", "pyramid", "--steps", "-5"], &["'-5'", "--steps", steps_range]);
    assert_usage_error(&["run", "pyramid", "--steps", "0"], &["'0'", "--steps", steps_range]);
    assert_usage_error(&["run", "pyramid", "--steps=4294967296"], &["'4294967296'", "--steps", steps_range]);
    assert_usage_error(&["run", "pyramid", "--every", "0"], &["'0'", "--every", steps_range]);
    assert_usage_error(&["run", "pyramid", "--steps"], &["--steps", "needs a value"]);
    assert_usage_error(&["run", "pyramid", "--bogus"], &["unknown option '--bogus'", "fulcrum run --help"]);
    assert_usage_error(&["run", "pyramid", "--stpes", "5"], &["unknown option '--stpes'", "did you mean '--steps'?"]);
    assert_usage_error(&["run", "pyramid", "--steps", "5", "--steps", "6"], &["--steps", "more than once"]);
    assert_usage_error(&["view", "--port", "70000"], &["'70000'", "--port", "from 0 to 65535"]);
    assert_usage_error(&["bench", "--repeats", "-1"], &["'-1'", "--repeats", "from 1 to"]);
    assert_usage_error(&[], &["no command given", "run, check, export, list, bench or view"]);
    assert_usage_error(&["frobnicate"], &["unknown command 'frobnicate'"]);
    assert_usage_error(&["chek", "pyramid"], &["unknown command 'chek'", "did you mean 'check'?"]);
    assert_usage_error(&["check"], &["missing <SCENE>", "fulcrum check --help"]);
    assert_usage_error(&["list", "extra"], &["unexpected argument 'extra'"]);
    assert!(fulcrum(&["--help"]).status.success());
    assert!(fulcrum(&["run", "--help"]).status.success());
}

#[test]
fn missing_and_invalid_scenes_exit_1_naming_the_problem() {
    assert_fails(&fulcrum(&["run", "no_such_scene.json"]), 1, &["no_such_scene.json", "no such file", "pyramid"]);
    let bad = scratch("bad_radius.json");
    std::fs::write(
        &bad,
        r#"{"format": 1, "bodies": [{"name": "b", "colliders": [{"shape": {"type": "sphere", "radius": -1}}]}]}"#,
    )
    .unwrap();
    let path = bad.to_str().unwrap();
    for command in ["run", "check"] {
        let expected = format!("{path}: bodies[0].colliders[0].shape.radius: must be greater than zero");
        assert_fails(&fulcrum(&[command, path]), 1, &[&expected]);
    }
    let garbage = scratch("garbage.json");
    std::fs::write(&garbage, "not json").unwrap();
    assert_fails(&fulcrum(&["check", garbage.to_str().unwrap()]), 1, &["garbage.json", "invalid JSON"]);
    let joints = scratch("joints.json");
    std::fs::write(
        &joints,
        r#"{"format": 1, "bodies": [{"name": "a"}], "joints": [{"kind": "ball", "body_b": "b", "anchor": [0, 0, 0]}]}"#,
    )
    .unwrap();
    for command in ["run", "check"] {
        assert_fails(
            &fulcrum(&[command, joints.to_str().unwrap()]),
            1,
            &["joints.json: joints[0].body_b: unknown body \"b\""],
        );
    }
    assert_fails(&fulcrum(&["check", env!("CARGO_TARGET_TMPDIR")]), 1, &["cannot read the file"]);
}

#[test]
fn unwritable_outputs_exit_1_before_simulating() {
    let missing_dir = scratch("no/such/dir/out.jsonl");
    let output = fulcrum(&["run", "pyramid", "--out", missing_dir.to_str().unwrap()]);
    assert_fails(&output, 1, &["out.jsonl", "cannot write the file"]);
    assert!(stdout(&output).is_empty(), "nothing simulated: {}", stdout(&output));
    let export = fulcrum(&["export", "pyramid", "--out", missing_dir.to_str().unwrap()]);
    assert_fails(&export, 1, &["cannot write the file"]);
    assert_fails(&fulcrum(&["export", "nonesuch"]), 1, &["nonesuch", "no built-in sample"]);
}

/// `run --html`: one self-contained page (no external script or style) holding the scene
/// message and every `--every`-th frame, named after the scene file; an unwritable path fails
/// before simulating.
#[test]
fn run_writes_a_self_contained_replay_page() {
    let scene_path = scratch("replayed_fall.json");
    let html_path = scratch("replayed_fall.html");
    std::fs::write(&scene_path, FREE_FALL).unwrap();
    let output = fulcrum(&[
        "run",
        scene_path.to_str().unwrap(),
        "--steps",
        "40",
        "--every",
        "4",
        "--html",
        html_path.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("replay: "), "{}", stdout(&output));
    assert!(stdout(&output).contains("(11 frames, every 4 steps"), "{}", stdout(&output));
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(!html.contains(" src=\"") && !html.contains("rel=\"stylesheet\""), "the page must load nothing");
    let start = html.find("id=\"fulcrum-replay\">").unwrap() + "id=\"fulcrum-replay\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let recording: Value = serde_json::from_str(&html[start..end]).unwrap();
    assert_eq!(recording["name"], "replayed_fall");
    assert_eq!(recording["frame_count"], 11);
    assert_eq!(recording["stride"], 4);
    assert_eq!(recording["scene"]["bodies"][1]["name"], "ball");
    assert_eq!(recording["scene"]["bodies"][1]["colliders"][0]["shape"]["radius"], 0.25);
    // 11 frames of 2 bodies, no contacts in free fall: (52 + 2·32) bytes each, base64.
    assert_eq!(recording["frames"].as_str().unwrap().len(), (11 * 116usize).div_ceil(3) * 4);

    let output = fulcrum(&["run", "pyramid", "--html", "/nonexistent-dir/replay.html"]);
    assert_fails(&output, 1, &["/nonexistent-dir/replay.html", "cannot write the file"]);
}

/// A long run of a big sample: the replay page's frames, as embedded (base64), stay within the
/// 4 MiB the README promises, thinned evenly over the whole run (between half the budget and
/// the budget, by halving).
#[test]
fn long_replays_keep_their_frames_within_4_mib() {
    const BUDGET: usize = 4 << 20;
    let html_path = scratch("ragdoll_pile_long.html");
    let output = fulcrum(&["run", "ragdoll_pile", "--steps", "2000", "--html", html_path.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(&html_path).unwrap();
    let start = html.find("id=\"fulcrum-replay\">").unwrap() + "id=\"fulcrum-replay\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let recording: Value = serde_json::from_str(&html[start..end]).unwrap();
    let frames = recording["frames"].as_str().unwrap().len();
    let (count, stride) = (recording["frame_count"].as_u64().unwrap(), recording["stride"].as_u64().unwrap());
    eprintln!("ragdoll_pile, 2000 steps: {count} frames every {stride} steps, {frames} base64 bytes");
    assert!(frames <= BUDGET, "{frames} bytes of frames");
    assert!(frames > BUDGET / 2, "thinned too far: {frames} bytes");
    assert!(stride > 1 && (count - 1) * stride <= 2000 && count * stride > 2000, "{count} frames every {stride}");
}

/// Ends the child process when dropped (also when an assertion fails).
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn view_prints_its_address_and_serves_the_page() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;

    let child = Command::new(env!("CARGO_BIN_EXE_fulcrum"))
        .args(["view", "pyramid", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut running = Running(child);
    let mut line = String::new();
    BufReader::new(running.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|word| word.starts_with("http://")).unwrap_or_else(|| panic!("{line}"));
    let address = url.trim_start_matches("http://").trim_end_matches('/');
    assert!(address.starts_with("127.0.0.1:"), "loopback by default: {line}");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "GET / HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.to_ascii_lowercase().contains("content-type: text/html"), "{response}");
}

#[test]
fn view_refuses_an_unknown_scene_with_one_line() {
    let output = fulcrum(&["view", "no_such_scene", "--port", "0"]);
    assert_fails(&output, 1, &["no_such_scene", "pyramid", "large_pyramid"]);
}

/// The trajectory lines of a run, as text.
fn lines_of(path: &PathBuf) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn a_run_resumed_from_its_snapshot_writes_the_lines_of_a_run_that_never_stopped() {
    // A scene with joints, contacts and sleep, and one with a character and a rope.
    for sample in ["ragdoll_pile", "character_playground", "crate_on_rope"] {
        let (full, resumed, snapshot) = (
            scratch(&format!("{sample}_full.jsonl")),
            scratch(&format!("{sample}_resumed.jsonl")),
            scratch(&format!("{sample}.snapshot")),
        );
        let path = |p: &PathBuf| p.to_str().unwrap().to_string();
        let straight = fulcrum(&[
            "run",
            sample,
            "--steps",
            "300",
            "--out",
            &path(&full),
            "--snapshot-at",
            "150",
            "--snapshot-out",
            &path(&snapshot),
        ]);
        assert!(straight.status.success(), "{}", stderr(&straight));
        assert!(stdout(&straight).contains("snapshot:"), "{}", stdout(&straight));
        let more = fulcrum(&["run", "--resume", &path(&snapshot), "--steps", "150", "--out", &path(&resumed)]);
        assert!(more.status.success(), "{}", stderr(&more));
        let (full, resumed) = (lines_of(&full), lines_of(&resumed));
        // Header and step 0 + 300 frames; header, step 150 and 150 frames.
        assert_eq!((full.len(), resumed.len()), (302, 152), "{sample}");
        assert_eq!(resumed[0], full[0], "{sample}: header");
        assert!(resumed[1..] == full[151..], "{sample}: the resumed frames differ from steps 150..=300");
    }
}

#[test]
fn bad_snapshot_files_and_flags_exit_with_one_line() {
    let snapshot = scratch("pyramid.snapshot");
    let name = snapshot.to_str().unwrap();
    let written = fulcrum(&["run", "pyramid", "--steps", "10", "--snapshot-at", "10", "--snapshot-out", name]);
    assert!(written.status.success(), "{}", stderr(&written));
    let bytes = std::fs::read(&snapshot).unwrap();
    let truncated = scratch("truncated.snapshot");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    assert_fails(&fulcrum(&["run", "--resume", truncated.to_str().unwrap()]), 1, &["truncated"]);
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 0x10;
    std::fs::write(&truncated, &flipped).unwrap();
    assert_fails(&fulcrum(&["run", "--resume", truncated.to_str().unwrap()]), 1, &["checksum"]);
    assert_fails(&fulcrum(&["run", "--resume", "Cargo.toml"]), 1, &["not a `fulcrum run` snapshot"]);
    assert_fails(
        &fulcrum(&["run", "pyramid", "--steps", "10", "--snapshot-at", "11", "--snapshot-out", name]),
        1,
        &["--snapshot-at 11", "step 0 to step 10"],
    );
    assert_usage_error(&["run", "pyramid", "--snapshot-at", "3"], &["--snapshot-out"]);
    assert_usage_error(&["run", "pyramid", "--resume", name], &["--resume"]);
}
