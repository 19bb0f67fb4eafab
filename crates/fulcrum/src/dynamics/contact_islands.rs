//! The exact solve of small contact islands whose masses differ: every normal row of the
//! island solved together as one complementarity problem, in every pass.
//!
//! Why: a soft contact row is a spring of stiffness k = m·ω², where m = 1/K_ii is the
//! effective mass of that one row, so under a load F it rests at the sag F/(m·ω²). A light
//! body carrying a heavy one has a small m and a large F: 100 kg on a 1 kg box sat 28 mm deep.
//! Gauss–Seidel cannot do better, because a spring stiffer than its row's mass allows is
//! unstable in Gauss–Seidel sweeps. Solved together, the rows form one implicit system,
//! stable at any stiffness, so here every row is the spring of the island's heaviest body M:
//!
//! ```text
//! k = M ω²,  c = 2ζ M ω   →   compliance γ = 1/(h (c + h k)) = 1/(M a₂),  a₂ = hω(2ζ + hω)
//! ```
//!
//! (the contact's own ω and ζ; the position bias k/(c + hk)·C is the manifold's own). With K
//! the island's n×n matrix J M⁻¹ Jᵀ (row i is point i's normal), Γ = diag(γ), b the
//! velocities the points would have without any normal impulse, bias included, the
//! accumulated impulses x solve
//!
//! ```text
//! x ≥ 0,   w = (K + Γ) x + b ≥ 0,   x_i w_i = 0
//! ```
//!
//! Then the sag is F/(M ω²): a tenth of a millimetre under 1,000 kg on a 1 kg box; and the
//! light box resists tilting under the heavy load as stiffly as the heavy body would (with
//! the spring of the light box's own modes, a 1,000 kg ball on it rolled off within a
//! minute: the tilt gave way faster than the ball's weight could be carried).
//!
//! The relax pass and pgs have rigid rows (Γ = 0), and four points of one face make K
//! singular there, so K is regularised towards the impulses the points carry (`prior`): by
//! the soft pass's own Γ in the relax pass (then both passes factor the same matrix K + Γ, one
//! factorisation per step), by ε = 10⁻³·trace(K)/n in pgs (as in `block.rs`). A regularised
//! rigid pass meets only the part of the position bias some motion can meet,
//! K (K + R)⁻¹ β: the rest (depths of one face out of plane) K has no stiffness for, and
//! through R it would shift load between the points pass after pass.
//!
//! The active set S (the points that push) is found by pivoting from the last one: solve the
//! rows of S with the others at zero, drop the most negative impulse, or add the point outside
//! that approaches fastest, until neither applies. The factor of the last set is kept, so a
//! resting island costs one factorisation per step and a few substitutions per pass (a 92-row
//! island about 0.25 ms per step). Should pivoting not settle within [`MAX_PIVOTS`] changes,
//! projected Gauss–Seidel sweeps on the same problem finish from where it got.
//!
//! Which islands: those joined through dynamic bodies where some touching pair's masses differ
//! by [`MASS_RATIO`] or more, with at most [`MAX_ROWS`] normal rows (a 100 kg box on a
//! ten-box pyramid of 1 kg boxes has 92); bodies held by joints
//! take no part (their joints are solved in turn with their contacts, and exact contact rows
//! between a ragdoll's limbs fought them: the pile kept moving). Friction stays in the
//! manifolds' own rows, solved after the island's normal rows in each pass with the new normal
//! impulses as bounds. Equal-mass scenes never get here: their cost is one comparison per
//! pair in the loop that gives each pair its softness.
// Dense matrices read best with explicit row/column indices.
#![allow(clippy::needless_range_loop)]

use std::ops::Range;

use super::block::REGULARISATION;
use super::contact_prepare_wide::PairInput;
use super::contact_solver::SolveParams;
use super::contact_wide::{self, WideContact};
use super::simd::Lanes;
use super::solver_body::SolverBody;
use crate::math::{Vec3, Vec3A};
use glam::DVec3;

/// Two touching dynamic bodies whose masses differ by this factor or more put their island on
/// the exact solve. Below it the Gauss–Seidel sag stays under 3 mm, and the exact solve is
/// not free: about 1 µs per island and pass even at 8 rows (one lane per manifold, a small
/// dense LCP).
pub(crate) const MASS_RATIO: f32 = 10.0;

/// Largest island solved exactly, in normal rows (contact points); larger ones stay in the
/// coloured Gauss–Seidel passes.
pub(crate) const MAX_ROWS: usize = 128;

/// Most changes of the active set in one pass (each costs a factorisation, O(n³)); should
/// pivoting not settle by then, [`FALLBACK_SWEEPS`] projected Gauss–Seidel sweeps finish
/// from where it got.
const MAX_PIVOTS: usize = 16;
const FALLBACK_SWEEPS: usize = 32;

/// Whether two bodies with these inverse masses are both movable and differ in mass by
/// [`MASS_RATIO`] or more.
#[inline]
pub(crate) fn unequal(inv_mass_a: f32, inv_mass_b: f32) -> bool {
    inv_mass_a > 0.0 && inv_mass_b > 0.0 && inv_mass_a.max(inv_mass_b) >= MASS_RATIO * inv_mass_a.min(inv_mass_b)
}

/// Marks a pair that is solved in the colours.
const NONE: u32 = u32::MAX;

/// One body's part of a normal row: the Jacobian (linear, angular) and M⁻¹Jᵀ (the velocity
/// change per unit impulse). In f64: K·prior and J·v must cancel to the last bit outside the
/// range of K (where ε would otherwise integrate the rounding into a load shift; with the
/// f32 products a 1,000 kg ball on a 1 kg box shifted its box's ground load into a twist
/// within 30 s).
#[derive(Clone, Copy, Debug, Default)]
struct BodyPart {
    body: u32,
    linear: DVec3,
    angular: DVec3,
    delta_v: DVec3,
    delta_w: DVec3,
}

impl BodyPart {
    /// J_i·(v, ω) of this body.
    fn velocity(&self, bodies: &[SolverBody]) -> f64 {
        let b = &bodies[self.body as usize];
        self.linear.dot(Vec3::from(b.linear_velocity).as_dvec3())
            + self.angular.dot(Vec3::from(b.angular_velocity).as_dvec3())
    }
}

/// One normal row: a point of one of the island's manifolds and its movable bodies' parts.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    /// The manifold, counted from the island's first.
    contact: u32,
    point: u8,
    parts: [BodyPart; 2],
    part_count: u8,
}

impl Row {
    fn parts(&self) -> &[BodyPart] {
        &self.parts[..self.part_count as usize]
    }

    /// K_ij = Σ over the bodies both rows move: J_i,X M_X⁻¹ J_j,Xᵀ.
    fn coupling(&self, other: &Row) -> f64 {
        let mut k = 0.0;
        for p in self.parts() {
            for q in other.parts().iter().filter(|q| q.body == p.body) {
                k += p.linear.dot(q.delta_v) + p.angular.dot(q.delta_w);
            }
        }
        k
    }
}

/// The Cholesky factor of one kind of pass (soft or rigid) for the set it was made for.
#[derive(Debug, Default)]
struct Factor {
    /// Lower L with L Lᵀ = (A + R)_SS over the rows of the set only; m×m, row-major.
    l: Vec<f64>,
    /// The set, and its rows in order (m of them).
    set: Vec<bool>,
    rows: Vec<usize>,
}

impl Factor {
    /// Solves (A + R)_SS v_S = r_S for `r` given at every row; `v` is zero outside the set.
    /// `compact` is scratch.
    fn solve(&self, r: impl Fn(usize) -> f64, v: &mut [f64], compact: &mut Vec<f64>) {
        compact.clear();
        compact.extend(self.rows.iter().map(|&i| r(i)));
        substitute(&self.l, self.rows.len(), compact);
        v.iter_mut().for_each(|v| *v = 0.0);
        for (&i, value) in self.rows.iter().zip(compact.iter()) {
            v[i] = *value;
        }
    }
}

/// One island: its manifolds (a range of the contact constraints), rows, K, the factors of
/// its last active sets, and the scratch of a pass.
#[derive(Debug, Default)]
struct Island {
    contacts: Range<usize>,
    rows: Vec<Row>,
    /// K, n×n, row-major.
    k: Vec<f64>,
    /// Mass of the island's heaviest body, kg.
    heaviest: f64,
    /// ε of rigid passes in a rigid mode (pgs).
    rigid_epsilon: f64,
    /// γ of each row's soft pass (0 in a rigid mode): the regularisation of its rigid passes.
    soft_gamma: Vec<f64>,
    /// The factors of the rigid and the soft passes.
    factors: [Factor; 2],
    /// This pass: compliance of each row, ε, and which factor.
    gamma: Vec<f64>,
    /// This pass's regularisation of each row (towards `prior`), and which factor: 0 for
    /// K + Γ (the soft pass, and the rigid pass regularised by the soft Γ, the same matrix),
    /// 1 for K + εE (a rigid mode).
    regularisation: Vec<f64>,
    kind: usize,
    set: Vec<bool>,
    /// The rows' velocities without any normal impulse, bias included; the bias alone; the
    /// part of it the active rows can meet.
    b: Vec<f64>,
    bias: Vec<f64>,
    met_bias: Vec<f64>,
    prior: Vec<f64>,
    /// Scratch of the factor's solves.
    compact: Vec<f64>,
    x: Vec<f64>,
}

/// The small contact islands of this step and the arrays that find them (kept between steps).
#[derive(Debug, Default)]
pub(crate) struct ContactIslands {
    /// Union–find parent of each solver body.
    parent: Vec<u32>,
    /// Bodies held by joints this step.
    jointed: Vec<bool>,
    /// Per root body: normal rows of its island, whether some pair in it is unequal, its
    /// island number.
    root_rows: Vec<u32>,
    root_unequal: Vec<bool>,
    root_island: Vec<u32>,
    /// Island number of each pair, or NONE for pairs solved in the colours.
    pair_island: Vec<u32>,
    /// The islands' pairs, island after island, each island's in pair order.
    pub ordered_pairs: Vec<u32>,
    islands: Vec<Island>,
    count: usize,
}

impl ContactIslands {
    /// Whether pair `i` is solved here (valid after [`ContactIslands::find`]).
    pub(crate) fn takes(&self, i: u32) -> bool {
        self.pair_island.get(i as usize).is_some_and(|&island| island != NONE)
    }

    /// Whether there is any island this step.
    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// No island this step.
    pub(crate) fn clear(&mut self) {
        self.pair_island.clear();
        self.ordered_pairs.clear();
        self.count = 0;
    }

    /// Finds the islands to solve exactly (call when some pair is [`unequal`]). Bodies held by
    /// joints or user constraints (`jointed`, solver indices) take no part: their contacts stay
    /// in the colours, where they are solved in turn with the joints that hold them.
    pub(crate) fn find(&mut self, pairs: &[PairInput], bodies: &[SolverBody], jointed: impl Iterator<Item = u32>) {
        self.clear();
        self.jointed.clear();
        self.jointed.resize(bodies.len(), false);
        for body in jointed {
            self.jointed[body as usize] = true;
        }
        self.join_bodies(pairs, bodies);
        let n = bodies.len();
        self.root_rows.clear();
        self.root_rows.resize(n, 0);
        self.root_unequal.clear();
        self.root_unequal.resize(n, false);
        for p in pairs {
            if let Some(root) = self.root_of(p, bodies) {
                self.root_rows[root] += p.point_count as u32;
                self.root_unequal[root] |=
                    unequal(bodies[p.body_a as usize].inv_mass, bodies[p.body_b as usize].inv_mass);
            }
        }
        self.number_islands(pairs, bodies);
    }

    /// Union–find over the pairs of two movable bodies.
    fn join_bodies(&mut self, pairs: &[PairInput], bodies: &[SolverBody]) {
        self.parent.clear();
        self.parent.extend(0..bodies.len() as u32);
        for p in pairs {
            let (a, b) = (p.body_a as usize, p.body_b as usize);
            if !bodies[a].movable() || !bodies[b].movable() || self.jointed[a] || self.jointed[b] {
                continue;
            }
            let (a, b) = (self.root(p.body_a), self.root(p.body_b));
            // The smaller index becomes the root: the same islands for any order of pairs.
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            self.parent[high as usize] = low;
        }
    }

    /// The root of body `i`, halving the path on the way.
    fn root(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let up = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = up;
            i = up;
        }
        i
    }

    /// The root of the pair's movable body (None when neither moves or a body is jointed).
    fn root_of(&mut self, p: &PairInput, bodies: &[SolverBody]) -> Option<usize> {
        if self.jointed[p.body_a as usize] || self.jointed[p.body_b as usize] {
            return None;
        }
        let body = [p.body_a, p.body_b].into_iter().find(|&b| bodies[b as usize].movable())?;
        Some(self.root(body) as usize)
    }

    /// Numbers the qualifying islands in order of their first pair and lists their pairs.
    fn number_islands(&mut self, pairs: &[PairInput], bodies: &[SolverBody]) {
        self.root_island.clear();
        self.root_island.resize(bodies.len(), NONE);
        self.pair_island.resize(pairs.len(), NONE);
        for (i, p) in pairs.iter().enumerate() {
            let Some(root) = self.root_of(p, bodies) else { continue };
            if !self.root_unequal[root] || self.root_rows[root] as usize > MAX_ROWS {
                continue;
            }
            if self.root_island[root] == NONE {
                self.root_island[root] = self.count as u32;
                self.count += 1;
            }
            self.pair_island[i] = self.root_island[root];
        }
        let pair_island = &self.pair_island;
        self.ordered_pairs.extend((0..pairs.len() as u32).filter(|&i| pair_island[i as usize] != NONE));
        self.ordered_pairs.sort_by_key(|&i| pair_island[i as usize]);
    }

    /// Builds each island's rows and K from its manifolds, prepared one per constraint in
    /// `contacts[start..]` in the order of [`ContactIslands::ordered_pairs`].
    pub(crate) fn prepare<F: Lanes>(&mut self, contacts: &[WideContact<F>], start: usize, bodies: &[SolverBody]) {
        if self.islands.len() < self.count {
            self.islands.resize_with(self.count, Island::default);
        }
        let mut first = 0;
        for number in 0..self.count as u32 {
            let end = first
                + self.ordered_pairs[first..].iter().take_while(|&&i| self.pair_island[i as usize] == number).count();
            let island = &mut self.islands[number as usize];
            island.contacts = start + first..start + end;
            island.prepare(&contacts[island.contacts.clone()], bodies);
            first = end;
        }
    }

    /// One pass over every island: the normal rows exactly, then each manifold's friction.
    #[inline(always)]
    pub(crate) fn solve<F: Lanes>(
        &mut self,
        contacts: &mut [WideContact<F>],
        bodies: &mut [SolverBody],
        params: &SolveParams,
    ) {
        for island in &mut self.islands[..self.count] {
            let range = island.contacts.clone();
            island.solve(&mut contacts[range], bodies, params);
        }
    }
}

impl Island {
    /// The rows of every real point of the island's manifolds (lane 0 of each), K and ε.
    fn prepare<F: Lanes>(&mut self, contacts: &[WideContact<F>], bodies: &[SolverBody]) {
        self.rows.clear();
        for (index, c) in contacts.iter().enumerate() {
            let normal = c.normal.lane(0);
            for (point, p) in c.points.iter().enumerate().filter(|&(i, _)| c.active(i).get(0) > 0.0) {
                let (arm_a, arm_b) = p.arms(&c.normal);
                let mut row = Row { contact: index as u32, point: point as u8, ..Default::default() };
                let sides = [
                    (c.body_a.as_ref()[0], -normal, -arm_a.lane(0), c.inv_mass_a.get(0), c.inv_inertia_a.lane(0)),
                    (c.body_b.as_ref()[0], normal, arm_b.lane(0), c.inv_mass_b.get(0), c.inv_inertia_b.lane(0)),
                ];
                for (body, linear, angular, inv_mass, inv_inertia) in sides {
                    if bodies[body as usize].movable() {
                        let (linear, angular) = (linear.as_dvec3(), angular.as_dvec3());
                        let delta_v = linear * inv_mass as f64;
                        let delta_w = inv_inertia.as_dmat3() * angular;
                        let delta = BodyPart { body, linear, angular, delta_v, delta_w };
                        row.parts[row.part_count as usize] = delta;
                        row.part_count += 1;
                    }
                }
                self.rows.push(row);
            }
        }
        let n = self.rows.len();
        self.k.clear();
        self.k.resize(n * n, 0.0);
        // K is symmetric: the upper triangle, mirrored (exactly symmetric, and half the work).
        for i in 0..n {
            for j in i..n {
                let k = self.rows[i].coupling(&self.rows[j]);
                self.k[i * n + j] = k;
                self.k[j * n + i] = k;
            }
        }
        let trace: f64 = (0..n).map(|i| self.k[i * n + i]).sum();
        self.rigid_epsilon = REGULARISATION as f64 * trace / n.max(1) as f64;
        self.heaviest = self.heaviest_mass(contacts);
        let heaviest = self.heaviest;
        self.soft_gamma.clear();
        self.soft_gamma.extend(self.rows.iter().map(|row| {
            let c = &contacts[row.contact as usize];
            let (mass_scale, impulse_scale) = (c.mass_scale.get(0), c.impulse_scale.get(0));
            impulse_scale as f64 / (mass_scale as f64 * heaviest)
        }));
        self.factors.iter_mut().for_each(|f| f.set.clear());
        for v in [&mut self.b, &mut self.bias, &mut self.met_bias, &mut self.prior, &mut self.x, &mut self.gamma] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.set.clear();
        self.set.resize(n, false);
    }

    /// Mass of the heaviest movable body of the island's manifolds, kg.
    fn heaviest_mass<F: Lanes>(&self, contacts: &[WideContact<F>]) -> f64 {
        contacts
            .iter()
            .flat_map(|c| [c.inv_mass_a.get(0), c.inv_mass_b.get(0)])
            .filter(|&inv| inv > 0.0)
            .map(|inv| 1.0 / inv as f64)
            .fold(f64::MIN_POSITIVE, f64::max)
    }

    /// This pass's regularisation: none in a soft pass (K + Γ is positive definite); the soft
    /// pass's Γ in a rigid pass of the soft step, so that both passes factor the same matrix
    /// (one factorisation per step); ε in a rigid mode.
    fn choose_regularisation(&mut self) {
        let n = self.rows.len();
        self.regularisation.clear();
        if self.gamma.iter().all(|&g| g > 0.0) {
            self.regularisation.resize(n, 0.0);
            self.kind = 0;
        } else if self.soft_gamma.iter().all(|&g| g > 0.0) {
            self.regularisation.extend_from_slice(&self.soft_gamma);
            self.kind = 0;
        } else {
            self.regularisation.resize(n, self.rigid_epsilon);
            self.kind = 1;
        }
    }

    /// One pass: b and the soft scales from the current velocities and separations, the exact
    /// normal impulses, their change applied to the bodies, then each manifold's friction.
    #[inline(always)]
    fn solve<F: Lanes>(&mut self, contacts: &mut [WideContact<F>], bodies: &mut [SolverBody], params: &SolveParams) {
        let n = self.rows.len();
        let mut contact = usize::MAX;
        let (mut bias, mut gamma) = ([0.0f32; 4], 0.0);
        for (i, row) in self.rows.iter().enumerate() {
            if row.contact as usize != contact {
                contact = row.contact as usize;
                let (mass_scale, impulse_scale);
                (bias, mass_scale, impulse_scale) = contact_wide::lane_zero_biases(&contacts[contact], bodies, params);
                // γ = 1/(M a₂) with a₂ = mass_scale/impulse_scale; 0 for a rigid row.
                gamma = impulse_scale as f64 / (mass_scale as f64 * self.heaviest);
            }
            let velocity: f64 = row.parts().iter().map(|p| p.velocity(bodies)).sum();
            self.gamma[i] = gamma;
            self.bias[i] = bias[row.point as usize] as f64;
            self.b[i] = velocity + self.bias[i];
            self.prior[i] = contacts[contact].points[row.point as usize].normal_impulse.get(0) as f64;
        }
        // b = v − K·prior: the velocities without any normal impulse.
        for i in 0..n {
            self.b[i] -= dot(&self.k[i * n..(i + 1) * n], &self.prior);
        }
        self.choose_regularisation();
        self.solve_lcp();
        for (i, row) in self.rows.iter().enumerate() {
            let delta = self.x[i] - self.prior[i];
            for p in row.parts() {
                let body = &mut bodies[p.body as usize];
                body.linear_velocity += Vec3A::from((p.delta_v * delta).as_vec3());
                body.angular_velocity += Vec3A::from((p.delta_w * delta).as_vec3());
            }
            let impulse = &mut contacts[row.contact as usize].points[row.point as usize].normal_impulse;
            contact_wide::put(impulse, 0, self.x[i] as f32);
        }
        if params.friction {
            for c in contacts.iter_mut() {
                contact_wide::solve_friction_rows(c, bodies);
            }
        }
    }

    /// Entry (i, j) of A = K + Γ.
    fn a(&self, i: usize, j: usize) -> f64 {
        let n = self.rows.len();
        self.k[i * n + j] + if i == j { self.gamma[i] } else { 0.0 }
    }

    /// (A v)_i.
    fn a_times(&self, v: &[f64], i: usize) -> f64 {
        let n = self.rows.len();
        dot(&self.k[i * n..(i + 1) * n], v) + self.gamma[i] * v[i]
    }

    /// The factor of this pass's kind.
    fn factor(&self) -> &Factor {
        &self.factors[self.kind]
    }

    /// Finds x for the current b, Γ and prior (into `self.x`).
    fn solve_lcp(&mut self) {
        let n = self.rows.len();
        if self.b.iter().all(|&b| b >= 0.0) {
            // Nothing approaches even without impulses.
            self.x.iter_mut().for_each(|x| *x = 0.0);
            return;
        }
        // Start from the set of the cached factor, else the points that carry impulse, else all.
        if self.factor().set.len() == n {
            let kind = self.kind;
            self.set.copy_from_slice(&self.factors[kind].set);
        } else {
            let any = self.prior.iter().any(|&p| p > 0.0);
            for i in 0..n {
                self.set[i] = !any || self.prior[i] > 0.0;
            }
        }
        for _ in 0..MAX_PIVOTS.min(2 * n + 4) {
            self.solve_set();
            if !self.pivot() {
                return;
            }
        }
        // From the last pivot's impulses, those that push.
        for x in &mut self.x {
            *x = x.max(0.0);
        }
        self.projected_gauss_seidel(FALLBACK_SWEEPS);
    }

    /// One pivot of the active set: the most negative impulse leaves; else the point outside
    /// that approaches fastest joins. False when x solves the problem.
    fn pivot(&mut self) -> bool {
        let n = self.rows.len();
        let most_negative =
            (0..n).filter(|&i| self.set[i] && self.x[i] < 0.0).min_by(|&i, &j| self.x[i].total_cmp(&self.x[j]));
        if let Some(i) = most_negative {
            self.set[i] = false;
            return true;
        }
        let approach = |i: usize| self.a_times(&self.x, i) + self.b[i];
        let fastest = (0..n)
            .filter(|&i| !self.set[i])
            .map(|i| (i, approach(i)))
            .filter(|&(i, w)| w < -1e-6 * (1.0 + self.b[i].abs()))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match fastest {
            Some((i, _)) => {
                self.set[i] = true;
                true
            }
            None => false,
        }
    }

    /// x for the current set: (A_SS + εE) x_S = −(b_S − β_S + β̂_S) + ε prior_S, zero outside,
    /// with the cached factor when the set is the factor's. β is the rows' position bias and
    /// β̂ = A_SS (A_SS + εE)⁻¹ β_S its part that some motion of the bodies can meet (all of it
    /// when ε = 0).
    fn solve_set(&mut self) {
        if self.factor().set != self.set {
            self.factor_active_set();
        }
        let factor = &self.factors[self.kind];
        self.met_bias.copy_from_slice(&self.bias);
        // Only a regularised pass needs the projection, and only where a row of the set has a
        // bias (the relax pass biases separated points alone, which rarely push).
        let biased = factor.rows.iter().any(|&i| self.bias[i] != 0.0);
        if biased && self.regularisation.iter().any(|&r| r > 0.0) {
            let bias = &self.bias;
            factor.solve(|i| bias[i], &mut self.x, &mut self.compact);
            for &i in &factor.rows {
                // x is zero outside the set.
                self.met_bias[i] = self.a_times(&self.x, i);
            }
        }
        let (b, bias, met, reg, prior) = (&self.b, &self.bias, &self.met_bias, &self.regularisation, &self.prior);
        factor.solve(|i| -(b[i] - bias[i] + met[i]) + reg[i] * prior[i], &mut self.x, &mut self.compact);
    }

    /// Cholesky of (A + R)_SS for the current set, over its rows only.
    fn factor_active_set(&mut self) {
        let mut factor = std::mem::take(&mut self.factors[self.kind]);
        factor.rows.clear();
        factor.rows.extend((0..self.rows.len()).filter(|&i| self.set[i]));
        let m = factor.rows.len();
        let l = &mut factor.l;
        l.clear();
        l.resize(m * m, 0.0);
        for (cj, &j) in factor.rows.iter().enumerate() {
            for (ci, &i) in factor.rows.iter().enumerate().skip(cj) {
                let mut v = self.a(i, j) + if i == j { self.regularisation[i] } else { 0.0 };
                v -= dot(&l[ci * m..ci * m + cj], &l[cj * m..cj * m + cj]);
                l[ci * m + cj] = if ci == cj { v.max(1e-300).sqrt() } else { v / l[cj * m + cj] };
            }
        }
        factor.set.clone_from(&self.set);
        self.factors[self.kind] = factor;
    }

    /// The fallback: `sweeps` projected Gauss–Seidel sweeps on the same problem, from `x`.
    fn projected_gauss_seidel(&mut self, sweeps: usize) {
        let n = self.rows.len();
        for _ in 0..sweeps {
            for i in 0..n {
                let ax = self.a_times(&self.x, i);
                let residual = ax + self.b[i] + self.regularisation[i] * (self.x[i] - self.prior[i]);
                self.x[i] = (self.x[i] - residual / (self.a(i, i) + self.regularisation[i])).max(0.0);
            }
        }
        self.factors[self.kind].set.clear();
    }
}

/// Solves L Lᵀ v' = v in place with the lower factor L (n×n, row-major).
fn substitute(l: &[f64], n: usize, v: &mut [f64]) {
    for i in 0..n {
        v[i] = (v[i] - dot(&l[i * n..i * n + i], &v[..i])) / l[i * n + i];
    }
    // Lᵀ column by column: once x_i is known, it leaves the rows above it (row i of L is
    // contiguous, column i is not).
    for i in (0..n).rev() {
        v[i] /= l[i * n + i];
        let x = v[i];
        for (value, l) in v[..i].iter_mut().zip(&l[i * n..i * n + i]) {
            *value -= l * x;
        }
    }
}

/// a·b in four running sums (one chain of additions would wait on itself every step).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (chunks_a, chunks_b) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = chunks_a.remainder().iter().zip(chunks_b.remainder()).map(|(x, y)| x * y).sum();
    let mut sums = [0.0f64; 4];
    for (x, y) in chunks_a.zip(chunks_b) {
        for k in 0..4 {
            sums[k] += x[k] * y[k];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An island of random rows: the pivoting answer is a complementary solution, and the
    /// Gauss–Seidel fallback reaches the same one.
    #[test]
    fn pivoting_solves_random_problems_like_gauss_seidel() {
        let mut seed = 11u32;
        let mut next = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        for _ in 0..200 {
            let n = 6;
            let mut island = Island::default();
            // Rows on three bodies with random Jacobians: K = J M⁻¹ Jᵀ is positive semidefinite.
            for i in 0..n {
                let mut row = Row { contact: i as u32, ..Default::default() };
                for (slot, body) in [(0, i % 3), (1, (i + 1) % 3)] {
                    let linear = DVec3::new(next() as f64, next() as f64, next() as f64);
                    let angular = DVec3::new(next() as f64, next() as f64, next() as f64);
                    let inv_mass = [1.0, 0.01, 0.3][body];
                    row.parts[slot] = BodyPart {
                        body: body as u32,
                        linear,
                        angular,
                        delta_v: linear * inv_mass,
                        delta_w: angular * 2.0,
                    };
                }
                row.part_count = 2;
                island.rows.push(row);
            }
            island.k = (0..n * n).map(|e| island.rows[e / n].coupling(&island.rows[e % n])).collect();
            island.regularisation = vec![1e-6; n];
            island.gamma = vec![0.0; n];
            island.b = (0..n).map(|_| next() as f64).collect();
            island.bias = vec![0.0; n];
            island.met_bias = vec![0.0; n];
            island.prior = vec![0.0; n];
            island.x = vec![0.0; n];
            island.set = vec![false; n];
            island.solve_lcp();
            for i in 0..n {
                let w: f64 = (0..n).map(|j| island.k[i * n + j] * island.x[j]).sum::<f64>() + island.b[i];
                assert!(island.x[i] >= 0.0 && w >= -1e-4, "x {:?} w {w}", island.x);
                assert!(island.x[i] * w.abs() < 1e-4, "not complementary: x {:?} w {w}", island.x);
            }
            let pivoted = island.x.clone();
            island.x.copy_from_slice(&island.prior);
            island.projected_gauss_seidel(8 * n);
            for (a, b) in pivoted.iter().zip(&island.x) {
                assert!((a - b).abs() < 1e-3 * (1.0 + a.abs()), "pivoting {pivoted:?} against sweeps {:?}", island.x);
            }
        }
    }
}
