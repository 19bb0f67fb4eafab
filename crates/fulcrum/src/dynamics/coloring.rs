//! Graph colouring of the contact constraints: constraints of one colour share no body that
//! moves, so four of them can be solved at once in SIMD lanes (and, later, colours can be
//! split among threads). Bodies that constraints cannot move (static, kinematic) do not count.
//!
//! Greedy, in constraint order: each constraint takes the first colour unused by both of its
//! movable bodies. What does not fit in [`MAX_COLORS`] colours goes to an overflow list that
//! the solver handles after the colours, one constraint at a time. Same input, same
//! colouring: deterministic.
//!
//! Within a colour, constraints are listed by region of the bodies, then by bucket. A region
//! is a range of solver body indices (the first movable body's index · [`REGIONS`] / body
//! count). The workers split each colour into contiguous parts (`team.rs`), so with the
//! colour in region order a worker's part of every colour, and of the bodies' integration,
//! covers about the same bodies: the velocities it writes in one colour are read by itself
//! in the next, instead of crossing to the other core's cache. In constraint order they
//! crossed at random (terrain's contact pairs come in no order of their bodies): with two
//! workers its colours took as long as with one.

/// Most colours; a u32 per body holds which ones it already uses.
pub(crate) const MAX_COLORS: usize = 32;

/// Buckets per region of a colour: a constraint names its bucket when coloured. The contacts
/// use them to bring pairs of equal point count together without a sort.
pub(crate) const BUCKETS: usize = 4;

/// Ranges of body indices a colour is ordered by. A fixed count, so the order, and with it
/// the results, are the same for every worker count; enough for parts of up to eight
/// workers to fall on regions of their own.
pub(crate) const REGIONS: usize = 8;

/// Lists per colour: one per region and bucket.
const LISTS_PER_COLOUR: usize = REGIONS * BUCKETS;

/// The result of colouring, with buffers reused between steps.
#[derive(Default)]
pub(crate) struct Coloring {
    /// Constraint indices per colour, region and bucket
    /// (`(colour · REGIONS + region) · BUCKETS + bucket`), in constraint order.
    lists: Vec<Vec<u32>>,
    /// Constraints that fit no colour.
    pub overflow: Vec<u32>,
    body_colors: Vec<u32>,
}

impl Coloring {
    /// Colours `count` constraints; `bodies(i)` gives constraint i's two solver body indices,
    /// whether each is movable, and its bucket (below [`BUCKETS`]).
    pub(crate) fn build(
        &mut self,
        body_count: usize,
        count: usize,
        bodies: impl Fn(usize) -> ([(u32, bool); 2], usize),
    ) {
        self.lists.resize_with(MAX_COLORS * LISTS_PER_COLOUR, Vec::new);
        for list in &mut self.lists {
            list.clear();
        }
        self.overflow.clear();
        self.body_colors.clear();
        self.body_colors.resize(body_count, 0);
        for i in 0..count {
            let ([(a, movable_a), (b, movable_b)], bucket) = bodies(i);
            let mut used = 0u32;
            if movable_a {
                used |= self.body_colors[a as usize];
            }
            if movable_b {
                used |= self.body_colors[b as usize];
            }
            let free = !used;
            if free == 0 {
                self.overflow.push(i as u32);
                continue;
            }
            let color = free.trailing_zeros();
            let bit = 1u32 << color;
            if movable_a {
                self.body_colors[a as usize] |= bit;
            }
            if movable_b {
                self.body_colors[b as usize] |= bit;
            }
            let first_movable = if movable_a { a } else { b } as usize;
            let region = first_movable * REGIONS / body_count.max(1);
            let list = (color as usize * REGIONS + region.min(REGIONS - 1)) * BUCKETS + bucket.min(BUCKETS - 1);
            self.lists[list].push(i as u32);
        }
    }

    /// The constraints of colour `k`: region 0's, then region 1's, ..., each region's bucket
    /// by bucket, each bucket in constraint order.
    pub(crate) fn colour(&self, k: usize) -> impl Iterator<Item = u32> + '_ {
        self.lists[k * LISTS_PER_COLOUR..(k + 1) * LISTS_PER_COLOUR].iter().flatten().copied()
    }

    /// How many constraints colour `k` holds.
    #[cfg(test)]
    pub(crate) fn colour_len(&self, k: usize) -> usize {
        self.lists[k * LISTS_PER_COLOUR..(k + 1) * LISTS_PER_COLOUR].iter().map(Vec::len).sum()
    }
}

/// Most lanes of a group (eight with AVX2).
pub(crate) const MAX_LANES: usize = 8;

/// One constraint's lanes: the indices of the items they hold (lanes past the count 0), and
/// how many it holds.
pub(crate) type LaneGroup = ([u32; MAX_LANES], u8);

/// Groups `items` `width` (4 or 8) at a time in their order, as the lanes of a constraint:
/// each group's indices (lanes past the group's count 0) and how many it holds.
pub(crate) fn lane_groups(items: impl Iterator<Item = u32>, width: usize) -> impl Iterator<Item = LaneGroup> {
    let mut items = items.peekable();
    let width = width.min(MAX_LANES);
    std::iter::from_fn(move || {
        items.peek()?;
        let mut lanes = [0; MAX_LANES];
        let mut count = 0;
        while count < width {
            let Some(item) = items.next() else { break };
            lanes[count] = item;
            count += 1;
        }
        Some((lanes, count as u8))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_colour_lists_its_regions_in_turn_each_bucket_by_bucket_in_constraint_order() {
        // Constraints on bodies 40..=1 (in that order) against the static body 0: all fit
        // colour 0. Body j is in region j·8/41.
        let bucket = |i: usize| (i * 7919 + 13) % BUCKETS;
        let body = |i: usize| 40 - i as u32;
        let mut coloring = Coloring::default();
        coloring.build(41, 40, |i| ([(0, false), (body(i), true)], bucket(i)));
        let mut expected: Vec<u32> = (0..40).collect();
        expected.sort_by_key(|&i| (body(i as usize) as usize * REGIONS / 41, bucket(i as usize)));
        assert_ne!(expected, (0..40).collect::<Vec<_>>());
        assert_eq!(coloring.colour(0).collect::<Vec<_>>(), expected);
        assert_eq!(coloring.colour_len(0), 40);
        let groups: Vec<_> = lane_groups(coloring.colour(0), 4).collect();
        assert_eq!(groups.len(), 10);
        assert_eq!(
            lane_groups([5, 6, 7, 8, 9].into_iter(), 4).collect::<Vec<_>>(),
            [([5, 6, 7, 8, 0, 0, 0, 0], 4), ([9, 0, 0, 0, 0, 0, 0, 0], 1)]
        );
    }

    #[test]
    fn no_colour_shares_a_movable_body() {
        // A chain 1-2-3-...-40 plus every body against the static body 0.
        let mut pairs = Vec::new();
        for i in 1..40u32 {
            pairs.push([(i, true), (i + 1, true)]);
            pairs.push([(0, false), (i, true)]);
        }
        let mut coloring = Coloring::default();
        coloring.build(41, pairs.len(), |i| (pairs[i], 0));
        assert!(coloring.overflow.is_empty());
        let mut total = 0;
        for k in 0..MAX_COLORS {
            let mut seen = std::collections::BTreeSet::new();
            for c in coloring.colour(k) {
                for (body, movable) in pairs[c as usize] {
                    if movable {
                        assert!(seen.insert(body), "body {body} twice in one colour");
                    }
                }
            }
            total += coloring.colour_len(k);
        }
        assert_eq!(total, pairs.len());
        // A chain needs only a few colours.
        assert!((0..MAX_COLORS).filter(|&k| coloring.colour_len(k) > 0).count() <= 4);
    }
}
