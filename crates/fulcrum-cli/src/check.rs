//! `fulcrum check SCENE`: validates a scene, joints included (and builds it, which finds what
//! the engine cannot simulate yet) and prints a summary, or the first error.

use clap::Args;
use fulcrum::{BodyKind, Scene, World};

/// Arguments of `fulcrum check`.
#[derive(Args)]
pub struct CheckArgs {
    /// A scene file, or the name of a built-in sample (see `fulcrum list`).
    pub scene: String,
}

/// Validates and builds the scene; prints what it holds.
pub fn check(args: &CheckArgs) -> Result<(), String> {
    let scene = crate::samples::resolve(&args.scene)?;
    let (world, _) = scene.build().map_err(|e| e.to_string())?;
    crate::print_out(&summary(&scene, &world))
}

/// A few lines describing a scene and the world built from it.
fn summary(scene: &Scene, world: &World) -> String {
    let settings = world.settings();
    let solver = &settings.solver;
    let solver_text = match solver.mode {
        fulcrum::SolverMode::SoftStep => format!("soft_step, {} substeps", settings.substeps),
        fulcrum::SolverMode::Pgs => format!("pgs, {} iterations", solver.iterations),
    };
    let g = settings.gravity;
    format!(
        "{}: ok\n  format {}, {}, {} colliders, {}, {} materials\n  \
         timestep {} s, gravity [{}, {}, {}] m/s², solver {solver_text}, sleep {}\n",
        scene.source_name(),
        scene.format,
        body_counts(world),
        world.collider_count(),
        joint_counts(scene),
        scene.materials.len(),
        settings.timestep,
        g.x,
        g.y,
        g.z,
        if settings.sleep { "on" } else { "off" },
    )
}

/// "12 joints (10 distance, 2 hinge)", kinds in the order they first appear; "0 joints".
fn joint_counts(scene: &Scene) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for joint in &scene.joints {
        match counts.iter_mut().find(|(kind, _)| *kind == joint.kind.name()) {
            Some((_, n)) => *n += 1,
            None => counts.push((joint.kind.name(), 1)),
        }
    }
    let kinds: Vec<String> = counts.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
    if kinds.is_empty() {
        "0 joints".to_string()
    } else {
        format!("{} joints ({})", scene.joints.len(), kinds.join(", "))
    }
}

/// "56 bodies (1 static, 55 dynamic, 0 kinematic)".
pub fn body_counts(world: &World) -> String {
    let count = |kind: BodyKind| world.bodies().filter(|(_, body)| body.kind() == kind).count();
    format!(
        "{} bodies ({} static, {} dynamic, {} kinematic)",
        world.body_count(),
        count(BodyKind::Static),
        count(BodyKind::Dynamic),
        count(BodyKind::Kinematic)
    )
}
