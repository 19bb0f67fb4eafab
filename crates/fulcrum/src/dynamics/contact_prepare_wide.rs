//! Preparing up to four contact constraints at once, straight into SIMD lanes (both solver
//! modes; a pair that fits no colour is prepared alone, in one lane): anchors, base
//! separations, the normal block K and its masked Cholesky factor, the friction centre, the
//! 2×2 tangent mass and the twist mass, computed lane-parallel; and the impulses stored back
//! into the contact pairs after the step.

use super::block::{self, REGULARISATION};
use super::coloring::LaneGroup;
use super::contact_wide::{inverse_2x2, put, put3, put_sym, WideContact};
use super::push_out::{deep_depth, PushLimits};
use super::simd::{Lanes, Sym3, F4, V3};
use super::softness::Softness;
use super::solver_body::SolverBody;
use super::workers::{self, Workers};
use crate::collision::contact::{Contact, FrictionImpulse, ManifoldState, PointImpulse};
use crate::collision::manifold::MAX_MANIFOLD_POINTS;
use crate::math::{orthonormal_basis, Vec3};

/// Fewest points of a manifold whose frame is kept (`ContactFrame`): face contacts, the ones
/// that carry stacks. An edge or a vertex touching rolls or pivots over the other body, and a
/// heap's edge and vertex contacts that flip between the two fell into a jitter with kept
/// frames (1,000 boxes from one point never slept).
const FRAME_MIN_POINTS: usize = 3;

/// One constraint to prepare: its contact pair and solver bodies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairInput {
    /// Index of the contact pair in the world's list.
    pub contact_index: u32,
    /// Which of the pair's manifolds (0 for a convex pair).
    pub manifold_index: u8,
    /// Solver body indices (0 = the shared static body).
    pub body_a: u32,
    pub body_b: u32,
    /// Centres of mass at the start of the step.
    pub center_a: Vec3,
    pub center_b: Vec3,
    /// Softness of the pair (`StepContext::pair_softness` of the two masses).
    pub softness: Softness,
    /// Manifold points.
    pub point_count: u8,
}

/// Asks the CPU to start loading the first manifold states of the pairs `lanes` (those of
/// the next group to prepare): a colour's groups visit the world's contacts out of order,
/// and each lane's first read of its contact waited on memory once the contacts no longer
/// fit the cache (many_pyramids' preparation: 4.4–4.9 → 4.3–4.4 ms a step). Only a hint:
/// nothing is read here but the pairs.
#[inline]
pub(crate) fn prefetch_states(lanes: &[u32], pairs: &[PairInput], contacts: &[Contact]) {
    #[cfg(target_arch = "x86_64")]
    for pair in lanes.iter().filter_map(|&i| pairs.get(i as usize)) {
        let Some(contact) = contacts.get(pair.contact_index as usize) else { continue };
        prefetch_state(&contact.first);
    }
}

/// Hints every cache line of the manifold state at `state` into the cache. Only the address
/// is used: nothing is read through it.
#[inline(always)]
fn prefetch_state(state: *const ManifoldState) {
    #[cfg(target_arch = "x86_64")]
    for line in 0..std::mem::size_of::<ManifoldState>().div_ceil(64) {
        // SAFETY: a prefetch is a hint that never faults.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                state.cast::<i8>().wrapping_add(64 * line),
            )
        };
    }
}

/// Step-wide inputs of prepare.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrepareSettings {
    /// Multiplies stored per-step impulses into solver units (1/substeps); 0 without warm start.
    pub warm_scale: f32,
    /// Speculative distance, m: points this far apart no longer pull the friction centre.
    pub speculative_distance: f32,
    /// The push-out's limits (deep depths).
    pub push: PushLimits,
}

/// Scalar gathers of one lane: everything that differs per manifold.
struct LaneData<F: Lanes = F4> {
    /// Each point where A's arm ends, and where B's does (the same point unless the lane
    /// solves in a kept frame, `ContactFrame`).
    position: [V3<F>; MAX_MANIFOLD_POINTS],
    position_b: [V3<F>; MAX_MANIFOLD_POINTS],
    separation: [F; MAX_MANIFOLD_POINTS],
    center_a: V3<F>,
    center_b: V3<F>,
    stored_friction: V3<F>,
    stored_rolling: V3<F>,
}

impl<F: Lanes> WideContact<F> {
    /// Prepares up to `F::COUNT` pairs (`pairs[i]` for each i of `lanes`, all from one
    /// colour) in lanes, in place (built elsewhere and
    /// moved in, the 1,952 bytes were copied once more: 2% of large_pyramid's step).
    pub(crate) fn prepare(
        &mut self,
        lanes: &[u32],
        pairs: &[PairInput],
        contacts: &[Contact],
        bodies: &[SolverBody],
        settings: &PrepareSettings,
    ) {
        self.prepare_lanes(lanes, pairs, contacts, bodies, settings)
    }

    /// [`WideContact::prepare`], inlined where it is used (in four lanes into `prepare`, in
    /// eight into the AVX2 entry point of `contact_kernels.rs`).
    #[inline(always)]
    pub(crate) fn prepare_lanes(
        &mut self,
        lanes: &[u32],
        pairs: &[PairInput],
        contacts: &[Contact],
        bodies: &[SolverBody],
        settings: &PrepareSettings,
    ) {
        *self = WideContact::empty();
        let w = self;
        let mut data = LaneData {
            position: [V3::default(); MAX_MANIFOLD_POINTS],
            position_b: [V3::default(); MAX_MANIFOLD_POINTS],
            separation: [F::fill(0.0); MAX_MANIFOLD_POINTS],
            center_a: V3::default(),
            center_b: V3::default(),
            stored_friction: V3::default(),
            stored_rolling: V3::default(),
        };
        for (lane, pair) in lanes.iter().map(|&i| &pairs[i as usize]).enumerate().take(F::COUNT) {
            w.gather_lane(lane, pair, &contacts[pair.contact_index as usize], bodies, settings, &mut data);
        }
        w.prepare_points(&data);
        w.prepare_block();
        w.prepare_friction(&data, settings);
        if w.rolling {
            w.prepare_rolling(&data, settings);
        }
    }

    /// Per-lane scalar work: ids, masses, the manifold's points, stored impulses.
    #[inline(always)]
    fn gather_lane(
        &mut self,
        lane: usize,
        pair: &PairInput,
        contact: &Contact,
        bodies: &[SolverBody],
        settings: &PrepareSettings,
        data: &mut LaneData<F>,
    ) {
        let (a, b) = (&bodies[pair.body_a as usize], &bodies[pair.body_b as usize]);
        let state = contact.state(pair.manifold_index as usize);
        let manifold = &state.manifold;
        let count = manifold.count;
        self.body_a.as_mut()[lane] = pair.body_a;
        self.body_b.as_mut()[lane] = pair.body_b;
        self.max_points = self.max_points.max(count);
        put(&mut self.point_count, lane, count as f32);
        put(&mut self.inv_mass_a, lane, a.inv_mass);
        put(&mut self.inv_mass_b, lane, b.inv_mass);
        put_sym(&mut self.inv_inertia_a, lane, &a.inv_inertia);
        put_sym(&mut self.inv_inertia_b, lane, &b.inv_inertia);
        let deep = deep_depth(pair.softness.bias_rate, &settings.push);
        // A deep manifold is being pushed apart by displacement: it is linearised afresh.
        let shallow = manifold.points().iter().all(|p| -p.separation <= deep);
        let frame = state.frame.as_deref().and_then(|f| f.kept(manifold, pair.center_a, pair.center_b));
        let frame = frame.filter(|_| shallow);
        let normal = frame.map_or(manifold.normal, |f| f.normal);
        put3(&mut self.normal, lane, normal);
        put(&mut self.friction, lane, contact.friction);
        put(&mut self.restitution, lane, contact.restitution);
        put(&mut self.bias_rate, lane, pair.softness.bias_rate);
        put(&mut self.mass_scale, lane, pair.softness.mass_scale);
        put(&mut self.impulse_scale, lane, pair.softness.impulse_scale);
        put(&mut self.deep_depth, lane, deep);
        put(&mut self.twist_impulse, lane, settings.warm_scale * state.friction_impulse.twist);
        if contact.rolling_resistance > 0.0 {
            self.rolling = true;
            put(&mut self.rolling_lever, lane, contact.rolling_resistance);
            put3(&mut data.stored_rolling, lane, state.friction_impulse.rolling);
        }
        let full = block::full_mask(count);
        let mask = match state.block_mask & full {
            0 => full,
            mask => mask,
        };
        self.mask.as_mut()[lane] = mask as u32;
        for (i, point) in manifold.points().iter().enumerate() {
            self.starts_deep |= -point.separation > deep;
            let (at_a, at_b) = match frame {
                Some(f) => f.arm_ends(i, point.position, pair.center_a, pair.center_b),
                None => (point.position, point.position),
            };
            put3(&mut data.position[i], lane, at_a);
            put3(&mut data.position_b[i], lane, at_b);
            put(&mut data.separation[i], lane, point.separation);
            let wp = &mut self.points[i];
            put(&mut wp.normal_impulse, lane, settings.warm_scale * state.impulses[i].normal);
        }
        put3(&mut data.center_a, lane, pair.center_a);
        put3(&mut data.center_b, lane, pair.center_b);
        put3(&mut data.stored_friction, lane, state.friction_impulse.linear);
    }

    /// Anchors, base separations and the normal rows' arms.
    #[inline(always)]
    fn prepare_points(&mut self, data: &LaneData<F>) {
        let n = self.normal;
        for i in 0..self.max_points {
            let active = self.active(i);
            let p = &mut self.points[i];
            let ra = data.position[i].sub(&data.center_a);
            let rb = data.position_b[i].sub(&data.center_b);
            p.anchor_a = ra;
            p.anchor_b = rb;
            p.base_separation = (data.separation[i] - n.dot(&rb.sub(&ra))) * active;
        }
    }

    /// K of the normal rows, each point's effective mass, and the factor of the active set:
    /// rows outside it (and padding) are identity rows.
    #[allow(clippy::needless_range_loop)] // K's entries read best by row and column
    #[inline(always)]
    fn prepare_block(&mut self) {
        let m = self.max_points;
        let masses = self.inv_mass_a + self.inv_mass_b;
        let arms: [(V3<F>, V3<F>); 4] = std::array::from_fn(|i| self.points[i].arms(&self.normal));
        let weighted_a: [V3<F>; 4] = std::array::from_fn(|i| self.inv_inertia_a.mul(&arms[i].0));
        let weighted_b: [V3<F>; 4] = std::array::from_fn(|i| self.inv_inertia_b.mul(&arms[i].1));
        let mut trace = F::fill(0.0);
        let mut count = F::fill(0.0);
        for i in 0..m {
            let active = self.active(i);
            for j in i..m {
                let k = masses + arms[i].0.dot(&weighted_a[j]) + arms[i].1.dot(&weighted_b[j]);
                let both = active * self.active(j);
                let identity = if i == j { F::fill(1.0) - active } else { F::fill(0.0) };
                self.k[block::sym_index(i, j)] = k * both + identity;
            }
            let k_ii = self.k[block::sym_index(i, i)];
            trace += k_ii * active;
            count += active;
        }
        self.epsilon = F::fill(REGULARISATION) * trace / count.max(F::fill(1.0));
        self.factor_block(m);
    }

    /// Cholesky of (K + εE) restricted to the active set, lane-parallel; the diagonal of the
    /// factor is stored inverted, as in `block::BlockFactor`.
    #[inline(always)]
    fn factor_block(&mut self, m: usize) {
        let inside: [F; 4] = std::array::from_fn(|i| self.in_set(i));
        // A function, not a closure: a closure is compiled without the AVX2 of the kernel it
        // sits in, and its lane arithmetic then became calls (4% of large_pyramid's step).
        #[inline(always)]
        fn entry<F: Lanes>(k: &[F; 10], inside: &[F; 4], epsilon: F, i: usize, j: usize) -> F {
            let both = inside[i] * inside[j];
            let value = k[block::sym_index(i, j)] + if i == j { epsilon } else { F::fill(0.0) };
            value * both + if i == j { F::fill(1.0) - inside[i] } else { F::fill(0.0) }
        }
        let mut l = [F::fill(0.0); 10];
        for (i, value) in l.iter_mut().enumerate() {
            // Rows past the largest manifold stay identity rows.
            *value = if [0, 4, 7, 9].contains(&i) { F::fill(1.0) } else { F::fill(0.0) };
        }
        let mut valid = F::fill(0.0).at_least(F::fill(0.0));
        for j in 0..m {
            let mut diagonal = entry(&self.k, &inside, self.epsilon, j, j);
            for p in 0..j {
                let v = l[block::sym_index(p, j)];
                diagonal -= v * v;
            }
            valid &= diagonal.above(F::fill(0.0));
            let inv = F::fill(1.0) / diagonal.max(F::fill(1e-30)).sqrt();
            l[block::sym_index(j, j)] = inv;
            for i in j + 1..m {
                let mut v = entry(&self.k, &inside, self.epsilon, i, j);
                for p in 0..j {
                    v -= l[block::sym_index(p, i)] * l[block::sym_index(p, j)];
                }
                l[block::sym_index(j, i)] = v * inv;
            }
        }
        self.factor = l;
        let bits = valid.bits();
        self.factor_valid = bits;
    }

    /// Friction centre (points about to separate weigh less), lever arms, the 2×2 tangent
    /// mass, the twist mass, and the warm-start friction projected on the new tangents.
    #[inline(always)]
    fn prepare_friction(&mut self, data: &LaneData<F>, settings: &PrepareSettings) {
        let inv_spec = F::fill(1.0 / settings.speculative_distance.max(1e-6));
        let (mut sum_a, mut sum_b, mut total) = (V3::default(), V3::default(), F::fill(0.0));
        for i in 0..self.max_points {
            let p = &self.points[i];
            let weight =
                (F::fill(1.0) - data.separation[i] * inv_spec).max(F::fill(1e-3)).min(F::fill(1.0)) * self.active(i);
            sum_a = sum_a.add_scaled(&p.anchor_a, weight);
            sum_b = sum_b.add_scaled(&p.anchor_b, weight);
            total += weight;
        }
        let inv_total = F::fill(1.0) / total.max(F::fill(1e-30));
        let (ca, cb) = (sum_a.scale(inv_total), sum_b.scale(inv_total));
        self.friction_anchor_a = ca;
        self.friction_anchor_b = cb;
        let (tangent1, tangent2) = self.tangents();
        self.tangent_mass = tangent_mass(self, (&tangent1, &tangent2), &ca, &cb);
        let twist_k = self.normal.dot(&self.inv_inertia_a.mul(&self.normal))
            + self.normal.dot(&self.inv_inertia_b.mul(&self.normal));
        self.twist_mass = twist_k.above(F::fill(0.0)).choose(F::fill(1.0) / twist_k, F::fill(0.0));
        let warm = F::fill(settings.warm_scale);
        self.friction_impulse =
            [data.stored_friction.dot(&tangent1) * warm, data.stored_friction.dot(&tangent2) * warm];
    }

    /// Rolling resistance: the lever ρ is the rolling radius, the distance along the normal
    /// from a moving body's centre of mass to the friction centre (the larger of the two), so
    /// `rolling_lever` = c·ρ; and the warm-start impulse projected on the new tangents.
    #[inline(always)]
    fn prepare_rolling(&mut self, data: &LaneData<F>, settings: &PrepareSettings) {
        let n = &self.normal;
        let moves_a = self.inv_mass_a.above(F::fill(0.0));
        let moves_b = self.inv_mass_b.above(F::fill(0.0));
        let radius_a = moves_a.choose(n.dot(&self.friction_anchor_a).magnitude(), F::fill(0.0));
        let radius_b = moves_b.choose(n.dot(&self.friction_anchor_b).magnitude(), F::fill(0.0));
        self.rolling_lever *= radius_a.max(radius_b);
        let (t1, t2) = self.tangents();
        let warm = F::fill(settings.warm_scale);
        self.rolling_impulse = [data.stored_rolling.dot(&t1) * warm, data.stored_rolling.dot(&t2) * warm];
    }

    /// Writes lane `lane`'s impulses back into its manifold's state, in per-step units
    /// (`step_scale` = substeps per step), with the block active set and the solved frame.
    fn store_lane(&self, lane: usize, state: &mut ManifoldState, step_scale: f32) {
        for i in 0..state.manifold.count {
            let p = &self.points[i];
            state.impulses[i] = PointImpulse { normal: p.normal_impulse.get(lane) * step_scale };
        }
        let (f1, f2) = (self.friction_impulse[0].get(lane), self.friction_impulse[1].get(lane));
        // The lane's tangents, as the passes derived them (`WideContact::tangents`).
        let tangents = orthonormal_basis(self.normal.lane(lane));
        state.friction_impulse = FrictionImpulse {
            linear: (f1 * tangents.0 + f2 * tangents.1) * step_scale,
            twist: self.twist_impulse.get(lane) * step_scale,
            rolling: self.rolling_torque(lane, tangents) * step_scale,
        };
        state.block_mask = self.mask.as_ref()[lane] as u8;
        self.store_frame(lane, state);
    }
}

/// Writes every lane's impulses back into the contact pairs (see `store_lane`); constraint
/// g's lanes hold the pairs `groups[g]` names. A pair's first manifold is solved in exactly
/// one lane of one constraint, so those are written by the workers in parallel, each through
/// a pointer to that one field; the further manifolds of mesh pairs (a few) follow on this
/// thread, listed in `further` (kept by the caller, so that its capacity lasts from step to
/// step).
pub(crate) fn store_impulses<F: Lanes>(
    workers: &Workers,
    (wide, groups): (&[WideContact<F>], &[LaneGroup]),
    pairs: &[PairInput],
    contacts: &mut [Contact],
    step_scale: f32,
    further: &mut Vec<(usize, usize)>,
) {
    let shared = SharedContacts { start: contacts.as_mut_ptr(), len: contacts.len() };
    let lane_pairs = |group: usize| {
        let (lanes, count) = groups.get(group).map_or((&[][..], 0), |(lanes, count)| (&lanes[..], *count as usize));
        lanes[..count.min(F::COUNT)].iter().filter_map(|&i| pairs.get(i as usize))
    };
    // The lanes of further manifolds, (constraint, lane), found by the parallel pass.
    further.clear();
    workers::extend_flat_mapped(workers, further, wide, STORE_PER_TASK, |group, c| {
        // The next constraint's pairs are read while this one's are written (they are
        // scattered over the pairs' list: each a cache miss).
        lane_pairs(group + 1).for_each(|pair| shared.prefetch_first_state(pair.contact_index as usize));
        let mut rest = [None; 8];
        for (lane, pair) in lane_pairs(group).enumerate() {
            if pair.manifold_index > 0 {
                rest[lane] = Some((group, lane));
                continue;
            }
            // SAFETY: no other lane of any constraint stores manifold 0 of this pair.
            if let Some(state) = unsafe { shared.first_state(pair.contact_index as usize) } {
                c.store_lane(lane, state, step_scale);
            }
        }
        rest.into_iter().flatten()
    });
    for &(group, lane) in further.iter() {
        let Some(pair) = lane_pairs(group).nth(lane) else { continue };
        let Some(contact) = contacts.get_mut(pair.contact_index as usize) else { continue };
        wide[group].store_lane(lane, contact.state_mut(pair.manifold_index as usize), step_scale);
    }
}

/// Fewest constraints per task when impulses are stored in parallel.
const STORE_PER_TASK: usize = 64;

/// The contact pairs lent to the tasks of `store_impulses`.
#[derive(Clone, Copy)]
struct SharedContacts {
    start: *mut Contact,
    len: usize,
}

// SAFETY: only used by `store_impulses`, whose tasks write disjoint first manifolds.
unsafe impl Send for SharedContacts {}
unsafe impl Sync for SharedContacts {}

impl SharedContacts {
    /// Hints pair `index`'s first manifold state into the cache (when in range).
    fn prefetch_first_state(&self, index: usize) {
        if index < self.len {
            // SAFETY: `index` is in range; only the field's address is computed, nothing is read.
            prefetch_state(unsafe { std::ptr::addr_of!((*self.start.add(index)).first) });
        }
    }

    /// The first manifold's state of pair `index` (None when out of range), through a
    /// pointer to that field alone.
    ///
    /// # Safety
    /// No other reference to that pair's first manifold exists while the result lives.
    #[allow(clippy::mut_from_ref)]
    unsafe fn first_state(&self, index: usize) -> Option<&mut ManifoldState> {
        (index < self.len).then(|| &mut *std::ptr::addr_of_mut!((*self.start.add(index)).first))
    }
}

impl<F: Lanes> WideContact<F> {
    /// Keeps the frame lane `lane` was solved in (normal, arms) for the next step.
    fn store_frame(&self, lane: usize, state: &mut ManifoldState) {
        let count = state.manifold.count;
        if count < FRAME_MIN_POINTS {
            state.drop_frame();
            return;
        }
        let frame = state.frame.get_or_insert_with(Box::default);
        frame.valid = true;
        frame.normal = self.normal.lane(lane);
        for (arm, point) in frame.arms.iter_mut().zip(&self.points[..count]) {
            *arm = point.anchor_a.lane(lane);
        }
        // r_B − r_A is the same for every point: c_A − c_B.
        frame.offset = self.points[0].anchor_b.lane(lane) - self.points[0].anchor_a.lane(lane);
    }

    /// The lane's accumulated rolling-resistance impulse as a world vector (zero without),
    /// given the lane's tangents.
    fn rolling_torque(&self, lane: usize, (t1, t2): (Vec3, Vec3)) -> Vec3 {
        if !self.rolling {
            return Vec3::ZERO;
        }
        let (r1, r2) = (self.rolling_impulse[0].get(lane), self.rolling_impulse[1].get(lane));
        r1 * t1 + r2 * t2
    }
}

/// Inverse of the 2×2 tangent K at the friction centre (see `contact_solver.rs`).
#[inline(always)]
fn tangent_mass<F: Lanes>(w: &WideContact<F>, (t1, t2): (&V3<F>, &V3<F>), ca: &V3<F>, cb: &V3<F>) -> [F; 3] {
    let (a1, a2, b1, b2) = (ca.cross(t1), ca.cross(t2), cb.cross(t1), cb.cross(t2));
    let (ia, ib): (&Sym3<F>, &Sym3<F>) = (&w.inv_inertia_a, &w.inv_inertia_b);
    let (ia1, ia2, ib1, ib2) = (ia.mul(&a1), ia.mul(&a2), ib.mul(&b1), ib.mul(&b2));
    let m = w.inv_mass_a + w.inv_mass_b;
    let k11 = m + a1.dot(&ia1) + b1.dot(&ib1);
    let k12 = a1.dot(&ia2) + b1.dot(&ib2);
    let k22 = m + a2.dot(&ia2) + b2.dot(&ib2);
    inverse_2x2(k11, k12, k22)
}
