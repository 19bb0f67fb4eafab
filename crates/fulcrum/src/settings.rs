//! World and solver settings. These types are also the `settings` object of scene files and the
//! testbed's settings messages (serde derives them; an unknown field is refused), so every field,
//! its default and its valid range are defined here once.

use serde::{Deserialize, Serialize};

use crate::error::{check_above_zero, check_range, check_vec3_range, Error, Result};
use crate::math::Vec3;

/// Which solver steps the world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverMode {
    /// Substeps with soft constraints and a relax pass (default).
    #[default]
    SoftStep,
    /// Classic projected Gauss-Seidel: velocity iterations once per step, with a separate
    /// position correction.
    Pgs,
}

/// How the `pgs` solver removes penetration and joint drift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionCorrection {
    /// Velocity bias `-β/h · C` fed into the velocity iterations.
    Baumgarte,
    /// Non-linear Gauss-Seidel: a separate pass of pseudo-velocity impulses applied directly
    /// to positions after the velocity solve (no momentum added).
    #[default]
    Ngs,
    /// No position correction (penetration accumulates: for demonstration).
    None,
}

/// How the bodies' motion is integrated over a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Semi-implicit (symplectic) Euler, velocities then positions, within the solver mode's
    /// loop (default).
    #[default]
    SymplecticEuler,
    /// Classic fourth-order Runge–Kutta over the whole step: four stages, each with the
    /// velocity-level constraint solve on the stage's state; the solver mode is not used.
    Rk4,
}

/// Solver settings, switchable between steps. In a scene file: `settings.solver`; omitted fields
/// take these defaults.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SolverSettings {
    /// `soft_step` (default) or `pgs`.
    pub mode: SolverMode,
    /// `symplectic_euler` (default) or `rk4` (one Runge–Kutta step per step, for worlds of
    /// bodies and joints; `iterations` passes per constraint solve, `position_iterations`
    /// passes of the ngs position correction at the end of the step).
    pub integrator: Integrator,
    /// Velocity iterations per step in `pgs` mode, and per constraint solve in `rk4`
    /// (default 8; 1 to 1000).
    pub iterations: u32,
    /// Position iterations of the `ngs` correction in `pgs` mode (default 3; 1 to 1000).
    pub position_iterations: u32,
    /// Relax pass after each substep's position update (`soft_step`): removes the velocity
    /// the position bias added. Off shows the overshoot it prevents.
    pub relax: bool,
    /// Start each step from the previous step's impulses.
    pub warm_start: bool,
    /// Solve the normal rows of each manifold together, as one small exact complementarity
    /// problem (default on). Off: one point at a time, which lets the first point visited take
    /// more than its share and makes tall stacks sway.
    pub block_solver: bool,
    /// Solve the rigid rows of tree-shaped joint graphs (chains, ropes, ragdolls) exactly,
    /// in linear time, in every pass (default on). Off: the joints are solved iteratively
    /// like everything else, and long chains with heavy ends stretch.
    pub exact_joint_trees: bool,
    /// Solve the normal rows of small contact islands whose masses differ (a pair 10:1 or
    /// more, at most 128 points) together, exactly, in every pass (default on). Off: they stay
    /// in the Gauss–Seidel passes, where a heavy body sinks into a light one it rests on.
    pub exact_contact_islands: bool,
    /// Position correction of the `pgs` mode.
    pub position_correction: PositionCorrection,
    /// Baumgarte factor β for `pgs` + `baumgarte` (default 0.2; above 0, at most 1).
    pub baumgarte: f32,
    /// Stiffness of contacts in `soft_step` mode, Hz (default 30; above 0, at most 1e6;
    /// capped at a quarter of the substep rate when used).
    pub contact_hertz: f32,
    /// Damping ratio of contacts (default 10: critically over-damped, no bounce; 0 to 1e6).
    pub contact_damping_ratio: f32,
    /// Stiffness of joints in `soft_step` mode, Hz (default 60; above 0, at most 1e6).
    pub joint_hertz: f32,
    /// Damping ratio of joints (default 1, critical: the largest damping that still closes
    /// a grid of loop-closing joints faster than it sags; 2 left 5% larger gaps in
    /// joint_grid; 0 to 1e6).
    pub joint_damping_ratio: f32,
    /// Largest speed at which overlap is pushed apart, m/s (default 3; above 0, at most 1e6).
    pub max_push_velocity: f32,
    /// Normal approach speed above which restitution applies, m/s (default 1; 0 to 1e6).
    pub restitution_threshold: f32,
    /// Penetration allowed without correction, metres (default 0.005; 0 to 1).
    pub linear_slop: f32,
    /// Contact points are created this far before touching, metres (default 0.02; 0 to 10).
    pub speculative_distance: f32,
}

impl Default for SolverSettings {
    fn default() -> Self {
        Self {
            mode: SolverMode::SoftStep,
            integrator: Integrator::SymplecticEuler,
            iterations: 8,
            position_iterations: 3,
            relax: true,
            warm_start: true,
            block_solver: true,
            exact_joint_trees: true,
            exact_contact_islands: true,
            position_correction: PositionCorrection::Ngs,
            baumgarte: 0.2,
            contact_hertz: 30.0,
            contact_damping_ratio: 10.0,
            joint_hertz: 60.0,
            joint_damping_ratio: 1.0,
            max_push_velocity: 3.0,
            restitution_threshold: 1.0,
            linear_slop: 0.005,
            speculative_distance: 0.02,
        }
    }
}

/// Largest frequency, damping ratio or speed a solver setting may take (far beyond any useful
/// value; it keeps products with the step finite).
const MAX_SETTING: f32 = 1e6;

impl SolverSettings {
    /// The classic PGS solver with the given position correction.
    pub fn pgs(position_correction: PositionCorrection) -> Self {
        Self { mode: SolverMode::Pgs, position_correction, ..Default::default() }
    }

    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<()> {
        check_count("iterations", self.iterations, 1000)?;
        check_count("position_iterations", self.position_iterations, 1000)?;
        check_above_zero("baumgarte", self.baumgarte, 1.0)?;
        check_above_zero("contact_hertz", self.contact_hertz, MAX_SETTING)?;
        check_range("contact_damping_ratio", self.contact_damping_ratio, 0.0, MAX_SETTING)?;
        check_above_zero("joint_hertz", self.joint_hertz, MAX_SETTING)?;
        check_range("joint_damping_ratio", self.joint_damping_ratio, 0.0, MAX_SETTING)?;
        check_above_zero("max_push_velocity", self.max_push_velocity, MAX_SETTING)?;
        check_range("restitution_threshold", self.restitution_threshold, 0.0, MAX_SETTING)?;
        check_range("linear_slop", self.linear_slop, 0.0, 1.0)?;
        check_range("speculative_distance", self.speculative_distance, 0.0, 10.0)
    }
}

/// A count from 1 to `max`.
fn check_count(field: &str, value: u32, max: u32) -> Result<()> {
    if value == 0 || value > max {
        return Err(Error::new(field, format!("must be between 1 and {max}, got {value}")));
    }
    Ok(())
}

/// Checks a gravity vector: each component within ±[`MAX_SETTING`] m/s².
pub(crate) fn check_gravity(gravity: Vec3) -> Result<()> {
    check_vec3_range("gravity", gravity, -MAX_SETTING, MAX_SETTING)
}

/// Settings of a [`World`](crate::World): the `settings` object of a scene file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldSettings {
    /// Gravity acceleration, m/s² (default (0, -9.81, 0); each component within ±1e6).
    pub gravity: Vec3,
    /// Step length the scene is meant to run at, seconds (default 1/60; above 0, at most 1).
    /// `World::step` takes its own `dt`; tools use this one.
    pub timestep: f32,
    /// Solver substeps per step in `soft_step` mode (default 4; 1 to 64).
    pub substeps: u32,
    /// Solver settings.
    pub solver: SolverSettings,
    /// Allow bodies to sleep (default true).
    pub sleep: bool,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            timestep: 1.0 / 60.0,
            substeps: 4,
            solver: SolverSettings::default(),
            sleep: true,
        }
    }
}

impl WorldSettings {
    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<()> {
        check_gravity(self.gravity)?;
        check_above_zero("timestep", self.timestep, 1.0)?;
        check_count("substeps", self.substeps, 64)?;
        self.solver.validate().map_err(|e| e.within("solver"))
    }

    /// Solver steps per step: the substeps in soft-step mode, 1 in pgs and with rk4.
    pub fn solver_steps(&self) -> u32 {
        match (self.solver.integrator, self.solver.mode) {
            (Integrator::SymplecticEuler, SolverMode::SoftStep) => self.substeps,
            _ => 1,
        }
    }

    /// Length of one solver step for a step of `dt` seconds: the substep in soft-step mode,
    /// the whole step in pgs and with rk4.
    pub fn solver_step_length(&self, dt: f32) -> f32 {
        dt / self.solver_steps() as f32
    }
}
