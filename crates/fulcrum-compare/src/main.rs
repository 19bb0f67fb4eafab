//! `fulcrum-compare`: runs the standard bench scenes of `shared/bench/SCENES.md` on rapier3d
//! and fulcrum in the same process, alternating engines per repeat, and prints both engines'
//! figures and the ratio fulcrum/rapier3d of median ms/step.
//!
//! Usage: `fulcrum-compare [--scene NAME]... [--steps N] [--repeats R] [--json]`.
//! With `--json` each engine's result is one SCENES.md JSON line, followed (when both engines
//! ran) by `{"scene": ..., "ratio_fulcrum_over_rapier3d_median": ...}`.

mod fulcrum_adapter;
mod rapier_adapter;

use fulcrum_bench::cli::{BenchOptions, USAGE};
use fulcrum_bench::harness::format_table;
use fulcrum_bench::{measure_once, summarize, BenchEngine, RepeatSample, SceneDesc, SceneResult};

/// One engine the comparison can run: its name and its single-repeat measurement.
#[derive(Clone, Copy)]
pub struct EngineEntry {
    /// Engine name as printed.
    pub name: &'static str,
    /// Builds the scene, runs the given steps with the given threads, measures once.
    pub measure: fn(&SceneDesc, usize, usize) -> Result<RepeatSample, String>,
}

impl EngineEntry {
    /// The entry of engine `E`.
    pub fn of<E: BenchEngine>() -> Self {
        Self { name: E::name(), measure: measure_once::<E> }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(message) = run(&args) {
        eprintln!("fulcrum-compare: {message}");
        std::process::exit(2);
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let options = BenchOptions::parse(args.iter().cloned())?;
    if options.help {
        println!("usage: fulcrum-compare [options]\n{USAGE}");
        return Ok(());
    }
    if options.threads != 1 {
        return Err("rapier3d is built single-threaded here; compare with --threads 1".into());
    }
    let mut engines = vec![EngineEntry::of::<rapier_adapter::RapierEngine>()];
    match fulcrum_adapter::fulcrum_entry() {
        Some(fulcrum) => engines.push(fulcrum),
        None => eprintln!("note: the fulcrum adapter is not wired yet; running rapier3d alone"),
    }
    let mut all_results = Vec::new();
    for scene in options.scene_descs()? {
        let results = compare_scene(&scene, &engines, &options)?;
        let ratio = median_ratio(&results, "fulcrum", "rapier3d");
        if options.json {
            print_json(&scene, &results, ratio);
        } else {
            eprintln!("done: {}", scene.name);
        }
        all_results.push((results, ratio));
    }
    if !options.json {
        print_tables(&all_results);
    }
    Ok(())
}

/// Runs `options.repeats` rounds on `scene`; round r starts with engine r mod n, so every
/// engine goes first equally often and shares the machine's noise with the others.
fn compare_scene(
    scene: &SceneDesc,
    engines: &[EngineEntry],
    options: &BenchOptions,
) -> Result<Vec<SceneResult>, String> {
    let steps = options.steps.unwrap_or(scene.steps);
    let mut samples: Vec<Vec<RepeatSample>> = vec![Vec::new(); engines.len()];
    let mut failed = vec![false; engines.len()];
    for round in 0..options.repeats {
        for offset in 0..engines.len() {
            let slot = (round + offset) % engines.len();
            if failed[slot] {
                continue;
            }
            match (engines[slot].measure)(scene, steps, options.threads) {
                Ok(sample) => samples[slot].push(sample),
                Err(e) => {
                    // One engine lacking a feature must not hide the other's figures.
                    eprintln!("note: {} cannot run {}: {e}", engines[slot].name, scene.name);
                    failed[slot] = true;
                }
            }
        }
    }
    engines
        .iter()
        .zip(&samples)
        .filter(|(_, runs)| !runs.is_empty())
        .map(|(engine, runs)| summarize(scene, engine.name, steps, options.threads, runs))
        .collect()
}

/// median(numerator) / median(denominator) when both engines ran.
fn median_ratio(results: &[SceneResult], numerator: &str, denominator: &str) -> Option<f64> {
    let median_of = |name: &str| results.iter().find(|r| r.engine == name).map(|r| r.ms_per_step_median);
    Some(median_of(numerator)? / median_of(denominator)?)
}

fn print_json(scene: &SceneDesc, results: &[SceneResult], ratio: Option<f64>) {
    for result in results {
        println!("{}", result.json_line());
    }
    if let Some(ratio) = ratio {
        let line = serde_json::json!({
            "scene": scene.name,
            "ratio_fulcrum_over_rapier3d_median": ratio,
        });
        println!("{line}");
    }
}

fn print_tables(all_results: &[(Vec<SceneResult>, Option<f64>)]) {
    let flat: Vec<SceneResult> = all_results.iter().flat_map(|(r, _)| r.clone()).collect();
    print!("{}", format_table(&flat));
    for (results, ratio) in all_results {
        if let (Some(first), Some(ratio)) = (results.first(), ratio) {
            println!("{:<14} fulcrum/rapier3d median ms/step: {ratio:.2}", first.scene);
        }
    }
}
