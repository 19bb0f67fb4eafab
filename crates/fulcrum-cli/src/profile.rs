//! `fulcrum bench --profile`: the mean milliseconds per step of every stage of the step
//! (`StepTimings`) for each scene, the serial fraction (the time outside the loops that are
//! split among the worker threads, over the whole step) and what Amdahl's law predicts from
//! it for more threads:
//!
//! ```text
//! speed-up(n) = 1 / (s + (1 − s) / n)      s = serial fraction measured with one thread
//! ```

use fulcrum::world::StepTimings;
use fulcrum_bench::fulcrum_engine::FulcrumEngine;
use fulcrum_bench::harness::BenchEngine;
use fulcrum_bench::scenes::SceneDesc;

/// Thread counts the prediction is printed for.
const PREDICTED_THREADS: [f64; 4] = [2.0, 4.0, 8.0, 16.0];

/// Sum of the stage timings over the steps of one run.
#[derive(Default)]
struct StageSums {
    steps: u32,
    stages: [f64; STAGES.len()],
    parallel: f64,
    total: f64,
}

/// Reads one stage's time from `StepTimings`.
type StageTime = fn(&StepTimings) -> f64;

/// The stages in step order, with how each is read.
const STAGES: [(&str, StageTime); 10] = [
    ("broad", |t| t.broad_phase_ms),
    ("narrow", |t| t.narrow_phase_ms),
    ("prepare", |t| t.solve_prepare_ms),
    ("passes", |t| t.solve_passes_ms),
    ("store", |t| t.solve_store_ms),
    ("ccd", |t| t.ccd_ms),
    ("chars", |t| t.characters_ms),
    ("particles", |t| t.particles_ms),
    ("sleep", |t| t.sleep_ms),
    ("parallel", |t| t.parallel_ms),
];

impl StageSums {
    fn add(&mut self, timings: &StepTimings) {
        self.steps += 1;
        for (sum, (_, read)) in self.stages.iter_mut().zip(STAGES) {
            *sum += read(timings);
        }
        self.parallel += timings.parallel_ms;
        self.total += timings.total_ms;
    }

    /// Time outside the parallel loops over the whole step.
    fn serial_fraction(&self) -> f64 {
        (1.0 - self.parallel / self.total).clamp(0.0, 1.0)
    }
}

/// Steps `scene` with `threads` workers and returns its profile as table rows.
pub fn profile_scene(scene: &SceneDesc, steps: usize, threads: usize) -> Result<String, String> {
    let mut engine = FulcrumEngine::build(scene, threads)?;
    let mut sums = StageSums::default();
    for _ in 0..steps {
        engine.step();
        sums.add(engine.world().timings());
    }
    let mean = |sum: f64| sum / sums.steps as f64;
    let mut row = format!("{:<14} {:>3} {:>8.3}", scene.name, threads, mean(sums.total));
    for sum in sums.stages {
        row.push_str(&format!(" {:>9.3}", mean(sum)));
    }
    let serial = sums.serial_fraction();
    row.push_str(&format!(" {serial:>7.3}"));
    for n in PREDICTED_THREADS {
        row.push_str(&format!(" {:>5.2}", 1.0 / (serial + (1.0 - serial) / n)));
    }
    row.push('\n');
    Ok(row)
}

/// The table's header and legend.
pub fn header() -> String {
    let mut line = format!("{:<14} {:>3} {:>8}", "scene", "thr", "total");
    for (name, _) in STAGES {
        line.push_str(&format!(" {name:>9}"));
    }
    line.push_str(&format!(" {:>7}", "serial"));
    for n in PREDICTED_THREADS {
        line.push_str(&format!(" {:>5}", format!("x{n}")));
    }
    line.push('\n');
    line
}

/// What the columns mean.
pub const LEGEND: &str = "mean ms/step per stage (prepare, passes, store and ccd are the solve's parts); \
parallel: time in the loops split among the workers; serial: 1 - parallel/total (meaningful with \
--threads 1); xN: Amdahl's predicted speed-up with N threads from it.\n";
