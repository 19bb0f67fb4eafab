//! The step context: everything the passes of one step read that follows from the settings
//! and the step length, computed once per step.
//!
//! ```text
//! soft step   h = dt / substeps, n = substeps solver steps per step
//! pgs         h = dt,            n = 1
//! ```
//! Contacts are soft at the contact frequency (capped at a quarter of the solver-step rate,
//! twice that against an immovable body; see [`StepContext::pair_softness`] between two
//! dynamic bodies), joints' rigid rows at the joint frequency in the biased pass. Pgs uses
//! Baumgarte's β/h instead, or no bias at all when ngs corrects positions.

use super::contact_prepare_wide::PrepareSettings;
use super::contact_solver::SolveParams;
use super::impacts::ImpactParams;
use super::parts::equality::PassContext;
use super::push_out::PushLimits;
use super::softness::Softness;
use crate::math::Vec3A;
use crate::settings::{PositionCorrection, SolverMode, SolverSettings, WorldSettings};

/// What one step's passes read, built once at the start of the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepContext {
    /// Solver steps per step: the substeps in soft step, 1 in pgs.
    pub solver_steps: u32,
    /// Length of one solver step, s.
    pub h: f32,
    /// The solver switches.
    pub solver: SolverSettings,
    /// What contact preparation reads (warm-start scale, speculative distance, threshold).
    pub prepare: PrepareSettings,
    /// The impact phase before the solve (restitution).
    pub impacts: ImpactParams,
    /// Contact softness between two dynamic bodies before the mass ratio is taken in.
    pub contact_softness: Softness,
    /// Contact softness against an immovable body.
    pub static_contact_softness: Softness,
    /// Contact softness between two dynamic bodies of equal mass (most pairs of a pile of
    /// like bodies), computed once: the formula below gives it for every such pair.
    equal_mass_softness: Softness,
    /// The contact passes: (with position bias, relaxed). Pgs runs the first only.
    pub contact_passes: (SolveParams, SolveParams),
    /// The joint passes: (with position bias, relaxed). Pgs runs the first only.
    pub joint_passes: (PassContext, PassContext),
    /// What the deep-overlap push-out reads.
    pub push: PushLimits,
}

impl StepContext {
    /// The context of step number `step` (never 0) of `dt` seconds.
    pub fn new(world: &WorldSettings, dt: f32, step: u32) -> StepContext {
        let solver = world.solver;
        let solver_steps = world.solver_steps();
        let h = world.solver_step_length(dt);
        let (contact_softness, static_contact_softness) = contact_softness(&solver, h);
        let push_limits = PushLimits {
            max_push: solver.max_push_velocity,
            reach: solver.max_push_velocity * h * solver_steps as f32,
            up: (-Vec3A::from(world.gravity)).normalize_or_zero(),
        };
        let mut context = StepContext {
            solver_steps,
            h,
            solver,
            prepare: PrepareSettings {
                warm_scale: if solver.warm_start { 1.0 / solver_steps as f32 } else { 0.0 },
                speculative_distance: solver.speculative_distance,
                push: push_limits,
            },
            impacts: ImpactParams { threshold: solver.restitution_threshold, dt: h * solver_steps as f32, h },
            contact_softness,
            static_contact_softness,
            equal_mass_softness: Softness::default(),
            contact_passes: contact_passes(&solver, h),
            joint_passes: joint_passes(&solver, h, step),
            push: push_limits,
        };
        context.equal_mass_softness = context.dynamic_pair_softness(1.0, 1.0);
        context
    }

    /// Softness of one contact pair with inverse masses `inv_ma`, `inv_mb` (0 = immovable).
    ///
    /// Against an immovable body: the static softness. Between two dynamic bodies in
    /// soft-step mode the spring is as stiff as the heavier body's share allows: a contact
    /// spring of stiffness k = m_eff ω² moves body A at ω_A² = k/m_A = ω² m_B/(m_A + m_B), so
    /// choosing ω² = ω₀² (m_A + m_B)/max(m_A, m_B) puts the lighter body (the one that limits
    /// stability) at exactly ω₀. Equal masses get √2 · ω₀ (half the sag of a plain ω₀ spring
    /// under load); a heavy box on a light one keeps ω₀. Capped at a quarter of the substep
    /// rate.
    pub fn pair_softness(&self, inv_ma: f32, inv_mb: f32) -> Softness {
        if inv_ma == 0.0 || inv_mb == 0.0 {
            return self.static_contact_softness;
        }
        if self.solver.mode != SolverMode::SoftStep {
            return self.contact_softness;
        }
        // Equal masses (well inside f32's range): (m + m)/m is exactly 2, so the formula
        // below gives the softness computed once; it costs five divisions and a root a pair.
        if inv_ma == inv_mb && (1e-30..=1e30).contains(&inv_ma) {
            return self.equal_mass_softness;
        }
        self.dynamic_pair_softness(inv_ma, inv_mb)
    }

    /// [`StepContext::pair_softness`] between two dynamic bodies in soft-step mode.
    fn dynamic_pair_softness(&self, inv_ma: f32, inv_mb: f32) -> Softness {
        let (ma, mb) = (1.0 / inv_ma, 1.0 / inv_mb);
        let base = self.solver.contact_hertz.min(0.25 / self.h);
        let hertz = (base * ((ma + mb) / ma.max(mb)).sqrt()).min(0.25 / self.h);
        Softness::new(hertz, self.solver.contact_damping_ratio, self.h)
    }
}

/// Softness of contacts against dynamic and against immovable bodies for solver steps of
/// `h` seconds (contacts with an immovable body are twice as stiff).
fn contact_softness(settings: &SolverSettings, h: f32) -> (Softness, Softness) {
    match settings.mode {
        SolverMode::SoftStep => {
            let hertz = settings.contact_hertz.min(0.25 / h);
            let zeta = settings.contact_damping_ratio;
            (Softness::new(hertz, zeta, h), Softness::new(2.0 * hertz, zeta, h))
        }
        SolverMode::Pgs => {
            let soft = Softness { bias_rate: baumgarte_rate(settings, h), mass_scale: 1.0, impulse_scale: 0.0 };
            (soft, soft)
        }
    }
}

/// β/h with Baumgarte correction, else 0.
fn baumgarte_rate(settings: &SolverSettings, h: f32) -> f32 {
    match settings.position_correction {
        PositionCorrection::Baumgarte => settings.baumgarte / h,
        _ => 0.0,
    }
}

/// The contact passes. Soft step: friction runs in the relax pass (in the biased one when
/// relax is off); the relax pass visits the points in reverse. Pgs: one kind of pass with
/// the slop and Baumgarte's bias (or none); the solver alternates the order per iteration.
fn contact_passes(settings: &SolverSettings, h: f32) -> (SolveParams, SolveParams) {
    match settings.mode {
        SolverMode::SoftStep => {
            let biased = SolveParams {
                inv_h: 1.0 / h,
                slop: 0.0,
                use_bias: true,
                friction: !settings.relax,
                reverse: false,
                block: settings.block_solver,
            };
            (biased, SolveParams { use_bias: false, friction: true, reverse: true, ..biased })
        }
        SolverMode::Pgs => {
            let params = SolveParams {
                inv_h: 1.0 / h,
                slop: settings.linear_slop,
                use_bias: settings.position_correction == PositionCorrection::Baumgarte,
                friction: true,
                reverse: false,
                block: settings.block_solver,
            };
            (params, params)
        }
    }
}

/// The joint passes of a solver step of `h` seconds: (with position bias, without). Soft
/// step: rigid joint rows are soft at the joint frequency (capped at a quarter of the substep
/// rate) in the biased pass. Pgs: Baumgarte's β/h, or no bias with ngs and none.
fn joint_passes(settings: &SolverSettings, h: f32, step: u32) -> (PassContext, PassContext) {
    let joint_softness = match settings.mode {
        SolverMode::SoftStep => Softness::new(settings.joint_hertz.min(0.25 / h), settings.joint_damping_ratio, h),
        SolverMode::Pgs => match settings.position_correction {
            PositionCorrection::Baumgarte => {
                Softness { bias_rate: baumgarte_rate(settings, h), mass_scale: 1.0, impulse_scale: 0.0 }
            }
            _ => Softness::RIGID,
        },
    };
    // The tree solve is followed by a position projection except in pgs with Baumgarte.
    let tree_softness = match (settings.mode, settings.position_correction) {
        (SolverMode::Pgs, PositionCorrection::Baumgarte) => joint_softness,
        _ => Softness::RIGID,
    };
    let look_ahead = tree_softness == Softness::RIGID;
    let biased = PassContext { h, inv_h: 1.0 / h, use_bias: true, joint_softness, tree_softness, look_ahead, step };
    (biased, PassContext { use_bias: false, look_ahead: false, ..biased })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The softness kept for equal masses is, bit for bit, what the formula gives each pair
    /// of equal masses (from 1 mg to 1,000 t), and a pair of unequal masses still gets its own.
    #[test]
    fn equal_masses_get_the_formulas_softness() {
        let context = StepContext::new(&WorldSettings::default(), 1.0 / 60.0, 1);
        for mass in [1e-6f32, 0.003, 0.5, 1.0, 7.3, 1234.5, 1e6] {
            let inv = 1.0 / mass;
            assert_eq!(context.pair_softness(inv, inv), context.dynamic_pair_softness(inv, inv), "{mass} kg");
        }
        let (light, heavy) = (1.0, 0.01);
        assert_eq!(context.pair_softness(light, heavy), context.dynamic_pair_softness(light, heavy));
        assert_ne!(context.pair_softness(light, heavy), context.pair_softness(light, light));
    }
}
