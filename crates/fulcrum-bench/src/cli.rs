//! Command-line options shared by `fulcrum bench` and `fulcrum-compare`.

use crate::scenes::{build_scene, sized_scene, SceneDesc, SCENE_NAMES};

/// Usage text of the shared options.
pub const USAGE: &str = "options:
  --scene NAME   run only this scene (repeatable); default: all of large_pyramid,
                 many_pyramids, joint_grid, balls, pyramid3d, terrain, terrain_mesh
  --steps N      steps per run instead of the scene's standard count
  --repeats R    fresh runs per scene and engine (default 3); median and min are over these
  --threads N    worker threads requested from the engine (default 1)
  --size B       scale large_pyramid and many_pyramids to about B bodies (default: both)
  --json         one JSON object per scene and engine per line instead of a table
  --help         this text";

/// Parsed bench options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchOptions {
    /// Scene names to run, in the order given (all seven when none was given).
    pub scenes: Vec<String>,
    /// Steps per run overriding each scene's own count.
    pub steps: Option<usize>,
    /// Fresh runs per scene and engine (at least 1).
    pub repeats: usize,
    /// Worker threads requested (at least 1); reported as given.
    pub threads: usize,
    /// Scale the scenes to about this many bodies (large_pyramid and many_pyramids only).
    pub size: Option<usize>,
    /// Print JSON lines instead of a table.
    pub json: bool,
    /// `--help` was given.
    pub help: bool,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self { scenes: Vec::new(), steps: None, repeats: 3, threads: 1, size: None, json: false, help: false }
    }
}

impl BenchOptions {
    /// Parses the arguments after the program (or subcommand) name.
    ///
    /// Errors name the offending flag: unknown flags, missing or non-numeric values, zero
    /// steps, repeats or threads, and unknown scene names.
    pub fn parse<I, S>(args: I) -> Result<Self, String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut options = Self::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(flag) = args.next() {
            match flag.as_str() {
                "--scene" => {
                    let name = value_of(&flag, args.next())?;
                    build_scene(&name).map_err(|reason| format!("--scene: {reason}"))?;
                    options.scenes.push(name);
                }
                "--steps" => options.steps = Some(positive(&flag, args.next())?),
                "--repeats" => options.repeats = positive(&flag, args.next())?,
                "--threads" => options.threads = positive(&flag, args.next())?,
                "--size" => options.size = Some(positive(&flag, args.next())?),
                "--json" => options.json = true,
                "--help" | "-h" => options.help = true,
                other => return Err(format!("unknown option `{other}`\n{USAGE}")),
            }
        }
        Ok(options)
    }

    /// The scene descriptions to run, in order.
    /// With `--size`, the scaled scenes (all that can be scaled when none was named).
    pub fn scene_descs(&self) -> Result<Vec<SceneDesc>, String> {
        let build = |name: &str| match self.size {
            Some(bodies) => sized_scene(name, bodies),
            None => build_scene(name),
        };
        match (self.scenes.is_empty(), self.size) {
            (true, Some(_)) => ["large_pyramid", "many_pyramids"].iter().map(|name| build(name)).collect(),
            (true, None) => SCENE_NAMES.iter().map(|name| build(name)).collect(),
            (false, _) => self.scenes.iter().map(|name| build(name)).collect(),
        }
    }
}

fn value_of(flag: &str, value: Option<String>) -> Result<String, String> {
    value.ok_or_else(|| format!("{flag} needs a value"))
}

fn positive(flag: &str, value: Option<String>) -> Result<usize, String> {
    let text = value_of(flag, value)?;
    match text.parse::<usize>() {
        Ok(number) if number > 0 => Ok(number),
        _ => Err(format!("{flag}: expected a whole number >= 1, got `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_flags() {
        let options = BenchOptions::parse([
            "--scene",
            "balls",
            "--scene",
            "joint_grid",
            "--steps",
            "10",
            "--repeats",
            "5",
            "--threads",
            "2",
            "--json",
        ])
        .unwrap();
        assert_eq!(options.scenes, vec!["balls", "joint_grid"]);
        assert_eq!(options.steps, Some(10));
        assert_eq!((options.repeats, options.threads, options.json), (5, 2, true));
        let names: Vec<&str> = options.scene_descs().unwrap().iter().map(|s| s.name).collect();
        assert_eq!(names, vec!["balls", "joint_grid"]);
    }

    #[test]
    fn defaults_and_errors() {
        let options = BenchOptions::parse(Vec::<String>::new()).unwrap();
        assert_eq!(options, BenchOptions::default());
        assert_eq!(options.scene_descs().unwrap().len(), SCENE_NAMES.len());
        assert!(BenchOptions::parse(["--scene", "nope"]).is_err());
        assert!(BenchOptions::parse(["--steps"]).is_err());
        assert!(BenchOptions::parse(["--steps", "0"]).is_err());
        assert!(BenchOptions::parse(["--repeats", "x"]).is_err());
        assert!(BenchOptions::parse(["--fast"]).is_err());
    }
}
