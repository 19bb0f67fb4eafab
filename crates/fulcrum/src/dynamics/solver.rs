//! The solver loops. Both modes work on the same arrays (solver bodies, their integration
//! parameters, contact constraints) and differ only in how often and with which bias they
//! run the passes.
//!
//! soft_step (default), for each of n substeps of h = dt/n:
//!   integrate velocities → warm start → solve (soft bias) → integrate positions →
//!   relax (solve without bias)
//! then once: restitution → store impulses.
//!
//! pgs, once per step of h = dt:
//!   integrate velocities → warm start → `iterations` × solve (Baumgarte bias, or none) →
//!   integrate positions → (ngs) `position_iterations` × position pass → store impulses.
//! Restitution is a target velocity inside the solve.

use super::coloring::Coloring;
use super::contact_solver::{self as contacts, ContactConstraint, SolveParams};
use super::contact_wide::{self as wide_contacts, WideContact};
use super::integrate::{integrate_positions, integrate_velocities};
use super::softness::Softness;
use super::solver_body::{SolverBody, SolverBodyParams};
use crate::world::settings::{PositionCorrection, SolverMode, SolverSettings};

/// Largest position correction of one ngs pass, metres.
const MAX_LINEAR_CORRECTION: f32 = 0.2;

/// The arrays one step works on. Kept between steps so nothing is allocated once the scene
/// has reached its size.
#[derive(Default)]
pub(crate) struct SolverData {
    pub bodies: Vec<SolverBody>,
    pub params: Vec<SolverBodyParams>,
    pub contacts: Vec<ContactConstraint>,
    /// Graph colouring of `contacts`.
    pub coloring: Coloring,
    /// The coloured constraints packed four per entry, colour after colour.
    pub wide: Vec<WideContact>,
}

impl SolverData {
    /// Colours the prepared constraints and packs each colour four at a time.
    fn pack(&mut self) {
        let (bodies, contacts) = (&self.bodies, &self.contacts);
        let movable = |i: u32| i != 0 && bodies[i as usize].inv_mass > 0.0;
        self.coloring.build(bodies.len(), contacts.len(), |i| {
            let c = &contacts[i];
            [(c.body_a, movable(c.body_a)), (c.body_b, movable(c.body_b))]
        });
        self.wide.clear();
        for color in &mut self.coloring.colors {
            // Lanes with equal point counts together: loops stop at a group's largest count.
            color.sort_by_key(|&i| std::cmp::Reverse(contacts[i as usize].point_count));
            for chunk in color.chunks(4) {
                self.wide.push(WideContact::pack(chunk, contacts, bodies));
            }
        }
    }

    /// Copies the impulses of the packed constraints back into `contacts`.
    fn unpack(&mut self) {
        for w in &self.wide {
            w.unpack(&mut self.contacts);
        }
    }

    fn warm_start(&mut self) {
        for w in &self.wide {
            wide_contacts::warm_start(w, &mut self.bodies);
        }
        for &i in &self.coloring.overflow {
            contacts::warm_start_one(&self.contacts[i as usize], &mut self.bodies);
        }
    }

    fn solve(&mut self, params: &SolveParams) {
        for w in &mut self.wide {
            wide_contacts::solve(w, &mut self.bodies, params);
        }
        for &i in &self.coloring.overflow {
            contacts::solve_one(&mut self.contacts[i as usize], &mut self.bodies, params);
        }
    }
}

/// Softness of contacts against dynamic and against static/kinematic bodies for substeps of
/// `h` seconds (contacts with an immovable body are twice as stiff).
pub(crate) fn contact_softness(settings: &SolverSettings, h: f32) -> (Softness, Softness) {
    match settings.mode {
        SolverMode::SoftStep => {
            let hertz = settings.contact_hertz.min(0.25 / h);
            let zeta = settings.contact_damping_ratio;
            (Softness::new(hertz, zeta, h), Softness::new(2.0 * hertz, zeta, h))
        }
        SolverMode::Pgs => {
            let rate = match settings.position_correction {
                PositionCorrection::Baumgarte => settings.baumgarte / h,
                _ => 0.0,
            };
            let soft = Softness { bias_rate: rate, mass_scale: 1.0, impulse_scale: 0.0 };
            (soft, soft)
        }
    }
}

/// Length of one solver step: the substep in soft-step mode, the whole step in pgs.
pub(crate) fn solver_step_length(settings: &SolverSettings, dt: f32) -> f32 {
    match settings.mode {
        SolverMode::SoftStep => dt / settings.substeps as f32,
        SolverMode::Pgs => dt,
    }
}

/// Runs the solver for one step of `dt` seconds.
pub(crate) fn solve(data: &mut SolverData, settings: &SolverSettings, dt: f32) {
    match settings.mode {
        SolverMode::SoftStep => solve_soft_step(data, settings, dt),
        SolverMode::Pgs => solve_pgs(data, settings, dt),
    }
}

fn solve_soft_step(data: &mut SolverData, settings: &SolverSettings, dt: f32) {
    let h = dt / settings.substeps as f32;
    // Friction runs in the relax pass; without relax it must run in the biased one.
    let biased = SolveParams {
        inv_h: 1.0 / h,
        max_push: settings.max_push_velocity,
        slop: 0.0,
        use_bias: true,
        friction: !settings.relax,
        reverse: false,
        block: settings.block_solver,
    };
    let relaxed =
        SolveParams { use_bias: false, friction: true, reverse: true, block: settings.block_solver, ..biased };
    data.pack();
    for _ in 0..settings.substeps {
        integrate_velocities(&mut data.bodies, &data.params, h);
        if settings.warm_start {
            data.warm_start();
        }
        data.solve(&biased);
        integrate_positions(&mut data.bodies, h);
        if settings.relax {
            data.solve(&relaxed);
        }
    }
    data.unpack();
    contacts::apply_restitution(&mut data.contacts, &mut data.bodies, settings.restitution_threshold);
}

fn solve_pgs(data: &mut SolverData, settings: &SolverSettings, dt: f32) {
    let use_bias = settings.position_correction == PositionCorrection::Baumgarte;
    let params = SolveParams {
        inv_h: 1.0 / dt,
        max_push: settings.max_push_velocity,
        slop: settings.linear_slop,
        use_bias,
        friction: true,
        reverse: false,
        block: settings.block_solver,
    };
    for c in data.contacts.iter_mut() {
        contacts::set_restitution_bias(c, settings.restitution_threshold);
    }
    data.pack();
    integrate_velocities(&mut data.bodies, &data.params, dt);
    if settings.warm_start {
        data.warm_start();
    }
    for iteration in 0..settings.iterations {
        let reverse = iteration % 2 == 1;
        data.solve(&SolveParams { reverse, ..params });
    }
    data.unpack();
    integrate_positions(&mut data.bodies, dt);
    if settings.position_correction == PositionCorrection::Ngs {
        for _ in 0..settings.position_iterations {
            contacts::solve_positions(
                &data.contacts,
                &mut data.bodies,
                settings.baumgarte,
                settings.linear_slop,
                MAX_LINEAR_CORRECTION,
            );
        }
    }
}
