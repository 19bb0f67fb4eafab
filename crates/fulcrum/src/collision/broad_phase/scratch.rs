//! Traversal scratch space that lives on the call stack.
//!
//! Tree walks need a stack (queries) or a priority queue (ray casts). A balanced tree of a
//! million leaves is about 30 levels deep, so a fixed inline array covers every realistic
//! walk without touching the heap; only a walk that outgrows it moves its items into a `Vec`
//! (once per call), which keeps pathological trees correct instead of panicking.

/// A stack of `Copy` items: the first `N` live in an inline array, more spill to a `Vec`.
pub(crate) struct InlineStack<T: Copy + Default, const N: usize> {
    /// Items while the stack has not spilled.
    inline: [T; N],
    /// Number of items in `inline`.
    inline_len: usize,
    /// All items once the stack has spilled (then `inline_len` is 0).
    spill: Vec<T>,
}

impl<T: Copy + Default, const N: usize> InlineStack<T, N> {
    /// An empty stack (no heap allocation).
    #[inline]
    pub(crate) fn new() -> Self {
        Self { inline: [T::default(); N], inline_len: 0, spill: Vec::new() }
    }

    /// Number of items.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        if self.spill.is_empty() {
            self.inline_len
        } else {
            self.spill.len()
        }
    }

    /// Pushes an item on top.
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        if self.spill.is_empty() {
            if self.inline_len < N {
                self.inline[self.inline_len] = item;
                self.inline_len += 1;
                return;
            }
            self.spill.reserve(2 * N);
            self.spill.extend_from_slice(&self.inline[..self.inline_len]);
            self.inline_len = 0;
        }
        self.spill.push(item);
    }

    /// Removes and returns the top item.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if !self.spill.is_empty() {
            return self.spill.pop();
        }
        if self.inline_len == 0 {
            return None;
        }
        self.inline_len -= 1;
        Some(self.inline[self.inline_len])
    }

    /// All items, bottom first.
    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        if self.spill.is_empty() {
            &mut self.inline[..self.inline_len]
        } else {
            &mut self.spill
        }
    }
}

/// A binary min-heap kept in an [`InlineStack`]: item `i` is never less than its parent
/// `(i - 1) / 2`. `less` must be a strict total order so that ties pop deterministically.
pub(crate) struct InlineMinHeap<T: Copy + Default, const N: usize> {
    items: InlineStack<T, N>,
}

impl<T: Copy + Default, const N: usize> InlineMinHeap<T, N> {
    /// An empty heap (no heap allocation).
    #[inline]
    pub(crate) fn new() -> Self {
        Self { items: InlineStack::new() }
    }

    /// Adds an item: append it, then swap it up while it is less than its parent.
    #[inline]
    pub(crate) fn push(&mut self, item: T, less: impl Fn(&T, &T) -> bool) {
        self.items.push(item);
        let slice = self.items.as_mut_slice();
        let mut child = slice.len() - 1;
        while child > 0 {
            let parent = (child - 1) / 2;
            if !less(&slice[child], &slice[parent]) {
                break;
            }
            slice.swap(child, parent);
            child = parent;
        }
    }

    /// Removes the least item: move the last item to the root, then swap it down with its
    /// lesser child while that child is less than it.
    #[inline]
    pub(crate) fn pop(&mut self, less: impl Fn(&T, &T) -> bool) -> Option<T> {
        let len = self.items.len();
        if len == 0 {
            return None;
        }
        self.items.as_mut_slice().swap(0, len - 1);
        let least = self.items.pop();
        let slice = self.items.as_mut_slice();
        let mut parent = 0;
        loop {
            let left = 2 * parent + 1;
            if left >= slice.len() {
                break;
            }
            let right = left + 1;
            let lesser = if right < slice.len() && less(&slice[right], &slice[left]) { right } else { left };
            if !less(&slice[lesser], &slice[parent]) {
                break;
            }
            slice.swap(parent, lesser);
            parent = lesser;
        }
        least
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stack returns items in reverse push order across the inline/spill boundary.
    #[test]
    fn stack_spills_and_keeps_order() {
        let mut stack: InlineStack<u32, 4> = InlineStack::new();
        for i in 0..10 {
            stack.push(i);
        }
        assert_eq!(stack.len(), 10);
        for i in (0..10).rev() {
            assert_eq!(stack.pop(), Some(i));
        }
        assert_eq!(stack.pop(), None);
        stack.push(7);
        assert_eq!(stack.as_mut_slice(), &[7]);
    }

    /// Heap pops equal a sort of the pushed keys (a fixed-seed LCG sequence with repeats).
    #[test]
    fn heap_pops_in_sorted_order() {
        let mut heap: InlineMinHeap<u32, 8> = InlineMinHeap::new();
        let mut state = 12345u32;
        let mut pushed = Vec::new();
        for _ in 0..100 {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let key = state >> 26;
            pushed.push(key);
            heap.push(key, |a, b| a < b);
        }
        pushed.sort_unstable();
        let popped: Vec<u32> = std::iter::from_fn(|| heap.pop(|a, b| a < b)).collect();
        assert_eq!(popped, pushed);
    }
}
