//! `fulcrum run SCENE [--steps N] [--every K] [--out FILE.jsonl] [--html FILE.html]`: simulates
//! a scene headless at its own timestep, writes the trajectory (header, step 0, then every K-th
//! step, with every non-static body and every joint; format in shared/docs/scene-format.md;
//! `--trajectory` is another name for `--out`) and/or a self-contained HTML page that replays
//! the run in a browser (the testbed page with three.js inlined, frames every K-th step, thinned
//! evenly to at most 4 MiB of base64; see `fulcrum_view::replay`), and prints a summary.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use fulcrum::scene::{TrajectoryFrame, TrajectoryHeader};
use fulcrum::{SceneIndex, World};
use fulcrum_view::replay::Recorder;

use crate::usage::count;

/// Arguments of `fulcrum run`.
#[derive(Args)]
pub struct RunArgs {
    /// A scene file, or the name of a built-in sample (see `fulcrum list`).
    pub scene: String,
    /// Number of steps to simulate.
    #[arg(long, value_name = "N", default_value_t = 300, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    pub steps: u32,
    /// Record every K-th step (step 0 is always recorded).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    pub every: u32,
    /// Write the trajectory (JSON lines: bodies and joints) to this file.
    #[arg(long, visible_alias = "trajectory", value_name = "FILE.jsonl")]
    pub out: Option<PathBuf>,
    /// Write a self-contained HTML page that replays the run offline in a browser.
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
    /// Worker threads stepping the world (at least 1; the trajectory is the same for every
    /// count).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    pub threads: u32,
}

/// Builds the scene, steps it, writes the trajectory and prints the summary.
pub fn run(args: &RunArgs) -> Result<(), String> {
    let scene = crate::samples::resolve(&args.scene)?;
    let (mut world, index) = scene.build().map_err(|e| e.to_string())?;
    world.set_threads(args.threads as usize).map_err(|e| e.to_string())?;
    // Open the output before simulating, so that an unwritable path fails at once.
    let mut trajectory = args.out.as_deref().map(Trajectory::create).transpose()?;
    let mut replay = args
        .html
        .as_deref()
        .map(|path| Replay::create(path, &world, &index, &args.scene, args.every.into()))
        .transpose()?;
    if let Some(out) = &mut trajectory {
        out.write_line(TrajectoryHeader::new(&world, &index).to_json_line())?;
        out.write_frame(&world, &index)?;
    }
    let dt = world.settings().timestep;
    let mut stepping = Duration::ZERO;
    for step in 1..=args.steps {
        let start = Instant::now();
        world.step(dt).map_err(|e| format!("step {step}: {e}"))?;
        stepping += start.elapsed();
        if let Some(replay) = &mut replay {
            replay.recorder.record(&world);
        }
        if step % args.every == 0 {
            if let Some(out) = &mut trajectory {
                out.write_frame(&world, &index)?;
            }
        }
    }
    let written = trajectory.map(Trajectory::finish).transpose()?;
    let replay = replay.map(Replay::finish).transpose()?;
    let mut text = summary(scene.source_name(), &world, args.steps, stepping, written);
    if let Some(line) = replay {
        text.push_str(&line);
    }
    crate::print_out(&text)
}

/// A replay page being recorded (the file is created at the start so that an unwritable path
/// fails before simulating).
struct Replay {
    path: PathBuf,
    file: File,
    recorder: Recorder,
}

impl Replay {
    fn create(
        path: &Path,
        world: &World,
        index: &SceneIndex,
        scene_argument: &str,
        every: u64,
    ) -> Result<Replay, String> {
        let file = File::create(path).map_err(|e| format!("{}: cannot write the file: {e}", path.display()))?;
        let recorder = Recorder::new(world, index, &display_name(scene_argument), every);
        Ok(Replay { path: path.to_path_buf(), file, recorder })
    }

    /// Writes the page; returns the summary line.
    fn finish(mut self) -> Result<String, String> {
        let html = self.recorder.to_html();
        self.file
            .write_all(html.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| format!("{}: cannot write the file: {e}", self.path.display()))?;
        let stride = self.recorder.stride();
        Ok(format!(
            "  replay: {} ({} frames, every {stride} step{}, {:.1} MB)\n",
            self.path.display(),
            self.recorder.frame_count(),
            if stride == 1 { "" } else { "s" },
            html.len() as f64 / 1e6,
        ))
    }
}

/// The scene's name on the replay page: a sample's name, or a file's name without extension.
fn display_name(scene_argument: &str) -> String {
    let path = Path::new(scene_argument);
    match path.file_stem() {
        Some(stem) if path.exists() => stem.to_string_lossy().into_owned(),
        _ => scene_argument.to_string(),
    }
}

/// A trajectory file being written.
struct Trajectory {
    path: PathBuf,
    writer: BufWriter<File>,
    lines: u64,
}

impl Trajectory {
    fn create(path: &Path) -> Result<Trajectory, String> {
        let file = File::create(path).map_err(|e| format!("{}: cannot write the file: {e}", path.display()))?;
        Ok(Trajectory { path: path.to_path_buf(), writer: BufWriter::new(file), lines: 0 })
    }

    fn write_line(&mut self, line: fulcrum::Result<String>) -> Result<(), String> {
        let line = line.map_err(|e| e.to_string())?;
        writeln!(self.writer, "{line}").map_err(|e| self.write_error(&e))?;
        self.lines += 1;
        Ok(())
    }

    fn write_frame(&mut self, world: &World, index: &SceneIndex) -> Result<(), String> {
        self.write_line(TrajectoryFrame::capture(world, index).to_json_line())
    }

    /// Flushes; returns the path and the number of lines written.
    fn finish(mut self) -> Result<(PathBuf, u64), String> {
        self.writer.flush().map_err(|e| self.write_error(&e))?;
        Ok((self.path, self.lines))
    }

    fn write_error(&self, error: &std::io::Error) -> String {
        format!("{}: cannot write the file: {error}", self.path.display())
    }
}

/// The run's summary: bodies, steps, simulated and wall time, final contacts, disabled bodies.
fn summary(source: &str, world: &World, steps: u32, stepping: Duration, written: Option<(PathBuf, u64)>) -> String {
    let dt = world.settings().timestep;
    let wall_ms = stepping.as_secs_f64() * 1e3;
    let per_step_ms = wall_ms / f64::from(steps);
    let disabled: Vec<&str> = world.bodies().filter(|(_, b)| !b.is_enabled()).map(|(_, b)| b.name()).collect();
    let disabled =
        if disabled.is_empty() { "none".to_string() } else { format!("{} ({})", disabled.len(), disabled.join(", ")) };
    let mut text = format!(
        "{source}\n  {}\n  {steps} steps of {:.3} ms = {:.3} s simulated\n  \
         wall time {wall_ms:.3} ms stepping, {per_step_ms:.4} ms/step\n  \
         final contacts: {} points; disabled bodies: {disabled}\n",
        crate::check::body_counts(world),
        dt as f64 * 1e3,
        world.time(),
        world.contact_point_count(),
    );
    if let Some((path, lines)) = written {
        text.push_str(&format!("  trajectory: {} ({lines} lines)\n", path.display()));
    }
    text
}
