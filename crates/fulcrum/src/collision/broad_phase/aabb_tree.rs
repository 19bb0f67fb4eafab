//! A dynamic AABB tree: a binary bounding volume hierarchy that supports insert, remove and
//! move of leaves at O(log n) cost, plus box queries and ray casts.
//!
//! Layout. Leaves and internal nodes live in two `Vec`s, each with an intrusive free list
//! (linked through `parent`, reused last-freed-first, so the layout depends only on the
//! sequence of calls). A leaf holds the caller's box (usually "fat": grown by a margin so
//! that small motions need no update) and a `user` value; its index is its handle, stable
//! for as long as it lives, because edits only ever create, free or rewire internal nodes.
//! An internal node stores, for each of its two children, the child's box and height, in one
//! 64-byte cache line: a walk tests, descends, inserts or rotates reading one line per
//! level, never the children themselves.
//!
//! Insertion picks the sibling by the surface area heuristic (SAH) along one descent path;
//! afterwards the ancestors are refitted and rotated: by area where that lowers the SAH cost,
//! by height (AVL-style) where one child has grown much taller than the other, which keeps
//! the height O(log n) whatever the insertion order.

mod rebuild;

use rebuild::BuildItem;
#[cfg(test)]
pub use rebuild::REBUILD_AREA_RATIO;

use crate::error::{Error, Result};
use crate::geometry::Aabb;

/// Handle of a leaf, returned by [`DynamicTree::create_leaf`] (below 2^31).
pub type LeafId = u32;

/// "No node": the root's parent, the end of a free list.
pub(super) const NONE: u32 = u32::MAX;

/// Largest height difference between the two children of a node that rotations leave
/// alone. 1 would be a strict AVL tree, but forcing it undoes most of the area-reducing
/// rotations. Measured on 5,000 boxes each re-inserted 20 times, SAH cost relative to a
/// top-down rebuild: 4.95x with 1, 1.58x with 2, 0.95x with 3, 0.94x with 4 (one level
/// taller). A tree whose every node keeps within 3 is at most about 2.15 log2(n) high.
const MAX_IMBALANCE: i32 = 3;

/// Inline capacity of traversal stacks: far above the height of any balanced tree.
pub(super) const STACK_CAPACITY: usize = 128;

/// A child of an internal node: a leaf (bit 31 set) or an internal node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Child(pub(super) u32);

impl Child {
    const LEAF_BIT: u32 = 1 << 31;
    /// Marks the children of a free internal node.
    const FREE: Child = Child(NONE);

    #[inline]
    pub(super) fn leaf(index: LeafId) -> Child {
        Child(index | Self::LEAF_BIT)
    }

    #[inline]
    fn internal(index: u32) -> Child {
        Child(index)
    }

    #[inline]
    pub(super) fn is_leaf(self) -> bool {
        self.0 & Self::LEAF_BIT != 0
    }

    #[inline]
    pub(super) fn index(self) -> usize {
        (self.0 & !Self::LEAF_BIT) as usize
    }
}

/// A leaf: the caller's box and value.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Leaf {
    /// The caller's (fat) box, metres.
    pub(super) aabb: Aabb,
    /// Internal parent node, `NONE` at the root. When free: the next free leaf.
    parent: u32,
    /// The caller's value.
    pub(super) user: u32,
    /// False when the leaf is on the free list.
    pub(super) live: bool,
    /// A mark owned by the caller (the broad phase: "moved since the last pair update").
    moved: bool,
    /// Given a new box by `enlarge_leaf` and not yet re-inserted.
    enlarged: bool,
}

/// An internal node: its two children with their boxes and heights (one cache line).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
#[repr(C, align(64))]
pub(super) struct Internal {
    /// Box of each child (a leaf's box, or the union of an internal child's boxes), metres.
    pub(super) boxes: [Aabb; 2],
    /// The children; `Child::FREE` when the node is on the free list.
    pub(super) children: [Child; 2],
    /// Parent node, `NONE` at the root. When free: the next free internal node.
    parent: u32,
    /// Height of each child: 0 for a leaf, 1 + its taller child's for an internal node.
    heights: [u16; 2],
}

impl Internal {
    /// The node's own box: the union of its children's.
    #[inline]
    pub(super) fn aabb(&self) -> Aabb {
        self.boxes[0].union(&self.boxes[1])
    }

    #[inline]
    fn height(&self) -> u16 {
        1 + self.heights[0].max(self.heights[1])
    }

    /// Which slot (0 or 1) holds `child` (which must be one of the two).
    #[inline]
    fn slot_of(&self, child: Child) -> usize {
        usize::from(self.children[1] == child)
    }
}

/// A dynamic AABB tree of boxes with `u32` user values. See the module docs.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DynamicTree {
    pub(super) leaves: Vec<Leaf>,
    pub(super) internals: Vec<Internal>,
    pub(super) root: Option<Child>,
    free_leaf: u32,
    free_internal: u32,
    leaf_count: usize,
    /// Reused item list for [`DynamicTree::rebuild`].
    #[serde(skip)]
    rebuild_scratch: Vec<BuildItem>,
    /// Reused subtree list for [`DynamicTree::refit_on`].
    #[serde(skip)]
    refit_subtrees: Vec<rebuild::SubtreeRefit>,
    /// Leaves given a new box by [`DynamicTree::enlarge_leaf`] and not yet re-inserted; may
    /// hold stale or repeated entries (the leaf's `enlarged` flag is the truth).
    enlarged: Vec<LeafId>,
    /// Least total internal area seen since the last rebuild (m²; infinite before any), the
    /// yardstick for [`DynamicTree::update_enlarged`]'s choice to rebuild.
    least_area: f32,
}

impl Default for DynamicTree {
    fn default() -> Self {
        Self::new()
    }
}

impl DynamicTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self {
            leaves: Vec::new(),
            internals: Vec::new(),
            root: None,
            free_leaf: NONE,
            free_internal: NONE,
            leaf_count: 0,
            rebuild_scratch: Vec::new(),
            refit_subtrees: Vec::new(),
            enlarged: Vec::new(),
            least_area: f32::INFINITY,
        }
    }

    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.leaf_count
    }

    /// Sum of the surface areas of the internal nodes' boxes, m²: the SAH cost that
    /// insertion and rotations try to keep low (a tree-quality measure for tests).
    pub fn internal_area(&self) -> f32 {
        let live = self.internals.iter().filter(|n| n.children[0] != Child::FREE);
        live.map(|n| n.aabb().surface_area()).sum()
    }

    /// True when `leaf` names a live leaf.
    #[inline]
    pub fn contains(&self, leaf: LeafId) -> bool {
        self.leaves.get(leaf as usize).is_some_and(|l| l.live)
    }

    /// The box stored with a leaf (metres), or [`Aabb::EMPTY`] when `leaf` is not live.
    #[inline]
    pub fn aabb(&self, leaf: LeafId) -> Aabb {
        self.live_leaf(leaf).map_or(Aabb::EMPTY, |l| l.aabb)
    }

    /// The user value of a leaf, or `None` when `leaf` is not live.
    #[inline]
    pub fn user(&self, leaf: LeafId) -> Option<u32> {
        self.live_leaf(leaf).map(|l| l.user)
    }

    /// The box of a live leaf (metres), or `None` when `leaf` is not live.
    #[inline]
    pub(super) fn live_box(&self, leaf: LeafId) -> Option<&Aabb> {
        self.live_leaf(leaf).map(|l| &l.aabb)
    }

    /// The caller's mark and the user value of a leaf that a walk of this tree just found
    /// (so live).
    #[inline]
    pub(super) fn found_leaf(&self, leaf: LeafId) -> (bool, u32) {
        let entry = &self.leaves[leaf as usize];
        debug_assert!(entry.live, "walks find only live leaves");
        (entry.moved, entry.user)
    }

    /// The caller's mark on a leaf (false when `leaf` is not live).
    #[inline]
    pub fn is_moved(&self, leaf: LeafId) -> bool {
        self.live_leaf(leaf).is_some_and(|l| l.moved)
    }

    /// Sets the caller's mark on a live leaf; does nothing for other handles.
    #[inline]
    pub fn set_moved(&mut self, leaf: LeafId, moved: bool) {
        if let Some(l) = self.leaves.get_mut(leaf as usize).filter(|l| l.live) {
            l.moved = moved;
        }
    }

    /// Adds a leaf with box `aabb` (metres, finite, min <= max) and returns its handle, valid
    /// until [`DynamicTree::destroy_leaf`]. Handles of destroyed leaves are reused. The
    /// caller's mark starts cleared.
    pub fn create_leaf(&mut self, aabb: Aabb, user: u32) -> LeafId {
        debug_assert!(aabb.is_valid(), "tree leaf box must be finite and ordered: {aabb:?}");
        let leaf = Leaf { aabb, parent: NONE, user, live: true, moved: false, enlarged: false };
        let index = if self.free_leaf == NONE {
            self.leaves.push(leaf);
            (self.leaves.len() - 1) as LeafId
        } else {
            let index = self.free_leaf;
            self.free_leaf = self.leaves[index as usize].parent;
            self.leaves[index as usize] = leaf;
            index
        };
        debug_assert!(index < Child::LEAF_BIT, "more than 2^31 leaves");
        self.insert_leaf(index);
        self.leaf_count += 1;
        index
    }

    /// Removes a leaf. Does nothing when `leaf` is not live.
    pub fn destroy_leaf(&mut self, leaf: LeafId) {
        if !self.contains(leaf) {
            debug_assert!(false, "destroy_leaf: {leaf} is not a live leaf");
            return;
        }
        self.remove_leaf(leaf);
        let slot = &mut self.leaves[leaf as usize];
        *slot = Leaf { parent: self.free_leaf, live: false, moved: false, enlarged: false, ..*slot };
        self.free_leaf = leaf;
        self.leaf_count -= 1;
    }

    /// Gives a leaf a new box and re-inserts it (its handle stays the same). Does nothing
    /// when `leaf` is not live.
    pub fn move_leaf(&mut self, leaf: LeafId, aabb: Aabb) {
        debug_assert!(aabb.is_valid(), "tree leaf box must be finite and ordered: {aabb:?}");
        if !self.contains(leaf) {
            debug_assert!(false, "move_leaf: {leaf} is not a live leaf");
            return;
        }
        self.remove_leaf(leaf);
        self.leaves[leaf as usize].aabb = aabb;
        self.leaves[leaf as usize].enlarged = false;
        self.insert_leaf(leaf);
    }

    /// Gives a leaf a new box at once, cheaply, and leaves its re-insertion to
    /// [`DynamicTree::update_enlarged`]: the leaf's slot takes the new box and each
    /// ancestor's slot grows to contain it, stopping at the first that already does (O(depth)
    /// at most, no restructuring). The tree stays valid for every query; it only gets looser
    /// until the re-insertion. Does nothing when `leaf` is not live.
    pub fn enlarge_leaf(&mut self, leaf: LeafId, aabb: Aabb) {
        debug_assert!(aabb.is_valid(), "tree leaf box must be finite and ordered: {aabb:?}");
        let Some(entry) = self.leaves.get_mut(leaf as usize).filter(|l| l.live) else {
            debug_assert!(false, "enlarge_leaf: {leaf} is not a live leaf");
            return;
        };
        entry.aabb = aabb;
        let parent = entry.parent;
        if !std::mem::replace(&mut entry.enlarged, true) {
            self.enlarged.push(leaf);
        }
        if parent == NONE {
            return;
        }
        // A leaf's slot holds its exact box; an internal child's slot only has to contain
        // the child's box: old slot ∪ new leaf box contains it.
        let node = &mut self.internals[parent as usize];
        let slot = node.slot_of(Child::leaf(leaf));
        node.boxes[slot] = aabb;
        let mut child = parent;
        let mut parent = node.parent;
        while parent != NONE {
            let node = &mut self.internals[parent as usize];
            let slot = node.slot_of(Child::internal(child));
            if node.boxes[slot].contains(&aabb) {
                return;
            }
            node.boxes[slot] = node.boxes[slot].union(&aabb);
            (child, parent) = (parent, node.parent);
        }
    }
}

// Small accessors.
impl DynamicTree {
    #[inline]
    fn live_leaf(&self, leaf: LeafId) -> Option<&Leaf> {
        self.leaves.get(leaf as usize).filter(|l| l.live)
    }

    /// The box of the whole tree (`Aabb::EMPTY` when empty).
    pub(super) fn root_box(&self) -> Aabb {
        match self.root {
            None => Aabb::EMPTY,
            Some(root) if root.is_leaf() => self.leaves[root.index()].aabb,
            Some(root) => self.internals[root.index()].aabb(),
        }
    }

    #[inline]
    fn parent_of(&self, child: Child) -> u32 {
        if child.is_leaf() {
            self.leaves[child.index()].parent
        } else {
            self.internals[child.index()].parent
        }
    }

    #[inline]
    fn set_parent(&mut self, child: Child, parent: u32) {
        if child.is_leaf() {
            self.leaves[child.index()].parent = parent;
        } else {
            self.internals[child.index()].parent = parent;
        }
    }

    fn allocate_internal(&mut self, node: Internal) -> u32 {
        if self.free_internal == NONE {
            self.internals.push(node);
            return (self.internals.len() - 1) as u32;
        }
        let index = self.free_internal;
        self.free_internal = self.internals[index as usize].parent;
        self.internals[index as usize] = node;
        index
    }

    fn free_internal(&mut self, index: u32) {
        let node = &mut self.internals[index as usize];
        node.children = [Child::FREE; 2];
        node.parent = self.free_internal;
        self.free_internal = index;
    }
}

// Insertion and removal.
impl DynamicTree {
    /// Links a detached leaf (box already set) into the tree next to the SAH-best sibling.
    fn insert_leaf(&mut self, leaf: LeafId) {
        let new_child = Child::leaf(leaf);
        let leaf_box = self.leaves[leaf as usize].aabb;
        let Some(root) = self.root else {
            self.root = Some(new_child);
            self.leaves[leaf as usize].parent = NONE;
            return;
        };
        let (sibling, sibling_box, sibling_height) = self.find_best_sibling(&leaf_box, root);
        let old_parent = self.parent_of(sibling);
        let new_parent = self.allocate_internal(Internal {
            boxes: [sibling_box, leaf_box],
            children: [sibling, new_child],
            parent: old_parent,
            heights: [sibling_height, 0],
        });
        self.set_parent(sibling, new_parent);
        self.leaves[leaf as usize].parent = new_parent;
        if old_parent == NONE {
            self.root = Some(Child::internal(new_parent));
        } else {
            let parent = &mut self.internals[old_parent as usize];
            let slot = parent.slot_of(sibling);
            parent.children[slot] = Child::internal(new_parent);
        }
        self.rotate(new_parent);
        self.update_ancestors(new_parent, true);
    }

    /// Sibling search by the surface area heuristic (SAH). The cost of a tree is the total
    /// area A of its internal nodes (a query's chance to enter a node grows with its area).
    /// Making node S the sibling of leaf L adds a parent of area A(S ∪ L) and grows every
    /// ancestor Q of S by ΔA(Q) = A(Q ∪ L) - A(Q):
    ///   cost(S) = A(S ∪ L) + Σ_{Q ancestor of S} ΔA(Q).
    /// We walk one path down from the root, evaluating cost(S) exactly for every node on it
    /// and its children, and keep the cheapest. Below an internal child C nothing can cost
    /// less than ΔA(C) + A(L) + (the ancestors' growth so far), so we follow the child with
    /// the smaller such bound and stop once that bound cannot beat the best cost found.
    ///
    /// Returns the sibling with its box and height.
    fn find_best_sibling(&self, leaf_box: &Aabb, root: Child) -> (Child, Aabb, u16) {
        if root.is_leaf() {
            return (root, self.leaves[root.index()].aabb, 0);
        }
        let leaf_area = leaf_box.surface_area();
        let root_node = &self.internals[root.index()];
        let root_box = root_node.aabb();
        let mut best = (root, root_box, root_node.height());
        let mut best_cost = root_box.union(leaf_box).surface_area();
        let (mut index, mut node_box) = (root.index(), root_box);
        // Σ ΔA over the current node and its ancestors: paid by any sibling below it.
        let mut inherited = 0.0;
        loop {
            let node = &self.internals[index];
            inherited += node_box.union(leaf_box).surface_area() - node_box.surface_area();
            let mut next = None;
            let mut next_bound = best_cost;
            for slot in 0..2 {
                let child_box = &node.boxes[slot];
                let combined_area = child_box.union(leaf_box).surface_area();
                let cost = combined_area + inherited;
                if cost < best_cost {
                    best_cost = cost;
                    best = (node.children[slot], *child_box, node.heights[slot]);
                }
                let bound = inherited + combined_area - child_box.surface_area() + leaf_area;
                if !node.children[slot].is_leaf() && bound < next_bound.min(best_cost) {
                    (next, next_bound) = (Some(slot), bound);
                }
            }
            let Some(slot) = next else {
                return best;
            };
            (index, node_box) = (node.children[slot].index(), node.boxes[slot]);
        }
    }

    /// Unlinks a leaf: its sibling takes the place of their parent, which is freed.
    fn remove_leaf(&mut self, leaf: LeafId) {
        let parent = std::mem::replace(&mut self.leaves[leaf as usize].parent, NONE);
        if parent == NONE {
            self.root = None;
            return;
        }
        let node = self.internals[parent as usize];
        let sibling_slot = 1 - node.slot_of(Child::leaf(leaf));
        let sibling = node.children[sibling_slot];
        let grandparent = node.parent;
        self.free_internal(parent);
        self.set_parent(sibling, grandparent);
        if grandparent == NONE {
            self.root = Some(sibling);
            return;
        }
        let above = &mut self.internals[grandparent as usize];
        let slot = above.slot_of(Child::internal(parent));
        above.children[slot] = sibling;
        above.boxes[slot] = node.boxes[sibling_slot];
        above.heights[slot] = node.heights[sibling_slot];
        self.update_ancestors(grandparent, false);
    }

    /// Internal node `index` has changed: for each ancestor in turn, write the child's box
    /// and height into the ancestor's slot, then (with `rotate`) rotate the ancestor. Stops
    /// at the first ancestor whose slot did not change and that did not rotate: everything
    /// above it is then already correct.
    ///
    /// Insertion rotates, removal only refits. Measured on the benchmark's 5,000 boxes, each
    /// re-inserted 20 times with `move_leaf`: of the nine combinations of {no rotation,
    /// rotation with early stop, rotation up to the root} on the two walks, this one gave
    /// the lowest SAH cost (0.95x that of a top-down rebuild) at the second-lowest run time
    /// (no rotation at all: 10% faster, 1.11x the cost); rotating on removal without
    /// rotating on insertion doubled the cost.
    fn update_ancestors(&mut self, mut index: u32, rotate: bool) {
        loop {
            let node = &self.internals[index as usize];
            let (aabb, height, parent) = (node.aabb(), node.height(), node.parent);
            if parent == NONE {
                return;
            }
            let above = &mut self.internals[parent as usize];
            let slot = above.slot_of(Child::internal(index));
            let unchanged = above.boxes[slot] == aabb && above.heights[slot] == height;
            above.boxes[slot] = aabb;
            above.heights[slot] = height;
            let rotated = rotate && self.rotate(parent);
            if unchanged && !rotated {
                return;
            }
            index = parent;
        }
    }
}

// Rotations and rebuild.
impl DynamicTree {
    /// Improves internal node `a` (its slots up to date) by swapping one of its children X
    /// with a grandchild Y under the other child S, if that helps:
    ///
    /// ```text
    ///        a                 a
    ///      /   \             /   \
    ///     X     S     =>     Y     S        S's area A(Y ∪ Z) becomes A(X ∪ Z);
    ///         /   \              /   \      a's own box is unchanged.
    ///        Y     Z            X     Z
    /// ```
    /// - Children's heights differ by more than [`MAX_IMBALANCE`]: the taller child's taller
    ///   grandchild is lifted (an AVL single rotation; by area where both qualify). S may then
    ///   be unbalanced itself (X can be far shorter than Z), so S is rotated in turn, down the
    ///   tall side, O(height) at worst. This bounds the height whatever the insertion order,
    ///   e.g. for nested boxes, where the area heuristic alone would build a chain.
    /// - Otherwise the swap that shrinks S the most is taken (a lower SAH cost), provided it
    ///   leaves both `a` and S within [`MAX_IMBALANCE`].
    ///
    /// Returns true when it rotated.
    fn rotate(&mut self, a: u32) -> bool {
        let node = self.internals[a as usize];
        let height = |slot: usize| i32::from(node.heights[slot]);
        let unbalanced = (height(0) - height(1)).abs() > MAX_IMBALANCE;
        // Best swap so far: (area change of S, slot of X in a, slot of Y in S).
        let mut best: Option<(f32, usize, usize)> = None;
        for x_slot in 0..2 {
            let s_slot = 1 - x_slot;
            let (hx, s) = (height(x_slot), node.children[s_slot]);
            if s.is_leaf() || (unbalanced && height(s_slot) < hx) {
                continue;
            }
            let s_node = &self.internals[s.index()];
            for y_slot in 0..2 {
                let hy = i32::from(s_node.heights[y_slot]);
                let hz = i32::from(s_node.heights[1 - y_slot]);
                let allowed = if unbalanced {
                    hy >= hz
                } else {
                    let new_s_height = 1 + hx.max(hz);
                    (hx - hz).abs() <= MAX_IMBALANCE && (hy - new_s_height).abs() <= MAX_IMBALANCE
                };
                if !allowed {
                    continue;
                }
                let new_s_box = node.boxes[x_slot].union(&s_node.boxes[1 - y_slot]);
                let area_change = new_s_box.surface_area() - node.boxes[s_slot].surface_area();
                let better = best.is_none_or(|(best_change, _, _)| area_change < best_change);
                if (unbalanced || area_change < 0.0) && better {
                    best = Some((area_change, x_slot, y_slot));
                }
            }
        }
        let Some((_, x_slot, y_slot)) = best else {
            return false;
        };
        self.swap_with_grandchild(a, x_slot, y_slot, unbalanced);
        true
    }

    /// Exchanges the child in `x_slot` of node `a` with the child in `y_slot` of `a`'s other
    /// child S (boxes and heights travel with them), rotates S in turn when `rebalance`, and
    /// refreshes `a`'s slot for S.
    fn swap_with_grandchild(&mut self, a: u32, x_slot: usize, y_slot: usize, rebalance: bool) {
        let s_slot = 1 - x_slot;
        let s = self.internals[a as usize].children[s_slot].index() as u32;
        let (a_node, s_node) = (self.internals[a as usize], self.internals[s as usize]);
        let x = a_node.children[x_slot];
        let y = s_node.children[y_slot];
        let a_mut = &mut self.internals[a as usize];
        a_mut.children[x_slot] = y;
        a_mut.boxes[x_slot] = s_node.boxes[y_slot];
        a_mut.heights[x_slot] = s_node.heights[y_slot];
        let s_mut = &mut self.internals[s as usize];
        s_mut.children[y_slot] = x;
        s_mut.boxes[y_slot] = a_node.boxes[x_slot];
        s_mut.heights[y_slot] = a_node.heights[x_slot];
        self.set_parent(x, s);
        self.set_parent(y, a);
        if rebalance {
            self.rotate(s);
        }
        let s_node = &self.internals[s as usize];
        let (s_box, s_height) = (s_node.aabb(), s_node.height());
        let a_mut = &mut self.internals[a as usize];
        a_mut.boxes[s_slot] = s_box;
        a_mut.heights[s_slot] = s_height;
    }
}

// Inspection and validation (tests; snapshots on restore).
impl DynamicTree {
    /// Height of the tree: 0 for a single leaf (or an empty tree), else the number of edges
    /// on the longest root-to-leaf path.
    #[cfg(test)]
    pub fn height(&self) -> u32 {
        match self.root {
            Some(root) if !root.is_leaf() => u32::from(self.internals[root.index()].height()),
            _ => 0,
        }
    }

    /// Number of leaves enlarged since the last [`DynamicTree::update_enlarged`] (an
    /// upper bound: leaves destroyed meanwhile may still count).
    #[cfg(test)]
    pub fn enlarged_count(&self) -> usize {
        self.enlarged.len()
    }

    /// Checks every structural invariant: parent links; each slot's height (leaf 0, internal
    /// 1 + the taller child) and box (a leaf's exact box; an internal child's box containing
    /// both of its slots); the leaf count; the free lists; the list of enlarged leaves. For
    /// tests, and for snapshots on restore (O(n); allocates the walk's stack).
    pub fn validate(&self) -> Result<()> {
        if let Some(&leaf) = self.enlarged.iter().find(|&&leaf| leaf as usize >= self.leaves.len()) {
            return Err(Error::new("enlarged", format!("leaf {leaf} does not exist")));
        }
        if let Some(root) = self.root {
            self.checked_child(root).map_err(|e| e.within("root"))?;
            if self.parent_of(root) != NONE {
                return Err(Error::new("root", "the root has a parent"));
            }
        }
        let (internals_reached, leaves_reached) = self.validate_subtrees()?;
        let live_leaves = self.leaves.iter().filter(|l| l.live).count();
        if leaves_reached != self.leaf_count || live_leaves != self.leaf_count {
            let reason =
                format!("{leaves_reached} leaves reachable, {live_leaves} live, leaf_count {}", self.leaf_count);
            return Err(Error::new("leaf_count", reason));
        }
        let free_leaves = self
            .count_free(self.free_leaf, self.leaves.len(), |tree, i| (!tree.leaves[i].live, tree.leaves[i].parent))?;
        let free_internals = self.count_free(self.free_internal, self.internals.len(), |tree, i| {
            (tree.internals[i].children[0] == Child::FREE, tree.internals[i].parent)
        })?;
        if live_leaves + free_leaves != self.leaves.len() {
            return Err(Error::new("leaves", "live + free leaves != all leaves"));
        }
        if internals_reached + free_internals != self.internals.len() {
            let reason = format!("{internals_reached} reachable + {free_internals} free != {}", self.internals.len());
            return Err(Error::new("internals", reason));
        }
        Ok(())
    }

    /// Walks from the root checking each internal node's slots; returns (internal nodes
    /// reached, leaves reached).
    fn validate_subtrees(&self) -> Result<(usize, usize)> {
        let (mut internals, mut leaves) = (0, 0);
        let mut stack = Vec::new();
        match self.root {
            Some(root) if root.is_leaf() => leaves += 1,
            Some(root) => stack.push(root.index()),
            None => {}
        }
        while let Some(index) = stack.pop() {
            internals += 1;
            if internals > self.internals.len() {
                return Err(Error::new("internals", "a cycle: more nodes reached than exist"));
            }
            let node = self
                .internals
                .get(index)
                .ok_or_else(|| Error::new(format!("internals[{index}]"), "index out of range"))?;
            for slot in 0..2 {
                let field = || format!("internals[{index}].children[{slot}]");
                let child = node.children[slot];
                let (aabb, height) = self.checked_child(child).map_err(|e| e.within(&field()))?;
                if self.parent_of(child) != index as u32 {
                    return Err(Error::new(field(), "the child's parent link points elsewhere"));
                }
                if node.heights[slot] != height {
                    return Err(Error::new(field(), format!("stored height {}", node.heights[slot])));
                }
                if !node.boxes[slot].contains(&aabb) || (child.is_leaf() && node.boxes[slot] != aabb) {
                    return Err(Error::new(field(), "stored box does not match the child's"));
                }
                match child.is_leaf() {
                    true => leaves += 1,
                    false => stack.push(child.index()),
                }
            }
        }
        Ok((internals, leaves))
    }

    /// The children of every internal node slot, free ones included: equal before and after
    /// an edit exactly when the edit kept the tree's shape; for tests.
    #[cfg(test)]
    pub(super) fn shape(&self) -> Vec<[Child; 2]> {
        self.internals.iter().map(|node| node.children).collect()
    }

    /// Number of internal-node slots whose stored box is larger than the child's exact box
    /// (left by [`DynamicTree::enlarge_leaf`]); for tests.
    #[cfg(test)]
    pub(super) fn loose_slot_count(&self) -> usize {
        let live = self.internals.iter().filter(|n| n.children[0] != Child::FREE);
        let exact = |child: Child| self.checked_child(child).map(|(aabb, _)| aabb).ok();
        live.flat_map(|n| (0..2).map(move |slot| (n.boxes[slot], n.children[slot])))
            .filter(|&(stored, child)| exact(child) != Some(stored))
            .count()
    }

    /// A linked child's true box and height, or why it cannot be linked.
    fn checked_child(&self, child: Child) -> Result<(Aabb, u16)> {
        if child.is_leaf() {
            match self.leaves.get(child.index()) {
                Some(leaf) if leaf.live => Ok((leaf.aabb, 0)),
                _ => Err(Error::new("", "a dead or missing leaf is linked")),
            }
        } else {
            match self.internals.get(child.index()) {
                Some(node) if node.children[0] != Child::FREE => Ok((node.aabb(), node.height())),
                _ => Err(Error::new("", "a free or missing internal node is linked")),
            }
        }
    }

    /// Length of a free list; `probe(tree, i)` says whether node `i` is marked free and
    /// gives its next link.
    fn count_free(&self, head: u32, capacity: usize, probe: impl Fn(&Self, usize) -> (bool, u32)) -> Result<usize> {
        let (mut count, mut index) = (0, head);
        while index != NONE {
            if index as usize >= capacity {
                return Err(Error::new("free_list", format!("index {index} out of range")));
            }
            let (is_free, next) = probe(self, index as usize);
            if !is_free {
                return Err(Error::new("free_list", format!("node {index} is in use")));
            }
            count += 1;
            if count > capacity {
                return Err(Error::new("free_list", "a cycle"));
            }
            index = next;
        }
        Ok(count)
    }
}
