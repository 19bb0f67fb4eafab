//! The engine-agnostic runner: builds a scene on an engine, times only its `step` calls,
//! repeats, and reports median and minimum milliseconds per step, peak memory and quality.

use std::time::{Duration, Instant};

use crate::quality::{BodyPose, Quality, QualityRecorder};
use crate::scenes::SceneDesc;

/// A physics engine driven by the bench.
///
/// An adapter builds its own world from a [`SceneDesc`] (bodies in description order, the
/// scene's collision rule, sleeping disabled, the engine's default solver settings and the
/// scene's `dt`), steps it by `dt`, and hands back every body's pose and linear velocity in
/// description order.
pub trait BenchEngine: Sized {
    /// Engine name as written in the output (e.g. `"fulcrum"`, `"rapier3d"`).
    fn name() -> &'static str;
    /// Builds the world for `scene`, asking for `threads` worker threads (an engine without
    /// threading ignores it). Errors with a message when the scene cannot be built.
    fn build(scene: &SceneDesc, threads: usize) -> Result<Self, String>;
    /// Advances the world by the scene's `dt`. Only these calls are timed.
    fn step(&mut self);
    /// The pose of every body, in description order (static bodies included).
    fn poses(&self) -> Vec<BodyPose>;
    /// The linear velocity of every body's centre of mass in m/s, in description order
    /// (static bodies included).
    fn linear_velocities(&self) -> Vec<[f32; 3]>;
}

/// The figures of one run of one engine on one scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RepeatSample {
    /// Wall time of all `step` calls divided by the step count, in milliseconds.
    pub ms_per_step: f64,
    /// Peak resident memory (VmHWM) in bytes at the end of the run, if readable.
    pub peak_rss_bytes: Option<u64>,
    /// How far `peak_rss_bytes` is specific to this run.
    pub rss_scope: RssScope,
    /// Quality figures of the run (see [`QualityRecorder`]).
    pub quality: Quality,
}

/// What a peak-memory figure covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RssScope {
    /// The peak was reset (`/proc/self/clear_refs` = 5) right before the world was built: it
    /// is the high-water mark of this run, on top of whatever the process already held.
    ThisRun,
    /// The reset was not permitted: the figure is the process-wide peak so far.
    ProcessWide,
    /// No figure (not Linux, or `/proc/self/status` unreadable).
    Unavailable,
}

/// Summary of all repeats of one engine on one scene: one line of the bench output.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneResult {
    /// Scene name.
    pub scene: String,
    /// Engine name.
    pub engine: String,
    /// Bodies as counted by SCENES.md (ground excluded).
    pub bodies: usize,
    /// Joints in the scene description.
    pub joints: usize,
    /// Steps run per repeat.
    pub steps: usize,
    /// Threads as given on the command line.
    pub threads: usize,
    /// Number of repeats.
    pub repeats: usize,
    /// Median over repeats of milliseconds per step.
    pub ms_per_step_median: f64,
    /// Minimum over repeats of milliseconds per step.
    pub ms_per_step_min: f64,
    /// Largest peak resident memory over repeats, in bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Scope of `peak_rss_bytes` (the weakest over repeats).
    pub rss_scope: RssScope,
    /// Quality of the first repeat.
    pub quality: Quality,
    /// Whether every repeat gave bit-identical quality figures (a determinism check).
    pub quality_repeatable: bool,
}

/// Builds `scene` on engine `E`, runs `steps` steps timing only the `step` calls, and
/// measures peak memory and quality (recording poses between the timed steps for scenes
/// whose quality is taken over the run). Errors on `steps == 0`, on a failed build, or when
/// the engine returns the wrong number of poses or velocities.
pub fn measure_once<E: BenchEngine>(scene: &SceneDesc, steps: usize, threads: usize) -> Result<RepeatSample, String> {
    if steps == 0 {
        return Err("steps must be at least 1".to_string());
    }
    let rss_scope = reset_peak_rss();
    let mut engine = E::build(scene, threads)?;
    let mut recorder = QualityRecorder::new(scene);
    let mut stepping = Duration::ZERO;
    for _ in 0..steps {
        let start = Instant::now();
        engine.step();
        stepping += start.elapsed();
        if recorder.wants_every_step() {
            recorder.record_step(&engine.poses())?;
        }
    }
    let peak_rss_bytes = read_peak_rss_bytes();
    let quality = recorder.finish(&engine.poses(), &engine.linear_velocities())?;
    drop(engine);
    Ok(RepeatSample {
        ms_per_step: stepping.as_secs_f64() * 1e3 / steps as f64,
        rss_scope: if peak_rss_bytes.is_some() { rss_scope } else { RssScope::Unavailable },
        peak_rss_bytes,
        quality,
    })
}

/// Runs `repeats` fresh builds of `scene` on engine `E` and summarises them.
/// `steps` overrides the scene's step count when given.
pub fn run_scene<E: BenchEngine>(
    scene: &SceneDesc,
    steps: Option<usize>,
    repeats: usize,
    threads: usize,
) -> Result<SceneResult, String> {
    let steps = steps.unwrap_or(scene.steps);
    let mut samples = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        samples.push(measure_once::<E>(scene, steps, threads)?);
    }
    summarize(scene, E::name(), steps, threads, &samples)
}

/// Median and minimum of the per-repeat ms/step, largest peak memory, first quality.
/// Errors when `samples` is empty.
pub fn summarize(
    scene: &SceneDesc,
    engine: &str,
    steps: usize,
    threads: usize,
    samples: &[RepeatSample],
) -> Result<SceneResult, String> {
    let first = samples.first().ok_or_else(|| "at least one repeat is needed".to_string())?;
    let times: Vec<f64> = samples.iter().map(|s| s.ms_per_step).collect();
    let peak_rss_bytes = samples.iter().filter_map(|s| s.peak_rss_bytes).max();
    let rss_scope = samples
        .iter()
        .map(|s| s.rss_scope)
        .max_by_key(|scope| match scope {
            RssScope::ThisRun => 0,
            RssScope::ProcessWide => 1,
            RssScope::Unavailable => 2,
        })
        .unwrap_or(RssScope::Unavailable);
    Ok(SceneResult {
        scene: scene.name.to_string(),
        engine: engine.to_string(),
        bodies: scene.body_count(),
        joints: scene.joint_count(),
        steps,
        threads,
        repeats: samples.len(),
        ms_per_step_median: median(&times),
        ms_per_step_min: times.iter().copied().fold(f64::INFINITY, f64::min),
        peak_rss_bytes,
        rss_scope,
        quality: first.quality,
        quality_repeatable: samples.iter().all(|s| s.quality.same_bits(&first.quality)),
    })
}

/// Median of `values` (mean of the two middle ones for an even count; NaN when empty).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        0.5 * (sorted[middle - 1] + sorted[middle])
    }
}

/// Resets the kernel's peak-RSS counter to the current RSS by writing "5" to
/// `/proc/self/clear_refs`; reports whether that was permitted.
///
/// Freed heap memory of earlier runs is first handed back to the kernel (glibc keeps it
/// otherwise, and the reset could only lower the peak to that inflated RSS), so the peak of
/// a run is the process baseline (code, a few MiB) plus what the run itself touched.
fn reset_peak_rss() -> RssScope {
    release_free_heap();
    match std::fs::write("/proc/self/clear_refs", "5") {
        Ok(()) => RssScope::ThisRun,
        Err(_) => RssScope::ProcessWide,
    }
}

/// Returns free heap pages to the kernel with glibc's `malloc_trim(0)`; a no-op elsewhere.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_heap() {
    extern "C" {
        fn malloc_trim(pad: usize) -> i32;
    }
    // SAFETY: malloc_trim only walks glibc's own allocator state under its locks; it takes
    // no pointers from us and is safe to call at any time from any thread.
    unsafe {
        malloc_trim(0);
    }
}

/// Returns free heap pages to the kernel with glibc's `malloc_trim(0)`; a no-op elsewhere.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_heap() {}

/// Peak resident set size in bytes from the `VmHWM:` line (kB) of `/proc/self/status`.
pub fn read_peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

/// Parses `VmHWM:   12345 kB` out of a `/proc/<pid>/status` text into bytes.
fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

impl SceneResult {
    /// The result as the JSON object of SCENES.md ("Machine-readable output"); a NaN quality
    /// figure and a missing peak memory are written as `null`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut quality = serde_json::Map::new();
        for (key, value) in self.quality.entries() {
            quality.insert(key.to_string(), serde_json::json!(value));
        }
        serde_json::json!({
            "scene": self.scene,
            "engine": self.engine,
            "bodies": self.bodies,
            "joints": self.joints,
            "steps": self.steps,
            "threads": self.threads,
            "ms_per_step_median": self.ms_per_step_median,
            "ms_per_step_min": self.ms_per_step_min,
            "peak_rss_bytes": self.peak_rss_bytes,
            "quality": quality,
        })
    }

    /// [`Self::to_json`] on one line, keys in the order of SCENES.md (serde_json's map would
    /// sort them alphabetically, so the line is assembled here from serialized values).
    pub fn json_line(&self) -> String {
        let quality: Vec<String> = self
            .quality
            .entries()
            .iter()
            .map(|(key, value)| format!("{}: {}", json_text(key), json_number(*value)))
            .collect();
        let peak = self.peak_rss_bytes.map_or_else(|| "null".to_string(), |bytes| bytes.to_string());
        format!(
            "{{\"scene\": {}, \"engine\": {}, \"bodies\": {}, \"joints\": {}, \"steps\": {}, \
             \"threads\": {}, \"ms_per_step_median\": {}, \"ms_per_step_min\": {}, \
             \"peak_rss_bytes\": {}, \"quality\": {{{}}}}}",
            json_text(&self.scene),
            json_text(&self.engine),
            self.bodies,
            self.joints,
            self.steps,
            self.threads,
            json_number(self.ms_per_step_median),
            json_number(self.ms_per_step_min),
            peak,
            quality.join(", ")
        )
    }
}

/// A string as a JSON string literal.
fn json_text(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A number as JSON (`null` when not finite, as JSON has no NaN or infinity).
fn json_number(value: f64) -> String {
    serde_json::json!(value).to_string()
}

/// A human-readable table of `results`, one row per result, with a legend line.
pub fn format_table(results: &[SceneResult]) -> String {
    let mut table = format!(
        "{:<14} {:<9} {:>6} {:>6} {:>5} {:>3} {:>10} {:>10} {:>10}  quality\n",
        "scene", "engine", "bodies", "joints", "steps", "thr", "median ms", "min ms", "peak MiB"
    );
    for result in results {
        table.push_str(&format_row(result));
        table.push('\n');
    }
    table.push_str(
        "peak MiB: VmHWM after the run; '*' = process-wide peak (reset not permitted). \
         quality '!' = figures differed between repeats.\n",
    );
    table
}

fn format_row(result: &SceneResult) -> String {
    let memory = match (result.peak_rss_bytes, result.rss_scope) {
        (Some(bytes), RssScope::ThisRun) => format!("{:.1}", bytes as f64 / 1048576.0),
        (Some(bytes), _) => format!("{:.1}*", bytes as f64 / 1048576.0),
        (None, _) => "n/a".to_string(),
    };
    let quality: Vec<String> =
        result.quality.entries().iter().map(|(key, value)| format!("{key}={value:.5}")).collect();
    format!(
        "{:<14} {:<9} {:>6} {:>6} {:>5} {:>3} {:>10.3} {:>10.3} {:>10}  {}{}",
        result.scene,
        result.engine,
        result.bodies,
        result.joints,
        result.steps,
        result.threads,
        result.ms_per_step_median,
        result.ms_per_step_min,
        memory,
        quality.join(" "),
        if result.quality_repeatable { "" } else { " !" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::{pyramid3d, BodyDesc, QualityDesc};

    /// A toy engine: dynamic bodies fall freely by symplectic Euler, v += g dt, x += v dt.
    struct FreeFall {
        bodies: Vec<BodyDesc>,
        velocities_y: Vec<f32>,
        positions: Vec<[f32; 3]>,
        gravity_y: f32,
        dt: f32,
    }

    impl BenchEngine for FreeFall {
        fn name() -> &'static str {
            "freefall"
        }
        fn build(scene: &SceneDesc, _threads: usize) -> Result<Self, String> {
            Ok(Self {
                bodies: scene.bodies.clone(),
                velocities_y: vec![0.0; scene.bodies.len()],
                positions: scene.bodies.iter().map(|b| b.position).collect(),
                gravity_y: scene.gravity[1],
                dt: scene.dt,
            })
        }
        fn step(&mut self) {
            for (index, body) in self.bodies.iter().enumerate() {
                if !body.is_static {
                    self.velocities_y[index] += self.gravity_y * self.dt;
                    self.positions[index][1] += self.velocities_y[index] * self.dt;
                }
            }
        }
        fn poses(&self) -> Vec<BodyPose> {
            self.positions.iter().map(|&p| BodyPose::at(p)).collect()
        }
        fn linear_velocities(&self) -> Vec<[f32; 3]> {
            self.velocities_y.iter().map(|&v| [0.0, v, 0.0]).collect()
        }
    }

    #[test]
    fn free_fall_drop_matches_recurrence() {
        // After n steps of symplectic Euler from rest: drop = g dt^2 n (n+1) / 2.
        let scene = pyramid3d();
        let result = run_scene::<FreeFall>(&scene, Some(30), 2, 1).unwrap();
        let dt = f64::from(scene.dt);
        let expected = 9.81 * dt * dt * 30.0 * 31.0 / 2.0;
        let drop = result.quality.top_drop_m.unwrap();
        assert!((drop - expected).abs() < 1e-4, "{drop} vs {expected}");
        assert_eq!(result.quality.top_drift_m, Some(0.0));
        assert!(result.quality_repeatable);
        assert_eq!((result.bodies, result.steps, result.repeats), (385, 30, 2));
        assert!(result.ms_per_step_min <= result.ms_per_step_median);
        assert!(measure_once::<FreeFall>(&scene, 0, 1).is_err());
    }

    #[test]
    fn terrain_figures_of_a_free_fall() {
        // After 90 steps every body has fallen g dt^2 90*91/2 = 11.16 m from y >= 6, so the
        // lowest layer is under the surface (|h| <= 2.5); a free fall only sinks, so the
        // deepest recorded step is the last. Fastest body: g dt 90 = 14.715 m/s.
        let scene = crate::scenes::terrain();
        let result = run_scene::<FreeFall>(&scene, Some(90), 1, 1).unwrap();
        let dt = f64::from(scene.dt);
        let drop = (9.81 * dt * dt * 90.0 * 91.0 / 2.0) as f32;
        let QualityDesc::Terrain { surface } = &scene.quality else { panic!("terrain quality") };
        let deepest = scene.bodies[1..]
            .iter()
            .map(|body| {
                let [x, y, z] = body.position.map(f64::from);
                surface.surface_height(x, z).unwrap() - (y - f64::from(drop))
            })
            .fold(0.0, f64::max);
        let depth = result.quality.max_penetration_m.unwrap();
        assert!(deepest > 3.0 && (depth - deepest).abs() < 1e-5, "{depth} vs {deepest}");
        let speed = result.quality.max_speed_end_mps.unwrap();
        assert!((speed - 9.81 * dt * 90.0).abs() < 1e-4, "{speed}");
        let keys: Vec<&str> = result.quality.entries().iter().map(|(key, _)| *key).collect();
        assert_eq!(keys, ["max_penetration_m", "max_speed_end_mps"]);
    }

    #[test]
    fn json_line_has_the_contract_keys() {
        let result = run_scene::<FreeFall>(&pyramid3d(), Some(1), 1, 1).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&result.json_line()).unwrap();
        let keys: Vec<&str> = parsed.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        for key in [
            "scene",
            "engine",
            "bodies",
            "joints",
            "steps",
            "threads",
            "ms_per_step_median",
            "ms_per_step_min",
            "peak_rss_bytes",
            "quality",
        ] {
            assert!(keys.contains(&key), "missing {key}");
        }
        assert_eq!(keys.len(), 10);
        // serde_json's default float parser may be off by one ulp, so compare with 1e-12.
        let expected = result.to_json();
        for (key, value) in expected.as_object().unwrap() {
            match (value.as_f64(), parsed[key].as_f64()) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{key}"),
                _ if key == "quality" => {}
                _ => assert_eq!(value, &parsed[key], "{key}"),
            }
        }
        let drop = parsed["quality"]["top_drop_m"].as_f64().unwrap();
        assert!((drop - result.quality.top_drop_m.unwrap()).abs() <= 1e-12);
        assert!(result.json_line().starts_with("{\"scene\": \"pyramid3d\", \"engine\""));
        let quality = parsed["quality"].as_object().unwrap();
        assert_eq!(quality.len(), 2);
        assert!(quality.contains_key("top_drop_m") && quality.contains_key("top_drift_m"));
        assert!(format_table(&[result]).contains("pyramid3d"));
    }

    #[test]
    fn median_and_vm_hwm_parsing() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        let status = "Name:\tx\nVmPeak:\t  99 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(1234 * 1024));
        assert_eq!(parse_vm_hwm("VmRSS: 1 kB"), None);
    }
}
