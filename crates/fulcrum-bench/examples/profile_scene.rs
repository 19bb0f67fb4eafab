//! Steps one bench scene for profiling: `cargo run --release --example profile_scene -- NAME [STEPS]`.
use fulcrum_bench::fulcrum_engine::FulcrumEngine;
use fulcrum_bench::scenes::build_scene;
use fulcrum_bench::BenchEngine;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "pyramid3d".into());
    let steps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let scene = build_scene(&name).expect("scene");
    let mut engine = FulcrumEngine::build(&scene, 1).expect("build");
    let start = std::time::Instant::now();
    let mut stages = [0.0f64; 4];
    let (mut computed, mut reused) = (0u64, 0u64);
    for _ in 0..steps {
        engine.step();
        let t = engine.world().timings();
        computed += t.manifolds_computed as u64;
        reused += t.manifolds_reused as u64;
        for (sum, ms) in stages.iter_mut().zip([t.broad_phase_ms, t.narrow_phase_ms, t.solve_ms, t.sleep_ms]) {
            *sum += ms / steps as f64;
        }
    }
    println!("{name}: {:.3} ms/step", start.elapsed().as_secs_f64() * 1e3 / steps as f64);
    println!("  manifolds computed {} reused {} per step", computed / steps as u64, reused / steps as u64);
    println!(
        "  broad {:.3}  narrow {:.3}  solve {:.3}  sleep {:.3} (ms/step)",
        stages[0], stages[1], stages[2], stages[3]
    );
}
