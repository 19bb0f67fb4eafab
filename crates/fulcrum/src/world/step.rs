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
use crate::error::{check_positive, Result};

/// Wall-clock milliseconds the last step spent in each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTimings {
    /// Finding new pairs.
    pub broad_phase_ms: f64,
    /// Manifolds, events.
    pub narrow_phase_ms: f64,
    /// Solver and pose write-back.
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
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

impl World {
    /// Advances the world by `dt` seconds (must be finite and positive).
    pub fn step(&mut self, dt: f32) -> Result<()> {
        check_positive("dt", dt)?;
        self.events.clear();
        let start = Instant::now();
        self.find_new_pairs();
        let broad = Instant::now();
        self.update_contacts(dt);
        let narrow = Instant::now();
        self.solve_step(dt);
        let solved = Instant::now();
        self.step_characters(dt);
        let moved = Instant::now();
        self.step_particles(dt);
        let particles = Instant::now();
        self.update_sleep(dt);
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
        };
        self.time += dt as f64;
        self.step_count += 1;
        Ok(())
    }
}
