//! Deep-overlap recovery: overlap beyond the contact spring's reach is pushed out by a
//! bounded displacement, not by velocity.
//!
//! A soft contact pushes with the velocity bias rate·s, capped at `max_push_velocity` P. The
//! cap bounds each contact, but contact targets are relative: along a chain of n overlapping
//! bodies the pushes add up to n·P, and the relax pass, one Gauss–Seidel sweep, cannot take
//! that separating speed back in a large cluster. Bodies spawned into each other then fly
//! apart at tens of metres per second (1,000 boxes at one point reached 171 m/s).
//!
//! So a point is deep beyond the depth d = min(P / rate, P·dt): where its push would reach
//! P, or the overlap P removes in one step, whichever is less. Resting contacts sag far less
//! (millimetres; a 100:1 heavy-on-light stack 35 mm against d = 5 cm at 60 Hz). A deep point's
//! velocity push fades from its value at d to 0 at 2d (`contact_wide`), and the overlap is
//! recovered here instead, once per solver step, after the positions are integrated:
//!
//! ```text
//! per manifold, deepest point s_min < 0:
//!   target  u = max(0, −s_min − d) / h            (the excess, removed in one step)
//!   row     n·(p_B − p_A) ≥ u,   λ = max(0, u − n·(p_B − p_A)) / (1/m_A + 1/m_B)
//!   p_A −= λ n / m_A,  p_B += λ n / m_B           (p: push velocities, linear only)
//! then per body:  p ← p · min(1, P / |p|),   Δx += h p,   p discarded
//! ```
//!
//! A manifold that overlaps but is not deep gets the target 0: the push cannot drive a body
//! deeper into a neighbour, so a cluster pushes its neighbours aside like a rigid
//! displacement. The rows are visited by support level (shock propagation): level 0 is the
//! immovable bodies, level k + 1 the bodies touching level k, found once per step by a
//! breadth-first walk over the touching pairs. A row between two levels moves only the upper
//! body, as if the lower one were immovable; rows within a level share the push by mass.
//! So the pass converges in one sweep whatever the mass ratio (a heavy box on a light one is
//! lifted, not the light one pressed into the ground), and no body is pushed down into what
//! holds it up. Changing the masses breaks momentum, which is why it is done only here: the
//! bodies' velocities are not touched, the recovery adds no kinetic energy, and the per-body
//! clamp (scaling, not turning) keeps every displacement below P. Nothing runs unless some
//! manifold starts the step deep (found while the contacts are prepared, `starts_deep`).

use super::contact_wide::{NormalMotion, WideContact};
use super::simd::Lanes;
use super::solver_body::SolverBody;
use crate::math::Vec3A;

/// How deep a point may overlap before it counts as deep, m: min(P / rate, P·dt); infinite
/// without a position bias (rate 0).
pub(crate) fn deep_depth(rate: f32, limits: &PushLimits) -> f32 {
    if rate > 0.0 {
        (limits.max_push / rate).min(limits.reach)
    } else {
        f32::INFINITY
    }
}

/// Largest push speed P, the overlap it removes in one step (P·dt), and which way is up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PushLimits {
    pub max_push: f32,
    pub reach: f32,
    /// Against gravity (zero without gravity).
    pub up: Vec3A,
}

/// The push-out pass's arrays, kept between steps so the pass allocates nothing once warm.
#[derive(Default)]
pub(crate) struct PushOut {
    /// Push velocity of each solver body, m/s.
    push: Vec<Vec3A>,
    /// Support level of each solver body (u32::MAX: not connected to an immovable body).
    level: Vec<u32>,
    /// Rows in visiting order: (lower level of the two bodies, wide contact, lane, holder).
    rows: Vec<(u32, u32, u8, Holder)>,
    /// Breadth-first walk: the bodies of each pair, sorted by body, and the queue.
    edges: Vec<(u32, u32)>,
    queue: Vec<u32>,
}

impl PushOut {
    /// Finds the support levels, the visiting order and the held supports for this step's
    /// contacts.
    pub(crate) fn prepare<F: Lanes>(
        &mut self,
        contacts: &[WideContact<F>],
        bodies: &[SolverBody],
        limits: &PushLimits,
    ) {
        self.find_levels(contacts, bodies);
        self.rows.clear();
        for (index, c) in contacts.iter().enumerate() {
            for lane in 0..F::COUNT {
                if c.point_count.get(lane) == 0.0 {
                    continue;
                }
                let (a, b) = (c.body_a.as_ref()[lane] as usize, c.body_b.as_ref()[lane] as usize);
                let holder = self.holder(c, lane, limits);
                // Rows against immovable bodies last.
                let key = match self.level[a].min(self.level[b]) {
                    0 => u32::MAX,
                    level => level,
                };
                self.rows.push((key, index as u32, lane as u8, holder));
            }
        }
        self.rows.sort_unstable_by_key(|row| (row.0, row.1, row.2));
    }

    /// Which body of `lane` holds: a dynamic body on a lower level that supports a heavier
    /// one (the normal from it within 60° of up).
    fn holder<F: Lanes>(&self, c: &WideContact<F>, lane: usize, limits: &PushLimits) -> Holder {
        let (a, b) = (c.body_a.as_ref()[lane] as usize, c.body_b.as_ref()[lane] as usize);
        let n = Vec3A::from(c.normal.lane(lane));
        let (inv_ma, inv_mb) = (c.inv_mass_a.get(lane), c.inv_mass_b.get(lane));
        let supports = |lower_to_upper: Vec3A| lower_to_upper.dot(limits.up) > 0.5;
        let dynamic = inv_ma > 0.0 && inv_mb > 0.0;
        if dynamic && self.level[a] < self.level[b] && inv_mb < inv_ma && supports(n) {
            Holder::A
        } else if dynamic && self.level[b] < self.level[a] && inv_ma < inv_mb && supports(-n) {
            Holder::B
        } else {
            Holder::Neither
        }
    }

    /// Level 0 for immovable bodies, then breadth first along the pairs.
    fn find_levels<F: Lanes>(&mut self, contacts: &[WideContact<F>], bodies: &[SolverBody]) {
        self.edges.clear();
        for c in contacts {
            for lane in (0..F::COUNT).filter(|&lane| c.point_count.get(lane) > 0.0) {
                self.edges.push((c.body_a.as_ref()[lane], c.body_b.as_ref()[lane]));
                self.edges.push((c.body_b.as_ref()[lane], c.body_a.as_ref()[lane]));
            }
        }
        self.edges.sort_unstable();
        self.level.clear();
        self.level.extend(bodies.iter().map(|b| if b.inv_mass == 0.0 { 0 } else { u32::MAX }));
        self.queue.clear();
        self.queue.extend((0..bodies.len() as u32).filter(|&i| bodies[i as usize].inv_mass == 0.0));
        let mut next = 0;
        while next < self.queue.len() {
            let body = self.queue[next];
            next += 1;
            let start = self.edges.partition_point(|e| e.0 < body);
            for &(_, other) in self.edges[start..].iter().take_while(|e| e.0 == body) {
                if self.level[other as usize] == u32::MAX {
                    self.level[other as usize] = self.level[body as usize] + 1;
                    self.queue.push(other);
                }
            }
        }
    }

    /// One push-out sweep for a solver step of `h` seconds.
    #[inline(always)]
    pub(crate) fn sweep<F: Lanes>(
        &mut self,
        contacts: &[WideContact<F>],
        bodies: &mut [SolverBody],
        limits: &PushLimits,
        h: f32,
    ) {
        self.push.clear();
        self.push.resize(bodies.len(), Vec3A::ZERO);
        let mut deepest = [0.0f32; 8];
        let mut current = u32::MAX;
        for row in 0..self.rows.len() {
            let (_, index, lane, holder) = self.rows[row];
            let c = &contacts[index as usize];
            if index != current {
                deepest = deepest_points(c, bodies);
                current = index;
            }
            self.push_row(c, bodies, lane as usize, holder, deepest[lane as usize], h);
        }
        for (body, p) in bodies.iter_mut().zip(&self.push).skip(1) {
            let speed = p.length();
            if speed > 0.0 && body.inv_mass > 0.0 {
                body.delta_position += h * *p * (limits.max_push / speed).min(1.0);
            }
        }
    }

    /// The push row of one lane whose deepest point is at `deepest` (m, negative = overlap).
    ///
    /// Where a body holds and the row pushes, the upper body's sinking speed towards it is
    /// removed as well (only the upper body's, [`stop_sinking`]): the velocity solve's sweeps
    /// cannot converge a large mass ratio, and a body held up by displacement alone would
    /// keep a sinking velocity it never acts out.
    #[inline(always)]
    fn push_row<F: Lanes>(
        &mut self,
        c: &WideContact<F>,
        bodies: &mut [SolverBody],
        lane: usize,
        holder: Holder,
        deepest: f32,
        h: f32,
    ) {
        if deepest >= 0.0 {
            return;
        }
        let (a, b) = (c.body_a.as_ref()[lane] as usize, c.body_b.as_ref()[lane] as usize);
        let n = Vec3A::from(c.normal.lane(lane));
        let inv_ma = if holder == Holder::A { 0.0 } else { c.inv_mass_a.get(lane) };
        let inv_mb = if holder == Holder::B { 0.0 } else { c.inv_mass_b.get(lane) };
        let target = (-deepest - c.deep_depth.get(lane)).max(0.0) / h;
        let closing = target - n.dot(self.push[b] - self.push[a]);
        let k = inv_ma + inv_mb;
        if closing <= 0.0 || k == 0.0 {
            return;
        }
        let impulse = n * (closing / k);
        self.push[a] -= impulse * inv_ma;
        self.push[b] += impulse * inv_mb;
        let (va, vb) = (bodies[a].linear_velocity, bodies[b].linear_velocity);
        match holder {
            Holder::A => stop_sinking(&mut bodies[b].linear_velocity, va, n),
            Holder::B => stop_sinking(&mut bodies[a].linear_velocity, vb, -n),
            Holder::Neither => {}
        }
    }
}

/// Removes the sinking speed of an upper body (velocity `upper`) held by a lower one
/// (`lower`) along `n` (lower to upper): u = n·v_upper is raised to min(n·v_lower, 0), so the
/// upper body stops sinking into the lower one but is never thrown up by a lower body that
/// is itself moving up in the middle of the solve.
fn stop_sinking(upper: &mut Vec3A, lower: Vec3A, n: Vec3A) {
    let floor = n.dot(lower).min(0.0);
    let speed = n.dot(*upper);
    if speed < floor {
        *upper += (floor - speed) * n;
    }
}

/// Which body of a push row holds (moves not at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holder {
    Neither,
    A,
    B,
}

/// The current separation of each lane's deepest point, m.
#[inline(always)]
fn deepest_points<F: Lanes>(c: &WideContact<F>, bodies: &[SolverBody]) -> [f32; 8] {
    let motion = NormalMotion::gather(&c.normal, bodies, &c.body_a, &c.body_b);
    let mut deepest = F::fill(0.0);
    for (i, p) in c.points[..c.max_points].iter().enumerate() {
        deepest = deepest.min(motion.separation(p) * c.active(i));
    }
    std::array::from_fn(|lane| if lane < F::COUNT { deepest.get(lane) } else { 0.0 })
}
