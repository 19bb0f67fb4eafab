//! A static bounding-volume hierarchy over boxes (a triangle mesh's triangles): built once by
//! binned SAH, stored as a flat array of nodes, walked with a fixed-size stack.
//!
//! Build: each node's items are sorted into [`BINS`] bins along each axis by their centres; the
//! split between bins with the least surface-area cost `A_left·N_left + A_right·N_right` wins,
//! unless keeping a small node whole costs less (`A·N`). Nodes deeper than
//! [`MEDIAN_DEPTH`] are split at the median instead, so the depth (and the walking stack)
//! stays bounded whatever the input. The two children of a node are stored next to each other.

use crate::geometry::{Aabb, Ray};
use crate::math::Vec3;

/// Bins per axis of the SAH split search.
const BINS: usize = 16;
/// Most items a leaf holds (a node with fewer may still be split when that is cheaper).
const MAX_LEAF: usize = 4;
/// Below this depth splits minimise the SAH cost; from it on they halve the items, so no
/// path is longer than `MEDIAN_DEPTH + log₂(n)` ≤ [`STACK`] for any n < 2³².
const MEDIAN_DEPTH: usize = 30;
/// Size of the walking stack: one entry per level.
const STACK: usize = 64;

/// A node: its bounds and either two children (`count == 0`, children at `first` and
/// `first + 1`) or `count` items at `items[first..first + count]`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    bounds: Aabb,
    first: u32,
    count: u32,
}

/// The hierarchy: nodes (root at 0) and the item indices in leaf order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Bvh {
    nodes: Vec<Node>,
    items: Vec<u32>,
}

/// An item while building: its box, its box's centre and its index.
#[derive(Clone, Copy)]
struct Item {
    bounds: Aabb,
    center: Vec3,
    index: u32,
}

/// A node still to be split: its slot and the range of items it holds.
struct Pending {
    node: usize,
    start: usize,
    end: usize,
    depth: usize,
}

impl Bvh {
    /// The hierarchy over `boxes` (item `i` has box `boxes[i]`).
    pub(crate) fn build(boxes: &[Aabb]) -> Bvh {
        let mut items: Vec<Item> = boxes
            .iter()
            .enumerate()
            .map(|(index, bounds)| Item { bounds: *bounds, center: bounds.center(), index: index as u32 })
            .collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len() / MAX_LEAF + 1);
        nodes.push(Node { bounds: Aabb::EMPTY, first: 0, count: 0 });
        let mut pending = vec![Pending { node: 0, start: 0, end: items.len(), depth: 0 }];
        while let Some(job) = pending.pop() {
            let range = &mut items[job.start..job.end];
            let bounds = range.iter().fold(Aabb::EMPTY, |b, item| b.union(&item.bounds));
            let split = if job.depth < MEDIAN_DEPTH { sah_split(range, &bounds) } else { median_split(range) };
            let Some(mid) = split else {
                nodes[job.node] = Node { bounds, first: job.start as u32, count: range.len() as u32 };
                continue;
            };
            let first = nodes.len();
            nodes[job.node] = Node { bounds, first: first as u32, count: 0 };
            nodes.push(Node { bounds: Aabb::EMPTY, first: 0, count: 0 });
            nodes.push(Node { bounds: Aabb::EMPTY, first: 0, count: 0 });
            let depth = job.depth + 1;
            pending.push(Pending { node: first + 1, start: job.start + mid, end: job.end, depth });
            pending.push(Pending { node: first, start: job.start, end: job.start + mid, depth });
        }
        Bvh { nodes, items: items.iter().map(|item| item.index).collect() }
    }

    /// Bounds of everything (empty for no items).
    pub(crate) fn bounds(&self) -> Aabb {
        self.nodes.first().map_or(Aabb::EMPTY, |root| root.bounds)
    }

    /// Calls `visit(item)` for every item of every leaf whose bounds overlap `query` (the
    /// caller tests the item's own box); stops when `visit` returns false.
    pub(crate) fn query(&self, query: &Aabb, mut visit: impl FnMut(u32) -> bool) {
        if self.items.is_empty() {
            return;
        }
        let mut stack = [0u32; STACK];
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let node = &self.nodes[stack[depth] as usize];
            if !node.bounds.overlaps(query) {
                continue;
            }
            if node.count == 0 {
                stack[depth] = node.first + 1;
                stack[depth + 1] = node.first;
                depth += 2;
                continue;
            }
            let leaf = &self.items[node.first as usize..(node.first + node.count) as usize];
            if !leaf.iter().all(|&item| visit(item)) {
                return;
            }
        }
    }

    /// Walks the leaves the ray enters within `max_t`, nearest node first. `test(item, limit)`
    /// returns the item's hit parameter if it hits within `limit`; the closest hit is returned
    /// as `(item, t)`, and nodes entered beyond it are skipped.
    pub(crate) fn cast_ray(
        &self,
        ray: &Ray,
        max_t: f32,
        mut test: impl FnMut(u32, f32) -> Option<f32>,
    ) -> Option<(u32, f32)> {
        if self.items.is_empty() {
            return None;
        }
        let inv_dir = ray.direction.recip();
        let mut best: Option<(u32, f32)> = None;
        let mut stack = [(0u32, 0.0f32); STACK];
        let mut depth = 0;
        let root = self.nodes[0].bounds.ray_entry(ray.origin, inv_dir, max_t);
        if let Some(entry) = root {
            stack[0] = (0, entry);
            depth = 1;
        }
        while depth > 0 {
            depth -= 1;
            let (index, entry) = stack[depth];
            let limit = best.map_or(max_t, |(_, t)| t);
            if entry > limit {
                continue;
            }
            let node = &self.nodes[index as usize];
            if node.count > 0 {
                for &item in &self.items[node.first as usize..(node.first + node.count) as usize] {
                    let limit = best.map_or(max_t, |(_, t)| t);
                    if let Some(t) = test(item, limit).filter(|&t| t <= limit) {
                        best = Some((item, t));
                    }
                }
                continue;
            }
            let children = [node.first, node.first + 1]
                .map(|child| (child, self.nodes[child as usize].bounds.ray_entry(ray.origin, inv_dir, limit)));
            // Push the farther child first so the nearer one is walked first.
            let [near, far] = match (children[0].1, children[1].1) {
                (Some(a), Some(b)) if b < a => [children[1], children[0]],
                _ => children,
            };
            for (child, child_entry) in [far, near] {
                if let Some(t) = child_entry {
                    stack[depth] = (child, t);
                    depth += 1;
                }
            }
        }
        best
    }
}

/// The SAH split of `items` (bounds `bounds`) as the number of items put first, after sorting
/// them into the two sides; `None` when a leaf is cheaper and allowed. Items whose centres all
/// coincide cannot be binned and are halved when too many for a leaf.
fn sah_split(items: &mut [Item], bounds: &Aabb) -> Option<usize> {
    if items.len() <= 1 {
        return None;
    }
    let centers = items.iter().fold(Aabb::EMPTY, |b, item| Aabb::new(b.min.min(item.center), b.max.max(item.center)));
    let extent = centers.max - centers.min;
    let scale = Vec3::select(extent.cmpgt(Vec3::ZERO), Vec3::splat(BINS as f32) / extent, Vec3::ZERO);
    let bin_of =
        |center: Vec3, axis: usize| (((center[axis] - centers.min[axis]) * scale[axis]) as usize).min(BINS - 1);
    let mut counts = [[0u32; BINS]; 3];
    let mut boxes = [[Aabb::EMPTY; BINS]; 3];
    for item in items.iter() {
        for axis in 0..3 {
            let bin = bin_of(item.center, axis);
            counts[axis][bin] += 1;
            boxes[axis][bin] = boxes[axis][bin].union(&item.bounds);
        }
    }
    let mut best: Option<(f32, usize, usize)> = None;
    for axis in (0..3).filter(|&axis| extent[axis] > 0.0) {
        let (cost, bin) = best_bin_split(&counts[axis], &boxes[axis]);
        if best.is_none_or(|(best_cost, _, _)| cost < best_cost) {
            best = Some((cost, axis, bin));
        }
    }
    let leaf_cost = bounds.surface_area() * items.len() as f32;
    match best {
        None => (items.len() > MAX_LEAF).then(|| median_split(items)).flatten(),
        Some((cost, _, _)) if items.len() <= MAX_LEAF && cost >= leaf_cost => None,
        Some((_, axis, bin)) => Some(partition(items, |item| bin_of(item.center, axis) < bin)),
    }
}

/// The cheapest split between bins along one axis: `(cost, first bin of the right side)`,
/// cost = A_left·N_left + A_right·N_right.
fn best_bin_split(counts: &[u32; BINS], boxes: &[Aabb; BINS]) -> (f32, usize) {
    // Right-side costs from the top: right_cost[k] covers bins k..BINS.
    let mut right_cost = [f32::INFINITY; BINS];
    let (mut right_box, mut right_count) = (Aabb::EMPTY, 0u32);
    for k in (1..BINS).rev() {
        right_box = right_box.union(&boxes[k]);
        right_count += counts[k];
        right_cost[k] = if right_count > 0 { right_box.surface_area() * right_count as f32 } else { f32::INFINITY };
    }
    let (mut left_box, mut left_count) = (Aabb::EMPTY, 0u32);
    let mut best = (f32::INFINITY, 1);
    for k in 1..BINS {
        left_box = left_box.union(&boxes[k - 1]);
        left_count += counts[k - 1];
        if left_count == 0 {
            continue;
        }
        let cost = left_box.surface_area() * left_count as f32 + right_cost[k];
        if cost < best.0 {
            best = (cost, k);
        }
    }
    best
}

/// Halves the items at the median centre along their widest axis; `None` for one item.
fn median_split(items: &mut [Item]) -> Option<usize> {
    if items.len() <= 1 {
        return None;
    }
    let centers = items.iter().fold(Aabb::EMPTY, |b, item| Aabb::new(b.min.min(item.center), b.max.max(item.center)));
    let axis = (centers.max - centers.min).max_position();
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |a, b| a.center[axis].total_cmp(&b.center[axis]));
    Some(mid)
}

/// Moves the items for which `left` holds to the front; returns how many there are.
fn partition(items: &mut [Item], left: impl Fn(&Item) -> bool) -> usize {
    let mut count = 0;
    for i in 0..items.len() {
        if left(&items[i]) {
            items.swap(i, count);
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::super::test_support::Lcg;
    use super::*;

    fn random_boxes(rng: &mut Lcg, count: usize) -> Vec<Aabb> {
        (0..count)
            .map(|_| {
                let center = rng.in_box(Vec3::new(20.0, 5.0, 20.0));
                Aabb::from_center_half_extents(center, rng.in_box(Vec3::ONE).abs() + Vec3::splat(0.01))
            })
            .collect()
    }

    /// Every query finds exactly the items whose boxes overlap (the leaves' other items are
    /// filtered by their boxes as a mesh does), each once.
    #[test]
    fn queries_find_exactly_the_overlapping_boxes() {
        let mut rng = Lcg::new(3);
        for count in [0, 1, 2, 5, 100, 3000] {
            let boxes = random_boxes(&mut rng, count);
            let bvh = Bvh::build(&boxes);
            for _ in 0..50 {
                let query =
                    Aabb::from_center_half_extents(rng.in_box(Vec3::splat(22.0)), rng.in_box(Vec3::splat(4.0)).abs());
                let mut found = Vec::new();
                bvh.query(&query, |item| {
                    if boxes[item as usize].overlaps(&query) {
                        found.push(item);
                    }
                    true
                });
                found.sort_unstable();
                let expected: Vec<u32> = (0..count as u32).filter(|&i| boxes[i as usize].overlaps(&query)).collect();
                assert_eq!(found, expected);
            }
        }
    }

    /// Identical boxes (no centre spread) still build a valid tree within the stack depth.
    #[test]
    fn identical_boxes_build_a_bounded_tree() {
        let boxes = vec![Aabb::new(Vec3::ZERO, Vec3::ONE); 10_000];
        let bvh = Bvh::build(&boxes);
        let mut seen = 0;
        bvh.query(&Aabb::new(Vec3::splat(0.5), Vec3::splat(0.5)), |_| {
            seen += 1;
            true
        });
        assert_eq!(seen, 10_000);
        assert!(bvh.nodes.iter().all(|n| n.count as usize <= MAX_LEAF));
    }

    /// The ray walk returns the nearest box entry, as a brute-force loop over all boxes does.
    #[test]
    fn ray_walk_finds_the_nearest_item() {
        let mut rng = Lcg::new(9);
        let boxes = random_boxes(&mut rng, 2000);
        let bvh = Bvh::build(&boxes);
        for _ in 0..200 {
            let ray = Ray::new(rng.in_box(Vec3::splat(30.0)), rng.direction());
            let entry = |i: u32, limit: f32| boxes[i as usize].ray_entry(ray.origin, ray.direction.recip(), limit);
            let expected = (0..boxes.len() as u32)
                .filter_map(|i| entry(i, 100.0).map(|t| (i, t)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let got = bvh.cast_ray(&ray, 100.0, entry);
            assert_eq!(got.map(|g| g.1), expected.map(|e| e.1));
        }
    }
}
