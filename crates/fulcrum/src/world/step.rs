//! The step. It reads like the stage list and does no math itself:
//!
//! ```text
//! broad phase:  new overlapping proxy pairs -> contact pairs
//! narrow phase: manifolds for pairs with an awake body; begin/end events; wake on touch
//! solve:        gather awake bodies and touching contacts; substeps (or pgs iterations);
//!               restitution; store impulses; write poses back; disable non-finite bodies;
//!               refresh collider bounds and proxies; sweep bullets (continuous collision)
//! characters:   each character moved by the character solver against the bodies' new poses
//! particles:    cloths and ropes: contacts, substeps of the position solver, attached bodies
//! sleep:        islands of resting bodies fall asleep
//! ```

use std::time::Instant;

use super::World;
use crate::dynamics::denormals::FlushDenormals;
use crate::error::{check_positive, Result};

/// Wall-clock milliseconds the last step spent in each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTimings {
    /// Finding new pairs.
    pub broad_phase_ms: f64,
    /// Manifolds, events.
    pub narrow_phase_ms: f64,
    /// Solver and pose write-back: the sum of the four `solve_*` and `ccd_ms` parts.
    pub solve_ms: f64,
    /// Moving the characters.
    pub characters_ms: f64,
    /// Moving the cloths and ropes (and the bodies they hang on).
    pub particles_ms: f64,
    /// Islands and sleep.
    pub sleep_ms: f64,
    /// The whole step.
    pub total_ms: f64,
    /// Pairs whose manifold the narrow phase computed this step.
    pub manifolds_computed: u32,
    /// Pairs that reused their cached manifold this step (they barely moved).
    pub manifolds_reused: u32,
    /// Part of `solve_ms`: gathering the awake bodies, joints and contacts, colouring and
    /// preparing the constraints.
    pub solve_prepare_ms: f64,
    /// Part of `solve_ms`: impacts and the solver passes (substeps or iterations).
    pub solve_passes_ms: f64,
    /// Part of `solve_ms`: impulses and joint state stored, poses written back, collider
    /// bounds and proxies refreshed.
    pub solve_store_ms: f64,
    /// Part of `solve_ms`: bullets swept from their start to their end poses.
    pub ccd_ms: f64,
    /// Time in the loops that are split among the worker threads (whether or not the world
    /// has more than one); the rest of `total_ms` runs on one thread. Measured with one
    /// thread, 1 − parallel_ms / total_ms is the step's serial fraction.
    pub parallel_ms: f64,
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

impl World {
    /// Advances the world by `dt` seconds (must be finite and positive).
    pub fn step(&mut self, dt: f32) -> Result<()> {
        check_positive("dt", dt)?;
        let runner = self.solver.workers.runner();
        runner.run(|| self.run_stages(dt));
        Ok(())
    }

    /// The stages of one step, timed.
    fn run_stages(&mut self, dt: f32) {
        let _flush = FlushDenormals::new();
        self.events.clear();
        self.solver.workers.take_parallel_ms();
        let team = self.solver.workers.begin_team();
        let start = Instant::now();
        self.find_new_pairs();
        let broad = Instant::now();
        self.update_contacts(dt);
        let narrow = Instant::now();
        let solve = self.solve_step(dt);
        let solved = Instant::now();
        self.step_characters(dt);
        let moved = Instant::now();
        self.step_particles(dt);
        let particles = Instant::now();
        self.update_sleep(dt);
        self.solver.workers.end_team();
        drop(team);
        let (computed, reused) = self.narrow_counts;
        self.timings = StepTimings {
            manifolds_computed: computed,
            manifolds_reused: reused,
            broad_phase_ms: (broad - start).as_secs_f64() * 1e3,
            narrow_phase_ms: (narrow - broad).as_secs_f64() * 1e3,
            solve_ms: (solved - narrow).as_secs_f64() * 1e3,
            characters_ms: (moved - solved).as_secs_f64() * 1e3,
            particles_ms: (particles - moved).as_secs_f64() * 1e3,
            sleep_ms: ms_since(particles),
            total_ms: ms_since(start),
            solve_prepare_ms: solve.prepare_ms,
            solve_passes_ms: solve.passes_ms,
            solve_store_ms: solve.store_ms,
            ccd_ms: solve.ccd_ms,
            parallel_ms: self.solver.workers.take_parallel_ms(),
        };
        self.time += dt as f64;
        self.step_count += 1;
    }
}
