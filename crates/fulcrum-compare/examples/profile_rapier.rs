//! Steps one bench scene on rapier3d for profiling: `profile_rapier NAME [STEPS]`.
#[path = "../src/rapier_adapter.rs"]
mod rapier_adapter;

use fulcrum_bench::scenes::build_scene;
use fulcrum_bench::BenchEngine;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "pyramid3d".into());
    let steps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let scene = build_scene(&name).expect("scene");
    let mut engine = rapier_adapter::RapierEngine::build(&scene, 1).expect("build");
    let start = std::time::Instant::now();
    for _ in 0..steps {
        engine.step();
    }
    println!("{name}: {:.3} ms/step", start.elapsed().as_secs_f64() * 1e3 / steps as f64);
}
