//! Glue between the world's storage and the solver arrays: gather awake bodies and touching
//! contacts into contiguous solver data, run the solver, and write poses and velocities back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::api::{motion_reach, swept_bounds, NO_PROXY};
use super::ccd::BulletStart;
use super::events::DisabledBody;
use super::World;
use crate::body::{Body, BodyKind};
use crate::collision::contact::Contact;
use crate::dynamics::contact_islands;
use crate::dynamics::contact_prepare_wide::PairInput;
use crate::dynamics::solver::{self, SlotSolver};
use crate::dynamics::solver_body::{SolverBody, SolverBodyParams};
use crate::dynamics::step_context::StepContext;
use crate::dynamics::workers;
use crate::id::{BodyId, RawId, Slot};
use crate::math::{rotate_inertia, Mat3, Pose, Vec3};

/// Wall-clock split of one solve, ms (see `StepTimings`).
pub(crate) struct SolveStepTimes {
    pub prepare_ms: f64,
    pub passes_ms: f64,
    pub store_ms: f64,
    pub ccd_ms: f64,
}

impl World {
    /// Solves one step of `dt` seconds for every awake body; returns how long its parts took.
    pub(crate) fn solve_step(&mut self, dt: f32) -> SolveStepTimes {
        let start = Instant::now();
        self.wake_jointed_bodies();
        self.wake_user_constrained_bodies();
        self.gather_bodies();
        let ctx = StepContext::new(&self.settings, dt, self.solver.next_step());
        self.gather_joints(&ctx);
        self.gather_user_constraints(ctx.h);
        self.gather_contacts(&ctx);
        let gathered = Instant::now();
        let solver = solver::solve(&mut self.solver, &mut self.contacts, &ctx);
        let solved = Instant::now();
        self.store_joints(ctx.h);
        self.store_user_constraints();
        let bullets = self.finalize_bodies();
        let stored = Instant::now();
        self.solve_continuous(&bullets);
        SolveStepTimes {
            prepare_ms: (gathered - start).as_secs_f64() * 1e3 + solver.prepare_ms,
            passes_ms: solver.passes_ms,
            store_ms: solver.store_ms + (stored - solved).as_secs_f64() * 1e3,
            ccd_ms: stored.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// Assigns dense solver indices (from 1; 0 is the shared static body) to awake,
    /// non-static bodies in slot order, and fills their solver state. Both are split among
    /// the workers: each run of body slots counts its simulated bodies first, and takes its
    /// indices from the sum of the counts before it.
    fn gather_bodies(&mut self) {
        let (data, gravity) = (&mut self.solver, self.settings.gravity);
        let slot_count = self.bodies.slots().len();
        let mut runs: Vec<&mut [Slot<Body>]> = self.bodies.slots_mut().chunks_mut(BODIES_PER_TASK).collect();
        let mut counts = Vec::new();
        workers::map_mut(&data.workers, &mut runs, &mut counts, 1, |run| {
            run.iter().filter(|slot| slot.value().is_some_and(simulated)).count()
        });
        let total: usize = counts.iter().sum();
        let changed = AtomicBool::new(total != self.awake_ids.len());
        self.awake_ids.resize(total, BodyId::from(RawId { index: 0, generation: 0 }));
        // Resized rather than cleared: only entries past last step's count are filled first.
        data.bodies.resize(total + 1, SolverBody::STATIC);
        data.params.resize(total + 1, SolverBodyParams::STATIC);
        (data.bodies[0], data.params[0]) = (SolverBody::STATIC, SolverBodyParams::STATIC);
        data.slot_poses.resize(slot_count + 1, (Pose::IDENTITY, Vec3::ZERO));
        data.slot_poses[0] = (Pose::IDENTITY, Vec3::ZERO);
        let mut poses = data.slot_poses[1..].chunks_mut(BODIES_PER_TASK);
        data.slot_solver.resize(slot_count, (None, 0));
        let mut slot_solver = data.slot_solver.chunks_mut(BODIES_PER_TASK);
        let (mut ids, mut solved, mut params) = (&mut self.awake_ids[..], &mut data.bodies[1..], &mut data.params[1..]);
        let mut tasks = Vec::with_capacity(runs.len());
        let mut first_index = 1;
        for (k, (slots, count)) in runs.into_iter().zip(counts).enumerate() {
            let run = BodyRun {
                first_slot: k * BODIES_PER_TASK,
                first_index,
                poses: poses.next().expect("one run of poses per run of slots"),
                solver_indices: slot_solver.next().expect("one run of indices per run of slots"),
                slots,
                ids: take_front(&mut ids, count),
                solved: take_front(&mut solved, count),
                params: take_front(&mut params, count),
            };
            tasks.push(run);
            first_index += count as u32;
        }
        workers::for_each_even(&data.workers, &mut tasks, 1, |run| run.gather(gravity, &changed));
        data.same_bodies = !changed.into_inner();
    }

    /// Lists every manifold of the touching, non-sensor pairs with a simulated body for the
    /// solver, each with its softness from the two masses, and notes whether any two
    /// movable bodies in touch differ much in mass (`contact_islands.rs`).
    fn gather_contacts(&mut self, ctx: &StepContext) {
        let data = &mut self.solver;
        data.pairs.clear();
        let (slots, solver_bodies) = ((&data.slot_solver[..], &data.slot_poses[..]), &data.bodies);
        let unequal = AtomicBool::new(false);
        let softness = |a: &SolverBody, b: &SolverBody| {
            if contact_islands::unequal(a.inv_mass, b.inv_mass) {
                unequal.store(true, Ordering::Relaxed);
            }
            ctx.pair_softness(a.inv_mass, b.inv_mass)
        };
        // Pushed straight into the task's list: as a chain of iterators (the two ends, then
        // the touching manifolds) this loop took 0.58 ms of balls' 5.8 ms step.
        workers::extend_by(&data.workers, &mut data.pairs, &self.contacts, CONTACTS_PER_TASK, |index, contact, out| {
            let Some(((solver_a, center_a), (solver_b, center_b))) = solved_ends(contact, slots, solver_bodies) else {
                return;
            };
            let softness = softness(&solver_bodies[solver_a as usize], &solver_bodies[solver_b as usize]);
            for (k, state) in contact.states().enumerate().filter(|(_, state)| state.manifold.count > 0) {
                out.push(PairInput {
                    contact_index: index as u32,
                    manifold_index: k as u8,
                    body_a: solver_a,
                    body_b: solver_b,
                    center_a,
                    center_b,
                    softness,
                    point_count: state.manifold.count as u8,
                });
            }
        });
        data.unequal_masses = unequal.into_inner();
    }

    /// Writes the solved motion back: centre of mass and rotation from the accumulated
    /// displacement, velocities, collider poses and proxies. A body whose state is no longer
    /// finite is taken out of the simulation and reported. Returns the bullets' start poses,
    /// to be swept to their end poses against the others' end poses (`ccd.rs`). The bodies,
    /// then the colliders, are split among the workers; only the proxies that leave their
    /// fat boxes are moved on this thread, in collider order.
    fn finalize_bodies(&mut self) -> Vec<BulletStart> {
        let mut outcomes = Vec::new();
        let solved = &self.solver.bodies;
        workers::extend_filter_mapped_mut(
            &self.solver.workers,
            &mut outcomes,
            self.bodies.slots_mut(),
            BODIES_PER_TASK,
            |slot, entry| {
                let body = entry.value_mut().filter(|b| b.solver_index != 0)?;
                finalize_body(body, &solved[body.solver_index as usize]).map(|outcome| (slot, outcome))
            },
        );
        let mut bullets = Vec::new();
        for (slot, outcome) in outcomes {
            let Some(id) = self.bodies.id_at(slot) else { continue };
            match outcome {
                Finalized::NonFinite => self.disable_body(id, "its position or velocity became non-finite"),
                Finalized::Bullet(center, rotation) => bullets.push(BulletStart { body: id, center, rotation }),
            }
        }
        self.move_solved_colliders();
        bullets
    }

    /// The colliders of the bodies just solved: world poses and boxes (split among the
    /// workers), hot poses, then the proxies that no longer hold their swept boxes.
    fn move_solved_colliders(&mut self) {
        let (bodies, broad_phase, timestep) = (&self.bodies, &self.broad_phase, self.settings.timestep);
        let mut leaving = std::mem::take(&mut self.leaving_proxies);
        leaving.clear();
        workers::extend_filter_mapped_mut(
            &self.solver.workers,
            &mut leaving,
            self.colliders.slots_mut(),
            BODIES_PER_TASK,
            |slot, entry| {
                let collider = entry.value_mut()?;
                let body = bodies.get(collider.body).filter(|b| b.solver_index != 0 && b.enabled)?;
                collider.update_world_pose(&body.pose);
                let (sweep, spin) = motion_reach(body, timestep);
                let swept = swept_bounds(&collider.aabb, sweep, spin);
                (!broad_phase.holds(collider.proxy, &swept)).then_some((slot, swept, sweep))
            },
        );
        // A hot pose always mirrors its collider's world pose (both are set together
        // everywhere else), so copying every live one updates the moved ones without asking
        // which they are.
        let colliders = &self.colliders;
        workers::for_each_indexed(&self.solver.workers, &mut self.collider_hot, BODIES_PER_TASK, |slot, hot| {
            if let Some(collider) = colliders.get_by_index(slot) {
                hot.pose = collider.world_pose;
            }
        });
        for &(slot, swept, sweep) in &leaving {
            let Some(collider) = self.colliders.get_by_index(slot) else { continue };
            let (proxy, body) = (collider.proxy, collider.body);
            // A body taken out by an earlier collider of its own has no proxies left.
            let enabled = self.bodies.get(body).is_some_and(|b| b.enabled);
            if enabled && !self.broad_phase.move_proxy_along(proxy, swept, sweep) {
                self.disable_body(body, "its motion became too large to bound (its swept bounds overflow)");
            }
        }
        self.leaving_proxies = leaving;
    }

    /// Takes a body out of the simulation: it keeps its last finite state, loses its proxies
    /// (so no pair involves it any more) and is reported in the events.
    pub(crate) fn disable_body(&mut self, id: BodyId, reason: &str) {
        let Some(body) = self.bodies.get_mut(id) else { return };
        body.enabled = false;
        body.linear_velocity = crate::math::Vec3::ZERO;
        body.angular_velocity = crate::math::Vec3::ZERO;
        let name = body.name.clone();
        let colliders = body.colliders.clone();
        for collider_id in colliders {
            if let Some(collider) = self.colliders.get_mut(collider_id) {
                if collider.proxy != NO_PROXY {
                    self.broad_phase.destroy_proxy(collider.proxy);
                    collider.proxy = NO_PROXY;
                }
            }
        }
        self.events.disabled_bodies.push(DisabledBody { body: id, name, reason: reason.to_string() });
    }
}

/// The solver index and centre of mass of each body of a touching, non-sensor pair that the
/// solver moves this step (at least one end simulated and movable); None for the others.
/// Read from the step's tables by slot (`SolverData::slot_solver`, `slot_poses`) rather
/// than from the bodies (a cache miss on each of 320 bytes: 15% of gathering the pairs).
fn solved_ends(
    contact: &Contact,
    (ids, poses): (&[SlotSolver], &[(Pose, Vec3)]),
    solver: &[SolverBody],
) -> Option<((u32, Vec3), (u32, Vec3))> {
    if !contact.touching || contact.sensor {
        return None;
    }
    let end = |id: BodyId| {
        let &(_, index) = ids.get(id.index()).filter(|(alive, _)| *alive == Some(id))?;
        Some((index, poses[id.index() + 1].1))
    };
    let (a, b) = (end(contact.body_a)?, end(contact.body_b)?);
    let (ia, ib) = (a.0 as usize, b.0 as usize);
    let moves = (ia != 0 || ib != 0) && (solver[ia].inv_mass != 0.0 || solver[ib].inv_mass != 0.0);
    moves.then_some((a, b))
}

/// Whether the solver moves `body` this step: awake, enabled and not static.
fn simulated(body: &Body) -> bool {
    body.awake && body.enabled && body.kind != BodyKind::Static
}

/// The first `count` items of `items`, which keeps the rest.
fn take_front<'a, T>(items: &mut &'a mut [T], count: usize) -> &'a mut [T] {
    let (front, rest) = std::mem::take(items).split_at_mut(count);
    *items = rest;
    front
}

/// A run of body slots, and the places of its simulated bodies in the solver's arrays.
struct BodyRun<'a> {
    /// Slot index of the run's first slot.
    first_slot: usize,
    /// Solver index of its first simulated body.
    first_index: u32,
    slots: &'a mut [Slot<Body>],
    /// The run's part of `SolverData::slot_poses`.
    poses: &'a mut [(Pose, Vec3)],
    /// The run's part of `SolverData::slot_solver`.
    solver_indices: &'a mut [SlotSolver],
    ids: &'a mut [BodyId],
    solved: &'a mut [SolverBody],
    params: &'a mut [SolverBodyParams],
}

impl BodyRun<'_> {
    /// Gives each simulated body of the run its solver index and state (the others index 0),
    /// and sets `changed` when a body's index is not the one it had in the last step. Every
    /// body notes its pose and centre of mass, id and solver index by slot.
    fn gather(&mut self, gravity: crate::math::Vec3, changed: &AtomicBool) {
        let mut k = 0;
        for (offset, slot) in self.slots.iter_mut().enumerate() {
            let id = slot.id(self.first_slot + offset);
            self.solver_indices[offset] = (id, 0);
            let Some(body) = slot.value_mut() else { continue };
            self.poses[offset] = (body.pose, body.center);
            body.solver_index = 0;
            let Some(id) = id.filter(|_| simulated(body)) else { continue };
            body.solver_index = self.first_index + k as u32;
            self.solver_indices[offset].1 = body.solver_index;
            if self.ids[k] != id {
                changed.store(true, Ordering::Relaxed);
            }
            self.ids[k] = id;
            (self.solved[k], self.params[k]) = solver_state(body, gravity);
            k += 1;
        }
    }
}

/// Fewest contact pairs per task when they are gathered in parallel.
const CONTACTS_PER_TASK: usize = 256;

/// What finalizing a body left to do on the calling thread.
enum Finalized {
    /// Its state became non-finite: it is to be taken out.
    NonFinite,
    /// A bullet: where it started the step (centre of mass, rotation), for the CCD sweep.
    Bullet(crate::math::Vec3, crate::math::Quat),
}

/// Applies the solver's result to a body (unless it is not finite) and clears the forces.
fn finalize_body(body: &mut Body, solved: &SolverBody) -> Option<Finalized> {
    let center = body.center + crate::math::Vec3::from(solved.delta_position);
    let rotation = (solved.delta_rotation * body.pose.rotation).normalize();
    let finite = center.is_finite()
        && rotation.is_finite()
        && solved.linear_velocity.is_finite()
        && solved.angular_velocity.is_finite();
    body.force = crate::math::Vec3::ZERO;
    body.torque = crate::math::Vec3::ZERO;
    if !finite {
        return Some(Finalized::NonFinite);
    }
    let bullet =
        (body.bullet && body.kind == BodyKind::Dynamic).then_some(Finalized::Bullet(body.center, body.pose.rotation));
    body.center = center;
    body.pose.rotation = rotation;
    body.sync_origin_from_center();
    body.linear_velocity = solved.linear_velocity.into();
    body.angular_velocity = solved.angular_velocity.into();
    bullet
}

/// Fewest bodies per task when their solver state is gathered in parallel.
const BODIES_PER_TASK: usize = 256;

/// A body's solver state at the start of the step (zero inverse mass and inertia unless
/// dynamic), and its integration parameters for the step: accelerations from gravity and the
/// applied force and torque, damping, world inertia.
fn solver_state(body: &Body, gravity: crate::math::Vec3) -> (SolverBody, SolverBodyParams) {
    let dynamic = body.kind == BodyKind::Dynamic;
    let gyroscopic = dynamic && !is_isotropic(&body.inertia_local);
    // The world inertia itself is read only by the gyroscopic term (zero otherwise).
    let (inv_mass, inv_inertia, inertia) = if dynamic {
        let rotation = Mat3::from_quat(body.pose.rotation);
        let inertia = if gyroscopic { rotate_inertia(rotation, body.inertia_local) } else { Mat3::ZERO };
        (body.inv_mass, rotate_inertia(rotation, body.inv_inertia_local), inertia)
    } else {
        (0.0, Mat3::ZERO, Mat3::ZERO)
    };
    let solver = SolverBody {
        delta_rotation: crate::math::Quat::IDENTITY,
        linear_velocity: body.linear_velocity.into(),
        angular_velocity: body.angular_velocity.into(),
        delta_position: crate::math::Vec3A::ZERO,
        inv_mass,
        inv_inertia,
    };
    let params = SolverBodyParams {
        linear_acceleration: gravity * body.gravity_scale + inv_mass * body.force,
        angular_acceleration: inv_inertia * body.torque,
        linear_damping: body.linear_damping,
        angular_damping: body.angular_damping,
        inertia,
        inv_inertia,
        dynamic,
        gyroscopic,
    };
    (solver, params)
}

/// True when the inertia tensor is a multiple of the identity (to 1e-5 relative): then
/// ω × Iω = 0 for every ω and the gyroscopic term can be skipped.
fn is_isotropic(inertia: &Mat3) -> bool {
    let mean = (inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z) / 3.0;
    let deviation = *inertia - Mat3::from_diagonal(crate::math::Vec3::splat(mean));
    let size = deviation
        .x_axis
        .abs()
        .max_element()
        .max(deviation.y_axis.abs().max_element())
        .max(deviation.z_axis.abs().max_element());
    size <= 1e-5 * mean.abs()
}
