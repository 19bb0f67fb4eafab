//! Walks over [`DynamicTree`]s: box queries, ray casts, and the overlapping leaf pairs
//! within a tree or between two trees.
//!
//! Every walk reads the children's boxes from their parent's node, so each step down costs
//! one cache line, and keeps its work list in an [`InlineStack`] or [`InlineMinHeap`] on the
//! call stack (no heap allocation for trees of realistic height).

use super::aabb_tree::{Child, DynamicTree, LeafId, STACK_CAPACITY};
use super::scratch::{InlineMinHeap, InlineStack};
use crate::geometry::{Aabb, Ray};

impl DynamicTree {
    /// Calls `f(leaf)` for every leaf whose box overlaps `aabb` (touching counts), in a
    /// deterministic order, until `f` returns false.
    pub fn query(&self, aabb: &Aabb, mut f: impl FnMut(LeafId) -> bool) {
        let Some(root) = self.root else {
            return;
        };
        if !self.root_box().overlaps(aabb) {
            return;
        }
        if root.is_leaf() {
            f(root.index() as LeafId);
            return;
        }
        // Depth first, slot 1 before slot 0. The stack holds internal nodes whose boxes are
        // known to overlap `aabb`; of a node's overlapping internal children, the last is
        // visited next without a trip through the stack.
        let mut stack: InlineStack<u32, STACK_CAPACITY> = InlineStack::new();
        let mut index = root.index() as u32;
        loop {
            let node = &self.internals[index as usize];
            let mut next = None;
            for slot in 0..2 {
                if !node.boxes[slot].overlaps(aabb) {
                    continue;
                }
                let child = node.children[slot];
                if child.is_leaf() {
                    if !f(child.index() as LeafId) {
                        return;
                    }
                } else if let Some(earlier) = next.replace(child.index() as u32) {
                    stack.push(earlier);
                }
            }
            match next.or_else(|| stack.pop()) {
                Some(following) => index = following,
                None => return,
            }
        }
    }

    /// Casts `ray` against the leaf boxes; see [`cast_ray_through_trees`] for the contract.
    /// `f(leaf, t_enter)` is called with the ray parameter at which the ray enters the leaf's
    /// box and returns the new `max_t` (values <= 0 stop the cast).
    #[cfg(test)]
    pub fn cast_ray(&self, ray: &Ray, max_t: f32, mut f: impl FnMut(LeafId, f32) -> f32) {
        cast_ray_through_trees(&[self], ray, max_t, |_, leaf, t_enter| f(leaf, t_enter));
    }

    /// Calls `f(a, b)` once for every unordered pair of distinct leaves of this tree whose
    /// boxes overlap (touching counts), in a deterministic order.
    ///
    /// One simultaneous descent instead of a query per leaf: a subtree is paired with itself
    /// (its two children with themselves, and with each other when their boxes overlap), and
    /// two overlapping subtrees are paired by pairing their children (up to four pairs), of
    /// which those that overlap are followed. Work is proportional to the number of
    /// overlapping node pairs, a few times the number of leaves in a spread-out scene.
    pub fn for_each_overlapping_pair(&self, mut f: impl FnMut(LeafId, LeafId)) {
        let Some(root) = self.root.filter(|root| !root.is_leaf()) else {
            return;
        };
        let mut stack: InlineStack<PairWork, PAIR_STACK_CAPACITY> = InlineStack::new();
        stack.push(PairWork::Within(root));
        while let Some(work) = stack.pop() {
            match work {
                PairWork::Within(node) => {
                    let node = &self.internals[node.index()];
                    for child in node.children.into_iter().filter(|c| !c.is_leaf()) {
                        stack.push(PairWork::Within(child));
                    }
                    if node.boxes[0].overlaps(&node.boxes[1]) {
                        stack.push(PairWork::Between(node.children[0], node.children[1]));
                    }
                }
                PairWork::Between(a, b) => split_pair(self, self, a, b, &mut stack, &mut f),
            }
        }
    }

    /// Calls `f(a, b)` once for every leaf `a` of this tree and leaf `b` of `other` whose
    /// boxes overlap (touching counts), in a deterministic order. See
    /// [`DynamicTree::for_each_overlapping_pair`] for the method.
    pub fn for_each_overlap_with(&self, other: &DynamicTree, mut f: impl FnMut(LeafId, LeafId)) {
        let (Some(root_a), Some(root_b)) = (self.root, other.root) else {
            return;
        };
        if !self.root_box().overlaps(&other.root_box()) {
            return;
        }
        let mut stack: InlineStack<PairWork, PAIR_STACK_CAPACITY> = InlineStack::new();
        stack.push(PairWork::Between(root_a, root_b));
        while let Some(work) = stack.pop() {
            if let PairWork::Between(a, b) = work {
                split_pair(self, other, a, b, &mut stack, &mut f);
            }
        }
    }
}

/// Inline capacity of the pair walk's work list (items are 12 bytes). The walk keeps at
/// most a few pending items per level it has descended; the benchmark scene (5,000 boxes,
/// height 13) peaked at 19.
const PAIR_STACK_CAPACITY: usize = 128;

/// A node of some tree with its box.
type NodeBox = (Child, Aabb);

/// One piece of work of a pair walk. Nodes travel without their boxes: the boxes a step
/// tests are those of the nodes' children, read from the nodes themselves.
#[derive(Clone, Copy, Debug)]
enum PairWork {
    /// All overlapping leaf pairs inside this internal node's subtree.
    Within(Child),
    /// All overlapping leaf pairs with one leaf under each node; the nodes' boxes overlap.
    /// The first node is of the first tree, the second of the second tree; not both leaves.
    Between(Child, Child),
}

impl Default for PairWork {
    fn default() -> Self {
        PairWork::Within(Child::default())
    }
}

/// Handles `Between(a, b)` (a of `tree_a`, b of `tree_b`, boxes overlapping): every pair
/// of one child (or the node itself, for a leaf) of `a` with one of `b` whose boxes overlap
/// is reported when both are leaves, else pushed as further work.
fn split_pair(
    tree_a: &DynamicTree,
    tree_b: &DynamicTree,
    a: Child,
    b: Child,
    stack: &mut InlineStack<PairWork, PAIR_STACK_CAPACITY>,
    f: &mut impl FnMut(LeafId, LeafId),
) {
    let parts = |tree: &DynamicTree, node: Child| -> ([NodeBox; 2], usize) {
        if node.is_leaf() {
            let part = (node, tree.leaves[node.index()].aabb);
            return ([part, part], 1);
        }
        let n = &tree.internals[node.index()];
        ([(n.children[0], n.boxes[0]), (n.children[1], n.boxes[1])], 2)
    };
    let (parts_a, count_a) = parts(tree_a, a);
    let (parts_b, count_b) = parts(tree_b, b);
    for part_a in &parts_a[..count_a] {
        for part_b in &parts_b[..count_b] {
            if !part_a.1.overlaps(&part_b.1) {
                continue;
            }
            match part_a.0.is_leaf() && part_b.0.is_leaf() {
                true => f(part_a.0.index() as LeafId, part_b.0.index() as LeafId),
                false => stack.push(PairWork::Between(part_a.0, part_b.0)),
            }
        }
    }
}

/// Ray cast over several trees at once, best first: leaves are reported in increasing order
/// of the ray parameter `t_enter` at which the ray enters their box (ties in a fixed order),
/// across all trees.
///
/// The ray is `ray.origin + t * ray.direction`, `t` in `[0, max_t]` (units of the direction's
/// length). `f(tree_index, leaf, t_enter)` returns the new `max_t`: a value <= 0 (or NaN)
/// stops the cast at once; otherwise `max_t` becomes the smaller of the two, so returning the
/// parameter of an exact hit clips the ray there and `f32::INFINITY` keeps it unchanged. A
/// leaf is reported only while `t_enter <= max_t`, so once the ray is clipped at `t`, no leaf
/// whose box starts beyond `t` is reported. Nothing is reported when `max_t` is not >= 0.
pub fn cast_ray_through_trees(
    trees: &[&DynamicTree],
    ray: &Ray,
    max_t: f32,
    mut f: impl FnMut(usize, LeafId, f32) -> f32,
) {
    // Heap items: (t_enter, tree index, child), least t first.
    type Item = (f32, u32, Child);
    let less = |x: &Item, y: &Item| x.0 < y.0 || (x.0 == y.0 && (x.1, x.2) < (y.1, y.2));
    let mut max_t = max_t;
    if max_t.is_nan() || max_t < 0.0 {
        return;
    }
    let inv_dir = ray.direction.recip();
    let mut heap: InlineMinHeap<Item, STACK_CAPACITY> = InlineMinHeap::new();
    for (tree_index, tree) in trees.iter().enumerate() {
        let Some(root) = tree.root else {
            continue;
        };
        if let Some(t) = tree.root_box().ray_entry(ray.origin, inv_dir, max_t) {
            heap.push((t, tree_index as u32, root), less);
        }
    }
    while let Some((t_enter, tree_index, child)) = heap.pop(less) {
        // The heap pops in increasing t: once one box starts beyond max_t, all do.
        if t_enter > max_t {
            return;
        }
        if child.is_leaf() {
            let new_max_t = f(tree_index as usize, child.index() as LeafId, t_enter);
            if new_max_t.is_nan() || new_max_t <= 0.0 {
                return;
            }
            max_t = max_t.min(new_max_t);
            continue;
        }
        let node = &trees[tree_index as usize].internals[child.index()];
        for slot in 0..2 {
            if let Some(t) = node.boxes[slot].ray_entry(ray.origin, inv_dir, max_t) {
                heap.push((t, tree_index, node.children[slot]), less);
            }
        }
    }
}
