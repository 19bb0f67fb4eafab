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

/// The result of colouring, with buffers reused between steps.
#[derive(Default)]
pub(crate) struct Coloring {
    /// Constraint indices per colour, in constraint order.
    pub colors: Vec<Vec<u32>>,
    /// Constraints that fit no colour.
    pub overflow: Vec<u32>,
    body_colors: Vec<u32>,
}

impl Coloring {
    /// Colours `count` constraints; `bodies(i)` gives constraint i's two solver body indices and
    /// whether each is movable.
    pub(crate) fn build(&mut self, body_count: usize, count: usize, bodies: impl Fn(usize) -> [(u32, bool); 2]) {
        self.colors.resize_with(MAX_COLORS, Vec::new);
        for color in &mut self.colors {
            color.clear();
        }
        self.overflow.clear();
        self.body_colors.clear();
        self.body_colors.resize(body_count, 0);
        for i in 0..count {
            let [(a, movable_a), (b, movable_b)] = bodies(i);
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
            self.colors[color as usize].push(i as u32);
        }
    }
}

/// Orders `items` by decreasing `key` (at most [`MAX_KEY`]), keeping the order of items with
/// equal keys: the same order as a stable sort by `Reverse(key)`, by one counting pass and
/// one placing pass (O(n); the colours of a big scene hold thousands of items).
/// `scratch` is a reusable buffer.
pub(crate) fn order_by_decreasing_key(items: &mut Vec<u32>, scratch: &mut Vec<u32>, key: impl Fn(u32) -> u8) {
    let mut counts = [0usize; MAX_KEY as usize + 2];
    for &item in items.iter() {
        counts[(MAX_KEY - key(item).min(MAX_KEY)) as usize + 1] += 1;
    }
    for k in 1..counts.len() {
        counts[k] += counts[k - 1];
    }
    scratch.clear();
    scratch.resize(items.len(), 0);
    for &item in items.iter() {
        let slot = &mut counts[(MAX_KEY - key(item).min(MAX_KEY)) as usize];
        scratch[*slot] = item;
        *slot += 1;
    }
    std::mem::swap(items, scratch);
}

/// Largest key of [`order_by_decreasing_key`] (larger ones count as it).
pub(crate) const MAX_KEY: u8 = 15;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_by_decreasing_key_matches_a_stable_sort() {
        let keys: Vec<u8> = (0..1000u32).map(|i| ((i * 7919 + 13) % 5) as u8).collect();
        let mut items: Vec<u32> = (0..1000u32).rev().collect();
        let mut expected = items.clone();
        expected.sort_by_key(|&i| std::cmp::Reverse(keys[i as usize]));
        order_by_decreasing_key(&mut items, &mut Vec::new(), |i| keys[i as usize]);
        assert_eq!(items, expected);
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
        coloring.build(41, pairs.len(), |i| pairs[i]);
        assert!(coloring.overflow.is_empty());
        let mut total = 0;
        for color in &coloring.colors {
            let mut seen = std::collections::BTreeSet::new();
            for &c in color {
                for (body, movable) in pairs[c as usize] {
                    if movable {
                        assert!(seen.insert(body), "body {body} twice in one colour");
                    }
                }
            }
            total += color.len();
        }
        assert_eq!(total, pairs.len());
        // A chain needs only a few colours.
        assert!(coloring.colors.iter().filter(|c| !c.is_empty()).count() <= 4);
    }
}
