//! The Runge–Kutta option (`integrator: rk4`): one classic fourth-order step of dt per step,
//! with the sequential-impulse passes run at each of the four stages.
//!
//! The state of body i is y = (Δp, Δq, v, ω); its derivative f(y) = (v, ½ ω ⊗ Δq, a, α), where
//! the accelerations a, α include the constraint forces at y. The step is
//!
//! ```text
//! k₁ = f(y₀), k₂ = f(y₀ + dt/2 k₁), k₃ = f(y₀ + dt/2 k₂), k₄ = f(y₀ + dt k₃)
//! y  = y₀ + dt/6 (k₁ + 2k₂ + 2k₃ + k₄),   Δq normalised (also at every stage)
//! ```
//!
//! f(y) from the velocity-level passes (the seed: the impulse iterations at each stage):
//! 1. Projection. `iterations` passes without bias and with an instant step (no springs or
//!    motors act, speculative contacts close within dt) make the stage velocity u tangent to
//!    the constraints at the stage positions, J(x) u = 0; u is the stage's velocity. The
//!    first stage's u replaces v₀: the step starts from velocities that keep the constraints
//!    (without it a contact's approach speed would stay in v while the projection held x).
//! 2. Probes. For a short time s: x̃ = x + s u, ũ = u + s g (forces, damping, gyroscopic
//!    term), then `iterations` passes at x̃ with steps of s give u⁺ with J(x̃) u⁺ = 0, and
//!    a(s) = (u⁺ − u)/s. Expanding J(x̃) = J + s J̇: J a(s) = −J̇ u + O(s), the acceleration-level
//!    constraint with no J̇ code in any joint. Three probes, s = ε, ε/2, ε/4 (ε = dt/8), and
//!    Richardson's a = a(ε)/3 − 2 a(ε/2) + 8/3 a(ε/4) remove the O(ε) and O(ε²) terms. Shorter
//!    probes lose f32 digits in u⁺ − u (ε = dt/64 with one extrapolation left the compound
//!    pendulum 0.4% off its energy; these three, 0.03%).
//!
//! On the constraint manifold f agrees with the true constrained dynamics, whose flow keeps
//! the manifold, so the step is fourth order. The drift it leaves (O(dt⁵) per step) is taken
//! out at the end of the step by the ngs position pass (joints, user constraints and contact
//! overlap; `position_iterations` passes) and the joint trees' projection; the next step's
//! first projection makes the velocities tangent again.
//!
//! Impulses: every solve starts from zero accumulated impulses, so clamps (contacts pushing
//! only, limits, motor forces) hold within the solve. The stage's constraint force is the same
//! extrapolation of the probes' impulses P(s)/s; the step's impulse dt Σ bₛ Fₛ is stored for
//! readout, joint reactions and breaking. There is no warm start.
//!
//! Contacts are constraints like the joints at every stage: the projection removes the
//! approach speed of touching points and of speculative ones that would close within dt, the
//! probes push only while the contact holds (a speculative point acts once it would close
//! within the probe), friction is bounded by the probe's normal impulse. Restitution is the
//! impact phase's, once per step before the stages; overlap is removed by the ngs position
//! pass at the end of the step, not by a velocity bias.

use super::integrate::{integrate_velocities, turn_inertia};
use super::joints::JointSolver;
use super::parts::equality::PassContext;
use super::softness::Softness;
use super::solver::{correct_positions_ngs, SolverData};
use super::step_context::StepContext;
use crate::dynamics::contact_solver::SolveParams;
use crate::math::{integrate_rotation, Quat, Vec3A};

/// Stage times (fractions of dt) and weights of the classic fourth-order Runge–Kutta step.
const STAGES: [(f32, f32); 4] = [(0.0, 1.0 / 6.0), (0.5, 1.0 / 3.0), (0.5, 1.0 / 3.0), (1.0, 1.0 / 6.0)];

/// The longest probe ε as a fraction of dt: short enough for the O(ε³) left after Richardson,
/// long enough that (u⁺ − u)/s keeps f32 digits (dt/4 and dt/16 trade one error for the other:
/// 0.002% and 0.05% energy error on the compound pendulum, 0.006 and 0.0001 rad on the double).
const PROBE_FRACTION: f32 = 1.0 / 8.0;

/// Probe lengths (fractions of ε) and weights: Σ w a(sε) = a + O(ε³), the O(ε) and O(ε²)
/// terms of a(ε) = a + c₁ε + c₂ε² + … cancel (Σ w = 1, Σ w s = 0, Σ w s² = 0).
const PROBES: [(f32, f32); 3] = [(1.0, 1.0 / 3.0), (0.5, -2.0), (0.25, 8.0 / 3.0)];

/// The projection's step as a fraction of dt: an instant, so springs and motors (forces over a
/// step) add nothing to it.
const INSTANT_FRACTION: f32 = 1e-6;

/// One body's state (y) or derivative (k).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyState {
    position: Vec3A,
    rotation: Quat,
    velocity: Vec3A,
    angular_velocity: Vec3A,
}

impl BodyState {
    /// y + s·k (rotation normalised).
    fn advanced(&self, k: &BodyState, s: f32) -> BodyState {
        BodyState {
            position: self.position + s * k.position,
            rotation: (self.rotation + k.rotation * s).normalize(),
            velocity: self.velocity + s * k.velocity,
            angular_velocity: self.angular_velocity + s * k.angular_velocity,
        }
    }

    /// k += s·other, every component (the rotation as a 4-vector).
    fn accumulate(&mut self, other: &BodyState, s: f32) {
        self.position += s * other.position;
        self.rotation += other.rotation * s;
        self.velocity += s * other.velocity;
        self.angular_velocity += s * other.angular_velocity;
    }
}

/// The arrays of one RK4 step, kept between steps.
#[derive(Default)]
pub(crate) struct Rk4Scratch {
    /// y₀ of every solver body.
    start: Vec<BodyState>,
    /// The stage's derivative.
    stage: Vec<BodyState>,
    /// Σ bₛ kₛ.
    sum: Vec<BodyState>,
    /// Projected stage velocities u (linear, angular) and positions of the probe's start.
    base: Vec<BodyState>,
    /// The step's impulse of every accumulated-impulse slot, in visiting order.
    impulses: Vec<f32>,
}

/// One RK4 step of ctx.h = dt seconds for every body in `data` (after the impact phase).
pub(crate) fn solve_rk4(data: &mut SolverData, ctx: &StepContext) {
    let dt = ctx.h;
    let mut scratch = std::mem::take(&mut data.rk4);
    let n = data.bodies.len();
    scratch.start.clear();
    scratch.start.extend(data.bodies.iter().map(|b| BodyState {
        position: b.delta_position,
        rotation: b.delta_rotation,
        velocity: b.linear_velocity,
        angular_velocity: b.angular_velocity,
    }));
    scratch.sum.clear();
    scratch.sum.resize(n, BodyState { rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), ..Default::default() });
    scratch.stage.clone_from(&scratch.sum);
    scratch.impulses.clear();
    for (time, weight) in STAGES {
        for i in 1..n {
            set_state(data, i, &scratch.start[i].advanced(&scratch.stage[i], time * dt));
        }
        derivative(data, ctx, &mut scratch, weight * dt);
        if time == 0.0 {
            // The step starts from the projected velocity: approach speeds and drift removed.
            for (start, u) in scratch.start.iter_mut().zip(&scratch.base) {
                (start.velocity, start.angular_velocity) = (u.velocity, u.angular_velocity);
            }
        }
        for i in 1..n {
            let k = scratch.stage[i];
            scratch.sum[i].accumulate(&k, weight);
        }
    }
    for i in 1..n {
        set_state(data, i, &scratch.start[i].advanced(&scratch.sum[i], dt));
    }
    let mut slot = 0;
    visit_impulses(data, &mut |impulse| {
        *impulse = scratch.impulses[slot];
        slot += 1;
    });
    turn_inertia(&data.workers, &mut data.bodies, &data.params);
    correct_positions_ngs(data, &ctx.solver);
    data.rk4 = scratch;
}

/// Puts state `y` into solver body `i`.
fn set_state(data: &mut SolverData, i: usize, y: &BodyState) {
    let body = &mut data.bodies[i];
    body.delta_position = y.position;
    body.delta_rotation = y.rotation;
    body.linear_velocity = y.velocity;
    body.angular_velocity = y.angular_velocity;
}

/// f(y) of every body at the state in `data.bodies` into `scratch.stage` (see the module
/// comment); adds the probes' impulses, as the stage's force times `impulse_weight`, to the
/// step's impulses. Leaves the bodies at the stage positions with the projected velocities.
fn derivative(data: &mut SolverData, ctx: &StepContext, scratch: &mut Rk4Scratch, impulse_weight: f32) {
    let (dt, n) = (ctx.h, data.bodies.len());
    turn_inertia(&data.workers, &mut data.bodies, &data.params);
    let instant = INSTANT_FRACTION * dt;
    solve_fresh(data, ctx, &contact_pass(ctx, dt), &joint_pass(instant));
    scratch.base.clear();
    scratch.base.extend(data.bodies.iter().map(|b| BodyState {
        position: b.delta_position,
        rotation: b.delta_rotation,
        velocity: b.linear_velocity,
        angular_velocity: b.angular_velocity,
    }));
    let epsilon = PROBE_FRACTION * dt;
    for (i, u) in scratch.base.iter().enumerate() {
        let u_w = u.angular_velocity;
        scratch.stage[i] = BodyState {
            position: u.velocity,
            rotation: Quat::from_xyzw(u_w.x, u_w.y, u_w.z, 0.0) * u.rotation * 0.5,
            velocity: Vec3A::ZERO,
            angular_velocity: Vec3A::ZERO,
        };
    }
    for (fraction, weight) in PROBES {
        let probe = fraction * epsilon;
        probe_accelerations(data, ctx, &scratch.base, probe);
        let mut slot = 0;
        visit_impulses(data, &mut |impulse| {
            if slot == scratch.impulses.len() {
                scratch.impulses.push(0.0);
            }
            scratch.impulses[slot] += impulse_weight * weight / probe * *impulse;
            slot += 1;
        });
        for i in 1..n {
            let (u, body) = (&scratch.base[i], &data.bodies[i]);
            let k = &mut scratch.stage[i];
            k.velocity += weight / probe * (body.linear_velocity - u.velocity);
            k.angular_velocity += weight / probe * (body.angular_velocity - u.angular_velocity);
            set_state(data, i, u);
        }
    }
    turn_inertia(&data.workers, &mut data.bodies, &data.params);
}

/// Moves every body on for `probe` seconds at its velocity, applies the forces over it, and
/// solves the constraints at the moved positions; the velocity change over `probe` is then in
/// the bodies' velocities.
fn probe_accelerations(data: &mut SolverData, ctx: &StepContext, base: &[BodyState], probe: f32) {
    integrate_velocities(&data.workers, &mut data.bodies, &data.params, probe);
    for (body, u) in data.bodies.iter_mut().zip(base).skip(1) {
        body.delta_position = u.position + probe * u.velocity;
        body.delta_rotation = integrate_rotation(u.rotation, u.angular_velocity.into(), probe);
    }
    turn_inertia(&data.workers, &mut data.bodies, &data.params);
    solve_fresh(data, ctx, &contact_pass(ctx, probe), &joint_pass(probe));
}

/// `iterations` passes from zero accumulated impulses.
fn solve_fresh(data: &mut SolverData, ctx: &StepContext, contacts: &SolveParams, joints: &PassContext) {
    visit_impulses(data, &mut |impulse| *impulse = 0.0);
    for iteration in 0..ctx.solver.iterations {
        data.solve(&SolveParams { reverse: iteration % 2 == 1, ..*contacts }, joints);
    }
}

/// A contact pass without bias over a step of `h` seconds (speculative points close within h).
fn contact_pass(ctx: &StepContext, h: f32) -> SolveParams {
    SolveParams { inv_h: 1.0 / h, use_bias: false, friction: true, reverse: false, ..ctx.contact_passes.0 }
}

/// A joint pass without bias over a step of `h` seconds (springs and motors act over h).
/// Step number 0: every part computes its effective mass at the state it is solved in.
fn joint_pass(h: f32) -> PassContext {
    PassContext {
        h,
        inv_h: 1.0 / h,
        use_bias: false,
        joint_softness: Softness::RIGID,
        tree_softness: Softness::RIGID,
        step: 0,
        look_ahead: false,
    }
}

/// Visits every accumulated impulse of the step's constraints in a fixed order: joints, user
/// constraints, contacts (normal, friction, twist, rolling).
fn visit_impulses(data: &mut SolverData, visit: &mut impl FnMut(&mut f32)) {
    for joint in &mut data.joints {
        joint.model.impulses(&mut |_, impulse| visit(impulse));
    }
    for user in &mut data.user_constraints {
        user.impulse.iter_mut().for_each(&mut *visit);
    }
    for contact in data.contacts_mut() {
        let points = contact.points.iter_mut().map(|p| &mut p.normal_impulse);
        let friction = contact.friction_impulse.iter_mut().chain(contact.rolling_impulse.iter_mut());
        for lanes in points.chain(friction).chain([&mut contact.twist_impulse]) {
            lanes.as_mut_array().iter_mut().for_each(&mut *visit);
        }
    }
}
