//! Graph colouring of the contact constraints: constraints of one colour share no body that
//! moves, so four of them can be solved at once in SIMD lanes (and, later, colours can be
//! split among threads). Bodies that constraints cannot move (static, kinematic) do not count.
//!
//! Greedy, in constraint order: each constraint takes the first colour unused by both of its
//! movable bodies. What does not fit in [`MAX_COLORS`] colours goes to an overflow list that
//! the solver handles after the colours, one constraint at a time. Same input, same
//! colouring: deterministic.

/// Most colours; a u32 per body holds which ones it already uses.
pub(crate) const MAX_COLORS: usize = 32;

/// Buckets per colour: a constraint names its bucket when coloured, and a colour lists its
/// buckets' constraints one bucket after another ([`Coloring::colour`]). The contacts use
/// them to bring pairs of equal point count together without a sort.
pub(crate) const BUCKETS: usize = 4;

/// The result of colouring, with buffers reused between steps.
#[derive(Default)]
pub(crate) struct Coloring {
    /// Constraint indices per colour and bucket (`colour · BUCKETS + bucket`), in
    /// constraint order.
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
        self.lists.resize_with(MAX_COLORS * BUCKETS, Vec::new);
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
            self.lists[color as usize * BUCKETS + bucket.min(BUCKETS - 1)].push(i as u32);
        }
    }

    /// The constraints of colour `k`: bucket 0's, then bucket 1's, ..., each in constraint
    /// order.
    pub(crate) fn colour(&self, k: usize) -> impl Iterator<Item = u32> + '_ {
        self.lists[k * BUCKETS..(k + 1) * BUCKETS].iter().flatten().copied()
    }

    /// How many constraints colour `k` holds.
    #[cfg(test)]
    pub(crate) fn colour_len(&self, k: usize) -> usize {
        self.lists[k * BUCKETS..(k + 1) * BUCKETS].iter().map(Vec::len).sum()
    }
}

/// Groups `items` four at a time in their order, as the lanes of a constraint: each group's
/// indices (unused lanes 0) and how many it holds.
pub(crate) fn lane_groups(items: impl Iterator<Item = u32>) -> impl Iterator<Item = ([u32; 4], u8)> {
    let mut items = items.peekable();
    std::iter::from_fn(move || {
        items.peek()?;
        let mut lanes = [0; 4];
        let mut count = 0;
        while count < 4 {
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
    fn a_colour_lists_its_buckets_in_turn_each_in_constraint_order() {
        // Constraints on bodies 1..=40 against the static body 0: all fit colour 0.
        let bucket = |i: usize| (i * 7919 + 13) % BUCKETS;
        let mut coloring = Coloring::default();
        coloring.build(41, 40, |i| ([(0, false), (i as u32 + 1, true)], bucket(i)));
        let mut expected: Vec<u32> = (0..40).collect();
        expected.sort_by_key(|&i| bucket(i as usize));
        assert_eq!(coloring.colour(0).collect::<Vec<_>>(), expected);
        assert_eq!(coloring.colour_len(0), 40);
        let groups: Vec<_> = lane_groups(coloring.colour(0)).collect();
        assert_eq!(groups.len(), 10);
        assert_eq!(
            lane_groups([5, 6, 7, 8, 9].into_iter()).collect::<Vec<_>>(),
            [([5, 6, 7, 8], 4), ([9, 0, 0, 0], 1)]
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
