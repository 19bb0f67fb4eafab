//! World and solver settings.

use crate::error::{check_finite, check_non_negative, check_positive, check_vec3, Error, Result};
use crate::math::Vec3;

/// Which solver steps the world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverMode {
    /// Substeps with soft constraints, a relax pass and a restitution pass (default).
    #[default]
    SoftStep,
    /// Classic projected Gauss-Seidel: velocity iterations once per step, with a separate
    /// position correction.
    Pgs,
}

/// How the `pgs` solver removes penetration and joint drift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// Solver settings, switchable between steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverSettings {
    /// `soft_step` (default) or `pgs`.
    pub mode: SolverMode,
    /// Substeps per step in `soft_step` mode (default 4).
    pub substeps: u32,
    /// Velocity iterations per step in `pgs` mode (default 8).
    pub iterations: u32,
    /// Position iterations of the `ngs` correction in `pgs` mode (default 3).
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
    /// Position correction of the `pgs` mode.
    pub position_correction: PositionCorrection,
    /// Baumgarte factor β in (0, 1] for `pgs` + `baumgarte` (default 0.2).
    pub baumgarte: f32,
    /// Stiffness of contacts in `soft_step` mode, Hz (default 30; capped at a quarter of the
    /// substep rate).
    pub contact_hertz: f32,
    /// Damping ratio of contacts (default 10: critically over-damped, no bounce).
    pub contact_damping_ratio: f32,
    /// Stiffness of joints in `soft_step` mode, Hz (default 60).
    pub joint_hertz: f32,
    /// Damping ratio of joints (default 1, critical: the largest damping that still closes
    /// a grid of loop-closing joints faster than it sags; 2 left 5% larger gaps in
    /// joint_grid).
    pub joint_damping_ratio: f32,
    /// Largest speed at which overlap is pushed apart, m/s (default 3).
    pub max_push_velocity: f32,
    /// Normal approach speed above which restitution applies, m/s (default 1).
    pub restitution_threshold: f32,
    /// Penetration allowed without correction, metres (default 0.005).
    pub linear_slop: f32,
    /// Contact points are created this far before touching, metres (default 0.02).
    pub speculative_distance: f32,
}

impl Default for SolverSettings {
    fn default() -> Self {
        Self {
            mode: SolverMode::SoftStep,
            substeps: 4,
            iterations: 8,
            position_iterations: 3,
            relax: true,
            warm_start: true,
            block_solver: true,
            exact_joint_trees: true,
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

impl SolverSettings {
    /// The classic PGS solver with the given position correction.
    pub fn pgs(position_correction: PositionCorrection) -> Self {
        Self { mode: SolverMode::Pgs, position_correction, ..Default::default() }
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        let count = |field: &str, value: u32, max: u32| {
            if value == 0 || value > max {
                Err(Error::new(field, format!("must be between 1 and {max}, got {value}")))
            } else {
                Ok(())
            }
        };
        count("substeps", self.substeps, 64)?;
        count("iterations", self.iterations, 100_000)?;
        count("position_iterations", self.position_iterations, 1000)?;
        check_positive("baumgarte", self.baumgarte)?;
        if self.baumgarte > 1.0 {
            return Err(Error::new("baumgarte", format!("must be at most 1, got {}", self.baumgarte)));
        }
        check_positive("contact_hertz", self.contact_hertz)?;
        check_non_negative("contact_damping_ratio", self.contact_damping_ratio)?;
        check_positive("joint_hertz", self.joint_hertz)?;
        check_non_negative("joint_damping_ratio", self.joint_damping_ratio)?;
        check_positive("max_push_velocity", self.max_push_velocity)?;
        check_non_negative("restitution_threshold", self.restitution_threshold)?;
        check_non_negative("linear_slop", self.linear_slop)?;
        check_non_negative("speculative_distance", self.speculative_distance)?;
        Ok(())
    }
}

/// Settings of a [`World`](crate::World).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravity acceleration, m/s² (default (0, -9.81, 0)).
    pub gravity: Vec3,
    /// Step length the scene is meant to run at, seconds (default 1/60). `World::step` takes
    /// its own `dt`; tools use this one.
    pub timestep: f32,
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
            solver: SolverSettings::default(),
            sleep: true,
        }
    }
}

impl WorldSettings {
    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        check_vec3("gravity", self.gravity)?;
        check_positive("timestep", self.timestep)?;
        check_finite("timestep", self.timestep)?;
        self.solver.validate().map_err(|e| e.within("solver"))
    }
}
