//! Whole-tree updates: the top-down rebuild, the bottom-up refit, and the choice between
//! them and one-by-one re-insertion for the leaves given new boxes by
//! [`DynamicTree::enlarge_leaf`].
//!
//! Costs per leaf of the tree, measured on the `balls` bench scene (4,000 spheres, callgrind
//! instruction counts): a refit about 50 instructions, a rebuild about 1,350; one
//! re-insertion about 4,500 per re-inserted leaf (SAH descent plus rotations on the way up).
//! So once more than a few per cent of the leaves moved, refitting is by far the cheapest;
//! it only loses when the leaves moved so far that the tree's shape no longer fits them,
//! which shows as a growing total node area, and then the tree is rebuilt.

use super::{Child, DynamicTree, Internal, LeafId, NONE};
use crate::dynamics::workers::{self, Workers};
use crate::geometry::Aabb;
use crate::math::Vec3;

/// A leaf as the top-down build sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct BuildItem {
    /// Twice the box centre (min + max: same order as the centre, one operation less).
    centre2: Vec3,
    aabb: Aabb,
    leaf: LeafId,
}

/// A refitted tree is rebuilt once its total internal area exceeds this multiple of the
/// least total area it had since its last rebuild (the area is the SAH cost: queries and
/// pair walks enter a node with a chance that grows with its area).
pub const REBUILD_AREA_RATIO: f32 = 1.2;

/// A refit cuts the tree at this depth into subtrees (up to 2^depth) that it refits as
/// separate tasks, then refits the nodes above them. The cut is the same for every worker
/// count, and so is the sum of the areas (each subtree's, then the nodes above in turn).
const REFIT_SUBTREE_DEPTH: u32 = 6;

/// Fewest leaves for a refit to be split among the workers (a refit costs about 50
/// instructions a leaf; handing out the subtrees, a few microseconds).
const PARALLEL_REFIT_LEAVES: usize = 2048;

/// One subtree of a refit: its root (an internal node) and, once refitted, its box and the
/// sum of its nodes' areas.
#[derive(Clone, Copy, Debug)]
pub(super) struct SubtreeRefit {
    root: u32,
    aabb: Aabb,
    area: f32,
}

/// The tree's internal nodes, shared by the tasks of one refit.
struct SharedInternals(*mut Internal);

// SAFETY: the refit's tasks each write only the nodes of their own subtree (disjoint).
unsafe impl Sync for SharedInternals {}

impl SharedInternals {
    fn start(&self) -> *mut Internal {
        self.0
    }
}

impl DynamicTree {
    /// [`Self::update_enlarged_on`] on this thread.
    #[cfg(test)]
    pub fn update_enlarged(&mut self, refit_fraction: usize) {
        self.update_enlarged_on(&Workers::default(), refit_fraction)
    }

    /// Brings the tree up to date with the leaves given new boxes by
    /// [`DynamicTree::enlarge_leaf`] since the last call:
    /// - fewer than 1/`refit_fraction` of all leaves enlarged: each is re-inserted (SAH
    ///   placement and rotations, as by [`DynamicTree::move_leaf`]), in handle order;
    /// - otherwise the whole tree is refitted ([`DynamicTree::refit_on`], split among
    ///   `workers`: its shape kept, every box made exact, O(n)) and, if that left its total
    ///   internal area above [`REBUILD_AREA_RATIO`] times the least area seen since the last
    ///   rebuild, rebuilt ([`DynamicTree::rebuild`]).
    ///
    /// Queries give the same results before and after; only their speed changes.
    pub(crate) fn update_enlarged_on(&mut self, workers: &Workers, refit_fraction: usize) {
        if self.enlarged.is_empty() {
            return;
        }
        if self.enlarged.len() * refit_fraction < self.leaf_count {
            self.reinsert_enlarged();
            return;
        }
        self.clear_enlarged();
        let area = self.refit_on(workers);
        if area > REBUILD_AREA_RATIO * self.least_area {
            self.rebuild();
        } else {
            self.least_area = self.least_area.min(area);
        }
    }

    /// Re-inserts every enlarged leaf, in handle order.
    fn reinsert_enlarged(&mut self) {
        let mut enlarged = std::mem::take(&mut self.enlarged);
        enlarged.sort_unstable();
        enlarged.dedup();
        for &leaf in &enlarged {
            let entry = &mut self.leaves[leaf as usize];
            if entry.live && std::mem::replace(&mut entry.enlarged, false) {
                self.remove_leaf(leaf);
                self.insert_leaf(leaf);
            }
        }
        enlarged.clear();
        self.enlarged = enlarged;
    }

    /// Forgets the enlarged marks (the caller makes the boxes exact another way).
    fn clear_enlarged(&mut self) {
        for &leaf in &self.enlarged {
            if let Some(entry) = self.leaves.get_mut(leaf as usize) {
                entry.enlarged = false;
            }
        }
        self.enlarged.clear();
    }

    /// [`Self::refit_on`] on this thread.
    #[cfg(test)]
    pub fn refit(&mut self) -> f32 {
        self.refit_on(&Workers::default())
    }

    /// Recomputes every internal node's child boxes from the children, bottom-up, keeping
    /// the tree's shape (O(n)): afterwards every box is exact again (boxes only ever grow
    /// under [`DynamicTree::enlarge_leaf`]). Returns the total internal area, m² (see
    /// [`DynamicTree::internal_area`]). Leaves' own boxes are not touched.
    ///
    /// The subtrees below [`REFIT_SUBTREE_DEPTH`] are refitted as tasks split among
    /// `workers` (on joint_grid's 10,000 moving proxies a refit took 0.12–0.27 ms a step, all
    /// of it serial). The same boxes and area for every worker count.
    pub(crate) fn refit_on(&mut self, workers: &Workers) -> f32 {
        let Some(root) = self.root.filter(|root| !root.is_leaf()) else { return 0.0 };
        let mut subtrees = std::mem::take(&mut self.refit_subtrees);
        subtrees.clear();
        self.collect_subtrees(root.index(), 0, &mut subtrees);
        let internals = SharedInternals(self.internals.as_mut_ptr());
        let per_task = if self.leaf_count >= PARALLEL_REFIT_LEAVES { 1 } else { usize::MAX / 2 };
        workers::for_each(workers, &mut subtrees, per_task, |subtree| {
            let mut area = 0.0;
            // SAFETY: the subtrees are disjoint, each task writes only its own subtree's
            // nodes, and the node array is not resized while the tasks run.
            subtree.aabb = unsafe { refit_below(internals.start(), subtree.root as usize, &mut area) };
            subtree.area = area;
        });
        let (mut next, mut area) = (0, 0.0);
        self.refit_above(root.index(), 0, &subtrees, &mut next, &mut area);
        self.refit_subtrees = subtrees;
        area
    }

    /// Lists the internal nodes at depth [`REFIT_SUBTREE_DEPTH`] under internal node `index`
    /// (at `depth`), depth first, child 0 before child 1.
    fn collect_subtrees(&self, index: usize, depth: u32, out: &mut Vec<SubtreeRefit>) {
        for child in self.internals[index].children {
            if child.is_leaf() {
                continue;
            }
            if depth + 1 == REFIT_SUBTREE_DEPTH {
                out.push(SubtreeRefit { root: child.index() as u32, aabb: Aabb::EMPTY, area: 0.0 });
            } else {
                self.collect_subtrees(child.index(), depth + 1, out);
            }
        }
    }

    /// Refits internal node `index` (at `depth`) and the nodes between it and the refitted
    /// `subtrees` (taken in [`Self::collect_subtrees`]' order from `next`), adding the areas
    /// to `area`; returns the node's box.
    fn refit_above(
        &mut self,
        index: usize,
        depth: u32,
        subtrees: &[SubtreeRefit],
        next: &mut usize,
        area: &mut f32,
    ) -> Aabb {
        for slot in 0..2 {
            let child = self.internals[index].children[slot];
            if child.is_leaf() {
                continue;
            }
            self.internals[index].boxes[slot] = if depth + 1 == REFIT_SUBTREE_DEPTH {
                let subtree = subtrees[*next];
                *next += 1;
                *area += subtree.area;
                subtree.aabb
            } else {
                self.refit_above(child.index(), depth + 1, subtrees, next, area)
            };
        }
        let node_box = self.internals[index].aabb();
        *area += node_box.surface_area();
        node_box
    }

    /// Rebuilds the internal nodes top-down by median splits of the leaf centres along the
    /// widest axis: O(n log n), height exactly ceil(log2 n). Leaf handles stay valid.
    pub fn rebuild(&mut self) {
        let mut items = std::mem::take(&mut self.rebuild_scratch);
        items.clear();
        let live = self.leaves.iter().enumerate().filter(|(_, l)| l.live);
        items.extend(live.map(|(index, leaf)| BuildItem {
            centre2: leaf.aabb.min + leaf.aabb.max,
            aabb: leaf.aabb,
            leaf: index as LeafId,
        }));
        for leaf in &mut self.leaves {
            leaf.enlarged = false;
        }
        self.enlarged.clear();
        self.internals.clear();
        self.free_internal = NONE;
        self.root = None;
        if !items.is_empty() {
            let (root, _, _) = self.build_subtree(&mut items);
            self.set_parent(root, NONE);
            self.root = Some(root);
        }
        self.rebuild_scratch = items;
        self.least_area = self.internal_area();
    }

    /// Builds a subtree over `items` (at least one); returns its root, box and height.
    /// Splits at the median of the box centres along the axis where they spread most; ties
    /// by leaf handle, so the result depends only on the items.
    fn build_subtree(&mut self, items: &mut [BuildItem]) -> (Child, Aabb, u16) {
        if let [item] = items {
            return (Child::leaf(item.leaf), item.aabb, 0);
        }
        let bounds = items
            .iter()
            .fold(Aabb::EMPTY, |bounds, item| Aabb::new(bounds.min.min(item.centre2), bounds.max.max(item.centre2)));
        let extent = bounds.max - bounds.min;
        let axis = match (extent.x >= extent.y, extent.x >= extent.z, extent.y >= extent.z) {
            (true, true, _) => 0,
            (false, _, true) => 1,
            _ => 2,
        };
        let middle = items.len() / 2;
        items.select_nth_unstable_by(middle, |l, r| {
            l.centre2[axis].total_cmp(&r.centre2[axis]).then(l.leaf.cmp(&r.leaf))
        });
        let (lower, upper) = items.split_at_mut(middle);
        let (child_a, box_a, height_a) = self.build_subtree(lower);
        let (child_b, box_b, height_b) = self.build_subtree(upper);
        let parent = self.allocate_internal(Internal {
            boxes: [box_a, box_b],
            children: [child_a, child_b],
            parent: NONE,
            heights: [height_a, height_b],
        });
        self.set_parent(child_a, parent);
        self.set_parent(child_b, parent);
        (Child::internal(parent), box_a.union(&box_b), 1 + height_a.max(height_b))
    }
}

/// Refits the subtree under internal node `index` of `internals`, adding its nodes' areas
/// to `area`; returns the node's box. A leaf's slot already holds its exact box. Recursion
/// depth is the subtree's height, O(log n) by the rotations' balance bound.
///
/// # Safety
/// `index` and every node under it are within the array, and nothing else touches them
/// meanwhile.
unsafe fn refit_below(internals: *mut Internal, index: usize, area: &mut f32) -> Aabb {
    let node = internals.add(index);
    for slot in 0..2 {
        let child = (*node).children[slot];
        if !child.is_leaf() {
            (*node).boxes[slot] = refit_below(internals, child.index(), area);
        }
    }
    let node_box = (*node).aabb();
    *area += node_box.surface_area();
    node_box
}
