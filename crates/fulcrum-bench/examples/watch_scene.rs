//! Prints the tracked bodies of a bench scene over time: `watch_scene NAME [STEPS] [EVERY]`.
use fulcrum_bench::fulcrum_engine::FulcrumEngine;
use fulcrum_bench::scenes::{build_scene, QualityDesc};
use fulcrum_bench::BenchEngine;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "large_pyramid".into());
    let steps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let every: usize = std::env::args().nth(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let scene = build_scene(&name).expect("scene");
    let tracked = match &scene.quality {
        QualityDesc::TopCubes { tracked, .. } => tracked.iter().map(|t| t.body).collect::<Vec<_>>(),
        _ => vec![],
    };
    let mut engine = FulcrumEngine::build(&scene, 1).expect("build");
    for step in 0..=steps {
        if step % every == 0 {
            let poses = engine.poses();
            let bottom = &poses[1];
            let top = tracked.first().map(|&i| poses[i].position);
            println!("step {step}: top {:?} first-body {:?}", top, bottom.position);
        }
        engine.step();
    }
}
