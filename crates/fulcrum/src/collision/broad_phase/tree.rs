//! A dynamic AABB tree: a binary bounding volume hierarchy that supports insert, remove and
//! move of leaves at O(log n) cost, plus box queries and ray casts.
//!
//! Layout: all nodes live in one `Vec`; a node is named by its index. Unused nodes form an
//! intrusive free list (linked through `parent`), reused last-freed-first, so the layout
//! depends only on the sequence of calls (deterministic).
//!
//! Leaves hold a caller's box (usually "fat": grown by a margin so that small motions need no
//! update) and a `user` value. Internal nodes hold the union of their two children's boxes.
//! A leaf keeps its node index for as long as it lives: insertion, removal and rotations only
//! ever create, free or rewire internal nodes. That index is the leaf's handle.
//!
//! Insertion picks the sibling by the surface area heuristic (SAH) along one descent path;
//! afterwards every ancestor is refitted and rotated: by area where that lowers the SAH cost,
//! by height (AVL-style) where one child has grown much taller than the other, which keeps
//! the height O(log n) whatever the insertion order.

use super::scratch::{InlineMinHeap, InlineStack};
use crate::error::{Error, Result};
use crate::geometry::{Aabb, Ray};

/// Index of a node in the tree; for leaves it is the handle returned by
/// [`DynamicTree::create_leaf`].
pub type NodeIndex = u32;

/// The "no node" index: the root's parent, a leaf's children, the end of the free list.
pub const NULL_NODE: NodeIndex = u32::MAX;

/// Height stored in free nodes.
const FREE_HEIGHT: i32 = -1;

/// Largest height difference between the two children of a node that rotations leave
/// alone. 1 would be a strict AVL tree, but forcing it undoes most of the area-reducing
/// rotations (measured: 7x the SAH cost of a rebuilt tree after 20 re-insertions of 5,000
/// boxes, against 0.95x with 3). A tree whose every node keeps within 3 is at most about
/// 2.15 log2(n) high.
const MAX_IMBALANCE: i32 = 3;

/// Inline capacity of traversal stacks: far above the height of any balanced tree.
const STACK_CAPACITY: usize = 128;

/// One node of the tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Leaf: the caller's (fat) box. Internal: the union of the two children's boxes. Metres.
    aabb: Aabb,
    /// Parent node, `NULL_NODE` at the root. On the free list: the next free node.
    parent: NodeIndex,
    /// First child, `NULL_NODE` for leaves.
    child_a: NodeIndex,
    /// Second child, `NULL_NODE` for leaves.
    child_b: NodeIndex,
    /// 0 for leaves, 1 + the taller child's height for internal nodes, -1 when free.
    height: i32,
    /// The caller's value stored with a leaf.
    user: u32,
    /// A mark owned by the caller (the broad phase uses it for "moved since the last pair
    /// update"); the tree only clears it when the node is created.
    moved: bool,
}

impl Node {
    const FREE: Node = Node {
        aabb: Aabb::EMPTY,
        parent: NULL_NODE,
        child_a: NULL_NODE,
        child_b: NULL_NODE,
        height: FREE_HEIGHT,
        user: 0,
        moved: false,
    };

    #[inline]
    fn is_leaf(&self) -> bool {
        self.height == 0
    }
}

/// A dynamic AABB tree of boxes with `u32` user values. See the module docs.
#[derive(Clone, Debug)]
pub struct DynamicTree {
    nodes: Vec<Node>,
    root: NodeIndex,
    free_head: NodeIndex,
    leaf_count: usize,
    /// Reused leaf list for [`DynamicTree::rebuild`].
    rebuild_scratch: Vec<NodeIndex>,
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
            nodes: Vec::new(),
            root: NULL_NODE,
            free_head: NULL_NODE,
            leaf_count: 0,
            rebuild_scratch: Vec::new(),
        }
    }

    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.leaf_count
    }

    /// Height of the tree: 0 for a single leaf (or an empty tree), else the number of edges
    /// on the longest root-to-leaf path.
    pub fn height(&self) -> u32 {
        match self.root {
            NULL_NODE => 0,
            root => self.nodes[root as usize].height as u32,
        }
    }

    /// Sum of the surface areas of the internal nodes, m²: the SAH cost that insertion tries
    /// to keep low (a measure of tree quality for tests and diagnostics).
    pub fn internal_area(&self) -> f32 {
        self.nodes.iter().filter(|n| n.height > 0).map(|n| n.aabb.surface_area()).sum()
    }

    /// True when `leaf` names a live leaf.
    #[inline]
    pub fn is_leaf(&self, leaf: NodeIndex) -> bool {
        self.nodes.get(leaf as usize).is_some_and(Node::is_leaf)
    }

    /// The box stored with a leaf (metres), or [`Aabb::EMPTY`] when `leaf` is not a live leaf.
    #[inline]
    pub fn aabb(&self, leaf: NodeIndex) -> Aabb {
        match self.nodes.get(leaf as usize) {
            Some(node) if node.is_leaf() => node.aabb,
            _ => Aabb::EMPTY,
        }
    }

    /// The user value of a leaf, or `None` when `leaf` is not a live leaf.
    #[inline]
    pub fn user(&self, leaf: NodeIndex) -> Option<u32> {
        self.nodes.get(leaf as usize).filter(|n| n.is_leaf()).map(|n| n.user)
    }

    /// The caller's mark on a leaf (false for anything that is not a live leaf).
    #[inline]
    pub fn is_moved(&self, leaf: NodeIndex) -> bool {
        self.nodes.get(leaf as usize).is_some_and(|n| n.is_leaf() && n.moved)
    }

    /// Sets the caller's mark on a live leaf; does nothing for other indices.
    #[inline]
    pub fn set_moved(&mut self, leaf: NodeIndex, moved: bool) {
        if let Some(node) = self.nodes.get_mut(leaf as usize).filter(|n| n.is_leaf()) {
            node.moved = moved;
        }
    }

    /// Adds a leaf with box `aabb` (metres, finite, min <= max) and returns its handle, valid
    /// until [`DynamicTree::destroy_leaf`]. Handles of destroyed leaves are reused.
    pub fn create_leaf(&mut self, aabb: Aabb, user: u32) -> NodeIndex {
        debug_assert!(aabb.is_valid(), "tree leaf box must be finite and ordered: {aabb:?}");
        let leaf = self.allocate_node();
        let node = &mut self.nodes[leaf as usize];
        node.aabb = aabb;
        node.height = 0;
        node.user = user;
        self.insert_leaf(leaf);
        self.leaf_count += 1;
        leaf
    }

    /// Removes a leaf. Does nothing when `leaf` is not a live leaf.
    pub fn destroy_leaf(&mut self, leaf: NodeIndex) {
        if !self.is_leaf(leaf) {
            debug_assert!(false, "destroy_leaf: {leaf} is not a live leaf");
            return;
        }
        self.remove_leaf(leaf);
        self.free_node(leaf);
        self.leaf_count -= 1;
    }

    /// Gives a leaf a new box and re-inserts it (its handle stays the same). Does nothing
    /// when `leaf` is not a live leaf.
    pub fn move_leaf(&mut self, leaf: NodeIndex, aabb: Aabb) {
        debug_assert!(aabb.is_valid(), "tree leaf box must be finite and ordered: {aabb:?}");
        if !self.is_leaf(leaf) {
            debug_assert!(false, "move_leaf: {leaf} is not a live leaf");
            return;
        }
        self.remove_leaf(leaf);
        self.nodes[leaf as usize].aabb = aabb;
        self.insert_leaf(leaf);
    }

    /// Calls `f(leaf)` for every leaf whose box overlaps `aabb` (touching counts), in a
    /// deterministic order, until `f` returns false.
    pub fn query(&self, aabb: &Aabb, mut f: impl FnMut(NodeIndex) -> bool) {
        if self.root == NULL_NODE {
            return;
        }
        // The stack holds nodes whose boxes are known to overlap `aabb`.
        if !self.nodes[self.root as usize].aabb.overlaps(aabb) {
            return;
        }
        let mut stack: InlineStack<NodeIndex, STACK_CAPACITY> = InlineStack::new();
        stack.push(self.root);
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            if node.is_leaf() {
                if !f(index) {
                    return;
                }
                continue;
            }
            for child in [node.child_b, node.child_a] {
                if self.nodes[child as usize].aabb.overlaps(aabb) {
                    stack.push(child);
                }
            }
        }
    }

    /// Casts `ray` against the leaf boxes; see [`cast_ray_through_trees`] for the contract.
    /// `f(leaf, t_enter)` is called with the ray parameter at which the ray enters the leaf's
    /// box and returns the new `max_t` (values <= 0 stop the cast).
    pub fn cast_ray(&self, ray: &Ray, max_t: f32, mut f: impl FnMut(NodeIndex, f32) -> f32) {
        cast_ray_through_trees(&[self], ray, max_t, |_, leaf, t_enter| f(leaf, t_enter));
    }

    /// Checks every structural invariant: parent links, heights (leaf 0, internal 1 + the
    /// taller child), internal boxes containing their children's, the leaf count and the free
    /// list. For tests and debugging; allocates.
    pub fn validate(&self) -> Result<()> {
        if self.root != NULL_NODE && self.node(self.root)?.parent != NULL_NODE {
            return Err(Error::new("root", "the root has a parent"));
        }
        let (reached, leaves) = self.validate_subtrees()?;
        if leaves != self.leaf_count {
            let reason = format!("{leaves} leaves reachable, leaf_count is {}", self.leaf_count);
            return Err(Error::new("leaf_count", reason));
        }
        let free = self.count_free_nodes()?;
        if reached + free != self.nodes.len() {
            let reason = format!("{reached} reachable + {free} free != {}", self.nodes.len());
            return Err(Error::new("nodes", reason));
        }
        Ok(())
    }

    /// Rebuilds the internal nodes top-down by median splits of the leaf centres along the
    /// widest axis: O(n log n), height exactly ceil(log2 n). Leaf handles stay valid.
    pub fn rebuild(&mut self) {
        let mut leaves = std::mem::take(&mut self.rebuild_scratch);
        leaves.clear();
        self.free_head = NULL_NODE;
        // Walk downwards so that the free list hands out low indices first.
        for index in (0..self.nodes.len() as NodeIndex).rev() {
            if self.nodes[index as usize].is_leaf() {
                leaves.push(index);
            } else {
                self.free_node(index);
            }
        }
        leaves.reverse();
        self.root = match leaves.is_empty() {
            true => NULL_NODE,
            false => self.build_subtree(&mut leaves),
        };
        if self.root != NULL_NODE {
            self.nodes[self.root as usize].parent = NULL_NODE;
        }
        self.rebuild_scratch = leaves;
    }
}

// Node storage.
impl DynamicTree {
    fn allocate_node(&mut self) -> NodeIndex {
        if self.free_head == NULL_NODE {
            self.nodes.push(Node::FREE);
            return (self.nodes.len() - 1) as NodeIndex;
        }
        let index = self.free_head;
        self.free_head = self.nodes[index as usize].parent;
        self.nodes[index as usize] = Node::FREE;
        index
    }

    fn free_node(&mut self, index: NodeIndex) {
        self.nodes[index as usize] = Node { parent: self.free_head, ..Node::FREE };
        self.free_head = index;
    }

    /// Points `parent`'s child slot that held `old_child` at `new_child` (or the root, when
    /// `parent` is `NULL_NODE`).
    fn replace_child(&mut self, parent: NodeIndex, old_child: NodeIndex, new_child: NodeIndex) {
        if parent == NULL_NODE {
            self.root = new_child;
        } else if self.nodes[parent as usize].child_a == old_child {
            self.nodes[parent as usize].child_a = new_child;
        } else {
            self.nodes[parent as usize].child_b = new_child;
        }
        if new_child != NULL_NODE {
            self.nodes[new_child as usize].parent = parent;
        }
    }

    /// Recomputes an internal node's box and height from its children.
    #[inline]
    fn refit(&mut self, index: NodeIndex) {
        let node = self.nodes[index as usize];
        let a = &self.nodes[node.child_a as usize];
        let b = &self.nodes[node.child_b as usize];
        let aabb = a.aabb.union(&b.aabb);
        let height = 1 + a.height.max(b.height);
        let node = &mut self.nodes[index as usize];
        node.aabb = aabb;
        node.height = height;
    }
}

// Insertion and removal.
impl DynamicTree {
    /// Links a detached leaf (box already set) into the tree next to the SAH-best sibling.
    fn insert_leaf(&mut self, leaf: NodeIndex) {
        if self.root == NULL_NODE {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL_NODE;
            return;
        }
        let leaf_box = self.nodes[leaf as usize].aabb;
        let sibling = self.find_best_sibling(&leaf_box);
        let old_parent = self.nodes[sibling as usize].parent;
        let new_parent = self.allocate_node();
        {
            let node = &mut self.nodes[new_parent as usize];
            node.child_a = sibling;
            node.child_b = leaf;
        }
        self.replace_child(old_parent, sibling, new_parent);
        self.nodes[sibling as usize].parent = new_parent;
        self.nodes[leaf as usize].parent = new_parent;
        self.refit(new_parent);
        self.rotate(new_parent);
        self.refit(new_parent);
        self.refit_and_balance_upwards(old_parent, false);
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
    fn find_best_sibling(&self, leaf_box: &Aabb) -> NodeIndex {
        let leaf_area = leaf_box.surface_area();
        let mut best = self.root;
        let mut best_cost = self.nodes[self.root as usize].aabb.union(leaf_box).surface_area();
        let mut index = self.root;
        // Σ ΔA over `index` and its ancestors: paid by any sibling chosen below `index`.
        let mut inherited = 0.0;
        while !self.nodes[index as usize].is_leaf() {
            let node = &self.nodes[index as usize];
            inherited += node.aabb.union(leaf_box).surface_area() - node.aabb.surface_area();
            let mut next = NULL_NODE;
            let mut next_bound = best_cost;
            for child in [node.child_a, node.child_b] {
                let child_node = &self.nodes[child as usize];
                let combined_area = child_node.aabb.union(leaf_box).surface_area();
                let cost = combined_area + inherited;
                if cost < best_cost {
                    (best, best_cost) = (child, cost);
                }
                let bound = inherited + combined_area - child_node.aabb.surface_area() + leaf_area;
                if !child_node.is_leaf() && bound < next_bound.min(best_cost) {
                    (next, next_bound) = (child, bound);
                }
            }
            if next == NULL_NODE {
                break;
            }
            index = next;
        }
        best
    }

    /// Unlinks a leaf: its sibling takes the place of their parent, which is freed.
    fn remove_leaf(&mut self, leaf: NodeIndex) {
        if leaf == self.root {
            self.root = NULL_NODE;
            return;
        }
        let parent = self.nodes[leaf as usize].parent;
        let grandparent = self.nodes[parent as usize].parent;
        let parent_node = self.nodes[parent as usize];
        let sibling =
            if parent_node.child_a == leaf { parent_node.child_b } else { parent_node.child_a };
        self.replace_child(grandparent, parent, sibling);
        self.free_node(parent);
        self.nodes[leaf as usize].parent = NULL_NODE;
        if grandparent != NULL_NODE {
            self.refit_and_balance_upwards(grandparent, true);
        }
    }

    /// From `index` (whose subtree changed) up towards the root: rotate, then refit box and
    /// height. Stops at the first node that neither rotates nor changes box or height: the
    /// nodes above it are then already correct.
    fn refit_and_balance_upwards(&mut self, mut index: NodeIndex, full: bool) {
        while index != NULL_NODE {
            let before = self.nodes[index as usize];
            let rotated = self.rotate(index);
            self.refit(index);
            let after = &self.nodes[index as usize];
            if !full && !rotated && after.aabb == before.aabb && after.height == before.height {
                return;
            }
            index = after.parent;
        }
    }

    /// Improves internal node `a` (children up to date) by swapping one of its children X
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
    fn rotate(&mut self, a: NodeIndex) -> bool {
        let node = self.nodes[a as usize];
        if node.height < 2 {
            return false;
        }
        let (child_a, child_b) = (self.nodes[node.child_a as usize], self.nodes[node.child_b as usize]);
        let unbalanced = (child_a.height - child_b.height).abs() > MAX_IMBALANCE;
        // Best swap so far: (area change of S, X, Y).
        let mut best: Option<(f32, NodeIndex, NodeIndex)> = None;
        for (x, x_node, s_node) in
            [(node.child_a, &child_a, &child_b), (node.child_b, &child_b, &child_a)]
        {
            if s_node.is_leaf() || (unbalanced && s_node.height < x_node.height) {
                continue;
            }
            let grandchildren = [self.nodes[s_node.child_a as usize], self.nodes[s_node.child_b as usize]];
            for (y, y_node, z_node) in [
                (s_node.child_a, &grandchildren[0], &grandchildren[1]),
                (s_node.child_b, &grandchildren[1], &grandchildren[0]),
            ] {
                let (hx, hy, hz) = (x_node.height, y_node.height, z_node.height);
                let allowed = if unbalanced {
                    hy >= hz
                } else {
                    let new_s_height = 1 + hx.max(hz);
                    (hx - hz).abs() <= MAX_IMBALANCE && (hy - new_s_height).abs() <= MAX_IMBALANCE
                };
                if !allowed {
                    continue;
                }
                let new_s_area = x_node.aabb.union(&z_node.aabb).surface_area();
                let area_change = new_s_area - s_node.aabb.surface_area();
                let better = best.is_none_or(|(best_change, _, _)| area_change < best_change);
                if (unbalanced || area_change < 0.0) && better {
                    best = Some((area_change, x, y));
                }
            }
        }
        let Some((_, x, y)) = best else {
            return false;
        };
        let s = self.nodes[y as usize].parent;
        self.swap_subtrees(x, y);
        if unbalanced {
            self.rotate(s);
            self.refit(s);
        }
        true
    }

    /// Exchanges child `x` of node `a` with child `y` of `a`'s other child `s`, then refits
    /// `s` (the caller refits `a`).
    fn swap_subtrees(&mut self, x: NodeIndex, y: NodeIndex) {
        let a = self.nodes[x as usize].parent;
        let s = self.nodes[y as usize].parent;
        let slot_of = |node: &Node, child: NodeIndex| node.child_a == child;
        let x_in_a_first = slot_of(&self.nodes[a as usize], x);
        let y_in_s_first = slot_of(&self.nodes[s as usize], y);
        if x_in_a_first {
            self.nodes[a as usize].child_a = y;
        } else {
            self.nodes[a as usize].child_b = y;
        }
        if y_in_s_first {
            self.nodes[s as usize].child_a = x;
        } else {
            self.nodes[s as usize].child_b = x;
        }
        self.nodes[x as usize].parent = s;
        self.nodes[y as usize].parent = a;
        self.refit(s);
    }

    #[inline]
    fn height_of(&self, index: NodeIndex) -> i32 {
        self.nodes[index as usize].height
    }

    /// Builds a subtree over `leaves` (at least one) and returns its root.
    fn build_subtree(&mut self, leaves: &mut [NodeIndex]) -> NodeIndex {
        if leaves.len() == 1 {
            return leaves[0];
        }
        let centres = leaves
            .iter()
            .fold(Aabb::EMPTY, |b, &l| b.union(&Aabb::new(self.centre(l), self.centre(l))));
        let extent = centres.max - centres.min;
        let axis = match (extent.x >= extent.y, extent.x >= extent.z, extent.y >= extent.z) {
            (true, true, _) => 0,
            (false, _, true) => 1,
            _ => 2,
        };
        let middle = leaves.len() / 2;
        leaves.select_nth_unstable_by(middle, |&l, &r| {
            let order = self.centre(l)[axis].total_cmp(&self.centre(r)[axis]);
            order.then(l.cmp(&r))
        });
        let (lower, upper) = leaves.split_at_mut(middle);
        let child_a = self.build_subtree(lower);
        let child_b = self.build_subtree(upper);
        let parent = self.allocate_node();
        self.nodes[parent as usize].child_a = child_a;
        self.nodes[parent as usize].child_b = child_b;
        self.nodes[child_a as usize].parent = parent;
        self.nodes[child_b as usize].parent = parent;
        self.refit(parent);
        parent
    }

    #[inline]
    fn centre(&self, index: NodeIndex) -> crate::math::Vec3 {
        self.nodes[index as usize].aabb.center()
    }
}

// Validation helpers.
impl DynamicTree {
    fn node(&self, index: NodeIndex) -> Result<&Node> {
        self.nodes
            .get(index as usize)
            .ok_or_else(|| Error::new(format!("nodes[{index}]"), "index out of range"))
    }

    /// Walks from the root, checking each node; returns (nodes reached, leaves reached).
    fn validate_subtrees(&self) -> Result<(usize, usize)> {
        let (mut reached, mut leaves) = (0, 0);
        let mut stack = Vec::new();
        if self.root != NULL_NODE {
            stack.push(self.root);
        }
        while let Some(index) = stack.pop() {
            reached += 1;
            if reached > self.nodes.len() {
                return Err(Error::new("nodes", "a cycle: more nodes reached than exist"));
            }
            let node = self.node(index)?;
            let field = || format!("nodes[{index}]");
            if node.height == FREE_HEIGHT {
                return Err(Error::new(field(), "a free node is linked into the tree"));
            }
            if node.is_leaf() {
                if node.child_a != NULL_NODE || node.child_b != NULL_NODE {
                    return Err(Error::new(field(), "a leaf has children"));
                }
                leaves += 1;
                continue;
            }
            let (a, b) = (self.node(node.child_a)?, self.node(node.child_b)?);
            if a.parent != index || b.parent != index {
                return Err(Error::new(field(), "a child's parent link points elsewhere"));
            }
            if node.height != 1 + a.height.max(b.height) {
                return Err(Error::new(field(), format!("wrong height {}", node.height)));
            }
            if !node.aabb.contains(&a.aabb) || !node.aabb.contains(&b.aabb) {
                return Err(Error::new(field(), "box does not contain its children's boxes"));
            }
            stack.push(node.child_a);
            stack.push(node.child_b);
        }
        Ok((reached, leaves))
    }

    fn count_free_nodes(&self) -> Result<usize> {
        let mut free = 0;
        let mut index = self.free_head;
        while index != NULL_NODE {
            let node = self.node(index)?;
            if node.height != FREE_HEIGHT {
                return Err(Error::new(format!("nodes[{index}]"), "a used node is on the free list"));
            }
            free += 1;
            if free > self.nodes.len() {
                return Err(Error::new("free_list", "a cycle"));
            }
            index = node.parent;
        }
        Ok(free)
    }
}

/// Ray cast over several trees at once, best first: leaves are reported in increasing order
/// of the ray parameter `t_enter` at which the ray enters their box (ties by tree, then by
/// node index), across all trees.
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
    mut f: impl FnMut(usize, NodeIndex, f32) -> f32,
) {
    // Heap items: (t_enter, tree index, node index), least t first.
    type Item = (f32, u32, NodeIndex);
    let less = |x: &Item, y: &Item| x.0 < y.0 || (x.0 == y.0 && (x.1, x.2) < (y.1, y.2));
    let mut max_t = max_t;
    if !(max_t >= 0.0) {
        return;
    }
    let inv_dir = ray.direction.recip();
    let mut heap: InlineMinHeap<Item, STACK_CAPACITY> = InlineMinHeap::new();
    for (tree_index, tree) in trees.iter().enumerate() {
        if tree.root == NULL_NODE {
            continue;
        }
        let root_box = &tree.nodes[tree.root as usize].aabb;
        if let Some(t) = root_box.ray_entry(ray.origin, inv_dir, max_t) {
            heap.push((t, tree_index as u32, tree.root), less);
        }
    }
    while let Some((t_enter, tree_index, index)) = heap.pop(less) {
        // The heap pops in increasing t: once one box starts beyond max_t, all do.
        if t_enter > max_t {
            return;
        }
        let tree = trees[tree_index as usize];
        let node = &tree.nodes[index as usize];
        if node.is_leaf() {
            let new_max_t = f(tree_index as usize, index, t_enter);
            if !(new_max_t > 0.0) {
                return;
            }
            max_t = max_t.min(new_max_t);
            continue;
        }
        for child in [node.child_a, node.child_b] {
            let child_box = &tree.nodes[child as usize].aabb;
            if let Some(t) = child_box.ray_entry(ray.origin, inv_dir, max_t) {
                heap.push((t, tree_index, child), less);
            }
        }
    }
}
