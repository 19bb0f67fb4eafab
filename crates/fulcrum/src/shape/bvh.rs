//! A static bounding-volume hierarchy over boxes (a triangle mesh's triangles): built once by
//! binned SAH, stored as a flat array of nodes, walked with a fixed-size stack.
//!
//! Build: a node's items are sorted into [`BINS`] bins by their centres along the axis where
//! the centres spread most; the split between bins with the least surface-area cost
//! `A_left·N_left + A_right·N_right` wins, unless keeping a small node whole costs less
//! (`A·N` against the split's cost plus `A·`[`TRAVERSAL_COST`]). One axis rather than three keeps a million-triangle build well under a second;
//! the trees of level geometry (wide, flat) lose little by it. The children's bounds come
//! from the bins and their centre bounds from the partition pass, so each level reads the
//! items twice. Nodes deeper than [`MEDIAN_DEPTH`] are split at the median instead, so the
//! depth (and the walking stack) stays bounded whatever the input. The two children of a node
//! are stored next to each other.

use crate::geometry::{Aabb, Ray};
use crate::math::Vec3;

/// Bins of the SAH split search.
const BINS: usize = 16;
/// Cost of visiting a node relative to testing one item, in the SAH: a split must save more
/// than it.
const TRAVERSAL_COST: f32 = 1.0;
/// Most items a leaf holds (a node with fewer may still be split when that is cheaper).
const MAX_LEAF: usize = 4;
/// Below this depth splits minimise the SAH cost; from it on they halve the items, so no
/// path is longer than `MEDIAN_DEPTH + log₂(n)` ≤ [`STACK`] for any n < 2³².
const MEDIAN_DEPTH: usize = 30;
/// Size of the walking stack: one entry per level.
const STACK: usize = 64;

/// A node: its bounds and either two children (`count == 0`, children at `first` and
/// `first + 1`) or `count` items at `items[first..first + count]`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Node {
    bounds: Aabb,
    first: u32,
    count: u32,
}

/// The hierarchy: nodes (root at 0) and the item indices in leaf order.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Bvh {
    nodes: Vec<Node>,
    items: Vec<u32>,
}

/// An item while building: its box and its index (28 bytes: the build streams through the
/// items once or twice per level, so their size sets its speed).
#[derive(Clone, Copy)]
struct Item {
    bounds: Aabb,
    index: u32,
}

impl Item {
    /// The centre of the item's box.
    #[inline]
    fn center(&self) -> Vec3 {
        0.5 * (self.bounds.min + self.bounds.max)
    }
}

/// A node still to be split: its slot, the range of items it holds, their bounds and the
/// bounds of their centres.
struct Pending {
    node: usize,
    start: usize,
    end: usize,
    depth: usize,
    bounds: Aabb,
    centers: Aabb,
}

/// How a node's items were split: how many go first, and both sides' bounds and centre bounds.
struct Split {
    count: usize,
    bounds: [Aabb; 2],
    centers: [Aabb; 2],
}

impl Bvh {
    /// The hierarchy over `boxes` (item `i` has box `boxes[i]`).
    pub(crate) fn build(boxes: &[Aabb]) -> Bvh {
        let mut items: Vec<Item> =
            boxes.iter().enumerate().map(|(index, bounds)| Item { bounds: *bounds, index: index as u32 }).collect();
        let bounds = boxes.iter().fold(Aabb::EMPTY, |b, item| b.union(item));
        let centers = center_bounds(&items);
        let mut nodes = Vec::with_capacity(2 * boxes.len() / MAX_LEAF + 1);
        nodes.push(Node { bounds, first: 0, count: 0 });
        let mut pending = vec![Pending { node: 0, start: 0, end: items.len(), depth: 0, bounds, centers }];
        while let Some(job) = pending.pop() {
            let range = &mut items[job.start..job.end];
            let split = if job.depth < MEDIAN_DEPTH {
                sah_split(range, &job.bounds, &job.centers)
            } else {
                median_split(range, &job.centers)
            };
            let Some(split) = split else {
                nodes[job.node] = Node { bounds: job.bounds, first: job.start as u32, count: range.len() as u32 };
                continue;
            };
            let first = nodes.len();
            nodes[job.node] = Node { bounds: job.bounds, first: first as u32, count: 0 };
            let mid = job.start + split.count;
            for (side, (start, end)) in [(job.start, mid), (mid, job.end)].into_iter().enumerate() {
                nodes.push(Node { bounds: split.bounds[side], first: 0, count: 0 });
                let (bounds, centers) = (split.bounds[side], split.centers[side]);
                pending.push(Pending { node: first + side, start, end, depth: job.depth + 1, bounds, centers });
            }
        }
        Bvh { nodes, items: items.iter().map(|item| item.index).collect() }
    }

    /// Checks a hierarchy restored from a snapshot against its `item_count` items: the items
    /// are a permutation of 0..item_count; every node is reached once from the root, its
    /// children after it and within the nodes, its items within the list; no path is deeper
    /// than the walking stack holds; every bound finite and ordered.
    pub(crate) fn check_stored(&self, item_count: usize) -> crate::Result<()> {
        use crate::error::Error;
        let mut seen = vec![false; item_count];
        for (k, &item) in self.items.iter().enumerate() {
            if seen.get(item as usize).is_none_or(|&seen| seen) {
                return Err(Error::new(format!("bvh.items[{k}]"), "not a distinct item"));
            }
            seen[item as usize] = true;
        }
        if self.items.len() != item_count || (item_count > 0 && self.nodes.is_empty()) {
            return Err(Error::new("bvh.items", format!("{} items for {item_count}", self.items.len())));
        }
        let mut reached = vec![false; self.nodes.len()];
        let mut pending = if item_count > 0 { vec![(0usize, 0usize)] } else { Vec::new() };
        while let Some((index, depth)) = pending.pop() {
            let node = self.nodes[index];
            let field = || format!("bvh.nodes[{index}]");
            if std::mem::replace(&mut reached[index], true) || depth + 2 > STACK || !node.bounds.is_valid() {
                return Err(Error::new(field(), "reached twice, too deep, or with invalid bounds"));
            }
            let (first, count) = (node.first as usize, node.count as usize);
            if count == 0 && (first <= index || first + 1 >= self.nodes.len()) {
                return Err(Error::new(field(), "its children are out of order or out of range"));
            }
            if count > 0 && first + count > self.items.len() {
                return Err(Error::new(field(), "its items are out of range"));
            }
            if count == 0 {
                pending.extend([(first, depth + 1), (first + 1, depth + 1)]);
            }
        }
        Ok(())
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

/// The SAH split of `items` (bounds `bounds`, centres within `centers`) along the axis of
/// widest centre spread; `None` when a leaf is cheaper and allowed. Items whose centres all
/// coincide cannot be binned and are halved when too many for a leaf.
fn sah_split(items: &mut [Item], bounds: &Aabb, centers: &Aabb) -> Option<Split> {
    let extent = centers.max - centers.min;
    let axis = extent.max_position();
    if items.len() <= 1 || extent[axis] <= 0.0 {
        return (items.len() > MAX_LEAF).then(|| median_split(items, centers)).flatten();
    }
    let scale = BINS as f32 / extent[axis];
    let bin_of = |center: Vec3| (((center[axis] - centers.min[axis]) * scale) as usize).min(BINS - 1);
    let mut counts = [0u32; BINS];
    let mut boxes = [Aabb::EMPTY; BINS];
    for item in items.iter() {
        let bin = bin_of(item.center());
        counts[bin] += 1;
        boxes[bin] = boxes[bin].union(&item.bounds);
    }
    let (cost, bin) = best_bin_split(&counts, &boxes);
    let area = bounds.surface_area();
    if items.len() <= MAX_LEAF && cost + TRAVERSAL_COST * area >= area * items.len() as f32 {
        return None;
    }
    let side_bounds = |range: std::ops::Range<usize>| boxes[range].iter().fold(Aabb::EMPTY, |b, x| b.union(x));
    let (count, centers) = partition(items, |item| bin_of(item.center()) < bin);
    Some(Split { count, bounds: [side_bounds(0..bin), side_bounds(bin..BINS)], centers })
}

/// The cheapest split between bins: `(cost, first bin of the right side)`, cost =
/// A_left·N_left + A_right·N_right over the non-empty sides.
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
fn median_split(items: &mut [Item], centers: &Aabb) -> Option<Split> {
    if items.len() <= 1 {
        return None;
    }
    let axis = (centers.max - centers.min).max_position();
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |a, b| a.center()[axis].total_cmp(&b.center()[axis]));
    let (left, right) = items.split_at(mid);
    let bounds_of = |side: &[Item]| side.iter().fold(Aabb::EMPTY, |b, item| b.union(&item.bounds));
    Some(Split {
        count: mid,
        bounds: [bounds_of(left), bounds_of(right)],
        centers: [center_bounds(left), center_bounds(right)],
    })
}

/// The bounds of the items' centres.
fn center_bounds(items: &[Item]) -> Aabb {
    items.iter().fold(Aabb::EMPTY, |b, item| Aabb::new(b.min.min(item.center()), b.max.max(item.center())))
}

/// Moves the items for which `left` holds to the front; returns how many there are and the
/// bounds of the centres on each side.
fn partition(items: &mut [Item], left: impl Fn(&Item) -> bool) -> (usize, [Aabb; 2]) {
    let mut count = 0;
    let mut centers = [Aabb::EMPTY; 2];
    for i in 0..items.len() {
        let center = items[i].center();
        let side = usize::from(!left(&items[i]));
        centers[side] = Aabb::new(centers[side].min.min(center), centers[side].max.max(center));
        if side == 0 {
            items.swap(i, count);
            count += 1;
        }
    }
    (count, centers)
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
