//! A contact pair: two colliders whose fat bounds overlap, with the manifold the narrow phase
//! found for them and the impulses the solver stored for warm starting.

use crate::collision::manifold::{Manifold, MAX_MANIFOLD_POINTS};
use crate::collision::narrow_phase::PairCache;
use crate::id::{BodyId, ColliderId};

/// Normal impulse the solver applied at one manifold point last step (warm-starting data).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PointImpulse {
    /// Accumulated normal impulse over the step, N·s.
    pub normal: f32,
}

/// Friction the solver applied to a whole manifold last step (warm-starting data).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FrictionImpulse {
    /// Friction impulse at the friction centre, world space, N·s (perpendicular to the normal).
    pub linear: crate::math::Vec3,
    /// Twist friction: angular impulse about the normal, N·m·s.
    pub twist: f32,
    /// Rolling resistance: angular impulse perpendicular to the normal, world space, N·m·s.
    pub rolling: crate::math::Vec3,
}

/// One manifold of a pair with what the solver stored for it last step.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ManifoldState {
    pub manifold: Manifold,
    pub impulses: [PointImpulse; MAX_MANIFOLD_POINTS],
    pub friction_impulse: FrictionImpulse,
    /// Which points pushed when the block solver last solved this manifold (bit i = point i).
    pub block_mask: u8,
}

impl Default for ManifoldState {
    fn default() -> Self {
        Self {
            manifold: Manifold::new(),
            impulses: [PointImpulse::default(); MAX_MANIFOLD_POINTS],
            friction_impulse: FrictionImpulse::default(),
            block_mask: 0x0F,
        }
    }
}

/// One live pair of colliders.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Contact {
    pub collider_a: ColliderId,
    pub collider_b: ColliderId,
    pub body_a: BodyId,
    pub body_b: BodyId,
    pub cache: PairCache,
    /// The last full query's manifold, reused while the pair barely moves.
    pub manifold_cache: crate::collision::manifold_cache::ManifoldCache,
    /// The pair's first manifold (a convex pair's only one).
    pub first: ManifoldState,
    /// A body against a mesh or heightfield: its other manifolds (one per group of triangle
    /// normals; empty for convex pairs, so they allocate nothing).
    pub more: Vec<ManifoldState>,
    pub friction: f32,
    pub restitution: f32,
    /// Rolling resistance coefficient of the pair (the larger of the two).
    pub rolling_resistance: f32,
    pub sensor: bool,
    pub touching: bool,
}

/// Points closer than this (metres) to a point of the previous manifold inherit its impulses
/// when no point has the same feature id (ids can change when a vertex crosses a clip plane
/// while the contact itself barely moves).
pub const WARM_START_MATCH_DISTANCE: f32 = 0.02;

impl ManifoldState {
    /// Makes `manifold` current, carrying each previous point's impulses to the new point with
    /// the same feature id, or failing that to the nearest new point within
    /// [`WARM_START_MATCH_DISTANCE`]. Each previous point is used at most once.
    pub fn carry(&mut self, manifold: &Manifold) {
        let old = self.manifold.points();
        let mut used = [false; MAX_MANIFOLD_POINTS];
        let mut matched = [usize::MAX; MAX_MANIFOLD_POINTS];
        for (i, point) in manifold.points().iter().enumerate() {
            if let Some(j) = old.iter().position(|p| p.id == point.id) {
                if !used[j] {
                    used[j] = true;
                    matched[i] = j;
                }
            }
        }
        let limit = WARM_START_MATCH_DISTANCE * WARM_START_MATCH_DISTANCE;
        for (i, point) in manifold.points().iter().enumerate() {
            if matched[i] != usize::MAX {
                continue;
            }
            let nearest = (0..old.len())
                .filter(|&j| !used[j])
                .map(|j| (j, (old[j].position - point.position).length_squared()))
                .filter(|&(_, d)| d <= limit)
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((j, _)) = nearest {
                used[j] = true;
                matched[i] = j;
            }
        }
        let mut impulses = [PointImpulse::default(); MAX_MANIFOLD_POINTS];
        // A matched point keeps its place in the active set; a new point joins it.
        let mut block_mask = 0u8;
        for i in 0..manifold.count {
            if matched[i] != usize::MAX {
                impulses[i] = self.impulses[matched[i]];
                if self.block_mask & (1 << matched[i]) != 0 {
                    block_mask |= 1 << i;
                }
            } else {
                block_mask |= 1 << i;
            }
        }
        self.block_mask = block_mask;
        self.impulses = impulses;
        if manifold.count == 0 || self.manifold.normal.dot(manifold.normal) < 0.9 {
            self.friction_impulse = FrictionImpulse::default();
        }
        self.manifold = *manifold;
    }
}

impl Contact {
    /// Number of manifolds (at least one, possibly empty).
    pub fn manifold_count(&self) -> usize {
        1 + self.more.len()
    }

    /// Manifold `k` with its stored impulses.
    pub fn state(&self, k: usize) -> &ManifoldState {
        if k == 0 {
            &self.first
        } else {
            &self.more[k - 1]
        }
    }

    /// Manifold `k`, to store impulses into.
    pub fn state_mut(&mut self, k: usize) -> &mut ManifoldState {
        if k == 0 {
            &mut self.first
        } else {
            &mut self.more[k - 1]
        }
    }

    /// Every manifold with its stored impulses.
    pub fn states(&self) -> impl Iterator<Item = &ManifoldState> {
        std::iter::once(&self.first).chain(&self.more)
    }

    /// Points over all manifolds.
    pub fn point_count(&self) -> usize {
        self.first.manifold.count + self.more.iter().map(|s| s.manifold.count).sum::<usize>()
    }

    /// The smallest separation over all manifolds (`f32::INFINITY` without points).
    pub fn min_separation(&self) -> f32 {
        self.more.iter().map(|s| s.manifold.min_separation()).fold(self.first.manifold.min_separation(), f32::min)
    }

    /// Makes `manifolds` current (none: the pair has no points). A single manifold carries
    /// the impulses of the first; several (a body against a mesh) each carry those of the
    /// previous manifold whose normal is closest to theirs (cosine at least 0.9), so warm
    /// starting follows each group of triangles.
    pub fn set_manifolds(&mut self, manifolds: &[Manifold]) {
        if manifolds.len() <= 1 && self.more.is_empty() {
            self.first.carry(manifolds.first().unwrap_or(&Manifold::new()));
            return;
        }
        let old: Vec<ManifoldState> = self.states().copied().collect();
        let mut used = vec![false; old.len()];
        let mut states = manifolds.iter().map(|manifold| {
            let best = (0..old.len())
                .filter(|&j| !used[j] && old[j].manifold.count > 0)
                .map(|j| (j, old[j].manifold.normal.dot(manifold.normal)))
                .filter(|&(_, cosine)| cosine >= 0.9)
                .max_by(|x, y| x.1.total_cmp(&y.1));
            let mut state = match best {
                Some((j, _)) => {
                    used[j] = true;
                    old[j]
                }
                None => ManifoldState::default(),
            };
            state.carry(manifold);
            state
        });
        self.first = states.next().unwrap_or_else(|| {
            let mut empty = ManifoldState::default();
            empty.carry(&Manifold::new());
            empty
        });
        self.more = states.collect();
    }
}
