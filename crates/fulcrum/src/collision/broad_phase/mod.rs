//! Broad phase: which collider pairs may touch.
//!
//! Two [`DynamicTree`]s hold one proxy per collider: a static tree for colliders that never
//! move, and a moving tree for dynamic and kinematic ones. Moving proxies are stored with a
//! "fat" box, their tight box grown by [`BroadPhase::MARGIN`] on every side, so that a body
//! that moves less than the margin needs no tree update at all.
//!
//! A proxy is "moved" when it is created or leaves its fat box. A moving proxy that leaves
//! its fat box gets its fresh fat box at once (the tree stays exact for queries) and is
//! placed anew at the next [`BroadPhase::update_pairs`], in one batch: re-inserted one by
//! one when few moved; when many did, the moving tree keeps its shape and only its boxes are
//! recomputed (a refit, O(n)), and it is rebuilt when that has left it too loose (see
//! [`DynamicTree::update_enlarged`]). `update_pairs` then reports every
//! overlapping pair with a moved member, found by one query per moved proxy when few moved,
//! or by one simultaneous walk of the trees when many did: the pairs that may have started
//! touching since the last call. Pairs already known to the caller keep living on the
//! caller's side (checked with [`BroadPhase::fat_aabbs_overlap`]).
//!
//! Costs (tests' `bench_reinsert_and_update_pairs`, 5,000 moving boxes, release build, on a
//! shared 2-vCPU machine), `move_proxy` calls plus `update_pairs` per step: all of them
//! leaving their fat boxes, 0.86 ms; a quarter of them, 0.6 ms; a tenth, 0.27 ms; a
//! hundredth, about 0.04 ms. Proxies moving steadily can be given a fat box that reaches ahead
//! along their motion
//! ([`BroadPhase::move_proxy_along`]), so that they leave it only every few steps.
//!
//! Everything is deterministic: trees depend only on the order of calls, and the pair list
//! is sorted.

pub mod aabb_tree;
mod pair_sort;
mod scratch;
#[cfg(test)]
mod tests;
mod traversal;

pub use aabb_tree::{DynamicTree, LeafId};
pub use traversal::cast_ray_through_trees;

use crate::dynamics::workers::{self, Workers};
use crate::geometry::{Aabb, Ray};
use crate::math::Vec3;

/// Handle of a proxy in the [`BroadPhase`]: which tree it lives in and its leaf there.
///
/// Bit 31 is set for static proxies; the low 31 bits are the leaf handle in its tree. A
/// handle is valid until [`BroadPhase::destroy_proxy`]; handles of destroyed proxies are
/// reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct ProxyId(pub u32);

/// Which tree a proxy lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProxyKind {
    /// A collider that never moves (of a static body). Stored with its tight box; never
    /// paired with another static proxy.
    Static,
    /// A collider of a dynamic or kinematic body. Stored with a fat box.
    Moving,
}

impl ProxyId {
    const STATIC_BIT: u32 = 1 << 31;

    fn new(kind: ProxyKind, leaf: LeafId) -> Self {
        debug_assert!(leaf < Self::STATIC_BIT, "more than 2^31 proxies");
        match kind {
            ProxyKind::Static => ProxyId(leaf | Self::STATIC_BIT),
            ProxyKind::Moving => ProxyId(leaf),
        }
    }

    /// The tree the proxy lives in.
    #[inline]
    pub fn kind(self) -> ProxyKind {
        if self.0 & Self::STATIC_BIT != 0 {
            ProxyKind::Static
        } else {
            ProxyKind::Moving
        }
    }

    /// The proxy's leaf index in its tree.
    #[inline]
    pub fn leaf(self) -> LeafId {
        self.0 & !Self::STATIC_BIT
    }
}

/// The broad phase: a static and a moving AABB tree plus the set of proxies moved since the
/// last [`BroadPhase::update_pairs`]. See the module docs.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct BroadPhase {
    static_tree: DynamicTree,
    moving_tree: DynamicTree,
    /// Proxies marked moved since the last pair update. May hold stale or repeated entries
    /// (a proxy destroyed after being marked); the tree's `moved` flag is the truth.
    moved: Vec<ProxyId>,
    /// Buffers for sorting the pair list.
    #[serde(skip)]
    pair_sort: pair_sort::PairSortScratch,
}

impl BroadPhase {
    /// Margin added on every side of a moving proxy's tight box to make its fat box, metres.
    pub const MARGIN: f32 = 0.1;

    /// How many steps of displacement ahead [`Self::move_proxy_along`] extends a fat box.
    /// Measured on the `balls` bench scene (callgrind, 200 steps, whole step): 1 saves 1.8%
    /// of all instructions, 2 saves 2.1%, 3 saves 1.6% (fewer moved proxies, but bigger fat
    /// boxes: more pairs per query and more contact pairs kept alive).
    pub const PREDICTION_STEPS: f32 = 2.0;

    /// [`Self::update_pairs`] walks the trees instead of querying per moved proxy once at
    /// least 1/`WALK_FRACTION` of all proxies moved. The walk costs about the same whatever
    /// moved, a query per moved proxy grows with the overlaps around it: the walk became the
    /// faster from about 1/3 moved in the tests' benchmark scene (sparse boxes), from about
    /// 2/3 in the `balls` bench scene (a dense pile).
    pub const WALK_FRACTION: usize = 2;

    /// [`Self::update_pairs`] refits the moving tree (rebuilding it when the refit leaves it
    /// too loose) instead of re-inserting its moved proxies one by one once at least
    /// 1/`REFIT_FRACTION` of them moved; see [`DynamicTree::update_enlarged`]. A re-insertion
    /// costs about 0.5 µs, a refit about 0.05 µs per proxy: in the tests' benchmark a tenth
    /// moved took 0.52 ms re-inserted (at 1/8, the old threshold) and 0.27 ms refitted, a
    /// hundredth 0.04 ms re-inserted and 0.05 ms refitted. On the bench scenes the broad
    /// phase went from 0.50 to 0.40 ms per step on joint_grid (which moves 1–15% of its
    /// proxies in most steps), 1.18 to 1.02 on balls, 0.22 to 0.21 on large_pyramid.
    pub const REFIT_FRACTION: usize = 32;

    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live proxies.
    pub fn proxy_count(&self) -> usize {
        self.static_tree.leaf_count() + self.moving_tree.leaf_count()
    }

    /// Adds a proxy for a collider with tight world box `aabb` (metres; finite, min <= max)
    /// and the caller's value `user` (usually the collider's index; users should be unique).
    /// Moving proxies get a fat box of `aabb` grown by [`Self::MARGIN`]; static ones keep
    /// `aabb`. The proxy is marked moved, so its pairs appear in the next `update_pairs`.
    pub fn create_proxy(&mut self, aabb: Aabb, kind: ProxyKind, user: u32) -> ProxyId {
        let fat_box = Self::fat_box(&aabb, kind);
        let leaf = self.tree_mut(kind).create_leaf(fat_box, user);
        let id = ProxyId::new(kind, leaf);
        self.mark_moved(id);
        id
    }

    /// Removes a proxy; it appears in no later pair list. Does nothing for a dead handle.
    pub fn destroy_proxy(&mut self, id: ProxyId) {
        let tree = self.tree_mut(id.kind());
        if tree.contains(id.leaf()) {
            tree.destroy_leaf(id.leaf());
        }
    }

    /// True when the proxy's stored box already holds `aabb` (or the handle is dead), so
    /// [`BroadPhase::move_proxy_along`] would change nothing.
    pub fn holds(&self, id: ProxyId, aabb: &Aabb) -> bool {
        let (tree, leaf) = (self.tree(id.kind()), id.leaf());
        !tree.contains(leaf) || tree.aabb(leaf).contains(aabb)
    }

    /// Gives a proxy a new tight box `aabb` (metres), expected to keep moving by
    /// `displacement` per step (metres, finite; the body's velocity times the time step).
    /// While `aabb` stays inside the proxy's fat box nothing happens (O(1)). Otherwise the
    /// proxy gets a fresh fat box and is marked moved: `aabb` swept by
    /// [`Self::PREDICTION_STEPS`] displacements (per axis: `min + min(0, k·d)` to
    /// `max + max(0, k·d)`), grown by [`Self::MARGIN`] (static proxies: not grown). A proxy
    /// moving steadily by more than the margin per step then leaves its fat box every few
    /// steps instead of every step. A static proxy is re-inserted at once; a moving one is
    /// stored with its new box at once (its ancestors' boxes grow to contain it, O(depth))
    /// and placed anew at the next [`Self::update_pairs`], all together, where a large batch
    /// is cheaper as one refit. Queries see the new box either way. Does nothing for a dead
    /// handle. Returns false, and leaves the proxy as it was, when the new fat box is not
    /// finite and ordered (a proxy of a body whose motion overflowed `f32`).
    pub fn move_proxy_along(&mut self, id: ProxyId, aabb: Aabb, displacement: Vec3) -> bool {
        let (kind, leaf) = (id.kind(), id.leaf());
        let tree = self.tree_mut(kind);
        if !tree.contains(leaf) || tree.aabb(leaf).contains(&aabb) {
            return true;
        }
        // The box swept from here to PREDICTION_STEPS displacements ahead, then fattened.
        let ahead = Self::PREDICTION_STEPS * displacement;
        let reach = Aabb::new(aabb.min + ahead.min(Vec3::ZERO), aabb.max + ahead.max(Vec3::ZERO));
        let fat_box = Self::fat_box(&reach, kind);
        if !fat_box.is_valid() {
            return false;
        }
        match kind {
            ProxyKind::Static => tree.move_leaf(leaf, fat_box),
            ProxyKind::Moving => tree.enlarge_leaf(leaf, fat_box),
        }
        self.mark_moved(id);
        true
    }

    /// The box a proxy is stored with (fat for moving proxies), metres; [`Aabb::EMPTY`] for a
    /// dead handle.
    pub fn fat_aabb(&self, id: ProxyId) -> Aabb {
        self.tree(id.kind()).aabb(id.leaf())
    }

    /// The user value of a proxy; `u32::MAX` for a dead handle.
    pub fn user(&self, id: ProxyId) -> u32 {
        self.tree(id.kind()).user(id.leaf()).unwrap_or(u32::MAX)
    }

    /// True when the stored (fat) boxes of two live proxies overlap (touching counts).
    pub fn fat_aabbs_overlap(&self, a: ProxyId, b: ProxyId) -> bool {
        let box_of = |id: ProxyId| self.tree(id.kind()).live_box(id.leaf());
        match (box_of(a), box_of(b)) {
            (Some(box_a), Some(box_b)) => box_a.overlaps(box_b),
            _ => false,
        }
    }

    /// Calls `f(user)` for every proxy (both trees) whose stored box overlaps `aabb`, moving
    /// proxies first, until `f` returns false.
    pub fn query(&self, aabb: &Aabb, mut f: impl FnMut(u32) -> bool) {
        let mut go_on = true;
        for tree in [&self.moving_tree, &self.static_tree] {
            tree.query(aabb, |leaf| {
                go_on = f(tree.user(leaf).unwrap_or(u32::MAX));
                go_on
            });
            if !go_on {
                return;
            }
        }
    }

    /// Casts a ray against the stored boxes of both trees, nearest first. `f(user, t_enter)`
    /// gets the ray parameter at which the ray enters the proxy's box and returns the new
    /// `max_t`: the parameter of an exact hit to clip the ray, `f32::INFINITY` to go on
    /// unchanged, or 0 to stop. See [`cast_ray_through_trees`] for the full contract.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32, mut f: impl FnMut(u32, f32) -> f32) {
        let trees = [&self.moving_tree, &self.static_tree];
        cast_ray_through_trees(&trees, ray, max_t, |tree_index, leaf, t_enter| {
            f(trees[tree_index].user(leaf).unwrap_or(u32::MAX), t_enter)
        });
    }
}

// Consistency, for snapshots on restore.
impl BroadPhase {
    /// Checks both trees' invariants (see [`DynamicTree::validate`]).
    pub fn validate(&self) -> crate::Result<()> {
        self.static_tree.validate().map_err(|e| e.within("static_tree"))?;
        self.moving_tree.validate().map_err(|e| e.within("moving_tree"))
    }

    /// Calls `visit(proxy, user)` for every live proxy, static tree first, in handle order.
    pub(crate) fn for_each_proxy(&self, mut visit: impl FnMut(ProxyId, u32)) {
        for kind in [ProxyKind::Static, ProxyKind::Moving] {
            for (leaf, entry) in self.tree(kind).leaves.iter().enumerate().filter(|(_, l)| l.live) {
                visit(ProxyId::new(kind, leaf as LeafId), entry.user);
            }
        }
    }
}

/// Inspection and whole-tree operations used by the tests.
#[cfg(test)]
impl BroadPhase {
    /// The tree holding moving proxies.
    pub fn moving_tree(&self) -> &DynamicTree {
        &self.moving_tree
    }

    /// True when `id` names a live proxy.
    pub fn contains(&self, id: ProxyId) -> bool {
        self.tree(id.kind()).contains(id.leaf())
    }

    /// [`Self::move_proxy_along`] with no expected motion.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb) -> bool {
        self.move_proxy_along(id, aabb, Vec3::ZERO)
    }

    /// Rebuilds both trees top-down for the best query speed (e.g. after loading a scene).
    /// Handles stay valid; pairs are not affected.
    pub fn rebuild(&mut self) {
        self.static_tree.rebuild();
        self.moving_tree.rebuild();
    }
}

// Pair finding.
impl BroadPhase {
    /// Replaces `out` with the candidate pairs found since the last call: for every moved
    /// proxy P, every proxy Q of either tree whose stored box overlaps P's, except that two
    /// static proxies never pair and a proxy never pairs with itself. Each pair is given as
    /// `(user_a, user_b)` with `user_a < user_b` (pairs of equal users are dropped), without
    /// duplicates, sorted. Pairs that were reported before and still overlap are reported
    /// again only if one of them moved. Clears the moved set.
    ///
    /// First brings the moving tree up to date with the proxies that left their fat boxes
    /// (see [`Self::move_proxy_along`] and [`DynamicTree::update_enlarged`]: re-inserted one by
    /// one, or refitted all together). Cost: with few moved proxies, one tree query per moved proxy;
    /// once at least 1/[`Self::WALK_FRACTION`] of all proxies moved, one simultaneous walk
    /// of the trees (see [`DynamicTree::for_each_overlapping_pair`]), whose cost does not
    /// grow with the number moved. Both give the same list. No allocation once `out` and the
    /// internal lists have grown to their steady-state sizes.
    #[cfg(test)]
    pub fn update_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        self.update_pairs_on(&Workers::default(), out);
    }

    /// [`Self::update_pairs`] with the queries split among `workers` (each task appends its
    /// pairs to a list of its own; the lists are joined in order, then sorted as before).
    pub(crate) fn update_pairs_on(&mut self, workers: &Workers, out: &mut Vec<(u32, u32)>) {
        self.moved.sort_unstable();
        self.moved.dedup();
        let search = match self.moved.len() * Self::WALK_FRACTION >= self.proxy_count() {
            true => PairSearch::Walk,
            false => PairSearch::Queries,
        };
        self.update_pairs_by(workers, out, search);
    }

    /// [`Self::update_pairs_on`] with the search method chosen by the caller (for tests).
    pub(crate) fn update_pairs_by(&mut self, workers: &Workers, out: &mut Vec<(u32, u32)>, search: PairSearch) {
        out.clear();
        self.moving_tree.update_enlarged_on(workers, Self::REFIT_FRACTION);
        // Taken out and put back (capacity kept) so the trees can be borrowed alongside it.
        let mut moved = std::mem::take(&mut self.moved);
        moved.sort_unstable();
        moved.dedup();
        match search {
            PairSearch::Queries => {
                let this = &*self;
                workers::extend_by(workers, out, &moved, QUERIES_PER_TASK, |_, &id, found| {
                    if this.tree(id.kind()).is_moved(id.leaf()) {
                        this.find_pairs_of(id, found);
                    }
                });
            }
            PairSearch::Walk => self.find_pairs_by_walk(out),
        }
        for &id in &moved {
            // Stale entries name dead leaves, where this does nothing.
            self.tree_mut(id.kind()).set_moved(id.leaf(), false);
        }
        moved.clear();
        self.moved = moved;
        pair_sort::sort_and_dedup(out, &mut self.pair_sort);
    }

    /// Appends the pairs of moved proxy `id`. Both proxies of a pair may have moved; then
    /// only the one with the smaller handle reports it, so each pair is found once.
    fn find_pairs_of(&self, id: ProxyId, out: &mut Vec<(u32, u32)>) {
        let fat_box = self.fat_aabb(id);
        let user = self.user(id);
        // A static proxy looks only among moving ones; a moving one looks in both trees.
        let searched: &[ProxyKind] = match id.kind() {
            ProxyKind::Static => &[ProxyKind::Moving],
            ProxyKind::Moving => &[ProxyKind::Moving, ProxyKind::Static],
        };
        for &kind in searched {
            let tree = self.tree(kind);
            tree.query(&fat_box, |leaf| {
                let other = ProxyId::new(kind, leaf);
                let (other_moved, other_user) = tree.found_leaf(leaf);
                let reported_by_other = other_moved && other < id;
                if other != id && !reported_by_other {
                    push_pair(out, user, other_user);
                }
                true
            });
        }
    }

    /// Appends every overlapping moving-moving and moving-static pair with a moved member,
    /// found by walking the trees against themselves and each other.
    fn find_pairs_by_walk(&self, out: &mut Vec<(u32, u32)>) {
        let (moving, statics) = (&self.moving_tree, &self.static_tree);
        let user = |tree: &DynamicTree, leaf| tree.user(leaf).unwrap_or(u32::MAX);
        moving.for_each_overlapping_pair(|a, b| {
            if moving.is_moved(a) || moving.is_moved(b) {
                push_pair(out, user(moving, a), user(moving, b));
            }
        });
        moving.for_each_overlap_with(statics, |a, b| {
            if moving.is_moved(a) || statics.is_moved(b) {
                push_pair(out, user(moving, a), user(statics, b));
            }
        });
    }

    fn mark_moved(&mut self, id: ProxyId) {
        let tree = self.tree_mut(id.kind());
        if !tree.is_moved(id.leaf()) {
            tree.set_moved(id.leaf(), true);
            self.moved.push(id);
        }
    }

    fn fat_box(aabb: &Aabb, kind: ProxyKind) -> Aabb {
        match kind {
            ProxyKind::Static => *aabb,
            ProxyKind::Moving => aabb.expanded(Self::MARGIN),
        }
    }

    #[inline]
    fn tree(&self, kind: ProxyKind) -> &DynamicTree {
        match kind {
            ProxyKind::Static => &self.static_tree,
            ProxyKind::Moving => &self.moving_tree,
        }
    }

    #[inline]
    fn tree_mut(&mut self, kind: ProxyKind) -> &mut DynamicTree {
        match kind {
            ProxyKind::Static => &mut self.static_tree,
            ProxyKind::Moving => &mut self.moving_tree,
        }
    }
}

/// How [`BroadPhase::update_pairs`] searches for pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairSearch {
    /// One tree query per moved proxy.
    Queries,
    /// One simultaneous walk of the trees, filtered to pairs with a moved member.
    Walk,
}

/// Appends the pair of two users as (smaller, larger); equal users make no pair.
/// Fewest moved proxies per task when their queries are split among the workers (a query
/// costs some tens of nanoseconds).
const QUERIES_PER_TASK: usize = 128;

#[inline]
fn push_pair(out: &mut Vec<(u32, u32)>, user_a: u32, user_b: u32) {
    if user_a != user_b {
        out.push((user_a.min(user_b), user_a.max(user_b)));
    }
}
