//! Exact solve of tree-shaped joint graphs, in time linear in the number of joints.
//!
//! Iterative solvers let a chain stretch when a heavy body hangs on light links: each row
//! only sees its neighbours' last impulses, and information travels one link per pass. For
//! joints whose graph over the dynamic bodies is a forest (chains, ropes, ragdolls,
//! bridges), the equality rows of all joints of a tree are solved together, exactly:
//!
//! ```text
//! K λ = r,   K = J M⁻¹ Jᵀ,   r = −(J v + bias_rate · C)
//! ```
//!
//! by eliminating the joints from the leaves to the root (Baraff's linear-time method, in the
//! articulated-body form). Each body u carries an effective inverse mass W_u (6×6) and a bias
//! velocity s_u: its velocity change is Δv_u = W_u p + s_u for an impulse p from the joints
//! not yet eliminated. Eliminating joint j between the child side c (fully eliminated, or
//! none for a joint to the static world) and the parent side u:
//!
//! ```text
//! B   = J_c W_c J_cᵀ + J_u W_u J_uᵀ
//! t_j = B⁻¹ (r_j − J_c s_c − J_u s_u),        G_j = B⁻¹ J_u W_u
//! s_u += (J_u W_u)ᵀ t_j,                     W_u −= (J_u W_u)ᵀ G_j
//! ```
//!
//! Then from the root back to the leaves, with p_u the impulse on u from joints eliminated
//! later: λ_j = t_j − G_j p_u, p_u += J_uᵀ λ_j, p_c += J_cᵀ λ_j. The elimination order is, for
//! each body in post-order, its joints to the static world, then the joint to its parent, so
//! every B is positive definite and nothing fills in.
//!
//! The solve runs in every pass after the joints' springs, motors and limits, so at the end
//! of each pass the tree's joints hold exactly. It runs in f64 (see [`Real`]). Joints that
//! close loops between dynamic bodies are left out of the elimination and solved with it
//! through its Schur complement, and rows a loop repeats are left out once per step (module
//! `loops`); a connected group whose loop-closing joints have more than
//! `loops::MAX_CLOSURE_ROWS` rows keeps the iterative solver: its joints are not taken.
//!
//! Limits (one-sided rows, C = gap ≥ 0, λ ≥ 0). A limit solved on its own row sees the
//! wrong inertia when the joint's bodies hang on other joints: an elbow limit that takes the
//! upper arm for free, while the shoulder holds it, stops a quarter to a half of the forearm
//! per pass, piles up impulse over the passes, and the warm start of that impulse throws the
//! forearm back off the limit (a 10 rad/s hit bounced off at 4.5 rad/s; elbows in a ragdoll
//! pile bent 0.33 rad past their limits). So the tree also holds a joint's limit rows as
//! equality rows while they push, an active set per pass:
//! - engaged: rows touched or passed (gap ≤ 0), rows the joint's own limit solve pushed on
//!   in this pass or earlier (accumulated impulse > 0: it detects the contact), and rows the
//!   current velocity would pass within the step;
//! - an engaged row not yet reached has the speculative target J v = −gap / h (reach the
//!   limit, not pass it), a passed one J v = −bias_rate · C like the equality rows;
//! - after each elimination every engaged row whose accumulated impulse would become
//!   negative (it would pull) is released: its impulse is taken back and the tree is solved
//!   again without it (at most [`MAX_ACTIVE_SET_ROUNDS`] eliminations, usually one or two).
//!
//! The projection holds the limit rows passed by more than the slop, pushing them back.
//!
//! Look-ahead (energy). J v = 0 at the start of a substep and again after the position
//! update drops the velocity the joints' turn leaves across the new rows, a fraction (hω)² of
//! the kinetic energy per substep (a 1 m bar pendulum lost 24% in 10 s). In the biased pass
//! the equality rows therefore aim at the joints as they will be after the step:
//!
//! ```text
//! J v = −[C(pose + h v) − C]/h        C(pose + h v): the rows' error at the poses the
//!                                     integrator will produce from the current velocities
//! ```
//!
//! a SHAKE step along the start-of-step rows (the relax pass, J v = 0 at the new poses, is
//! its RATTLE half). The part beyond J v = 0 is carried as a second right-hand side through
//! the same elimination and added per tree only when the tree is well conditioned for it
//! (see [`JointForest::add_look_ahead`]) and touches nothing and holds no limit. The current
//! error C stays the projection's.
//!
//! Redundant rows (a planar loop repeats its out-of-plane rows) are found in f64 from the
//! rows' geometry once per step and zeroed (module `loops`); a block that is still singular
//! (exact repeats) leaves them out of its inverse (`dense::inverse_independent`).
//!
//! Positions (post-stabilisation). Velocities with J v = 0 still let a fast-turning chain
//! drift apart within a substep (the rows are linear, the motion is not). So the velocity
//! solve carries no position bias (except in pgs mode with Baumgarte correction, which has
//! no projection), and after each substep's position update the same elimination projects
//! the positions back: K Δ = −C, then Δx = W Jᵀ Δ, velocities untouched. Three choices make
//! the projection hold under large mass ratios:
//! - The metric W is the mass-normalised one, diag(I₃, m I⁻¹) per body, not M⁻¹. In M⁻¹ a
//!   heavy end mass makes turning light links the cheapest way to close a small stretch of a
//!   nearly straight chain, a near-singular direction where the linear step turns links a
//!   long way and its second-order error exceeds the error it removes. The geometric metric
//!   moves the heavy body as readily as a light one.
//! - A trust region: a step that would move any body more than 2 cm or turn it more than
//!   0.05 rad is scaled down as a whole.
//! - Newton iterations: the projection repeats (at most 8 times) while some row's error is
//!   above 1 mm, and removes only the error beyond a 0.5 mm slop, so joints that hold well (a
//!   slow pendulum) are never moved by it.

// Small fixed-size matrices read best with explicit row/column indices.
#![allow(clippy::needless_range_loop)]

mod loops;

use super::{JointConstraint, JointEnds, JointSolver};
use crate::dynamics::contact_prepare_wide::PairInput;
use crate::dynamics::island::UnionFind;
use crate::dynamics::parts::dense::{inverse_independent, Square, MAX_ROWS};
use crate::dynamics::parts::equality::{PassContext, RowScales};
use crate::dynamics::parts::frames::Frames;
use crate::dynamics::parts::row::JacobianRow;
use crate::dynamics::solver_body::SolverBody;
use crate::math::{integrate_rotation, Mat3, Vec3, Vec3A};
use loops::{ClosureJoint, LoopScratch, MAX_CLOSURE_ROWS};

/// The scalar of the elimination. f64, not f32: a thin link's inverse inertia about its long
/// axis is 10⁴ times its inverse mass (a bar 2 cm square, 1 m long), and the reduced effective
/// masses W_u lose the small pivots of its rows to cancellation in f32 (a four-bar of such
/// bars blew up within 2 s; the same bars 6 cm square held).
type Real = f64;
type Vec6 = [Real; MAX_ROWS];
type Mat6 = Square<Real>;

/// What the right-hand side of an elimination is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// r = −(J v + bias_rate · C): a velocity pass; with `look_ahead` the equality rows have
    /// r = −C(pose + h v)/h instead (see the module comment). An engaged limit row that is not
    /// yet reached (gap > 0) has r = −(J v + gap / h).
    Velocity { bias_rate: f32, inv_h: f32, h: f32, look_ahead: bool },
    /// r = −C: a position projection.
    Position,
}

/// A tree joint in elimination order, with what one pass computes for it.
#[derive(Clone, Copy, Debug)]
struct TreeJoint {
    /// Index in the step's joint constraints.
    constraint: u32,
    /// Local index of the parent-side body (always dynamic).
    parent: u32,
    /// Local index of the child-side body, or `NONE`.
    child: u32,
    /// Body A of the joint is the parent side.
    parent_is_a: bool,
    /// Number of equality rows.
    dim: usize,
    /// Rows in the current elimination: the equality rows, then the limit rows held
    /// (`rows[dim..used]`).
    used: usize,
    /// The joint's index of each limit row held (`limit_of[dim..used]`).
    limit_of: [u8; MAX_ROWS],
    /// The joint's limit rows engaged in this velocity pass (bit i: limit row i).
    engaged: u8,
    /// The joint's equality rows left out this step as dependent on others (bit i: row i;
    /// see `loops`).
    dropped: u8,
    rows: [JacobianRow; MAX_ROWS],
    /// B⁻¹ on the independent rows, and J_u W_u, of the last elimination: the factor that
    /// further right-hand sides go through (`forward`).
    inverse: Mat6,
    jw_u: [Vec6; MAX_ROWS],
    g: Mat6,
    /// t for the two right-hand sides: [the pass's target, the look-ahead's].
    t: [Vec6; 2],
    /// The look-ahead's requested change of J v per row (0 without look-ahead).
    ahead: Vec6,
    /// ½ Σ ahead_i² / K_ii: what the look-ahead would cost in kinetic energy if the rows
    /// were independent.
    ahead_floor: Real,
    /// Its tree may look ahead this step (no body of it touches anything).
    looks_ahead: bool,
    /// λ of the last back-substitution.
    lambda: Vec6,
    /// The look-ahead part of the last back-substitution.
    lambda_ahead: Vec6,
}

const NONE: u32 = u32::MAX;

/// Error (metres or radians) a position projection leaves alone: only the excess is
/// removed, so joints that hold well (a slow pendulum) are never moved by it.
const PROJECTION_SLOP: f32 = 5e-4;

/// A projection runs only when some row's error exceeds this.
const PROJECTION_TRIGGER: f32 = 2.0 * PROJECTION_SLOP;

/// The trust region of one projection: no body moves further than this (metres) or turns
/// further than this (radians); a larger step is scaled down as a whole. Near a straight
/// chain the linear step that closes a small stretch turns light links a long way, and its
/// second-order error would be larger than the error it removes.
const MAX_PROJECTION_SHIFT: f32 = 0.02;
const MAX_PROJECTION_TURN: f32 = 0.05;

/// How much more kinetic energy than independent rows would need a tree's look-ahead may
/// cost (see [`JointForest::add_look_ahead`]): a bar pendulum needs up to 4, a double
/// pendulum up to 8, a 20-link chain with a 100:1 end 100 to 1000.
const LOOK_AHEAD_TRUST: f32 = 16.0;

/// Most eliminations of one velocity pass: each round after the first releases the engaged
/// limits the previous one made pull.
const MAX_ACTIVE_SET_ROUNDS: usize = 4;

/// Most projections per call (8: with 4, a 30-link chain with a 1000:1 end opened up to 2 cm
/// at some tilts of gravity). One is a Newton step on the non-linear constraints; a chain
/// pulled nearly straight needs a few (the step that closes a sideways gap opens a small
/// one along the chain).
const MAX_PROJECTIONS: usize = 8;

/// The forest of this step's tree joints and the working arrays of the solve.
#[derive(Default)]
pub(crate) struct JointForest {
    order: Vec<TreeJoint>,
    /// Solver index of each local body.
    bodies: Vec<u32>,
    /// Local index of each solver body (`NONE` outside the forest).
    local: Vec<u32>,
    w: Vec<Mat6>,
    s: Vec<[Vec6; 2]>,
    p: Vec<[Vec6; 2]>,
    /// Displacement and rotation vector of each local body in a projection.
    shift: Vec<(Vec3, Vec3)>,
    union_find: UnionFind,
    loopy: Vec<bool>,
    /// Tree joints of each local body (CSR: `adjacency[start[b]..start[b + 1]]`).
    start: Vec<u32>,
    adjacency: Vec<u32>,
    /// Where each tree's joints start in `order`, and the end of the last tree.
    trees: Vec<u32>,
    /// Per local body: it is in a touching contact pair (working array).
    touching: Vec<bool>,
    /// The joints that close loops between dynamic bodies, sorted by tree (see `loops`).
    closures: Vec<ClosureJoint>,
    /// Per constraint: it closes a loop (working array of `build`).
    closing: Vec<bool>,
    /// Per union-find root: rows of the joints that close loops in its component.
    closure_rows: Vec<usize>,
    /// The closure rows' residual demand in one loop solve.
    residual: Vec<f64>,
    /// Per local body: external impulse, bias velocity and tree impulse of one loop column.
    col_ext: Vec<Vec6>,
    col_s: Vec<Vec6>,
    col_p: Vec<Vec6>,
    /// Per tree joint: t of one loop column.
    col_t: Vec<Vec6>,
    /// Per local body: its tree (working array of `build`).
    tree_of: Vec<u32>,
    /// The loop solves' other working arrays.
    scratch: LoopScratch,
    /// The version of the joints' ends (see `SolverData::prepare_joints`) and the body
    /// count that `union_find`, `closing`, `loopy` and `in_tree` were found for; they are
    /// found again only when these change.
    loops_for: Option<(u64, usize)>,
    /// Per constraint: its equality rows go to the tree solve.
    in_tree: Vec<bool>,
    /// Per local body: the walk of `order_joints` has reached it (working array).
    visited: Vec<bool>,
    /// The walk's stack: (body, joint to its parent or NONE, children pushed?).
    walk: Vec<(u32, u32, bool)>,
    /// Where the next tree joint of each local body goes in `adjacency` (working array).
    fill: Vec<u32>,
}

impl JointForest {
    /// Takes no joint this step.
    pub fn clear(&mut self) {
        self.order.clear();
        self.bodies.clear();
        self.trees.clear();
        self.closures.clear();
    }

    /// Picks this step's tree joints (setting `in_tree` on them) and their elimination order.
    /// Trees with a body in one of the touching `pairs` do not look ahead (see
    /// [`Self::add_look_ahead`]). `ends_version` changes whenever `ends` do.
    pub fn build(
        &mut self,
        constraints: &mut [JointConstraint],
        (ends, ends_version): (&[JointEnds], u64),
        bodies: &[SolverBody],
        pairs: &[PairInput],
    ) {
        if constraints.is_empty() {
            // Its passes walk every body: nothing to find without joints.
            return self.clear();
        }
        self.order.clear();
        self.bodies.clear();
        if self.loops_for != Some((ends_version, bodies.len())) {
            self.find_tree_joints(ends, bodies.len());
            self.loops_for = Some((ends_version, bodies.len()));
        }
        if !self.in_tree.contains(&true) {
            return self.clear();
        }
        for (c, &in_tree) in constraints.iter_mut().zip(&self.in_tree) {
            c.in_tree = in_tree;
        }
        let dynamic = |i: u32| i != 0 && bodies[i as usize].inv_mass > 0.0;
        self.number_bodies(constraints, bodies.len(), dynamic);
        self.build_adjacency(constraints);
        self.order_joints(constraints, dynamic);
        self.mark_touching_trees(pairs);
        self.collect_closures(constraints);
        self.leave_out_dependent_rows(constraints, bodies);
    }

    /// The joints whose equality rows the tree solve takes: those with rows and a dynamic
    /// body whose component has few enough loop-closing rows ([`Self::mark_loops`]).
    fn find_tree_joints(&mut self, ends: &[JointEnds], body_count: usize) {
        let candidate = |e: &JointEnds| e.equality_dim > 0 && (e.dynamic_a || e.dynamic_b);
        self.mark_loops(ends, body_count, candidate);
        self.in_tree.clear();
        for e in ends {
            let body = if e.dynamic_a { Some(e.body_a) } else { e.dynamic_b.then_some(e.body_b) };
            let open = body.is_some_and(|b| !self.loopy[self.union_find.find(b) as usize]);
            self.in_tree.push(candidate(e) && open);
        }
    }

    /// Marks the trees with a body in a touching pair.
    fn mark_touching_trees(&mut self, pairs: &[PairInput]) {
        self.touching.clear();
        self.touching.resize(self.bodies.len(), false);
        for pair in pairs {
            for body in [pair.body_a, pair.body_b] {
                if let Some(&local) = self.local.get(body as usize).filter(|&&l| l != NONE) {
                    self.touching[local as usize] = true;
                }
            }
        }
        for tree in self.trees.windows(2) {
            let joints = &mut self.order[tree[0] as usize..tree[1] as usize];
            let touching = &self.touching;
            let touches =
                joints.iter().any(|j| touching[j.parent as usize] || (j.child != NONE && touching[j.child as usize]));
            joints.iter_mut().for_each(|j| j.looks_ahead = !touches);
        }
    }

    /// Union-find over joints between two dynamic bodies, in creation order: a joint that
    /// closes a cycle is a closure (`closing`); a component whose closures have more than
    /// [`MAX_CLOSURE_ROWS`] rows is marked `loopy` and left to the iterative solver.
    fn mark_loops(&mut self, ends: &[JointEnds], body_count: usize, candidate: impl Fn(&JointEnds) -> bool) {
        self.union_find.reset(body_count);
        self.closure_rows.clear();
        self.closure_rows.resize(body_count, 0);
        self.closing.clear();
        self.closing.resize(ends.len(), false);
        for (index, e) in ends.iter().enumerate() {
            if !(candidate(e) && e.dynamic_a && e.dynamic_b) {
                continue;
            }
            let (ra, rb) = (self.union_find.find(e.body_a), self.union_find.find(e.body_b));
            if ra == rb {
                self.closing[index] = true;
                self.closure_rows[ra as usize] += e.equality_dim as usize;
                continue;
            }
            let rows = self.closure_rows[ra as usize] + self.closure_rows[rb as usize];
            self.union_find.union(ra, rb);
            let root = self.union_find.find(ra);
            self.closure_rows[root as usize] = rows;
        }
        self.loopy.clear();
        self.loopy.extend(self.closure_rows.iter().map(|&rows| rows > MAX_CLOSURE_ROWS));
    }

    /// The closures of this step's trees, sorted by tree; trees with closures do not look
    /// ahead.
    fn collect_closures(&mut self, constraints: &[JointConstraint]) {
        self.closures.clear();
        self.tree_of.clear();
        self.tree_of.resize(self.bodies.len(), NONE);
        for t in 0..self.trees.len().saturating_sub(1) {
            for joint in &self.order[self.trees[t] as usize..self.trees[t + 1] as usize] {
                for local in [joint.parent, joint.child].into_iter().filter(|&l| l != NONE) {
                    self.tree_of[local as usize] = t as u32;
                }
            }
        }
        for (index, c) in constraints.iter().enumerate().filter(|&(i, c)| c.in_tree && self.closing[i]) {
            let local = [self.local[c.body_a as usize], self.local[c.body_b as usize]];
            let tree = self.tree_of[local[0] as usize];
            self.closures.push(ClosureJoint::new(index as u32, tree, local, c));
        }
        self.closures.sort_by_key(|c| c.tree);
        for closure in &self.closures {
            let (start, end) =
                (self.trees[closure.tree as usize] as usize, self.trees[closure.tree as usize + 1] as usize);
            self.order[start..end].iter_mut().for_each(|j| j.looks_ahead = false);
        }
        self.col_t.resize(self.order.len(), [0.0; MAX_ROWS]);
    }

    /// Local indices for the dynamic bodies of tree joints, in solver order.
    fn number_bodies(&mut self, constraints: &[JointConstraint], body_count: usize, dynamic: impl Fn(u32) -> bool) {
        self.local.clear();
        self.local.resize(body_count, NONE);
        for c in constraints.iter().filter(|c| c.in_tree) {
            for i in [c.body_a, c.body_b] {
                if dynamic(i) {
                    self.local[i as usize] = 0;
                }
            }
        }
        for (i, local) in self.local.iter_mut().enumerate() {
            if *local == 0 {
                *local = self.bodies.len() as u32;
                self.bodies.push(i as u32);
            }
        }
        let n = self.bodies.len();
        self.w.resize(n, [[0.0; MAX_ROWS]; MAX_ROWS]);
        self.s.resize(n, [[0.0; MAX_ROWS]; 2]);
        self.p.resize(n, [[0.0; MAX_ROWS]; 2]);
        for column in [&mut self.col_ext, &mut self.col_s, &mut self.col_p] {
            column.resize(n, [0.0; MAX_ROWS]);
        }
    }

    /// The tree joints of every local body, in constraint order.
    fn build_adjacency(&mut self, constraints: &[JointConstraint]) {
        let n = self.bodies.len();
        self.start.clear();
        self.start.resize(n + 1, 0);
        let ends = |c: &JointConstraint, local: &[u32]| [c.body_a, c.body_b].map(|i| local[i as usize]);
        let closing = &self.closing;
        let tree_joint = |(index, c): &(usize, &JointConstraint)| c.in_tree && !closing[*index];
        for (_, c) in constraints.iter().enumerate().filter(tree_joint) {
            for b in ends(c, &self.local).into_iter().filter(|&b| b != NONE) {
                self.start[b as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.start[i + 1] += self.start[i];
        }
        self.adjacency.clear();
        self.adjacency.resize(self.start[n] as usize, 0);
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(&self.start);
        for (index, c) in constraints.iter().enumerate().filter(tree_joint) {
            for b in ends(c, &self.local).into_iter().filter(|&b| b != NONE) {
                self.adjacency[fill[b as usize] as usize] = index as u32;
                fill[b as usize] += 1;
            }
        }
    }

    /// Post-order over each tree from its lowest-numbered body; per body its joints to the
    /// static world, then its joint to the parent.
    fn order_joints(&mut self, constraints: &[JointConstraint], dynamic: impl Fn(u32) -> bool) {
        let n = self.bodies.len();
        self.trees.clear();
        let mut visited = std::mem::take(&mut self.visited);
        visited.clear();
        visited.resize(n, false);
        let mut stack = std::mem::take(&mut self.walk);
        for root in 0..n as u32 {
            if visited[root as usize] {
                continue;
            }
            self.trees.push(self.order.len() as u32);
            // (body, joint to its parent or NONE, children pushed?)
            stack.push((root, NONE, false));
            visited[root as usize] = true;
            while let Some((body, parent_joint, expanded)) = stack.pop() {
                if expanded {
                    self.emit_body(body, parent_joint, constraints, &dynamic);
                    continue;
                }
                stack.push((body, parent_joint, true));
                let (from, to) = (self.start[body as usize] as usize, self.start[body as usize + 1] as usize);
                for &joint in &self.adjacency[from..to] {
                    let c = &constraints[joint as usize];
                    let other = if self.local[c.body_a as usize] == body { c.body_b } else { c.body_a };
                    if joint == parent_joint || !dynamic(other) {
                        continue;
                    }
                    let other = self.local[other as usize];
                    if !visited[other as usize] {
                        visited[other as usize] = true;
                        stack.push((other, joint, false));
                    }
                }
            }
        }
        self.trees.push(self.order.len() as u32);
        self.visited = visited;
        self.walk = stack;
    }

    /// Appends `body`'s joints to the static world, then its joint to the parent.
    fn emit_body(
        &mut self,
        body: u32,
        parent_joint: u32,
        constraints: &[JointConstraint],
        dynamic: &impl Fn(u32) -> bool,
    ) {
        let (from, to) = (self.start[body as usize] as usize, self.start[body as usize + 1] as usize);
        for k in from..to {
            let joint = self.adjacency[k];
            let c = &constraints[joint as usize];
            if !(dynamic(c.body_a) && dynamic(c.body_b)) {
                let parent_is_a = self.local[c.body_a as usize] == body;
                self.order.push(TreeJoint::new(joint, body, NONE, parent_is_a, c));
            }
        }
        if parent_joint != NONE {
            let c = &constraints[parent_joint as usize];
            let child_is_a = self.local[c.body_a as usize] == body;
            let parent = if child_is_a { self.local[c.body_b as usize] } else { self.local[c.body_a as usize] };
            self.order.push(TreeJoint::new(parent_joint, parent, body, !child_is_a, c));
        }
    }

    /// Resets the working arrays and eliminates every tree joint for `target`.
    fn eliminate_all(&mut self, constraints: &[JointConstraint], bodies: &[SolverBody], target: Target) {
        for (local, &body) in self.bodies.iter().enumerate() {
            let body = &bodies[body as usize];
            self.w[local] = metric(body, target);
            self.s[local] = [[0.0; MAX_ROWS]; 2];
            self.p[local] = [[0.0; MAX_ROWS]; 2];
        }
        for k in 0..self.order.len() {
            self.eliminate(k, constraints, bodies, target);
        }
    }

    /// Projects the positions of every tree's bodies so its equality rows hold (see the
    /// module comment), repeating while an error above [`PROJECTION_TRIGGER`] is left;
    /// velocities and accumulated impulses are untouched.
    pub fn correct_positions(&mut self, constraints: &[JointConstraint], bodies: &mut [SolverBody]) {
        if self.order.is_empty() {
            return;
        }
        for _ in 0..MAX_PROJECTIONS {
            if self.largest_position_error(constraints, bodies) <= PROJECTION_TRIGGER {
                return;
            }
            self.eliminate_all(constraints, bodies, Target::Position);
            self.displace_all(constraints, bodies);
        }
    }

    /// The largest error a position projection would remove: equality rows, and limits
    /// passed by more than the slop (only as many as a joint's block has room for, like
    /// [`Self::append_limit_rows`]). Much cheaper than an elimination, which mostly is not
    /// needed: joints that hold are never projected.
    fn largest_position_error(&self, constraints: &[JointConstraint], bodies: &[SolverBody]) -> f32 {
        let mut rows = [JacobianRow::default(); MAX_ROWS];
        let mut errors = [0.0; MAX_ROWS];
        let mut largest = 0.0f32;
        for joint in &self.order {
            let c = &constraints[joint.constraint as usize];
            let frames = c.current_frames(bodies);
            let dim = c.model.equality_rows(&frames, &mut rows, &mut errors).min(joint.dim);
            let kept = errors[..dim].iter().enumerate().filter(|&(i, _)| joint.dropped & (1 << i) == 0);
            largest = kept.fold(largest, |m, (_, e)| m.max(e.abs()));
            let count = c.model.limit_rows(&frames, &mut rows, &mut errors).min(MAX_ROWS - dim);
            let passed = errors[..count].iter().filter(|&&gap| gap < -PROJECTION_SLOP);
            largest = passed.fold(largest, |m, gap| m.max(-gap));
        }
        for closure in &self.closures {
            let c = &constraints[closure.constraint as usize];
            let dim = c.model.equality_rows(&c.current_frames(bodies), &mut rows, &mut errors).min(closure.dim);
            let kept = errors[..dim].iter().enumerate().filter(|&(i, _)| closure.dropped & (1 << i) == 0);
            largest = kept.fold(largest, |m, (_, e)| m.max(e.abs()));
        }
        largest
    }

    /// Back-substitution of a position elimination: gathers each body's displacement
    /// Δx = M⁻¹ Jᵀ λ, then moves the bodies by it, scaled down as a whole when it would
    /// move any body further than the trust region allows.
    fn displace_all(&mut self, constraints: &[JointConstraint], bodies: &mut [SolverBody]) {
        self.shift.clear();
        self.shift.resize(self.bodies.len(), (Vec3::ZERO, Vec3::ZERO));
        for k in (0..self.order.len()).rev() {
            [self.order[k].lambda, _] = self.back_substitute(k);
        }
        self.close_loops(constraints, bodies, Target::Position);
        let tree_rows = self.order.iter().map(|j| (j.constraint, &j.rows[..j.used], &j.lambda));
        let closure_rows = self.closures.iter().map(|j| (j.constraint, &j.rows[..j.dim], &j.lambda));
        for (constraint, rows, lambda) in tree_rows.chain(closure_rows) {
            let c = &constraints[constraint as usize];
            for (row, &l) in rows.iter().zip(lambda) {
                for (index, linear, angular) in
                    [(c.body_a, row.linear_a, row.angular_a), (c.body_b, row.linear_b, row.angular_b)]
                {
                    let local = self.local[index as usize];
                    if local != NONE {
                        let shift = &mut self.shift[local as usize];
                        shift.0 += linear * l as f32;
                        shift.1 += angular * l as f32;
                    }
                }
            }
        }
        let mut largest = (0.0f32, 0.0f32);
        for (shift, &index) in self.shift.iter_mut().zip(&self.bodies) {
            let body = &bodies[index as usize];
            *shift = (shift.0, body.inv_inertia * shift.1 / body.inv_mass);
            largest = (largest.0.max(shift.0.length()), largest.1.max(shift.1.length()));
        }
        let scale =
            1.0f32.min(MAX_PROJECTION_SHIFT / largest.0.max(1e-30)).min(MAX_PROJECTION_TURN / largest.1.max(1e-30));
        for (&(linear, angular), &index) in self.shift.iter().zip(&self.bodies) {
            displace(&mut bodies[index as usize], linear * scale, angular * scale);
        }
    }

    /// One exact solve of every tree's equality rows, and its engaged limit rows, with the
    /// pass's rigid softness (see the module comment on limits).
    pub fn solve(&mut self, constraints: &mut [JointConstraint], bodies: &mut [SolverBody], ctx: &PassContext) {
        if self.order.is_empty() {
            return;
        }
        let scales = ctx.tree_rows();
        let target =
            Target::Velocity { bias_rate: scales.bias_rate, inv_h: ctx.inv_h, h: ctx.h, look_ahead: ctx.look_ahead };
        self.engage_limits(constraints, bodies, ctx.h);
        for round in 1..=MAX_ACTIVE_SET_ROUNDS {
            self.eliminate_all(constraints, bodies, target);
            for k in (0..self.order.len()).rev() {
                [self.order[k].lambda, self.order[k].lambda_ahead] = self.back_substitute(k);
            }
            self.close_loops(constraints, bodies, target);
            if ctx.look_ahead {
                self.add_look_ahead();
            }
            if round == MAX_ACTIVE_SET_ROUNDS || !self.release_pulling_limits(constraints, bodies, scales) {
                break;
            }
        }
        for joint in self.order.iter().rev() {
            let c = &mut constraints[joint.constraint as usize];
            let mut accumulated = [0.0; MAX_ROWS];
            c.model.equality_impulse(&mut accumulated);
            let limits = joint.dim..joint.used;
            for (held, &limit) in accumulated[limits.clone()].iter_mut().zip(&joint.limit_of[limits.clone()]) {
                *held = c.model.limit_impulse(limit as usize);
            }
            let delta: [f32; MAX_ROWS] = std::array::from_fn(|i| {
                scales.mass_scale * joint.lambda[i] as f32 - scales.impulse_scale * accumulated[i]
            });
            c.model.add_equality_impulse(&delta[..joint.dim]);
            for (&d, &limit) in delta[limits.clone()].iter().zip(&joint.limit_of[limits]) {
                c.model.add_limit_impulse(limit as usize, d);
            }
            apply_rows(c, bodies, &joint.rows[..joint.used], &delta);
        }
        for closure in &self.closures {
            let c = &mut constraints[closure.constraint as usize];
            let mut accumulated = [0.0; MAX_ROWS];
            c.model.equality_impulse(&mut accumulated);
            let delta: [f32; MAX_ROWS] = std::array::from_fn(|i| {
                scales.mass_scale * closure.lambda[i] as f32 - scales.impulse_scale * accumulated[i]
            });
            c.model.add_equality_impulse(&delta[..closure.dim]);
            apply_rows(c, bodies, &closure.rows[..closure.dim], &delta);
        }
    }

    /// Adds the look-ahead impulses to each tree's solution where the tree is well
    /// conditioned for them: their kinetic energy ½ Σ λᵀ ahead at most [`LOOK_AHEAD_TRUST`]
    /// times what independent rows would need, ½ Σ ahead_i² / K_ii (the ratio is a Rayleigh
    /// quotient of the Jacobi-scaled K⁻¹). Near a singular pose (a chain pulled straight
    /// between two supports, light links under a heavy end) the second-order request has a
    /// part the rows can only meet by large motion; the linear step then overshoots, the next
    /// request is larger, and the links are thrown about (scaling the step down does not break
    /// that loop). Such a tree keeps J v = 0 and the projection.
    fn add_look_ahead(&mut self) {
        for tree in self.trees.windows(2) {
            let joints = &mut self.order[tree[0] as usize..tree[1] as usize];
            if joints.iter().any(|j| !j.looks_ahead || j.used > j.dim) {
                continue;
            }
            let (mut energy, mut floor): (Real, Real) = (0.0, 0.0);
            for joint in joints.iter() {
                energy += 0.5 * dot6(&joint.lambda_ahead, &joint.ahead);
                floor += joint.ahead_floor;
            }
            if energy <= LOOK_AHEAD_TRUST as Real * floor {
                for joint in joints.iter_mut() {
                    for (lambda, ahead) in joint.lambda.iter_mut().zip(joint.lambda_ahead) {
                        *lambda += ahead;
                    }
                }
            }
        }
    }

    /// Marks the limit rows each tree joint holds in this pass: those touched or passed
    /// (gap ≤ 0), those the joint's own limit solve has pushed on (accumulated impulse > 0),
    /// and those the current velocity would pass within the step.
    fn engage_limits(&mut self, constraints: &[JointConstraint], bodies: &[SolverBody], h: f32) {
        let mut rows = [JacobianRow::default(); MAX_ROWS];
        let mut gaps = [0.0; MAX_ROWS];
        for joint in &mut self.order {
            let c = &constraints[joint.constraint as usize];
            let (a, b) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
            let count = c.model.limit_rows(&c.frames.current(a, b), &mut rows, &mut gaps).min(MAX_ROWS);
            joint.engaged = 0;
            for i in 0..count {
                let passing = gaps[i] + h * rows[i].velocity(a, b) < 0.0;
                if gaps[i] <= 0.0 || passing || c.model.limit_impulse(i) > 0.0 {
                    joint.engaged |= 1 << i;
                }
            }
        }
    }

    /// Releases every engaged limit row that the last solution makes pull (accumulated
    /// impulse below zero): its accumulated impulse is taken back from the bodies and it
    /// leaves the engaged set. Returns whether any was released.
    fn release_pulling_limits(
        &mut self,
        constraints: &mut [JointConstraint],
        bodies: &mut [SolverBody],
        scales: RowScales,
    ) -> bool {
        let mut released = false;
        for joint in &mut self.order {
            let c = &mut constraints[joint.constraint as usize];
            for slot in joint.dim..joint.used {
                let i = joint.limit_of[slot] as usize;
                let accumulated = c.model.limit_impulse(i);
                let delta = scales.mass_scale * joint.lambda[slot] as f32 - scales.impulse_scale * accumulated;
                if accumulated + delta < 0.0 {
                    joint.engaged &= !(1 << i);
                    c.model.add_limit_impulse(i, -accumulated);
                    apply_rows(c, bodies, &joint.rows[slot..=slot], &[-accumulated]);
                    released = true;
                }
            }
        }
        released
    }

    /// Appends after the `dim` equality rows the limit rows this elimination holds: the
    /// engaged ones in a velocity pass, the ones passed by more than the slop in a
    /// projection (never two opposite sides of one limit). Their gaps go into `error`.
    /// Returns the number of rows in all.
    fn append_limit_rows(
        joint: &mut TreeJoint,
        c: &JointConstraint,
        frames: &Frames,
        error: &mut [f32; MAX_ROWS],
        target: Target,
    ) -> usize {
        let mut rows = [JacobianRow::default(); MAX_ROWS];
        let mut gaps = [0.0; MAX_ROWS];
        let count = c.model.limit_rows(frames, &mut rows, &mut gaps).min(MAX_ROWS);
        let mut used = joint.dim;
        for i in 0..count {
            let held = match target {
                Target::Velocity { .. } => joint.engaged & (1 << i) != 0,
                Target::Position => gaps[i] < -PROJECTION_SLOP,
            };
            let row = rows[i];
            let opposite = joint.rows[joint.dim..used].iter().any(|r| is_zero(&r.add_scaled(&row, 1.0)));
            if held && used < MAX_ROWS && !is_zero(&row) && !opposite {
                joint.rows[used] = row;
                joint.limit_of[used] = i as u8;
                error[used] = gaps[i];
                used += 1;
            }
        }
        used
    }

    /// Eliminates tree joint `k` (see the module comment).
    fn eliminate(&mut self, k: usize, constraints: &[JointConstraint], bodies: &[SolverBody], target: Target) {
        let joint = &mut self.order[k];
        let c = &constraints[joint.constraint as usize];
        let (a, b) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
        let frames = c.frames.current(a, b);
        let mut error = [0.0; MAX_ROWS];
        joint.dim = c.model.equality_rows(&frames, &mut joint.rows, &mut error).min(joint.dim);
        let equality = joint.dim;
        joint.leave_out_dropped(&mut error);
        joint.ahead = [0.0; MAX_ROWS];
        joint.ahead_floor = 0.0;
        if let (Target::Velocity { h, inv_h, look_ahead: true, .. }, true) = (target, joint.looks_ahead) {
            // The change of J v that closes the joint's second-order drift over the step:
            // −[C(pose + h v) − C − h J v]/h.
            let error_ahead = Self::error_ahead(c, a, b, h);
            for i in (0..equality).filter(|&i| joint.dropped & (1 << i) == 0) {
                let request = (-(error_ahead[i] - error[i]) * inv_h + joint.rows[i].velocity(a, b)) as Real;
                let k = joint.rows[i].dot(&joint.rows[i].weighted(a, b)) as Real;
                joint.ahead[i] = request;
                joint.ahead_floor += if k > 0.0 { 0.5 * request * request / k } else { 0.0 };
            }
        }
        joint.used = Self::append_limit_rows(joint, c, &frames, &mut error, target);
        let dim = joint.used;
        let parent_rows = side_blocks(&joint.rows, dim, joint.parent_is_a);
        let child_rows = side_blocks(&joint.rows, dim, !joint.parent_is_a);
        let (u, child) = (joint.parent as usize, joint.child);
        // J_u W_u and the system matrix B.
        let jw_u = mul_rows(&parent_rows, &self.w[u], dim);
        let mut system = outer(&jw_u, &parent_rows, dim);
        let mut rhs: Vec6 = std::array::from_fn(|i| {
            if i >= dim {
                return 0.0;
            }
            let r = match target {
                Target::Velocity { inv_h, .. } if i >= equality && error[i] > 0.0 => {
                    -(joint.rows[i].velocity(a, b) + error[i] * inv_h)
                }
                _ => return row_target(&joint.rows[i], error[i], a, b, target) - dot6(&parent_rows[i], &self.s[u][0]),
            };
            r as Real - dot6(&parent_rows[i], &self.s[u][0])
        });
        let mut rhs_ahead: Vec6 =
            std::array::from_fn(|i| if i < dim { joint.ahead[i] - dot6(&parent_rows[i], &self.s[u][1]) } else { 0.0 });
        if child != NONE {
            let child = child as usize;
            let jw_c = mul_rows(&child_rows, &self.w[child], dim);
            let child_system = outer(&jw_c, &child_rows, dim);
            for i in 0..dim {
                for j in 0..dim {
                    system[i][j] += child_system[i][j];
                }
                rhs[i] -= dot6(&child_rows[i], &self.s[child][0]);
                rhs_ahead[i] -= dot6(&child_rows[i], &self.s[child][1]);
            }
        }
        let reference = own_sizes(&joint.rows, dim, a, b, target);
        joint.jw_u = jw_u;
        let Some(inverse) = inverse_independent(&system, dim, &reference) else {
            joint.inverse = [[0.0; MAX_ROWS]; MAX_ROWS];
            joint.g = [[0.0; MAX_ROWS]; MAX_ROWS];
            joint.t = [[0.0; MAX_ROWS]; 2];
            return;
        };
        joint.inverse = inverse;
        joint.t = [rhs, rhs_ahead].map(|r| std::array::from_fn(|i| (0..dim).map(|j| inverse[i][j] * r[j]).sum()));
        joint.g =
            std::array::from_fn(|i| std::array::from_fn(|col| (0..dim).map(|j| inverse[i][j] * jw_u[j][col]).sum()));
        // s_u += (J_u W_u)ᵀ t,  W_u −= (J_u W_u)ᵀ G.
        let (s, w) = (&mut self.s[u], &mut self.w[u]);
        for row in 0..MAX_ROWS {
            for (s, t) in s.iter_mut().zip(&joint.t) {
                s[row] += (0..dim).map(|i| jw_u[i][row] * t[i]).sum::<Real>();
            }
            for col in 0..MAX_ROWS {
                w[row][col] -= (0..dim).map(|i| jw_u[i][row] * joint.g[i][col]).sum::<Real>();
            }
        }
    }

    /// The errors of the joint's equality rows after `h` more seconds at the bodies'
    /// current velocities, C(pose + h v).
    fn error_ahead(c: &JointConstraint, a: &SolverBody, b: &SolverBody, h: f32) -> [f32; MAX_ROWS] {
        let frames = c.frames.current(&a.advanced(h), &b.advanced(h));
        let mut rows = [JacobianRow::default(); MAX_ROWS];
        let mut error = [0.0; MAX_ROWS];
        c.model.equality_rows(&frames, &mut rows, &mut error);
        error
    }

    /// λ of tree joint `k` for both right-hand sides from the impulses on its parent side;
    /// passes its impulses on.
    fn back_substitute(&mut self, k: usize) -> [Vec6; 2] {
        let joint = &self.order[k];
        let dim = joint.used;
        let u = joint.parent as usize;
        std::array::from_fn(|side| {
            let p = &self.p[u][side];
            let lambda: Vec6 =
                std::array::from_fn(|i| if i < dim { joint.t[side][i] - dot6(&joint.g[i], p) } else { 0.0 });
            add_side_transposed(&mut self.p[u][side], &joint.rows[..dim], &lambda, joint.parent_is_a);
            if joint.child != NONE {
                let child = &mut self.p[joint.child as usize][side];
                add_side_transposed(child, &joint.rows[..dim], &lambda, !joint.parent_is_a);
            }
            lambda
        })
    }
}

impl TreeJoint {
    /// Zeroes the equality rows left out this step and their errors: a zero row takes no
    /// impulse (its pivot is zero, `inverse_independent` leaves it out).
    fn leave_out_dropped(&mut self, error: &mut [f32; MAX_ROWS]) {
        for i in (0..self.dim).filter(|&i| self.dropped & (1 << i) != 0) {
            self.rows[i] = JacobianRow::default();
            error[i] = 0.0;
        }
    }

    fn new(constraint: u32, parent: u32, child: u32, parent_is_a: bool, c: &JointConstraint) -> Self {
        Self {
            constraint,
            parent,
            child,
            parent_is_a,
            dim: c.model.equality_dim().min(MAX_ROWS),
            used: c.model.equality_dim().min(MAX_ROWS),
            limit_of: [0; MAX_ROWS],
            engaged: 0,
            dropped: 0,
            rows: [JacobianRow::default(); MAX_ROWS],
            inverse: [[0.0; MAX_ROWS]; MAX_ROWS],
            jw_u: [[0.0; MAX_ROWS]; MAX_ROWS],
            g: [[0.0; MAX_ROWS]; MAX_ROWS],
            t: [[0.0; MAX_ROWS]; 2],
            ahead: [0.0; MAX_ROWS],
            ahead_floor: 0.0,
            looks_ahead: false,
            lambda: [0.0; MAX_ROWS],
            lambda_ahead: [0.0; MAX_ROWS],
        }
    }
}

/// Applies `delta[i]` along `rows[i]` to the joint's bodies (the static body is never
/// written).
fn apply_rows(c: &JointConstraint, bodies: &mut [SolverBody], rows: &[JacobianRow], delta: &[f32]) {
    let (ia, ib) = (c.body_a as usize, c.body_b as usize);
    let (mut a, mut b) = (bodies[ia], bodies[ib]);
    for (row, &d) in rows.iter().zip(delta) {
        row.apply(&mut a, &mut b, d);
    }
    if ia != 0 {
        bodies[ia] = a;
    }
    if ib != 0 {
        bodies[ib] = b;
    }
}

/// True when every part of the row is (nearly) zero.
fn is_zero(row: &JacobianRow) -> bool {
    let size = row.linear_a.length_squared()
        + row.angular_a.length_squared()
        + row.linear_b.length_squared()
        + row.angular_b.length_squared();
    size < 1e-12
}

/// Moves a body by `shift` metres and turns it by the rotation vector `turn` (radians),
/// turning its world inverse inertia with it so that later rows see the body as it is.
fn displace(body: &mut SolverBody, shift: Vec3, turn: Vec3) {
    body.delta_position += Vec3A::from(shift);
    let before = body.delta_rotation;
    body.delta_rotation = integrate_rotation(before, turn, 1.0);
    let r = Mat3::from_quat(body.delta_rotation * before.inverse());
    body.inv_inertia = r * body.inv_inertia * r.transpose();
}

/// J_i W₀ J_iᵀ of each row with the bodies' own metric W₀ (M⁻¹ in a velocity pass, the
/// mass-normalised one in a projection; zero for an immovable body): the size of the row
/// with nothing else holding the bodies.
fn own_sizes(rows: &[JacobianRow; MAX_ROWS], dim: usize, a: &SolverBody, b: &SolverBody, target: Target) -> Vec6 {
    let metric = |body: &SolverBody| match (body.inv_mass > 0.0, target) {
        (false, _) => None,
        (true, Target::Velocity { .. }) => Some(inverse_mass(body, 1.0)),
        (true, Target::Position) => Some(inverse_mass(body, 1.0 / body.inv_mass)),
    };
    let mut sizes = [0.0; MAX_ROWS];
    for (side_is_a, body) in [(true, a), (false, b)] {
        let Some(w) = metric(body) else { continue };
        let blocks = side_blocks(rows, dim, side_is_a);
        let jw = mul_rows(&blocks, &w, dim);
        for i in 0..dim {
            sizes[i] += dot6(&jw[i], &blocks[i]);
        }
    }
    sizes
}

/// The metric W₀ of a body for `target`: M⁻¹ in a velocity pass, the mass-normalised
/// diag(I₃, m I⁻¹) in a projection.
fn metric(body: &SolverBody, target: Target) -> Mat6 {
    match target {
        Target::Velocity { .. } => inverse_mass(body, 1.0),
        Target::Position => inverse_mass(body, 1.0 / body.inv_mass),
    }
}

/// The demand r on an equality row with error `error`: −(J v + bias_rate · C) in a velocity
/// pass, the error beyond the slop, −sign(C)(|C| − slop), in a projection.
fn row_target(row: &JacobianRow, error: f32, a: &SolverBody, b: &SolverBody, target: Target) -> Real {
    let r = match target {
        Target::Velocity { bias_rate, .. } => -(row.velocity(a, b) + bias_rate * error),
        Target::Position => -error.signum() * (error.abs() - PROJECTION_SLOP).max(0.0),
    };
    r as Real
}

/// One joint of a forward pass through the stored factors for a right-hand side that only
/// the bodies' bias velocities `s` carry: t = B⁻¹ (−J_c s_c − J_u s_u), s_u += (J_u W_u)ᵀ t.
/// Returns t.
fn forward(joint: &TreeJoint, s: &mut [Vec6]) -> Vec6 {
    let dim = joint.used;
    let u = joint.parent as usize;
    let parent_rows = side_blocks(&joint.rows, dim, joint.parent_is_a);
    let mut rhs: Vec6 = std::array::from_fn(|i| if i < dim { -dot6(&parent_rows[i], &s[u]) } else { 0.0 });
    if joint.child != NONE {
        let child_rows = side_blocks(&joint.rows, dim, !joint.parent_is_a);
        for i in 0..dim {
            rhs[i] -= dot6(&child_rows[i], &s[joint.child as usize]);
        }
    }
    let t: Vec6 = std::array::from_fn(|i| (0..dim).map(|j| joint.inverse[i][j] * rhs[j]).sum());
    for row in 0..MAX_ROWS {
        s[u][row] += (0..dim).map(|i| joint.jw_u[i][row] * t[i]).sum::<Real>();
    }
    t
}

/// One joint of the back-substitution of a [`forward`] pass: λ = t − G p_u, then
/// p_u += J_uᵀ λ, p_c += J_cᵀ λ. Returns λ.
fn backward(joint: &TreeJoint, t: &Vec6, p: &mut [Vec6]) -> Vec6 {
    let dim = joint.used;
    let u = joint.parent as usize;
    let lambda: Vec6 = std::array::from_fn(|i| if i < dim { t[i] - dot6(&joint.g[i], &p[u]) } else { 0.0 });
    add_side_transposed(&mut p[u], &joint.rows[..dim], &lambda, joint.parent_is_a);
    if joint.child != NONE {
        add_side_transposed(&mut p[joint.child as usize], &joint.rows[..dim], &lambda, !joint.parent_is_a);
    }
    lambda
}

/// scale · diag(m⁻¹ I₃, I⁻¹) of a body as a 6×6 block (linear first).
fn inverse_mass(body: &SolverBody, scale: f32) -> Mat6 {
    let mut w = [[0.0; MAX_ROWS]; MAX_ROWS];
    for i in 0..3 {
        w[i][i] = (scale * body.inv_mass) as Real;
        for j in 0..3 {
            w[3 + i][3 + j] = (scale * body.inv_inertia.col(j)[i]) as Real;
        }
    }
    w
}

/// The rows' 6-blocks (linear, angular) for body A or B.
fn side_blocks(rows: &[JacobianRow; MAX_ROWS], dim: usize, body_a: bool) -> [Vec6; MAX_ROWS] {
    std::array::from_fn(|i| {
        if i >= dim {
            return [0.0; MAX_ROWS];
        }
        let (linear, angular) =
            if body_a { (rows[i].linear_a, rows[i].angular_a) } else { (rows[i].linear_b, rows[i].angular_b) };
        [linear.x, linear.y, linear.z, angular.x, angular.y, angular.z].map(Real::from)
    })
}

/// J W for d rows J (d × 6) and W (6 × 6).
fn mul_rows(j: &[Vec6; MAX_ROWS], w: &Mat6, dim: usize) -> [Vec6; MAX_ROWS] {
    std::array::from_fn(|i| {
        if i >= dim {
            return [0.0; MAX_ROWS];
        }
        std::array::from_fn(|col| (0..MAX_ROWS).map(|k| j[i][k] * w[k][col]).sum())
    })
}

/// (J W) Jᵀ, d × d.
fn outer(jw: &[Vec6; MAX_ROWS], j: &[Vec6; MAX_ROWS], dim: usize) -> Mat6 {
    let mut m = [[0.0; MAX_ROWS]; MAX_ROWS];
    for r in 0..dim {
        for c in 0..dim {
            m[r][c] = dot6(&jw[r], &j[c]);
        }
    }
    m
}

#[inline]
fn dot6(a: &Vec6, b: &Vec6) -> Real {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// target += Jᵀ λ for one side (body A or B) of `rows`, read straight from the rows.
fn add_side_transposed(target: &mut Vec6, rows: &[JacobianRow], lambda: &Vec6, body_a: bool) {
    for (row, &l) in rows.iter().zip(lambda) {
        let (linear, angular) = if body_a { (row.linear_a, row.angular_a) } else { (row.linear_b, row.angular_b) };
        for axis in 0..3 {
            target[axis] += linear[axis] as Real * l;
            target[3 + axis] += angular[axis] as Real * l;
        }
    }
}
