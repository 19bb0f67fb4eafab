//! Size and cost of a world snapshot: builds a bench scene (default `many_pyramids`), steps it
//! (default 100 steps), then takes and restores its snapshot several times and prints the size
//! and the median times: `cargo run --release -p fulcrum-bench --example snapshot_cost -- [NAME]
//! [STEPS] [REPEATS]`. Also checks that the restored world steps on bit-identically.

use std::time::Instant;

use fulcrum::World;
use fulcrum_bench::fulcrum_engine::build_world;
use fulcrum_bench::scenes::build_scene;

/// The median of `samples` milliseconds.
fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Milliseconds `f` takes, and what it returned.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = Instant::now();
    let value = f();
    (start.elapsed().as_secs_f64() * 1e3, value)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "many_pyramids".into());
    let steps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let repeats: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(9).max(1);
    let scene = build_scene(&name).expect("a bench scene");
    let (mut world, _) = build_world(&scene).expect("the scene builds");
    let dt = world.settings().timestep;
    for _ in 0..steps {
        world.step(dt).expect("the step succeeds");
    }
    let (mut take, mut restore) = (Vec::new(), Vec::new());
    let mut bytes = Vec::new();
    for _ in 0..repeats {
        let (ms, snapshot) = timed(|| world.snapshot());
        take.push(ms);
        let (ms, restored) = timed(|| World::restore(&snapshot).expect("the snapshot restores"));
        restore.push(ms);
        drop(restored);
        bytes = snapshot;
    }
    let mut restored = World::restore(&bytes).expect("the snapshot restores");
    world.step(dt).expect("the step succeeds");
    restored.step(dt).expect("the step succeeds");
    let same = world.snapshot() == restored.snapshot();
    println!(
        "{name} after {steps} steps: {} bodies, {} contact pairs; snapshot {} bytes ({:.1} per body); \
         take {:.2} ms, restore {:.2} ms (medians of {repeats}); next step identical: {same}",
        world.body_count(),
        world.pair_count(),
        bytes.len(),
        bytes.len() as f64 / world.body_count() as f64,
        median(take),
        median(restore),
    );
}
