//! The solver loops. Both modes work on the same arrays (solver bodies, their integration
//! parameters, contact constraints) and differ only in how often and with which bias they
//! run the passes.
//!
//! Both start with the impacts (restitution, `impacts.rs`), then
//!
//! soft_step (default), for each of n substeps of h = dt/n:
//!   integrate velocities → warm start → solve (soft bias) → integrate positions →
//!   relax (solve without bias)
//! then store impulses.
//!
//! pgs, once per step of h = dt:
//!   integrate velocities → warm start → `iterations` × solve (Baumgarte bias, or none) →
//!   integrate positions → (ngs) `position_iterations` × position pass, then the joint trees'
//!   projection (last, so the contacts' position pass cannot leave them open) → store impulses.
//!
//! rk4 (`integrator: rk4`, either mode): one Runge–Kutta step of dt with the passes at each
//! of its four stages, then the ngs position pass (`rk4.rs`).
//!
//! Every solve pass runs the joints first (springs, motors, limits, and the rigid rows of
//! joints outside a tree), then the user constraints, then the exact tree solve of the
//! tree-shaped joint graphs, then the contacts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::batches::Batches;
use super::coloring::{self, Coloring, LaneGroup, MAX_COLORS, MAX_LANES};
use super::contact_islands::ContactIslands;
use super::contact_kernels::{with_lanes, ContactKernels, ContactLists};
use super::contact_prepare_wide::{prefetch_states, store_impulses, PairInput, PrepareSettings};
use super::contact_solver::{self as contacts, PositionParams, SolveParams};
use super::contact_wide::WideContact;
use super::integrate::{
    integrate_positions, integrate_positions_and_turn, integrate_velocities, integrate_velocity, turn_inertia,
};
use super::joints::forest::JointForest;
use super::joints::point_wide::{BallLanes, WidePointJoints};
use super::joints::user::ActiveUserConstraint;
use super::joints::{JointAnchors, JointConstraint, JointEnds, JointInput};
use super::parts::equality::PassContext;
use super::push_out::{PushLimits, PushOut};
use super::rk4::{solve_rk4, Rk4Scratch};
use super::simd_avx::eight_lanes_available;
use super::solver_body::{SolverBody, SolverBodyParams};
use super::step_context::StepContext;
use super::workers::{self, Workers};
use crate::collision::contact::Contact;
use crate::collision::manifold::MAX_MANIFOLD_POINTS;
use crate::id::BodyId;
use crate::math::{Pose, Vec3};
use crate::settings::{Integrator, PositionCorrection, SolverMode, SolverSettings};

/// A joint outside the ball joints' lanes (`SolverData::joint_lanes`).
const NO_LANE: u32 = u32::MAX;

/// What the colouring of the pairs reads of a pair: its solver bodies A and B and its point
/// count.
type PairKey = (u32, u32, u8);

/// Largest position correction of one ngs pass, metres.
const MAX_LINEAR_CORRECTION: f32 = 0.2;

/// A body slot's id (None when empty) and its solver index this step (0 when not simulated).
pub(crate) type SlotSolver = (Option<BodyId>, u32);

/// The arrays one step works on. Kept between steps so nothing is allocated once the scene
/// has reached its size.
#[derive(Default)]
pub(crate) struct SolverData {
    pub bodies: Vec<SolverBody>,
    pub params: Vec<SolverBodyParams>,
    /// The touching pairs to solve this step, each with its softness.
    pub pairs: Vec<PairInput>,
    /// Some pair in `pairs` joins two movable bodies of unequal mass
    /// (`contact_islands::unequal`); set with `pairs`.
    pub unequal_masses: bool,
    /// Graph colouring of `pairs`.
    coloring: Coloring,
    /// The lanes of each constraint group (contacts: indices into `pairs`; ball joints:
    /// into `joints`) and how many, before they are prepared.
    lane_groups: Vec<LaneGroup>,
    /// Lanes per contact constraint this step: 8 in the soft step where the CPU has AVX2
    /// (and not `four_lanes_only`), else 4.
    pub contact_width: usize,
    /// The contact constraints: `contact_width` lanes per entry, colour after colour, then
    /// the pairs that fit no colour, one lane each (solved in order, one after another).
    contacts: ContactLists,
    /// Where each colour's constraints end in `contacts` (the overflow follows the last).
    contact_colour_ends: Vec<usize>,
    /// The lanes of pairs' further manifolds, (constraint, lane), found while the impulses are
    /// stored (working list of `store_impulses`).
    further_lanes: Vec<(usize, usize)>,
    /// What the colouring and grouping of the pairs read of each pair (its two solver bodies
    /// and its point count), this step's and the last step's.
    pair_keys: Vec<PairKey>,
    previous_pair_keys: Vec<PairKey>,
    /// The body count and lane width the lane groups of the pairs were made for, when no
    /// pair went to an exact island (the groups are kept while the keys, the bodies and
    /// these are the same).
    contact_groups_made_for: Option<(usize, usize, bool)>,
    /// Steps whose pair lane groups were kept from the step before (read by tests).
    pub kept_group_steps: u64,
    /// The small contact islands solved exactly (`contact_islands.rs`); their manifolds are
    /// the last constraints in `contacts`, one lane each, from `island_start`.
    islands: ContactIslands,
    island_start: usize,
    /// The active joints between simulated bodies as gathered, and their constraints.
    pub joint_inputs: Vec<JointInput>,
    pub joints: Vec<JointConstraint>,
    /// A joint was created, destroyed, enabled, disabled or given a new kind since `joints`
    /// were built: they are built anew from the joints' kinds and saved state, instead of
    /// kept (their frames refreshed) when the gathered joints are the same as the last step's.
    pub joints_changed: bool,
    /// The simulated bodies and their solver indices are the same as in the last step (set
    /// when they are gathered).
    pub same_bodies: bool,
    /// Each joint's ends this step (what the forest's loops and the lanes' colouring depend on).
    joint_ends: Vec<JointEnds>,
    /// `joint_ends` were taken while the joints were gathered this step.
    ends_taken: bool,
    /// Every body's pose and centre of mass at the start of the step, at its arena slot + 1
    /// (0: the static world), filled when the bodies are gathered.
    pub slot_poses: Vec<(Pose, Vec3)>,
    /// Every body's id and solver index (0 when not simulated) this step, at its arena slot
    /// (None for an empty slot): how a contact finds its bodies' solver indices without
    /// reading the bodies themselves.
    pub slot_solver: Vec<SlotSolver>,
    /// Per lane of `ball_lanes` (group × width + lane): where its joint's anchors are.
    lane_anchors: Vec<JointAnchors>,
    /// The ball joints' lanes are the last step's and start this step from `lane_anchors`
    /// (their constraints' frames were not refreshed).
    lanes_kept: bool,
    /// Steps whose ball-joint lanes were kept from the step before (read by tests).
    pub kept_lane_steps: u64,
    /// The joints the per-joint loops solve (those not in lanes), in order.
    scalar_joints: Vec<u32>,
    /// Per joint: its lane group × width + lane in `ball_lanes`, or `NO_LANE`.
    pub joint_lanes: Vec<u32>,
    /// Sleeping bodies jointed to awake ones, found at the start of the step (kept to reuse
    /// its allocation).
    pub bodies_to_wake: Vec<crate::id::BodyId>,
    /// The tree-shaped joint graphs solved exactly.
    pub forest: JointForest,
    /// Plain ball joints outside the tree solve, four or eight per lane group, and their
    /// colouring.
    pub ball_lanes: BallLanes,
    pub joint_coloring: Coloring,
    /// Ball joints and contacts in four lanes even where the CPU could take eight (to compare
    /// the two).
    pub four_lanes_only: bool,
    /// The lanes of each ball joint group (indices into `joints`; the first `width` used)
    /// and how many.
    joint_lane_groups: Vec<LaneGroup>,
    /// Where each colour's lane groups end in `ball_lanes`.
    joint_colour_ends: Vec<usize>,
    /// The last step's `joint_ends`, and the version of the ends: it changes whenever
    /// they differ from the last step's.
    previous_joint_ends: Vec<JointEnds>,
    joint_ends_version: u64,
    /// The version of the joints' ends, the body count and the tree setting the lane groups
    /// and `scalar_joints` were made for (made again only when one of them changes).
    lanes_made_for: Option<(u64, usize, bool)>,
    /// Active user constraints (their boxed constraints are moved in for the step).
    pub user_constraints: Vec<ActiveUserConstraint>,
    /// Counts steps (never 0) so that joint parts know when to refresh what they compute
    /// once per step.
    pub step: u32,
    /// The RK4 step's arrays.
    pub rk4: Rk4Scratch,
    /// Some manifold starts this step deeper than its spring's reach (`push_out.rs`).
    deep_overlap: bool,
    /// The push-out pass's arrays.
    push: PushOut,
    /// The islands' batches, when the soft step solves island by island (`batches.rs`).
    batches: Batches,
    /// Nothing this step couples the islands or needs the scene-wide passes but the size of
    /// the islands (`batches.rs`).
    batchable: bool,
    /// Fewest pairs a step solves in island batches in place of `batches::MIN_PAIRS` (tests:
    /// 0 to batch any scene, `usize::MAX` to batch none).
    pub batch_min_pairs: Option<usize>,
    /// The world's worker threads (`workers.rs`).
    pub workers: Workers,
}

impl SolverData {
    fn movable(bodies: &[SolverBody], i: u32) -> bool {
        bodies[i as usize].movable()
    }

    /// Colours the pairs and prepares each colour `contact_width` at a time in lanes; pairs
    /// that fit no colour get a constraint of their own (one lane).
    fn prepare_contacts(&mut self, world_contacts: &[Contact], settings: &PrepareSettings) {
        let same_pairs = self.take_pair_keys();
        let made_for = self.islands.is_empty().then_some((self.bodies.len(), self.contact_width, self.batchable));
        if same_pairs && self.same_bodies && made_for.is_some() && self.contact_groups_made_for == made_for {
            self.kept_group_steps += 1;
        } else {
            self.group_pairs();
            self.contact_groups_made_for = made_for;
        }
        with_lanes!(self.contact_width, L => self.prepare_lanes::<L>(world_contacts, settings));
    }

    /// Takes each pair's key for this step and compares it with the last step's in the same
    /// parallel loop; true when they are all the same. The colouring and the lane groups
    /// are functions of the keys, the solver bodies (which of them are movable), the lane
    /// width and the exact islands alone: while these are the same, so are they (a pile at
    /// rest keeps its pairs from step to step, and the colouring is serial).
    fn take_pair_keys(&mut self) -> bool {
        let (keys, previous) = (&mut self.pair_keys, &mut self.previous_pair_keys);
        take_keys(&self.workers, keys, previous, &self.pairs, 1024, |p| (p.body_a, p.body_b, p.point_count))
    }

    /// Colours the pairs and cuts each colour into lane groups of `contact_width`, then the
    /// pairs that fit no colour and those of the exact islands, one lane each.
    fn group_pairs(&mut self) {
        let (bodies, pairs) = (&self.bodies, &self.pairs);
        // Lanes with equal point counts together (loops stop at a group's largest count):
        // bucket 0 holds the pairs of four points, bucket 3 those of one.
        self.coloring.build(bodies.len(), pairs.len(), |i| {
            let p = &pairs[i];
            let ends = [(p.body_a, Self::movable(bodies, p.body_a)), (p.body_b, Self::movable(bodies, p.body_b))];
            (ends, MAX_MANIFOLD_POINTS.saturating_sub(p.point_count as usize))
        });
        self.lane_groups.clear();
        self.contact_colour_ends.clear();
        let (islands, width) = (&self.islands, self.contact_width);
        let batched = self.batchable
            && self.coloring.overflow.is_empty()
            && self.batches.plan(bodies, pairs, self.batch_min_pairs);
        self.batches.active = batched;
        if batched {
            // One range for the preparation; the passes go batch by batch.
            self.batches.lane_groups(&self.coloring, width, &mut self.lane_groups);
            self.contact_colour_ends.push(self.lane_groups.len());
            self.island_start = self.lane_groups.len();
            return;
        }
        for k in 0..MAX_COLORS {
            let colour = self.coloring.colour(k).filter(|&i| islands.is_empty() || !islands.takes(i));
            self.lane_groups.extend(coloring::lane_groups(colour, width));
            self.contact_colour_ends.push(self.lane_groups.len());
        }
        let one = |i: u32| {
            let mut lanes = [0; MAX_LANES];
            lanes[0] = i;
            (lanes, 1)
        };
        let overflow = self.coloring.overflow.iter().filter(|&&i| !islands.takes(i));
        self.lane_groups.extend(overflow.map(|&i| one(i)));
        self.island_start = self.lane_groups.len();
        self.lane_groups.extend(islands.ordered_pairs.iter().map(|&i| one(i)));
    }

    /// Prepares the lane groups in constraints of `F`'s width.
    fn prepare_lanes<F: ContactKernels>(&mut self, world_contacts: &[Contact], settings: &PrepareSettings) {
        let deep = AtomicBool::new(false);
        let (bodies, pairs, groups) = (&self.bodies, &self.pairs, &self.lane_groups);
        let prepare = |c: &mut WideContact<F>, (lanes, count): &([u32; MAX_LANES], u8)| {
            F::prepare(c, &lanes[..*count as usize], pairs, world_contacts, bodies, settings);
            if c.starts_deep {
                deep.store(true, Ordering::Relaxed);
            }
        };
        // Kept from the last step and prepared in place; colour by colour, so that each
        // worker prepares the part of a colour it solves.
        let contacts = F::list(&mut self.contacts);
        contacts.resize(groups.len(), WideContact::empty());
        let mut start = 0;
        for &end in self.contact_colour_ends.iter().chain([&groups.len()]) {
            let colour = &mut contacts[start..end];
            workers::for_each_indexed_even(&self.workers, colour, 8, |k, c| {
                if let Some((lanes, count)) = groups.get(start + k + 1) {
                    prefetch_states(&lanes[..*count as usize], pairs, world_contacts);
                }
                prepare(c, &groups[start + k])
            });
            start = end;
        }
        self.deep_overlap = deep.into_inner();
        self.islands.prepare(contacts, self.island_start, &self.bodies);
    }

    /// Counts the step and returns its number (never 0).
    pub fn next_step(&mut self) -> u32 {
        self.step = self.step.wrapping_add(1).max(1);
        self.step
    }

    /// Finds the joint trees for the exact solve (when enabled) and packs the plain ball
    /// joints outside them into lanes (not with rk4, which resets impulses between solves
    /// through the joints themselves).
    fn prepare_joints(&mut self, ctx: &StepContext) {
        if !std::mem::take(&mut self.ends_taken) {
            self.take_joint_ends();
        }
        let trees = ctx.solver.exact_joint_trees;
        if trees {
            let ends = (&self.joint_ends[..], self.joint_ends_version);
            self.forest.build(&mut self.joints, ends, &self.bodies, &self.pairs);
        } else {
            self.forest.clear();
        }
        if std::mem::take(&mut self.lanes_kept) {
            self.refresh_ball_lanes();
            return;
        }
        self.ball_lanes.clear();
        if ctx.solver.integrator != Integrator::SymplecticEuler {
            self.joint_colour_ends.clear();
            self.scalar_joints.clear();
            self.scalar_joints.extend(0..self.joints.len() as u32);
            self.lanes_made_for = None;
            return;
        }
        let made_for = self.lanes_made_for_now(ctx);
        if self.lanes_made_for != made_for {
            self.colour_wide_joints();
            self.lanes_made_for = made_for;
        }
        let (joints, bodies, groups) = (&self.joints, &self.bodies, &self.joint_lane_groups);
        #[cfg(target_arch = "x86_64")]
        if self.ball_lanes.width == 8 {
            workers::extend_mapped(&self.workers, &mut self.ball_lanes.eight, groups, 16, |(lanes, count)| {
                // SAFETY: width 8 is chosen only where the CPU has AVX2.
                unsafe { WidePointJoints::pack_avx2(&lanes[..*count as usize], joints, bodies) }
            });
            return;
        }
        workers::extend_mapped(&self.workers, &mut self.ball_lanes.four, groups, 16, |(lanes, count)| {
            WidePointJoints::pack(&lanes[..*count as usize], joints, bodies)
        });
    }

    /// Takes each joint's ends for this step, and compares them with the last step's in the
    /// same parallel loop (a serial comparison of joint_grid's 19,800 ends, once for the
    /// forest and once for the lanes, took 0.1 ms a step): when any differs, or their count
    /// does, the version changes.
    fn take_joint_ends(&mut self) {
        let (ends, previous, bodies) = (&mut self.joint_ends, &mut self.previous_joint_ends, &self.bodies);
        if !take_keys(&self.workers, ends, previous, &self.joints, 256, |c| JointEnds::of(c, bodies)) {
            self.joint_ends_version += 1;
        }
    }

    /// What the ball joints' lanes would be made for this step: the version of the joints'
    /// ends, the body count and the tree setting (none with an integrator that takes no
    /// lanes).
    fn lanes_made_for_now(&self, ctx: &StepContext) -> Option<(u64, usize, bool)> {
        let lanes = ctx.solver.integrator == Integrator::SymplecticEuler;
        lanes.then_some((self.joint_ends_version, self.bodies.len(), ctx.solver.exact_joint_trees))
    }

    /// Starts the step of the joint constraints kept from the last step, when the world
    /// knows they are the same joints between the same solver bodies: then their ends are the
    /// last step's too, and so are the ball joints' lanes. The constraints outside lanes take
    /// their frames from `input_of`; those in lanes are not read at all (their lanes start
    /// the step from `lane_anchors`). Returns false, with nothing changed that matters, when
    /// some constraint's input is gone or is not that constraint's.
    pub fn begin_kept_joints(
        &mut self,
        ctx: &StepContext,
        input_of: impl Fn(&JointConstraint) -> Option<JointInput> + Sync,
    ) -> bool {
        let lanes_kept = self.lanes_made_for.is_some() && self.lanes_made_for == self.lanes_made_for_now(ctx);
        let (lanes, unmatched) = (&self.joint_lanes, AtomicBool::new(false));
        workers::for_each_indexed(&self.workers, &mut self.joints, 64, |i, c| {
            if lanes_kept && lanes.get(i).is_some_and(|&at| at != NO_LANE) {
                return;
            }
            match input_of(c).filter(|input| c.matches(input)) {
                Some(input) => c.begin_step(&input),
                None => unmatched.store(true, Ordering::Relaxed),
            }
        });
        if unmatched.into_inner() {
            return false;
        }
        (self.ends_taken, self.lanes_kept) = (true, lanes_kept);
        self.kept_lane_steps += u64::from(lanes_kept);
        true
    }

    /// Starts the step of the ball joints' lanes kept from the last step
    /// ([`WidePointJoints::refresh`]).
    fn refresh_ball_lanes(&mut self) {
        let (anchors, poses, bodies) = (&self.lane_anchors, &self.slot_poses, &self.bodies);
        let groups = &self.joint_lane_groups;
        #[cfg(target_arch = "x86_64")]
        if self.ball_lanes.width == 8 {
            workers::for_each_indexed(&self.workers, &mut self.ball_lanes.eight, 16, |g, lanes| {
                let anchors = &anchors[8 * g..8 * g + 8];
                // SAFETY: width 8 is chosen only where the CPU has AVX2.
                unsafe { lanes.refresh_avx2(groups[g].1 as usize, anchors, poses, bodies) }
            });
            return;
        }
        workers::for_each_indexed(&self.workers, &mut self.ball_lanes.four, 16, |g, lanes| {
            lanes.refresh(groups[g].1 as usize, &anchors[4 * g..4 * g + 4], poses, bodies)
        });
    }

    /// Colours the plain ball joints outside the tree solve into lane groups, four or eight
    /// at a time; the other joints, and those that fit no colour, go to the per-joint loops.
    fn colour_wide_joints(&mut self) {
        self.ball_lanes.choose_width(!self.four_lanes_only);
        let width = self.ball_lanes.width;
        self.joint_lane_groups.clear();
        self.joint_colour_ends.clear();
        self.scalar_joints.clear();
        self.joint_lanes.clear();
        self.joint_lanes.resize(self.joints.len(), NO_LANE);
        self.lane_anchors.clear();
        let (ends, joints) = (&self.joint_ends, &self.joints);
        let takes = |i: usize| ends[i].point_only && !joints[i].in_tree;
        let candidates: Vec<u32> = (0..joints.len() as u32).filter(|&i| takes(i as usize)).collect();
        if candidates.len() < 8 {
            self.scalar_joints.extend(0..joints.len() as u32);
            return;
        }
        self.scalar_joints.extend((0..joints.len() as u32).filter(|&i| !takes(i as usize)));
        self.joint_coloring.build(self.bodies.len(), candidates.len(), |k| {
            let e = &ends[candidates[k] as usize];
            ([(e.body_a, e.dynamic_a), (e.body_b, e.dynamic_b)], 0)
        });
        for k in 0..MAX_COLORS {
            for (group, count) in coloring::lane_groups(self.joint_coloring.colour(k), width) {
                let mut lanes = [0; MAX_LANES];
                self.lane_anchors.resize(width * (self.joint_lane_groups.len() + 1), JointAnchors::default());
                for (lane, &k) in group[..count as usize].iter().enumerate() {
                    lanes[lane] = candidates[k as usize];
                    let at = width * self.joint_lane_groups.len() + lane;
                    self.joint_lanes[lanes[lane] as usize] = at as u32;
                    self.lane_anchors[at] = joints[lanes[lane] as usize].anchors;
                }
                self.joint_lane_groups.push((lanes, count));
            }
            self.joint_colour_ends.push(self.joint_lane_groups.len());
        }
        if !self.joint_coloring.overflow.is_empty() {
            self.scalar_joints.extend(self.joint_coloring.overflow.iter().map(|&k| candidates[k as usize]));
            self.scalar_joints.sort_unstable();
        }
    }

    fn warm_start(&mut self) {
        for &i in &self.scalar_joints {
            self.joints[i as usize].warm_start(&mut self.bodies);
        }
        let (workers, joint_ends, contact_ends) = (&self.workers, &self.joint_colour_ends, &self.contact_colour_ends);
        let lanes = &mut self.ball_lanes;
        if lanes.width == 8 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the eight-lane groups exist only where the CPU has AVX2.
            by_colour(workers, &mut lanes.eight, joint_ends, &mut self.bodies, |w, bodies| unsafe {
                w.warm_start_avx2(bodies)
            });
        } else {
            by_colour(workers, &mut lanes.four, joint_ends, &mut self.bodies, |w, bodies| w.warm_start(bodies));
        }
        for user in &mut self.user_constraints {
            user.warm_start(&mut self.bodies);
        }
        let (contacts, bodies) = (&mut self.contacts, &mut self.bodies);
        with_lanes!(self.contact_width, L => by_colour(workers, L::list(contacts), contact_ends, bodies, |c, bodies| {
            L::warm_start(c, bodies)
        }));
    }

    /// Pushes deep overlaps apart by displacement (when some manifold started deep).
    fn push_out(&mut self, limits: &PushLimits, h: f32) {
        if self.deep_overlap {
            let (push, contacts, bodies) = (&mut self.push, &mut self.contacts, &mut self.bodies);
            with_lanes!(self.contact_width, L => L::push_out(push, L::list(contacts), bodies, limits, h));
        }
    }

    /// The contact constraints of this step in four lanes (the width of every mode but the
    /// soft step's).
    pub fn contacts_mut(&mut self) -> &mut [WideContact] {
        &mut self.contacts.four
    }

    /// One pass over every constraint: joints, user constraints, joint trees, contacts.
    pub fn solve(&mut self, params: &SolveParams, joint_pass: &PassContext) {
        for &i in &self.scalar_joints {
            self.joints[i as usize].solve(&mut self.bodies, joint_pass);
        }
        let scales = joint_pass.rigid();
        let (workers, joint_ends, contact_ends) = (&self.workers, &self.joint_colour_ends, &self.contact_colour_ends);
        let lanes = &mut self.ball_lanes;
        if lanes.width == 8 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the eight-lane groups exist only where the CPU has AVX2.
            by_colour(workers, &mut lanes.eight, joint_ends, &mut self.bodies, |w, bodies| unsafe {
                w.solve_avx2(bodies, scales)
            });
        } else {
            by_colour(workers, &mut lanes.four, joint_ends, &mut self.bodies, |w, bodies| w.solve(bodies, scales));
        }
        for user in &mut self.user_constraints {
            user.solve(&mut self.bodies, joint_pass);
        }
        self.forest.solve(&mut self.joints, &mut self.bodies, joint_pass);
        let (contacts, bodies, islands, island_start) =
            (&mut self.contacts, &mut self.bodies, &mut self.islands, self.island_start);
        with_lanes!(self.contact_width, L => {
            let contacts = L::list(contacts);
            let (coloured, _) = contacts.split_at_mut(island_start);
            by_colour(workers, coloured, contact_ends, bodies, |c, bodies| L::solve(c, bodies, params));
            L::islands(islands, contacts, bodies, params);
        });
    }

    /// Integrates velocities of every simulated body over `h` seconds.
    fn integrate_velocities(&mut self, h: f32) {
        integrate_velocities(&self.workers, &mut self.bodies, &self.params, h);
    }

    /// Integrates positions of every simulated body over `h` seconds and turns the inverse
    /// inertias with them.
    fn integrate_positions(&mut self, h: f32) {
        integrate_positions(&self.workers, &mut self.bodies, h);
    }

    /// Integrates positions over `h` seconds, pushes deep overlaps apart, then turns the
    /// inverse inertias with the bodies' rotations where a pass reads them. Without deep
    /// overlaps (nearly every step) the first and last are one loop over the bodies.
    fn move_bodies(&mut self, push: &PushLimits, h: f32) {
        let turn = self.reads_turned_inertia();
        match (self.deep_overlap, turn) {
            (true, _) => {
                self.integrate_positions(h);
                self.push_out(push, h);
                if turn {
                    turn_inertia(&self.workers, &mut self.bodies, &self.params);
                }
            }
            (false, true) => integrate_positions_and_turn(&self.workers, &mut self.bodies, &self.params, h),
            (false, false) => self.integrate_positions(h),
        }
    }

    /// Whether any pass reads the solver bodies' inverse inertias: the joints and the user
    /// constraints do, every pass. The contacts never do: each keeps its bodies' inertias
    /// from the start of the step in its lanes. Without joints, turning the inertias after
    /// every substep (two 3×3 products per body) was work nobody read: on terrain's 2,000
    /// bodies, most of them not round, a sixth of the step's instructions in free fall.
    fn reads_turned_inertia(&self) -> bool {
        !self.joints.is_empty() || !self.user_constraints.is_empty()
    }
}

/// Replaces `keys` with the key of every item, in order, and keeps the old ones in
/// `previous`; each new key is compared with the old one at its place in the same parallel
/// loop. True when they are all the same, and as many.
fn take_keys<S: Sync, K: PartialEq + Send + Sync>(
    workers: &Workers,
    keys: &mut Vec<K>,
    previous: &mut Vec<K>,
    items: &[S],
    min_len: usize,
    key: impl Fn(&S) -> K + Sync + Send,
) -> bool {
    std::mem::swap(keys, previous);
    keys.clear();
    let previous = &*previous;
    let same = AtomicBool::new(previous.len() == items.len());
    workers::extend_mapped_indexed(workers, keys, items, min_len, |i, item| {
        let key = key(item);
        if previous.get(i) != Some(&key) {
            same.store(false, Ordering::Relaxed);
        }
        key
    });
    same.into_inner()
}

/// Runs `f` on `items` colour by colour (colour k ends at `ends[k]`), the items of one colour
/// in parallel tasks when there are several workers, then the items after the last colour (those that fit
/// none) one after another. Within a colour the order does not matter: its items share no
/// movable body.
fn by_colour<T: Send>(
    workers: &Workers,
    items: &mut [T],
    ends: &[usize],
    bodies: &mut [SolverBody],
    f: impl Fn(&mut T, &mut [SolverBody]) + Sync + Send,
) {
    let mut start = 0;
    for &end in ends {
        workers::for_each_in_colour(workers, &mut items[start..end], bodies, &f);
        start = end;
    }
    for item in &mut items[start..] {
        f(item, bodies);
    }
}

/// Wall-clock split of one solve, ms.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SolveTimes {
    /// Joint trees and lanes, colouring, contact preparation, push-out preparation.
    pub prepare_ms: f64,
    /// Impacts and the solver passes (substeps or iterations).
    pub passes_ms: f64,
    /// Contact impulses stored back into the pairs.
    pub store_ms: f64,
}

/// Copies joint `i`'s impulse back from its lane in `ball_lanes` (`joint_lanes` says which)
/// into its constraint `c`, when it was packed into one this step. The world's joint store
/// does it in the pass that saves the impulses (a pass of its own over the 19,800
/// constraints of joint_grid took 0.18 ms on one thread).
pub(crate) fn unpack_lane(joint_lanes: &[u32], ball_lanes: &BallLanes, i: usize, c: &mut JointConstraint) {
    let Some(&at) = joint_lanes.get(i).filter(|&&at| at != NO_LANE) else { return };
    ball_lanes.unpack(at as usize, c);
}

/// Prepares the gathered joints and contact pairs and runs the solver for one step, then
/// stores the contact impulses back into the contact pairs (per-step units) for warm
/// starting and readout. The joints' impulses stay in `data.joints` and their lanes for the
/// world to save ([`unpack_lane`]).
pub(crate) fn solve(data: &mut SolverData, world_contacts: &mut [Contact], ctx: &StepContext) -> SolveTimes {
    let start = Instant::now();
    data.prepare_joints(ctx);
    if data.unequal_masses && ctx.solver.exact_contact_islands {
        let joints = data.joints.iter().map(|j| (j.body_a, j.body_b));
        let users = data.user_constraints.iter().map(|u| (u.body_a, u.body_b));
        data.islands.find(&data.pairs, &data.bodies, joints.chain(users).flat_map(|(a, b)| [a, b]));
    } else {
        data.islands.clear();
    }
    let soft_step = (ctx.solver.integrator, ctx.solver.mode) == (Integrator::SymplecticEuler, SolverMode::SoftStep);
    let eight = soft_step && !data.four_lanes_only && eight_lanes_available();
    data.contact_width = if eight { 8 } else { 4 };
    data.batchable = soft_step && data.islands.is_empty() && data.joints.is_empty() && data.user_constraints.is_empty();
    data.prepare_contacts(world_contacts, &ctx.prepare);
    let (contacts, bodies, push) = (&mut data.contacts, &mut data.bodies, &mut data.push);
    with_lanes!(data.contact_width, L => {
        if data.deep_overlap {
            push.prepare(L::list(contacts), bodies, &ctx.push);
        }
    });
    let prepared = Instant::now();
    with_lanes!(data.contact_width, L => L::impacts(L::list(contacts), bodies, &data.params, &ctx.impacts));
    // Impulses are stored per step: the sum over the substeps.
    let step_scale = match (ctx.solver.integrator, ctx.solver.mode) {
        (Integrator::Rk4, _) => {
            solve_rk4(data, ctx);
            1.0
        }
        (Integrator::SymplecticEuler, SolverMode::SoftStep) => {
            solve_soft_step(data, ctx);
            ctx.solver_steps as f32
        }
        (Integrator::SymplecticEuler, SolverMode::Pgs) => {
            solve_pgs(data, ctx);
            1.0
        }
    };
    let solved = Instant::now();
    let (workers, contacts, further) = (&data.workers, &mut data.contacts, &mut data.further_lanes);
    let (groups, pairs) = (&data.lane_groups, &data.pairs);
    with_lanes!(data.contact_width, L => store_impulses(workers, (L::list(contacts), groups), pairs, world_contacts, step_scale, further));
    SolveTimes {
        prepare_ms: (prepared - start).as_secs_f64() * 1e3,
        passes_ms: (solved - prepared).as_secs_f64() * 1e3,
        store_ms: solved.elapsed().as_secs_f64() * 1e3,
    }
}

fn solve_soft_step(data: &mut SolverData, ctx: &StepContext) {
    if data.batches.active {
        with_lanes!(data.contact_width, L => solve_batches::<L>(data, ctx));
        return;
    }
    let (settings, h) = (&ctx.solver, ctx.h);
    let (biased, relaxed) = &ctx.contact_passes;
    let (joint_biased, joint_relaxed) = &ctx.joint_passes;
    for _ in 0..ctx.solver_steps {
        data.integrate_velocities(h);
        if settings.warm_start {
            data.warm_start();
        }
        data.solve(biased, joint_biased);
        data.move_bodies(&ctx.push, h);
        data.forest.correct_positions(&data.joints, &mut data.bodies);
        if settings.relax {
            data.solve(relaxed, joint_relaxed);
        }
    }
}

/// The soft step island batch by island batch (`batches.rs`): each batch runs every substep
/// of the step on its own bodies and lane groups, colour by colour, in the order the
/// scene-wide passes take (so the same bits). A step with a deep overlap pushes it out over
/// the whole scene between the position integration and the relax pass, so its substeps go
/// in two halves, each over every batch.
fn solve_batches<L: ContactKernels>(data: &mut SolverData, ctx: &StepContext) {
    let (settings, h) = (&ctx.solver, ctx.h);
    let (biased, relaxed) = &ctx.contact_passes;
    let (batches, params) = (&data.batches, &data.params);
    let colours = |b: usize, contacts: &mut [WideContact<L>], f: &mut dyn FnMut(&mut WideContact<L>)| {
        let (_, mut start, ends) = batches.batch(b);
        for &end in ends {
            contacts[start..end].iter_mut().for_each(&mut *f);
            start = end;
        }
    };
    let first_half = |b: usize, bodies: &mut [SolverBody], contacts: &mut [WideContact<L>]| {
        let (members, _, _) = batches.batch(b);
        for &i in members {
            integrate_velocity(&mut bodies[i as usize], &params[i as usize], h);
        }
        if settings.warm_start {
            colours(b, contacts, &mut |c| L::warm_start(c, bodies));
        }
        colours(b, contacts, &mut |c| L::solve(c, bodies, biased));
        for &i in members {
            bodies[i as usize].advance(h);
        }
    };
    let second_half = |b: usize, bodies: &mut [SolverBody], contacts: &mut [WideContact<L>]| {
        if settings.relax {
            colours(b, contacts, &mut |c| L::solve(c, bodies, relaxed));
        }
    };
    let (workers, count) = (&data.workers, batches.len());
    let contacts = L::list(&mut data.contacts);
    if !data.deep_overlap {
        workers::for_each_batch(workers, count, &mut data.bodies, contacts, |b, bodies, contacts| {
            for _ in 0..ctx.solver_steps {
                first_half(b, bodies, contacts);
                second_half(b, bodies, contacts);
            }
        });
        return;
    }
    for _ in 0..ctx.solver_steps {
        workers::for_each_batch(workers, count, &mut data.bodies, contacts, first_half);
        L::push_out(&mut data.push, contacts, &mut data.bodies, &ctx.push, h);
        workers::for_each_batch(workers, count, &mut data.bodies, contacts, second_half);
    }
}

fn solve_pgs(data: &mut SolverData, ctx: &StepContext) {
    let (settings, dt) = (&ctx.solver, ctx.h);
    let (params, joint_pass) = (ctx.contact_passes.0, &ctx.joint_passes.0);
    data.integrate_velocities(dt);
    if settings.warm_start {
        data.warm_start();
    }
    for iteration in 0..settings.iterations {
        let reverse = iteration % 2 == 1;
        data.solve(&SolveParams { reverse, ..params }, joint_pass);
    }
    data.move_bodies(&ctx.push, dt);
    if settings.position_correction == PositionCorrection::Ngs {
        correct_positions_ngs(data, settings);
    }
}

/// The ngs position pass: `position_iterations` passes over joints, user constraints and
/// contacts (β = `baumgarte`), then the joint trees' projection.
pub(super) fn correct_positions_ngs(data: &mut SolverData, settings: &SolverSettings) {
    let position_params = PositionParams {
        baumgarte: settings.baumgarte,
        slop: settings.linear_slop,
        max_correction: MAX_LINEAR_CORRECTION,
    };
    for _ in 0..settings.position_iterations {
        for joint in &data.joints {
            joint.correct_positions(&mut data.bodies, settings.baumgarte, MAX_LINEAR_CORRECTION);
        }
        for user in &mut data.user_constraints {
            user.correct_positions(&mut data.bodies, settings.baumgarte, MAX_LINEAR_CORRECTION);
        }
        by_colour(&data.workers, &mut data.contacts.four, &data.contact_colour_ends, &mut data.bodies, |c, bodies| {
            contacts::correct_positions(c, bodies, &position_params)
        });
    }
    // Last, so that the contacts' position pass does not leave the tree joints open.
    data.forest.correct_positions(&data.joints, &mut data.bodies);
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// A 10-level pyramid of boxes at rest, onto which a sphere falls at step 100 and a box
    /// is dropped beside it at step 160 (the pairs change, and a heavy box on a light one
    /// makes an exact island for a while), stepped 240 times; with `regroup` the pairs are
    /// coloured and grouped anew every step. Every body's state bits every 20 steps, and the
    /// number of steps whose groups were kept.
    fn pyramid_with_arrivals(regroup: bool) -> (Vec<u32>, u64) {
        let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap())).unwrap();
        let add = |world: &mut World, position: Vec3, shape: Shape, density: f32| {
            let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
            world.create_collider(body, &ColliderDef::new(shape).with_density(density)).unwrap();
            body
        };
        let cube = Shape::cuboid(Vec3::splat(0.25)).unwrap();
        let mut ids = Vec::new();
        for level in 0..10 {
            for i in 0..10 - level {
                let position = Vec3::new(-2.5 + 0.5 * i as f32 + 0.25 * level as f32, 0.25 + 0.5 * level as f32, 0.0);
                ids.push(add(&mut world, position, cube.clone(), 1000.0));
            }
        }
        let mut bits = Vec::new();
        for step in 0..240 {
            if step == 100 {
                ids.push(add(&mut world, Vec3::new(0.1, 6.0, 0.1), Shape::sphere(0.3).unwrap(), 1000.0));
            }
            if step == 160 {
                let light = add(&mut world, Vec3::new(5.0, 0.25, 0.0), cube.clone(), 10.0);
                let heavy = add(&mut world, Vec3::new(5.0, 0.9, 0.0), cube.clone(), 10_000.0);
                ids.extend([light, heavy]);
            }
            if regroup {
                world.solver.contact_groups_made_for = None;
            }
            world.step(1.0 / 60.0).unwrap();
            if step % 20 == 19 {
                crate::dynamics::contact_kernels::tests::state_bits(&world, &ids, &mut bits);
            }
        }
        (bits, world.solver.kept_group_steps)
    }

    /// The pairs' colours and lane groups kept from step to step while the pairs, the bodies
    /// and the lane width are the same give the bits of ones made anew every step.
    #[test]
    fn kept_pair_groups_give_the_bits_of_new_ones() {
        let (kept, kept_steps) = pyramid_with_arrivals(false);
        let (regrouped, regrouped_steps) = pyramid_with_arrivals(true);
        assert_eq!(regrouped_steps, 0);
        assert!(kept_steps >= 60, "groups kept in {kept_steps} of 240 steps");
        crate::dynamics::contact_kernels::tests::assert_same_bits(&kept, &regrouped, "kept and regrouped");
    }

    /// 42 boxes (0.4 m) on one dynamic plank (8 m × 0.2 m × 8 m) on the ground: the plank is in
    /// 43 pairs with movable or static bodies, more than the colours, so the overflow pairs are
    /// solved in one-lane constraints after the colours. Every box rests on the plank and the
    /// plank on the ground: after 2 s each is within 2 mm of its resting height, in both modes.
    #[test]
    fn pairs_that_fit_no_colour_rest_like_the_others() {
        for solver in [SolverSettings::default(), SolverSettings::pgs(PositionCorrection::Ngs)] {
            let settings = WorldSettings { solver, sleep: false, ..Default::default() };
            let mut world = World::new(settings).unwrap();
            let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -1.0, 0.0))).unwrap();
            world
                .create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(20.0, 1.0, 20.0)).unwrap()))
                .unwrap();
            let plank = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 0.1, 0.0))).unwrap();
            world.create_collider(plank, &ColliderDef::new(Shape::cuboid(Vec3::new(4.0, 0.1, 4.0)).unwrap())).unwrap();
            let mut boxes = Vec::new();
            for i in 0..7 {
                for j in 0..6 {
                    let position = Vec3::new(-3.0 + i as f32, 0.4, -2.5 + j as f32);
                    let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
                    world.create_collider(body, &ColliderDef::new(Shape::cuboid(Vec3::splat(0.2)).unwrap())).unwrap();
                    boxes.push(body);
                }
            }
            for _ in 0..120 {
                world.step(1.0 / 60.0).unwrap();
            }
            let data = &world.solver;
            assert!(!data.coloring.overflow.is_empty(), "{:?}: no pair overflowed the colours", solver.mode);
            fn one<F: crate::dynamics::simd::Lanes>(c: &crate::dynamics::contact_wide::WideContact<F>) -> bool {
                (1..F::COUNT).all(|lane| c.point_count.get(lane) == 0.0)
            }
            let four = data.contacts.four.iter().filter(|c| one(c));
            #[cfg(target_arch = "x86_64")]
            let four = four.count() + data.contacts.eight.iter().filter(|c| one(c)).count();
            #[cfg(not(target_arch = "x86_64"))]
            let four = four.count();
            let one_lane = four;
            assert!(one_lane >= data.coloring.overflow.len());
            let plank_y = world.body(plank).unwrap().position().y;
            assert!((plank_y - 0.1).abs() < 2e-3, "{:?}: plank at {plank_y} m", solver.mode);
            for body in boxes {
                let p = world.body(body).unwrap().position();
                assert!((p.y - 0.4).abs() < 2e-3, "{:?}: box at {p}", solver.mode);
            }
        }
    }

    /// Stacks of two to four boxes and lone spheres on the ground, in rows (many small
    /// islands), with a box dropped deep into one stack at step 60 (its overlap is pushed out
    /// between the substeps' halves), stepped 150 times on `threads` workers; every body's
    /// state bits every 10 steps, the most batches of a step and how many steps started deep.
    fn small_piles(min_pairs: usize, threads: usize) -> (Vec<u32>, usize, usize) {
        let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
        world.set_threads(threads).unwrap();
        world.solver.batch_min_pairs = Some(min_pairs);
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(30.0, 0.5, 30.0)).unwrap())).unwrap();
        let cube = Shape::cuboid(Vec3::splat(0.25)).unwrap();
        let mut ids = Vec::new();
        let add = |world: &mut World, ids: &mut Vec<BodyId>, position: Vec3, shape: &Shape| {
            let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
            world.create_collider(body, &ColliderDef::new(shape.clone())).unwrap();
            ids.push(body);
        };
        for i in 0..20 {
            for j in 0..10 {
                let (x, z) = (-15.0 + 1.5 * i as f32, -7.5 + 1.5 * j as f32);
                if (i + j) % 3 == 0 {
                    add(&mut world, &mut ids, Vec3::new(x, 0.4, z), &Shape::sphere(0.4).unwrap());
                    continue;
                }
                for level in 0..2 + (i + 2 * j) % 3 {
                    add(&mut world, &mut ids, Vec3::new(x + 0.02 * level as f32, 0.25 + 0.5 * level as f32, z), &cube);
                }
            }
        }
        let (mut bits, mut most_batches, mut deep_steps) = (Vec::new(), 0, 0);
        for step in 0..150 {
            if step == 60 {
                // Into the top of the first stack, 0.2 m deep.
                add(&mut world, &mut ids, Vec3::new(-13.5, 0.8, -7.5), &cube);
            }
            world.step(1.0 / 60.0).unwrap();
            most_batches = most_batches.max(if world.solver.batches.active { world.solver.batches.len() } else { 0 });
            deep_steps += world.solver.deep_overlap as usize;
            if step % 10 == 9 {
                crate::dynamics::contact_kernels::tests::state_bits(&world, &ids, &mut bits);
            }
        }
        (bits, most_batches, deep_steps)
    }

    /// Solving island batch by batch (every substep of a batch before the next batch) gives
    /// the bits of the scene-wide passes colour by colour, on one worker and on three.
    #[test]
    fn island_batches_give_the_bits_of_the_scene_wide_passes() {
        let (scene_wide, none, _) = small_piles(usize::MAX, 1);
        assert_eq!(none, 0);
        for threads in [1, 3] {
            let (batched, batches, deep_steps) = small_piles(0, threads);
            assert!(batches >= 2, "{batches} batches");
            assert!(deep_steps >= 1, "no step started deep");
            crate::dynamics::contact_kernels::tests::assert_same_bits(&scene_wide, &batched, "scene-wide and batched");
        }
    }
}
