//! Generational ids and the arena that hands them out.
//!
//! An id is an index into a slot array plus the slot's generation at creation. Destroying an
//! object bumps its slot's generation, so stale ids are detected instead of aliasing a newer
//! object. Free slots are reused in LIFO order, which is deterministic.

use std::marker::PhantomData;

/// A raw generational id: slot index and generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct RawId {
    /// Slot index in the arena.
    pub index: u32,
    /// Generation of the slot when the object was created (always >= 1).
    pub generation: u32,
}

macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub struct $name(pub RawId);

        impl $name {
            /// The slot index (dense while nothing is destroyed).
            pub fn index(self) -> usize {
                self.0.index as usize
            }
        }

        impl From<RawId> for $name {
            fn from(raw: RawId) -> Self {
                $name(raw)
            }
        }

        impl From<$name> for RawId {
            fn from(id: $name) -> Self {
                id.0
            }
        }
    };
}

define_id!(
    /// Identifies a rigid body in a [`World`](crate::World).
    BodyId
);
define_id!(
    /// Identifies a collider attached to a body.
    ColliderId
);
define_id!(
    /// Identifies a joint between two bodies.
    JointId
);
define_id!(
    /// Identifies a user constraint between two bodies.
    UserConstraintId
);
define_id!(
    /// Identifies a character (a capsule moved by the character solver, not a body).
    CharacterId
);
define_id!(
    /// Identifies a cloth (particles moved by the particle solver).
    ClothId
);
define_id!(
    /// Identifies a rope (particles moved by the particle solver).
    RopeId
);

/// One place of an [`Arena`]: its current generation and its object, if alive.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

impl<T> Slot<T> {
    /// The object, if alive.
    #[inline]
    pub(crate) fn value(&self) -> Option<&T> {
        self.value.as_ref()
    }

    /// The object mutably, if alive.
    #[inline]
    pub(crate) fn value_mut(&mut self) -> Option<&mut T> {
        self.value.as_mut()
    }

    /// The id of the object in this slot, at slot index `index`, if alive.
    #[inline]
    pub(crate) fn id<I: From<RawId>>(&self, index: usize) -> Option<I> {
        self.value.as_ref().map(|_| I::from(RawId { index: index as u32, generation: self.generation }))
    }
}

/// Slot storage with generational ids of type `I`.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(bound(serialize = "T: serde::Serialize", deserialize = "T: serde::Deserialize<'de>"))]
pub struct Arena<T, I> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    len: usize,
    #[serde(skip)]
    _id: PhantomData<I>,
}

impl<T, I> Default for Arena<T, I> {
    fn default() -> Self {
        Self { slots: Vec::new(), free: Vec::new(), len: 0, _id: PhantomData }
    }
}

impl<T, I: From<RawId> + Into<RawId> + Copy> Arena<T, I> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// One past the largest slot index in use (for dense side tables).
    pub fn capacity_index(&self) -> usize {
        self.slots.len()
    }

    /// Checks the bookkeeping of restored storage: every free-list entry names a distinct
    /// empty slot, every empty slot is on the free list, and the count is the live slots'.
    /// Also the largest slot index, so that ids stay below 2^32.
    pub(crate) fn check_slots(&self) -> crate::Result<()> {
        use crate::error::Error;
        if self.slots.len() > u32::MAX as usize {
            return Err(Error::new("slots", "more than 2^32 slots"));
        }
        let mut listed = vec![false; self.slots.len()];
        for (k, &index) in self.free.iter().enumerate() {
            let empty = self.slots.get(index as usize).is_some_and(|slot| slot.value.is_none());
            if !empty || std::mem::replace(&mut listed[index as usize], true) {
                return Err(Error::new(format!("free[{k}]"), format!("slot {index} is not a distinct empty slot")));
            }
        }
        let live = self.slots.iter().filter(|slot| slot.value.is_some()).count();
        if live != self.len || live + self.free.len() != self.slots.len() {
            let reason =
                format!("{live} live and {} free of {} slots, count {}", self.free.len(), self.slots.len(), self.len);
            return Err(Error::new("slots", reason));
        }
        Ok(())
    }

    /// Stores `value` and returns its id.
    pub fn insert(&mut self, value: T) -> I {
        self.len += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.value = Some(value);
            I::from(RawId { index, generation: slot.generation })
        } else {
            let index = self.slots.len() as u32;
            self.slots.push(Slot { generation: 1, value: Some(value) });
            I::from(RawId { index, generation: 1 })
        }
    }

    /// Removes and returns the object, or `None` for a stale or unknown id.
    pub fn remove(&mut self, id: I) -> Option<T> {
        let raw: RawId = id.into();
        let slot = self.slots.get_mut(raw.index as usize)?;
        if slot.generation != raw.generation || slot.value.is_none() {
            return None;
        }
        slot.generation = slot.generation.wrapping_add(1).max(1);
        self.free.push(raw.index);
        self.len -= 1;
        slot.value.take()
    }

    /// True when `id` names a live object.
    pub fn contains(&self, id: I) -> bool {
        self.get(id).is_some()
    }

    /// The object named by `id`, if alive.
    #[inline]
    pub fn get(&self, id: I) -> Option<&T> {
        let raw: RawId = id.into();
        let slot = self.slots.get(raw.index as usize)?;
        if slot.generation == raw.generation {
            slot.value.as_ref()
        } else {
            None
        }
    }

    /// Mutable access to the object named by `id`, if alive.
    #[inline]
    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        let raw: RawId = id.into();
        let slot = self.slots.get_mut(raw.index as usize)?;
        if slot.generation == raw.generation {
            slot.value.as_mut()
        } else {
            None
        }
    }

    /// Access by slot index, ignoring generations (for internal dense tables).
    #[inline]
    pub fn get_by_index(&self, index: usize) -> Option<&T> {
        self.slots.get(index).and_then(|s| s.value.as_ref())
    }

    /// Mutable access by slot index, ignoring generations.
    #[inline]
    pub fn get_by_index_mut(&mut self, index: usize) -> Option<&mut T> {
        self.slots.get_mut(index).and_then(|s| s.value.as_mut())
    }

    /// The current id of the object in slot `index`, if any.
    pub fn id_at(&self, index: usize) -> Option<I> {
        let slot = self.slots.get(index)?;
        slot.value.as_ref()?;
        Some(I::from(RawId { index: index as u32, generation: slot.generation }))
    }

    /// Every slot in order, for loops split among threads (slot index = position).
    pub(crate) fn slots(&self) -> &[Slot<T>] {
        &self.slots
    }

    /// Every slot in order, mutably (the objects only: slots are neither added nor freed).
    pub(crate) fn slots_mut(&mut self) -> &mut [Slot<T>] {
        &mut self.slots
    }

    /// Live objects in slot order (deterministic).
    pub fn iter(&self) -> impl Iterator<Item = (I, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.value.as_ref().map(|v| (I::from(RawId { index: i as u32, generation: s.generation }), v))
        })
    }

    /// Live objects in slot order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (I, &mut T)> {
        self.slots.iter_mut().enumerate().filter_map(|(i, s)| {
            let generation = s.generation;
            s.value.as_mut().map(move |v| (I::from(RawId { index: i as u32, generation }), v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_ids_are_rejected() {
        let mut arena: Arena<i32, BodyId> = Arena::new();
        let a = arena.insert(1);
        let b = arena.insert(2);
        assert_eq!(arena.remove(a), Some(1));
        assert!(arena.get(a).is_none());
        let c = arena.insert(3);
        assert_eq!(c.index(), a.index());
        assert_ne!(c, a);
        assert!(arena.get(a).is_none());
        assert_eq!(arena.get(c), Some(&3));
        assert_eq!(arena.get(b), Some(&2));
        assert_eq!(arena.remove(a), None);
        assert_eq!(arena.len(), 2);
    }
}
