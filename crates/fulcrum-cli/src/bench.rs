//! `fulcrum bench [--scene NAME]... [--steps N] [--repeats R] [--threads N] [--size B]
//! [--json] [--profile]`: builds the standard scenes of shared/bench/SCENES.md in code, times only the
//! steps, and reports bodies, joints, steps, median and minimum ms/step, peak memory and the
//! quality figure; or, with `--profile`, the time of every stage (`profile.rs`).
//! To set the figures beside rapier3d's in the same run, use the `fulcrum-compare` crate.

use clap::Args;
use fulcrum_bench::cli::BenchOptions;
use fulcrum_bench::fulcrum_engine::FulcrumEngine;
use fulcrum_bench::harness::format_table;
use fulcrum_bench::run_scene;

use crate::usage::count;

/// Options of `fulcrum bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Run only this scene (repeatable): large_pyramid, many_pyramids, joint_grid, balls,
    /// pyramid3d, terrain, terrain_mesh. Default: all.
    #[arg(long = "scene", value_name = "NAME")]
    scenes: Vec<String>,
    /// Steps per run instead of each scene's standard count.
    #[arg(long, value_name = "N", value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    steps: Option<u32>,
    /// Fresh runs per scene; median and minimum are taken over them.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    repeats: u32,
    /// Worker threads stepping each world (the results are the same bits for every count).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    threads: u32,
    /// Scale large_pyramid and many_pyramids to about this many bodies (both when no scene
    /// is named), to see how the cost per body grows.
    #[arg(long, value_name = "B", value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    size: Option<u32>,
    /// One JSON object per scene per line (the SCENES.md format) instead of a table.
    #[arg(long)]
    json: bool,
    /// Mean ms/step of every stage of the step, the serial fraction and the predicted
    /// speed-up with more threads, instead of the timing table (one run per scene).
    #[arg(long, conflicts_with = "json")]
    profile: bool,
}

impl BenchArgs {
    fn options(&self) -> Result<BenchOptions, String> {
        let mut args: Vec<String> = Vec::new();
        for scene in &self.scenes {
            args.extend(["--scene".to_string(), scene.clone()]);
        }
        if let Some(steps) = self.steps {
            args.extend(["--steps".to_string(), steps.to_string()]);
        }
        args.extend(["--repeats".to_string(), self.repeats.to_string()]);
        args.extend(["--threads".to_string(), self.threads.to_string()]);
        if let Some(size) = self.size {
            args.extend(["--size".to_string(), size.to_string()]);
        }
        BenchOptions::parse(args)
    }
}

/// Runs the benchmark and prints the results.
pub fn bench(args: &BenchArgs) -> Result<(), String> {
    let options = args.options()?;
    if args.profile {
        return profile(&options);
    }
    let mut results = Vec::new();
    for scene in options.scene_descs()? {
        match run_scene::<FulcrumEngine>(&scene, options.steps, options.repeats, options.threads) {
            Ok(result) => {
                if args.json {
                    crate::print_out(&format!("{}\n", result.json_line()))?;
                }
                results.push(result);
            }
            Err(reason) => eprintln!("note: skipping {}: {reason}", scene.name),
        }
    }
    if !args.json {
        crate::print_out(&format_table(&results))?;
    }
    Ok(())
}

/// Prints the per-stage profile of every scene (`profile.rs`).
fn profile(options: &BenchOptions) -> Result<(), String> {
    let mut table = crate::profile::header();
    for scene in options.scene_descs()? {
        let steps = options.steps.unwrap_or(scene.steps);
        match crate::profile::profile_scene(&scene, steps, options.threads) {
            Ok(row) => table.push_str(&row),
            Err(reason) => eprintln!("note: skipping {}: {reason}", scene.name),
        }
    }
    table.push_str(crate::profile::LEGEND);
    crate::print_out(&table)
}
