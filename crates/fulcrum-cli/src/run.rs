//! `fulcrum run SCENE [--steps N] [--every K] [--out FILE.jsonl] [--html FILE.html]`: simulates
//! a scene headless at its own timestep, writes the trajectory (header, step 0, then every K-th
//! step, with every non-static body and every joint; format in shared/docs/scene-format.md;
//! `--trajectory` is another name for `--out`) and/or a self-contained HTML page that replays
//! the run in a browser (the testbed page with three.js inlined, frames every K-th step, thinned
//! evenly to at most 4 MiB of base64; see `fulcrum_view::replay`), and prints a summary.
//!
//! `--snapshot-at N --snapshot-out FILE` also writes the world after step N (see
//! `run_snapshot.rs`); `fulcrum run --resume FILE --steps M` goes on from such a file for M more
//! steps, numbering steps on from it, so its trajectory lines are those of a run that never
//! stopped.

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
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub scene: Option<String>,
    /// Go on from a snapshot file written by `--snapshot-out` instead of a scene.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
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
    /// Write a snapshot after this step (counted from the scene's start, also when resuming).
    #[arg(long, value_name = "N", requires = "snapshot_out", value_parser = count(0..=u64::MAX))]
    pub snapshot_at: Option<u64>,
    /// Where `--snapshot-at` writes the snapshot.
    #[arg(long, value_name = "FILE", requires = "snapshot_at")]
    pub snapshot_out: Option<PathBuf>,
    /// Worker threads stepping the world (at least 1; the trajectory is the same for every
    /// count).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    pub threads: u32,
}

/// Builds the scene, steps it, writes the trajectory and prints the summary.
pub fn run(args: &RunArgs) -> Result<(), String> {
    let (mut world, index, source) = start(args)?;
    world.set_threads(args.threads as usize).map_err(|e| e.to_string())?;
    let first = world.step_count();
    let snapshot = args.snapshot_at.zip(args.snapshot_out.as_deref());
    if let Some((at, _)) = snapshot {
        let last = first + u64::from(args.steps);
        if !(first..=last).contains(&at) {
            return Err(format!("--snapshot-at {at}: this run goes from step {first} to step {last}"));
        }
    }
    let mut snapshot_line = None;
    let mut write_snapshot_if_due = |world: &World| -> Result<(), String> {
        match snapshot {
            Some((at, path)) if world.step_count() == at => {
                crate::run_snapshot::write(path, world, &index)?;
                snapshot_line = Some(format!("  snapshot: {} (after step {at})\n", path.display()));
                Ok(())
            }
            _ => Ok(()),
        }
    };
    write_snapshot_if_due(&world)?;
    // Open the output before simulating, so that an unwritable path fails at once.
    let mut trajectory = args.out.as_deref().map(Trajectory::create).transpose()?;
    let mut replay = args
        .html
        .as_deref()
        .map(|path| Replay::create(path, &world, &index, &source.argument, args.every.into()))
        .transpose()?;
    if let Some(out) = &mut trajectory {
        out.write_line(TrajectoryHeader::new(&world, &index).to_json_line())?;
        out.write_frame(&world, &index)?;
    }
    let dt = world.settings().timestep;
    let mut stepping = Duration::ZERO;
    for _ in 0..args.steps {
        let start = Instant::now();
        world.step(dt).map_err(|e| format!("step {}: {e}", world.step_count() + 1))?;
        stepping += start.elapsed();
        write_snapshot_if_due(&world)?;
        if let Some(replay) = &mut replay {
            replay.recorder.record(&world);
        }
        if world.step_count() % u64::from(args.every) == 0 {
            if let Some(out) = &mut trajectory {
                out.write_frame(&world, &index)?;
            }
        }
    }
    let written = trajectory.map(Trajectory::finish).transpose()?;
    let replay = replay.map(Replay::finish).transpose()?;
    let mut text = summary(&source.name, &world, args.steps, stepping, written);
    text.extend(snapshot_line);
    text.extend(replay);
    crate::print_out(&text)
}

/// Where a run starts from: what the command line named, and the name its summary shows.
struct Source {
    argument: String,
    name: String,
}

/// The world, its names and its source: the scene built, or the snapshot file read.
fn start(args: &RunArgs) -> Result<(World, SceneIndex, Source), String> {
    if let Some(path) = &args.resume {
        let (world, index) = crate::run_snapshot::read(path)?;
        let argument = path.display().to_string();
        let name = format!("{argument} (resumed at step {})", world.step_count());
        return Ok((world, index, Source { argument, name }));
    }
    let argument = args.scene.clone().expect("clap requires SCENE without --resume");
    let scene = crate::samples::resolve(&argument)?;
    let (world, index) = scene.build().map_err(|e| e.to_string())?;
    Ok((world, index, Source { argument, name: scene.source_name().to_string() }))
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
