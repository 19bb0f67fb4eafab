//! Tests of the AABB tree and the broad phase against brute-force references.
//!
//! Every comparison is exact: the tree and the references evaluate the same `Aabb::overlaps`
//! and `Aabb::ray_entry` on the same boxes, so sets and ray parameters must match bit for bit.

use super::aabb_tree::REBUILD_AREA_RATIO;
use super::*;
use crate::math::Vec3;

/// Fixed-seed linear congruential generator (Numerical Recipes constants).
struct Lcg(u32);

impl Lcg {
    fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u32() >> 8) as usize % n
    }

    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A box with its centre in [-extent, extent]³ and half sizes in [0.05, max_half).
    fn aabb(&mut self, extent: f32, max_half: f32) -> Aabb {
        let centre = self.vec3(-extent, extent);
        let half = self.vec3(0.05, max_half);
        Aabb::from_center_half_extents(centre, half)
    }
}

/// Leaves of `tree` hit by `query`, found by the tree, sorted.
fn tree_query(tree: &DynamicTree, query: &Aabb) -> Vec<LeafId> {
    let mut found = Vec::new();
    tree.query(query, |leaf| {
        found.push(leaf);
        true
    });
    found.sort_unstable();
    found
}

/// Leaves of `live` (leaf, box) overlapping `query`, by brute force, sorted.
fn brute_query(live: &[(LeafId, Aabb)], query: &Aabb) -> Vec<LeafId> {
    let mut found: Vec<LeafId> = live.iter().filter(|(_, b)| b.overlaps(query)).map(|&(l, _)| l).collect();
    found.sort_unstable();
    found
}

// ---------------------------------------------------------------------------------------
// Tree

/// Thousands of random inserts, moves and removals: after each batch the tree is valid,
/// every handle still holds its box and user, and queries equal brute force.
#[test]
fn random_edits_keep_the_tree_valid() {
    let mut rng = Lcg(7);
    let mut tree = DynamicTree::new();
    let mut live: Vec<(LeafId, Aabb)> = Vec::new();
    for step in 0..6000 {
        let action = rng.below(100);
        if live.is_empty() || action < 45 {
            let aabb = rng.aabb(30.0, 2.0);
            let leaf = tree.create_leaf(aabb, 1000 + step);
            assert!(live.iter().all(|&(l, _)| l != leaf), "handle {leaf} handed out twice");
            live.push((leaf, aabb));
        } else if action < 80 {
            let slot = rng.below(live.len());
            let aabb = rng.aabb(30.0, 2.0);
            tree.move_leaf(live[slot].0, aabb);
            live[slot].1 = aabb;
        } else {
            let (leaf, _) = live.swap_remove(rng.below(live.len()));
            tree.destroy_leaf(leaf);
            assert!(!tree.contains(leaf));
        }
        if step % 250 == 249 {
            tree.validate().expect("tree invariants");
            assert_eq!(tree.leaf_count(), live.len());
            for &(leaf, aabb) in &live {
                assert_eq!(tree.aabb(leaf), aabb, "leaf {leaf} lost its box");
            }
            for _ in 0..20 {
                let query = rng.aabb(30.0, 6.0);
                assert_eq!(tree_query(&tree, &query), brute_query(&live, &query));
            }
        }
    }
    // Removing everything leaves every node on the free list.
    for (leaf, _) in live.drain(..) {
        tree.destroy_leaf(leaf);
    }
    tree.validate().expect("empty tree invariants");
    assert_eq!((tree.leaf_count(), tree.height()), (0, 0));
}

/// Enlarged leaves (new boxes not yet re-inserted) keep the tree valid and every query
/// exact; `update_enlarged` then re-inserts them one by one (few enlarged) or refits the
/// tree (many), after which the tree is valid, exact, and has no loose box left.
#[test]
fn enlarged_leaves_stay_exact_until_reinserted() {
    let mut rng = Lcg(17);
    let mut tree = DynamicTree::new();
    let mut live: Vec<(LeafId, Aabb)> =
        (0..1000).map(|_| rng.aabb(15.0, 1.0)).map(|b| (tree.create_leaf(b, 0), b)).collect();
    for (round, one_in) in [20usize, 2, 50, 3, 1].into_iter().enumerate() {
        let (gone, _) = live.swap_remove(rng.below(live.len()));
        tree.destroy_leaf(gone);
        let fresh = rng.aabb(15.0, 1.0);
        live.push((tree.create_leaf(fresh, 0), fresh));
        for (leaf, aabb) in live.iter_mut() {
            if rng.below(one_in) == 0 {
                let shift = rng.vec3(-1.5, 1.5);
                *aabb = Aabb::new(aabb.min + shift, aabb.max + shift);
                tree.enlarge_leaf(*leaf, *aabb);
            }
        }
        let enlarged = tree.enlarged_count();
        assert!(tree.loose_slot_count() > 0, "round {round}: enlarging should loosen boxes");
        for phase in ["enlarged", "re-inserted"] {
            tree.validate().unwrap_or_else(|e| panic!("round {round}, {phase}: {e}"));
            for &(leaf, aabb) in &live {
                assert_eq!(tree.aabb(leaf), aabb);
            }
            for _ in 0..30 {
                let query = rng.aabb(15.0, 4.0);
                assert_eq!(tree_query(&tree, &query), brute_query(&live, &query), "{phase}");
            }
            tree.update_enlarged(4);
        }
        assert_eq!(tree.enlarged_count(), 0, "round {round} ({enlarged} were enlarged)");
        assert_eq!(tree.loose_slot_count(), 0, "round {round} ({enlarged} were enlarged)");
    }
}

/// A query stops at the first `false`: exactly k callbacks.
#[test]
fn query_stops_when_the_callback_says_so() {
    let mut rng = Lcg(3);
    let mut tree = DynamicTree::new();
    for user in 0..500 {
        tree.create_leaf(rng.aabb(10.0, 1.5), user);
    }
    let everything = Aabb::new(Vec3::splat(-20.0), Vec3::splat(20.0));
    for k in [1usize, 5, 77] {
        let mut calls = 0;
        tree.query(&everything, |_| {
            calls += 1;
            calls < k
        });
        assert_eq!(calls, k);
    }
}

/// A row of 10,000 boxes inserted in sorted order (the worst case for an unbalanced tree)
/// stays within 2.5 log2(n) + 4 levels; a rebuild gives exactly ceil(log2 n) levels.
#[test]
fn sorted_row_keeps_logarithmic_height() {
    let n = 10_000usize;
    let mut tree = DynamicTree::new();
    let mut live = Vec::new();
    for i in 0..n {
        let centre = Vec3::new(1.5 * i as f32, 0.0, 0.0);
        let aabb = Aabb::from_center_half_extents(centre, Vec3::splat(0.5));
        live.push((tree.create_leaf(aabb, i as u32), aabb));
    }
    tree.validate().expect("tree invariants");
    let log2_n = (n as f32).log2();
    let incremental_height = tree.height();
    assert!(incremental_height as f32 <= 2.5 * log2_n + 4.0, "height {incremental_height}");
    // Removing every other leaf, in order, keeps it balanced too.
    for (leaf, _) in live.iter().step_by(2) {
        tree.destroy_leaf(*leaf);
    }
    live = live.into_iter().skip(1).step_by(2).collect();
    tree.validate().expect("tree invariants after removals");
    let half_bound = 2.5 * (live.len() as f32).log2() + 4.0;
    assert!(tree.height() as f32 <= half_bound, "height {} after removals", tree.height());

    tree.rebuild();
    tree.validate().expect("rebuilt tree invariants");
    assert_eq!(tree.height(), (live.len() as f32).log2().ceil() as u32);
    let query = Aabb::new(Vec3::new(100.0, -1.0, -1.0), Vec3::new(160.0, 1.0, 1.0));
    assert_eq!(tree_query(&tree, &query), brute_query(&live, &query));
}

/// Nested boxes inserted smallest first (each contains all earlier ones): the area
/// heuristic alone pairs each new box with the root, a chain of height n-1; the height
/// rotations keep it within 2.5 log2(n) + 4. Two variants: centres jittered around the
/// origin, and centres drifting along x with the boxes (which needs the rotation to recurse
/// down the tall side).
#[test]
fn nested_boxes_keep_logarithmic_height() {
    let n = 10_000usize;
    let mut rng = Lcg(3);
    let bound = 2.5 * (n as f32).log2() + 4.0;
    for drifting in [false, true] {
        let mut tree = DynamicTree::new();
        for i in 0..n {
            let grow = 0.01 * i as f32;
            let centre = if drifting { Vec3::new(grow, 0.0, 0.0) } else { rng.vec3(-0.5, 0.5) };
            tree.create_leaf(Aabb::from_center_half_extents(centre, Vec3::splat(1.0 + grow)), 0);
        }
        tree.validate().expect("tree invariants");
        let height = tree.height();
        assert!(height as f32 <= bound, "drifting {drifting}: height {height} > {bound}");
    }
}

/// Random boxes for the ray tests; each leaf's user is its position in the returned list.
fn ray_scene(rng: &mut Lcg) -> (DynamicTree, Vec<Aabb>) {
    let mut tree = DynamicTree::new();
    let boxes: Vec<Aabb> = (0..800).map(|_| rng.aabb(20.0, 1.5)).collect();
    for (user, aabb) in boxes.iter().enumerate() {
        tree.create_leaf(*aabb, user as u32);
    }
    (tree, boxes)
}

fn random_ray(rng: &mut Lcg) -> Ray {
    Ray::new(rng.vec3(-25.0, 25.0), rng.vec3(-1.0, 1.0))
}

/// Without clipping, the cast reports exactly the boxes the slab test says the ray enters
/// within max_t, each once, with the same entry parameter, in non-decreasing order.
#[test]
fn ray_cast_reports_every_box_nearest_first() {
    let mut rng = Lcg(11);
    let (tree, boxes) = ray_scene(&mut rng);
    for _ in 0..50 {
        let ray = random_ray(&mut rng);
        let max_t = rng.range(5.0, 60.0);
        let mut expected: Vec<(u32, f32)> = (0..boxes.len())
            .filter_map(|i| {
                let t = boxes[i].ray_entry(ray.origin, ray.direction.recip(), max_t)?;
                Some((i as u32, t))
            })
            .collect();
        let mut reported = Vec::new();
        tree.cast_ray(&ray, max_t, |leaf, t_enter| {
            reported.push((tree.user(leaf).unwrap_or(u32::MAX), t_enter));
            f32::INFINITY
        });
        assert!(reported.windows(2).all(|w| w[0].1 <= w[1].1), "order: {reported:?}");
        reported.sort_unstable_by_key(|&(leaf, _)| leaf);
        expected.sort_unstable_by_key(|&(leaf, _)| leaf);
        assert_eq!(reported, expected);
    }
}

/// With clipping (the callback returns an exact hit t_hit = t_enter + depth), the visited
/// boxes are those a sorted sweep visits: in increasing t_enter, while t_enter <= the
/// running minimum of max_t and the t_hit seen so far. The closest hit is the brute-force
/// minimum.
#[test]
fn ray_cast_clipping_prunes_far_boxes() {
    let mut rng = Lcg(5);
    let (tree, boxes) = ray_scene(&mut rng);
    let depth = |user: u32| 0.3 * (user % 7) as f32;
    for _ in 0..50 {
        let ray = random_ray(&mut rng);
        let max_t = 80.0;
        let mut entries: Vec<(f32, u32)> = (0..boxes.len())
            .filter_map(|i| {
                let t = boxes[i].ray_entry(ray.origin, ray.direction.recip(), max_t)?;
                Some((t, i as u32))
            })
            .collect();
        entries.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (mut expected, mut running_max) = (Vec::new(), max_t);
        for &(t, user) in &entries {
            if t > running_max {
                break;
            }
            expected.push(user);
            running_max = running_max.min(t + depth(user));
        }
        let (mut visited, mut closest) = (Vec::new(), max_t);
        tree.cast_ray(&ray, max_t, |leaf, t_enter| {
            let user = tree.user(leaf).unwrap_or(u32::MAX);
            visited.push(user);
            closest = closest.min(t_enter + depth(user));
            t_enter + depth(user)
        });
        visited.sort_unstable();
        expected.sort_unstable();
        assert_eq!(visited, expected);
        assert_eq!(closest, running_max);
    }
}

/// Returning 0 stops the cast after the nearest box; a ray that misses everything, or a
/// negative max_t, reports nothing.
#[test]
fn ray_cast_early_exit_and_misses() {
    let mut rng = Lcg(9);
    let (tree, boxes) = ray_scene(&mut rng);
    // Along +x through the centre of box 0, so it crosses at least one box.
    let centre = boxes[0].center();
    let ray = Ray::new(Vec3::new(-30.0, centre.y, centre.z), Vec3::X);
    let nearest = (0..boxes.len())
        .filter_map(|i| boxes[i].ray_entry(ray.origin, ray.direction.recip(), 100.0))
        .fold(f32::INFINITY, f32::min);
    let mut calls = Vec::new();
    tree.cast_ray(&ray, 100.0, |leaf, t_enter| {
        calls.push((leaf, t_enter));
        0.0
    });
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, nearest);

    let mut count = 0;
    let away = Ray::new(Vec3::new(0.0, 40.0, 0.0), Vec3::Y);
    tree.cast_ray(&away, 1000.0, |_, _| {
        count += 1;
        f32::INFINITY
    });
    tree.cast_ray(&ray, -1.0, |_, _| {
        count += 1;
        f32::INFINITY
    });
    assert_eq!(count, 0);
}

/// The pair walks report exactly the brute-force overlapping pairs, each once: within one
/// tree (after random edits, so rotations have reshaped it) and between two trees.
#[test]
fn pair_walks_match_brute_force() {
    let mut rng = Lcg(31);
    let (mut tree_a, mut tree_b) = (DynamicTree::new(), DynamicTree::new());
    let mut live_a: Vec<(LeafId, Aabb)> = Vec::new();
    for _ in 0..600 {
        let aabb = rng.aabb(10.0, 1.0);
        live_a.push((tree_a.create_leaf(aabb, 0), aabb));
    }
    for (leaf, aabb) in live_a.iter_mut().step_by(3) {
        *aabb = rng.aabb(10.0, 1.0);
        tree_a.move_leaf(*leaf, *aabb);
    }
    let live_b: Vec<(LeafId, Aabb)> = (0..200)
        .map(|_| {
            let aabb = rng.aabb(10.0, 2.0);
            (tree_b.create_leaf(aabb, 0), aabb)
        })
        .collect();

    let mut within = Vec::new();
    tree_a.for_each_overlapping_pair(|a, b| within.push((a.min(b), a.max(b))));
    let reported = within.len();
    within.sort_unstable();
    within.dedup();
    assert_eq!(reported, within.len(), "a pair was reported twice");
    let mut expected = Vec::new();
    for (i, &(leaf_i, box_i)) in live_a.iter().enumerate() {
        for &(leaf_j, box_j) in &live_a[i + 1..] {
            if box_i.overlaps(&box_j) {
                expected.push((leaf_i.min(leaf_j), leaf_i.max(leaf_j)));
            }
        }
    }
    expected.sort_unstable();
    assert!(expected.len() > 100, "the scene should have many overlaps");
    assert_eq!(within, expected);

    let mut between = Vec::new();
    tree_a.for_each_overlap_with(&tree_b, |a, b| between.push((a, b)));
    let reported = between.len();
    between.sort_unstable();
    between.dedup();
    assert_eq!(reported, between.len(), "a pair was reported twice");
    let mut expected: Vec<(LeafId, LeafId)> = live_a
        .iter()
        .flat_map(|&(a, box_a)| {
            live_b.iter().filter(move |(_, box_b)| box_a.overlaps(box_b)).map(move |&(b, _)| (a, b))
        })
        .collect();
    expected.sort_unstable();
    assert_eq!(between, expected);

    // A tree of one leaf (its root is the leaf), on either side of the walk.
    let mut single = DynamicTree::new();
    let big = Aabb::new(Vec3::new(-3.0, -3.0, -3.0), Vec3::new(2.0, 1.0, 4.0));
    let only = single.create_leaf(big, 0);
    let mut expected: Vec<LeafId> = live_a.iter().filter(|(_, b)| b.overlaps(&big)).map(|&(l, _)| l).collect();
    expected.sort_unstable();
    assert!(expected.len() > 10, "the single box should overlap many");
    for single_first in [false, true] {
        let mut found = Vec::new();
        match single_first {
            false => tree_a.for_each_overlap_with(&single, |a, b| found.push((a, b))),
            true => single.for_each_overlap_with(&tree_a, |b, a| found.push((a, b))),
        }
        assert!(found.iter().all(|&(_, b)| b == only));
        let mut found: Vec<LeafId> = found.into_iter().map(|(a, _)| a).collect();
        found.sort_unstable();
        assert_eq!(found, expected, "single leaf first: {single_first}");
    }
}

/// Half of 2,000 leaves moved a little (well within the rebuild bound): `update_enlarged`
/// refits. The tree keeps its shape (every internal node the same children), every box is
/// exact again, and queries equal brute force.
#[test]
fn refit_keeps_the_shape_and_makes_boxes_exact() {
    let mut rng = Lcg(41);
    let mut tree = DynamicTree::new();
    let mut live: Vec<(LeafId, Aabb)> =
        (0..2000).map(|_| rng.aabb(20.0, 1.0)).map(|b| (tree.create_leaf(b, 0), b)).collect();
    tree.rebuild();
    let rebuilt_area = tree.internal_area();
    let shape_before = tree.shape();
    for (leaf, aabb) in live.iter_mut().step_by(2) {
        let shift = rng.vec3(-0.05, 0.05);
        *aabb = Aabb::new(aabb.min + shift, aabb.max + shift);
        tree.enlarge_leaf(*leaf, *aabb);
    }
    assert!(tree.loose_slot_count() > 0);
    tree.update_enlarged(8);
    assert_eq!(tree.enlarged_count(), 0);
    assert_eq!(tree.shape(), shape_before, "a refit must not restructure");
    assert_eq!(tree.loose_slot_count(), 0);
    tree.validate().expect("refitted tree invariants");
    assert!(tree.internal_area() <= REBUILD_AREA_RATIO * rebuilt_area);
    for _ in 0..30 {
        let query = rng.aabb(20.0, 4.0);
        assert_eq!(tree_query(&tree, &query), brute_query(&live, &query));
    }
}

/// Every leaf moved to a random new place: refitting would leave the tree's total internal
/// area far above [`REBUILD_AREA_RATIO`] times its area after the last rebuild (checked on a
/// refitted copy), so `update_enlarged` rebuilds instead: the height of a rebuild,
/// ceil(log2 n), and less area than the refitted copy.
#[test]
fn scattered_leaves_trigger_a_rebuild() {
    let mut rng = Lcg(43);
    let mut tree = DynamicTree::new();
    let mut live: Vec<(LeafId, Aabb)> =
        (0..1000).map(|_| rng.aabb(20.0, 1.0)).map(|b| (tree.create_leaf(b, 0), b)).collect();
    tree.rebuild();
    let rebuilt_area = tree.internal_area();
    for (leaf, aabb) in live.iter_mut() {
        *aabb = rng.aabb(20.0, 1.0);
        tree.enlarge_leaf(*leaf, *aabb);
    }
    let mut refitted = tree.clone();
    let refit_area = refitted.refit();
    assert!(refit_area > REBUILD_AREA_RATIO * rebuilt_area, "{refit_area} vs {rebuilt_area}");
    let shape_before = tree.shape();
    tree.update_enlarged(8);
    assert_ne!(tree.shape(), shape_before);
    assert_eq!(tree.height(), 10, "a rebuild of 1,000 leaves is ceil(log2 1000) high");
    assert!(tree.internal_area() < refit_area);
    tree.validate().expect("rebuilt tree invariants");
    for _ in 0..30 {
        let query = rng.aabb(20.0, 4.0);
        assert_eq!(tree_query(&tree, &query), brute_query(&live, &query));
    }
}

/// A refit split among two workers gives the same boxes and the same total area, bit for
/// bit, as on one thread (5,000 leaves, above the size where it is split), and the boxes
/// are exact: each child box is the union of the leaves under it.
#[test]
fn a_refit_gives_the_same_tree_for_every_worker_count() {
    let mut rng = Lcg(44);
    let mut tree = DynamicTree::new();
    let live: Vec<(LeafId, Aabb)> =
        (0..5000).map(|_| rng.aabb(60.0, 1.0)).map(|b| (tree.create_leaf(b, 0), b)).collect();
    tree.rebuild();
    for &(leaf, aabb) in &live {
        let shift = Vec3::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
        tree.enlarge_leaf(leaf, Aabb { min: aabb.min + shift, max: aabb.max + shift });
    }
    let mut two = crate::dynamics::workers::Workers::default();
    two.set_threads(2);
    let (mut serial, mut split) = (tree.clone(), tree.clone());
    let serial_area = serial.refit_on(&crate::dynamics::workers::Workers::default());
    let split_area = split.refit_on(&two);
    assert_eq!(serial_area.to_bits(), split_area.to_bits());
    assert!(serial_area > 0.0);
    let boxes = |t: &DynamicTree| t.internals.iter().map(|n| n.boxes).collect::<Vec<_>>();
    assert!(boxes(&serial) == boxes(&split), "the refitted boxes differ");
    serial.validate().expect("refitted tree invariants");
    let mut stack = vec![serial.root.expect("a root")];
    while let Some(node) = stack.pop().filter(|child| !child.is_leaf()) {
        let node = &serial.internals[node.index()];
        for (child, aabb) in node.children.iter().zip(&node.boxes) {
            let exact = if child.is_leaf() {
                serial.aabb(child.index() as LeafId)
            } else {
                serial.internals[child.index()].aabb()
            };
            assert!(*aabb == exact, "a child box is not exact");
            stack.push(*child);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Broad phase

/// One proxy as the test sees it.
struct TestProxy {
    id: ProxyId,
    user: u32,
    kind: ProxyKind,
    tight: Aabb,
    fat: Aabb,
}

/// Brute-force pair set: every overlapping pair with at least one moved member, never two
/// static ones; (min user, max user), sorted.
fn brute_pairs(proxies: &[TestProxy], moved: &[u32]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for (i, p) in proxies.iter().enumerate() {
        for q in &proxies[i + 1..] {
            let both_static = p.kind == ProxyKind::Static && q.kind == ProxyKind::Static;
            let any_moved = moved.contains(&p.user) || moved.contains(&q.user);
            if !both_static && any_moved && p.fat.overlaps(&q.fat) {
                pairs.push((p.user.min(q.user), p.user.max(q.user)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// Creates a proxy in both the broad phase and the test's list; returns its user.
fn add_proxy(bp: &mut BroadPhase, list: &mut Vec<TestProxy>, aabb: Aabb, kind: ProxyKind) -> u32 {
    let user = list.iter().map(|p| p.user + 1).max().unwrap_or(0);
    let id = bp.create_proxy(aabb, kind, user);
    let fat = if kind == ProxyKind::Moving { aabb.expanded(BroadPhase::MARGIN) } else { aabb };
    assert_eq!(bp.fat_aabb(id), fat);
    list.push(TestProxy { id, user, kind, tight: aabb, fat });
    user
}

/// Random scenes over several rounds of moves (small ones inside the margin and large ones),
/// creations and destructions: each pair list equals the brute-force set, exactly, whether
/// pairs are found by per-proxy queries, by the tree walk, or by the automatic choice.
#[test]
fn update_pairs_matches_brute_force() {
    for search in [Some(PairSearch::Queries), Some(PairSearch::Walk), None] {
        pair_rounds_against_brute_force(search);
    }
}

fn pair_rounds_against_brute_force(search: Option<PairSearch>) {
    let mut rng = Lcg(2024);
    let mut bp = BroadPhase::new();
    let mut list = Vec::new();
    let mut moved = Vec::new();
    for i in 0..500 {
        let kind = if i % 5 == 0 { ProxyKind::Static } else { ProxyKind::Moving };
        moved.push(add_proxy(&mut bp, &mut list, rng.aabb(12.0, 1.2), kind));
    }
    let mut pairs = Vec::new();
    for round in 0..12 {
        match search {
            Some(search) => bp.update_pairs_by(&Default::default(), &mut pairs, search),
            None => bp.update_pairs(&mut pairs),
        }
        assert!(pairs.windows(2).all(|w| w[0] < w[1]) && pairs.iter().all(|p| p.0 < p.1));
        assert_eq!(pairs, brute_pairs(&list, &moved), "{search:?}, round {round}");
        bp.validate().expect("trees valid");
        moved.clear();
        // Alternate many moves (moving tree rebuilt) and few (re-inserted one by one).
        let one_in = if round % 2 == 0 { 2 } else { 25 };
        edit_scene(&mut rng, &mut bp, &mut list, &mut moved, one_in);
        bp.validate().expect("trees valid with moved proxies pending");
    }
}

/// One round of random edits (about one moving proxy in `one_in` moves); records in `moved`
/// the users the broad phase must treat as moved: created, or moved out of their fat box.
fn edit_scene(rng: &mut Lcg, bp: &mut BroadPhase, list: &mut Vec<TestProxy>, moved: &mut Vec<u32>, one_in: usize) {
    for p in list.iter_mut() {
        if p.kind == ProxyKind::Static || rng.below(one_in) != 0 {
            continue;
        }
        let step = if rng.below(2) == 0 { 0.08 } else { 1.0 };
        let shift = rng.vec3(-step, step);
        let new_tight = Aabb::new(p.tight.min + shift, p.tight.max + shift);
        p.tight = new_tight;
        // Half the moves predict that the proxy keeps going: the fat box reaches ahead.
        let ahead = match rng.below(2) == 0 {
            true => {
                bp.move_proxy(p.id, new_tight);
                Vec3::ZERO
            }
            false => {
                bp.move_proxy_along(p.id, new_tight, shift);
                BroadPhase::PREDICTION_STEPS * shift
            }
        };
        if !p.fat.contains(&new_tight) {
            let reach = new_tight.union(&Aabb::new(new_tight.min + ahead, new_tight.max + ahead));
            p.fat = reach.expanded(BroadPhase::MARGIN);
            moved.push(p.user);
        }
        assert_eq!(bp.fat_aabb(p.id), p.fat);
    }
    for _ in 0..10 {
        let gone = list.swap_remove(rng.below(list.len()));
        bp.destroy_proxy(gone.id);
        moved.retain(|&u| u != gone.user);
        let kind = if rng.below(4) == 0 { ProxyKind::Static } else { ProxyKind::Moving };
        moved.push(add_proxy(bp, list, rng.aabb(12.0, 1.2), kind));
    }
}

/// Static proxies pair with moving ones only, whenever either side is new.
#[test]
fn static_proxies_never_pair_with_each_other() {
    let mut bp = BroadPhase::new();
    let unit = |x: f32| Aabb::from_center_half_extents(Vec3::new(x, 0.0, 0.0), Vec3::splat(1.0));
    for user in 0..3 {
        bp.create_proxy(unit(0.5 * user as f32), ProxyKind::Static, user);
    }
    let mut pairs = vec![(99, 99)];
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![]);
    bp.create_proxy(unit(0.5), ProxyKind::Moving, 10);
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![(0, 10), (1, 10), (2, 10)]);
    // A new static proxy overlapping all of them pairs with the moving one only.
    bp.create_proxy(unit(0.7), ProxyKind::Static, 20);
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![(10, 20)]);
}

/// A proxy moved within its fat box keeps it and makes no new pairs; moved out, it gets a
/// fresh fat box and its pair is reported again.
#[test]
fn moving_inside_the_fat_box_is_free() {
    let mut bp = BroadPhase::new();
    let cube = |x: f32| Aabb::from_center_half_extents(Vec3::new(x, 0.0, 0.0), Vec3::splat(0.5));
    let a = bp.create_proxy(cube(0.0), ProxyKind::Moving, 1);
    bp.create_proxy(cube(0.9), ProxyKind::Moving, 2);
    let mut pairs = Vec::new();
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![(1, 2)]);
    let fat_before = bp.fat_aabb(a);
    bp.move_proxy(a, cube(0.07));
    assert_eq!(bp.fat_aabb(a), fat_before);
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![]);
    bp.move_proxy(a, cube(-0.2));
    assert_eq!(bp.fat_aabb(a), cube(-0.2).expanded(BroadPhase::MARGIN));
    assert!(bp.fat_aabbs_overlap(a, ProxyId(1)));
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![(1, 2)]);
}

/// A box that is not finite, or whose reach ahead overflows `f32`, is refused and the proxy
/// keeps its old fat box; a finite box near the end of the range is taken.
#[test]
fn boxes_that_overflow_are_refused() {
    let mut bp = BroadPhase::new();
    let cube = |x: f32| Aabb::from_center_half_extents(Vec3::new(x, 0.0, 0.0), Vec3::splat(0.5));
    let a = bp.create_proxy(cube(0.0), ProxyKind::Moving, 1);
    let fat_before = bp.fat_aabb(a);
    assert!(!bp.move_proxy(a, cube(f32::INFINITY)));
    let huge_step = Vec3::new(f32::MAX, 0.0, 0.0);
    assert!(!bp.move_proxy_along(a, cube(1e38), huge_step), "2 steps of f32::MAX ahead overflow");
    assert_eq!(bp.fat_aabb(a), fat_before);
    assert!(bp.move_proxy_along(a, cube(1e38), Vec3::new(1e37, 0.0, 0.0)));
    assert!(bp.fat_aabb(a).contains(&cube(1e38)));
}

/// A cube moving steadily 0.15 m per step along -x (beyond the 0.1 m margin) over a static
/// floor. With `move_proxy` it leaves its fat box every step, so the floor pair is reported
/// every step. With `move_proxy_along` its fat box reaches k = 2 displacements ahead:
/// min.x - 2·0.15 - 0.1, so it stays inside while its min.x has moved at most 0.4 m, i.e.
/// for two more steps, and the pair is reported every third step.
#[test]
fn predicted_motion_leaves_the_fat_box_less_often() {
    assert_eq!(BroadPhase::PREDICTION_STEPS, 2.0, "the expected steps below assume k = 2");
    let cube = |x: f32| Aabb::from_center_half_extents(Vec3::new(x, 0.5, 0.0), Vec3::splat(0.5));
    let floor = Aabb::new(Vec3::new(-50.0, -1.0, -5.0), Vec3::new(50.0, 0.0, 5.0));
    let step = Vec3::new(-0.15, 0.0, 0.0);
    for predicted in [false, true] {
        let mut bp = BroadPhase::new();
        bp.create_proxy(floor, ProxyKind::Static, 0);
        let id = bp.create_proxy(cube(0.0), ProxyKind::Moving, 1);
        let mut pairs = Vec::new();
        let mut reported_steps = Vec::new();
        for i in 0..10 {
            let x = step.x * i as f32;
            let moved = match predicted {
                true => bp.move_proxy_along(id, cube(x), step),
                false => bp.move_proxy(id, cube(x)),
            };
            assert!(moved);
            if predicted && i == 1 {
                let ahead = Aabb::new(cube(x).min + 2.0 * step, cube(x).max);
                assert_eq!(bp.fat_aabb(id), ahead.expanded(BroadPhase::MARGIN));
            }
            bp.update_pairs(&mut pairs);
            if pairs == [(0, 1)] {
                reported_steps.push(i);
            }
        }
        let expected: Vec<i32> = match predicted {
            true => vec![0, 1, 4, 7],
            false => (0..10).collect(),
        };
        assert_eq!(reported_steps, expected, "predicted: {predicted}");
    }
}

/// A proxy destroyed before the pair update is never reported; a new proxy reusing its
/// handle is reported once, under its own user.
#[test]
fn destroyed_proxies_are_forgotten() {
    let mut bp = BroadPhase::new();
    let cube = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(0.5));
    bp.create_proxy(cube, ProxyKind::Moving, 1);
    let b = bp.create_proxy(cube, ProxyKind::Moving, 2);
    bp.destroy_proxy(b);
    assert!(!bp.contains(b));
    let mut pairs = Vec::new();
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![]);
    let c = bp.create_proxy(cube, ProxyKind::Moving, 3);
    bp.destroy_proxy(c);
    let d = bp.create_proxy(cube, ProxyKind::Moving, 4);
    assert_eq!(c, d, "handles are reused");
    bp.update_pairs(&mut pairs);
    assert_eq!(pairs, vec![(1, 4)]);
    assert_eq!(bp.user(d), 4);
    bp.validate().expect("trees valid");
}

/// Box queries and ray casts of the broad phase cover both trees; ray casts stay nearest
/// first across them. A rebuild keeps handles, boxes and query results.
#[test]
fn queries_and_ray_casts_cover_both_trees() {
    let mut rng = Lcg(77);
    let mut bp = BroadPhase::new();
    let mut list = Vec::new();
    for i in 0..300 {
        let kind = if i % 2 == 0 { ProxyKind::Static } else { ProxyKind::Moving };
        add_proxy(&mut bp, &mut list, rng.aabb(10.0, 1.0), kind);
    }
    for rebuilt in [false, true] {
        if rebuilt {
            bp.rebuild();
            bp.validate().expect("rebuilt trees valid");
        }
        for _ in 0..30 {
            let query = rng.aabb(10.0, 3.0);
            let mut found = Vec::new();
            bp.query(&query, |user| {
                found.push(user);
                true
            });
            found.sort_unstable();
            let mut expected: Vec<u32> = list.iter().filter(|p| p.fat.overlaps(&query)).map(|p| p.user).collect();
            expected.sort_unstable();
            assert_eq!(found, expected);

            let ray = Ray::new(rng.vec3(-12.0, 12.0), rng.vec3(-1.0, 1.0));
            let mut hits = Vec::new();
            bp.cast_ray(&ray, 30.0, |user, t| {
                hits.push((user, t));
                f32::INFINITY
            });
            assert!(hits.windows(2).all(|w| w[0].1 <= w[1].1));
            hits.sort_unstable_by_key(|h| h.0);
            let mut expected: Vec<(u32, f32)> = list
                .iter()
                .filter_map(|p| Some((p.user, p.fat.ray_entry(ray.origin, ray.direction.recip(), 30.0)?)))
                .collect();
            expected.sort_unstable_by_key(|h| h.0);
            assert_eq!(hits, expected);
        }
    }
}

/// Micro-benchmark, not a test of speed. 5,000 moving boxes (unit-ish cubes, a few
/// neighbours each) over a static floor; each step a share of them (all, 1/4, 1/10, 1/100)
/// moves 0.15 m, beyond the 0.1 m margin, so each moved proxy is re-inserted and its pairs
/// are searched. Prints the time per step and per 1,000 moved proxies, split into
/// `move_proxy` calls and `update_pairs` (which re-inserts or rebuilds, then finds pairs).
/// Run: `cargo test -p fulcrum --release --lib broad_phase::tests::bench -- --ignored --nocapture`
#[test]
#[ignore = "micro-benchmark; run in release with --ignored --nocapture"]
fn bench_reinsert_and_update_pairs() {
    let n = 5000;
    for one_in in [1usize, 4, 10, 100] {
        let mut rng = Lcg(1);
        let mut bp = BroadPhase::new();
        let boxes: Vec<Aabb> = (0..n).map(|_| rng.aabb(11.0, 0.5)).collect();
        let ids: Vec<ProxyId> = (0..n).map(|u| bp.create_proxy(boxes[u], ProxyKind::Moving, u as u32)).collect();
        let floor = Aabb::new(Vec3::new(-12.0, -13.0, -12.0), Vec3::new(12.0, -11.0, 12.0));
        bp.create_proxy(floor, ProxyKind::Static, n as u32);
        let mut pairs = Vec::new();
        bp.update_pairs(&mut pairs);
        let (steps, mut total_pairs) = (50, 0);
        let (mut move_time, mut pair_time) = (0.0, 0.0);
        for step in 0..steps {
            // Alternate +0.15 m and back along the diagonal: always beyond the margin.
            let shift = Vec3::splat(if step % 2 == 0 { 0.15 } else { 0.0 });
            let start = std::time::Instant::now();
            for (i, (id, b)) in ids.iter().zip(&boxes).enumerate() {
                if i % one_in == 0 {
                    bp.move_proxy(*id, Aabb::new(b.min + shift, b.max + shift));
                }
            }
            let middle = std::time::Instant::now();
            bp.update_pairs(&mut pairs);
            pair_time += middle.elapsed().as_secs_f64();
            move_time += (middle - start).as_secs_f64();
            total_pairs += pairs.len();
        }
        let moved = n.div_ceil(one_in);
        let ms_per_step = |seconds: f64| seconds * 1e3 / steps as f64;
        let per_thousand = |seconds: f64| ms_per_step(seconds) * 1000.0 / moved as f64;
        eprintln!(
            "{moved} of {n} moved: per step {:.3} ms (move_proxy {:.3} + update_pairs {:.3}); \
             per 1000 moved {:.3} ms (move_proxy {:.3} + update_pairs {:.3}); {} pairs per step; \
             tree height {}",
            ms_per_step(move_time + pair_time),
            ms_per_step(move_time),
            ms_per_step(pair_time),
            per_thousand(move_time + pair_time),
            per_thousand(move_time),
            per_thousand(pair_time),
            total_pairs / steps,
            bp.moving_tree().height(),
        );
    }
}
