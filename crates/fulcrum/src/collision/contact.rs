//! A contact pair: two colliders whose fat bounds overlap, with the manifold the narrow phase
//! found for them and the impulses the solver stored for warm starting.

use crate::collision::manifold::{Manifold, MAX_MANIFOLD_POINTS};
use crate::collision::narrow_phase::triangles::MAX_PAIR_MANIFOLDS;
use crate::collision::narrow_phase::PairCache;
use crate::id::{BodyId, ColliderId};
use crate::math::Vec3;
use smallvec::SmallVec;

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

/// Largest distance (m) a point of a fresh manifold may lie from where the kept frame puts it,
/// on either body, before the frame is taken again.
pub const FRAME_DRIFT: f32 = 0.005;
/// Smallest cosine between a fresh manifold's normal and the kept frame's (about 0.01 rad).
pub const FRAME_TURN_COSINE: f32 = 0.99995;

/// The frame a manifold's constraint rows were last linearised in, world axes: the normal and
/// each point's lever arm from A's centre of mass (B's arm is the same point, `arm + offset`).
///
/// The solver keeps it while the pair barely moves relative to it, instead of taking normal
/// and arms afresh from every step's manifold. Taken afresh, the arms turn and slide with the
/// bodies while the warm-started impulses carry a whole stack's load, so every small lean or
/// shift of a block moves the load's line of action and tips the block further: a negative
/// stiffness ∝ load that soft contacts cannot resist in tall stacks (a 20-cube column leaned
/// over in ~20 s, the large_pyramid wall fell). A kept frame makes the rows time-invariant;
/// separations still come from each step's manifold, so overlap is measured as before.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ContactFrame {
    pub normal: crate::math::Vec3,
    pub arms: [crate::math::Vec3; MAX_MANIFOLD_POINTS],
    /// A's centre of mass minus B's when the frame was taken, m.
    pub offset: crate::math::Vec3,
    /// A frame was taken and the manifold's points are still the same features.
    pub valid: bool,
}

impl ContactFrame {
    /// The kept frame when it still describes `manifold` with the bodies' centres of mass at
    /// `center_a`, `center_b`: the same points (checked by `carry`), normals within
    /// [`FRAME_TURN_COSINE`] and every point within [`FRAME_DRIFT`] across the normal of
    /// where the frame puts it on each body.
    pub fn kept(&self, manifold: &Manifold, center_a: Vec3, center_b: Vec3) -> Option<&ContactFrame> {
        if !self.valid || manifold.normal.dot(self.normal) < FRAME_TURN_COSINE {
            return None;
        }
        // The points four at a time, an array per axis (a lane per point), every lane taking
        // glam's operations in order (the same bits as one point after another, in about a
        // third of the time: this was 6.5% of pyramid3d's step).
        let count = manifold.count.min(MAX_MANIFOLD_POINTS);
        let mut position = [[0.0; MAX_MANIFOLD_POINTS]; 3];
        let mut arm = [[0.0; MAX_MANIFOLD_POINTS]; 3];
        for (i, (point, point_arm)) in manifold.points[..count].iter().zip(&self.arms).enumerate() {
            for axis in 0..3 {
                position[axis][i] = point.position[axis];
                arm[axis][i] = point_arm[axis];
            }
        }
        let on_a: [[f32; MAX_MANIFOLD_POINTS]; 3] =
            std::array::from_fn(|axis| std::array::from_fn(|i| (position[axis][i] - center_a[axis]) - arm[axis][i]));
        let on_b: [[f32; MAX_MANIFOLD_POINTS]; 3] = std::array::from_fn(|axis| {
            std::array::from_fn(|i| ((position[axis][i] - center_b[axis]) - arm[axis][i]) - self.offset[axis])
        });
        let (across_a, across_b) = (self.across_squared(&on_a), self.across_squared(&on_b));
        let limit = FRAME_DRIFT * FRAME_DRIFT;
        let fits = (0..count).all(|i| across_a[i] <= limit && across_b[i] <= limit);
        fits.then_some(self)
    }

    /// |d − (d·n) n|² of each lane's offset d (an array per axis): its square distance
    /// across the normal.
    #[inline(always)]
    fn across_squared(&self, d: &[[f32; MAX_MANIFOLD_POINTS]; 3]) -> [f32; MAX_MANIFOLD_POINTS] {
        let n = self.normal;
        std::array::from_fn(|i| {
            let along = (d[0][i] * n.x + d[1][i] * n.y) + d[2][i] * n.z;
            let (x, y, z) = (d[0][i] - along * n.x, d[1][i] - along * n.y, d[2][i] - along * n.z);
            (x * x + y * y) + z * z
        })
    }

    /// Where point `i` (at `position`) ends A's and B's arms in this frame: the kept arms
    /// across the normal, the current point along it (the normal part of an arm does not
    /// enter the normal row, and keeping it current keeps the friction rows' arms exact).
    pub fn arm_ends(&self, i: usize, position: Vec3, center_a: Vec3, center_b: Vec3) -> (Vec3, Vec3) {
        let n = self.normal;
        let on_a = center_a + self.arms[i];
        let on_b = center_b + self.arms[i] + self.offset;
        (on_a + n.dot(position - on_a) * n, on_b + n.dot(position - on_b) * n)
    }
}

/// One manifold of a pair with what the solver stored for it last step.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ManifoldState {
    pub manifold: Manifold,
    pub impulses: [PointImpulse; MAX_MANIFOLD_POINTS],
    pub friction_impulse: FrictionImpulse,
    /// Which points pushed when the block solver last solved this manifold (bit i = point i).
    pub block_mask: u8,
    /// The frame the solver linearised the manifold in last step (boxed: only face contacts
    /// of flat-faced pairs ever get one, and most pairs of curved shapes never do).
    pub frame: Option<Box<ContactFrame>>,
}

impl Default for ManifoldState {
    fn default() -> Self {
        Self {
            manifold: Manifold::new(),
            impulses: [PointImpulse::default(); MAX_MANIFOLD_POINTS],
            friction_impulse: FrictionImpulse::default(),
            block_mask: 0x0F,
            frame: None,
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
    /// The last full query's manifold, reused while the pair barely moves; allocated at the
    /// first query of a pair of flat-faced shapes (the only ones that use it), so the many
    /// pairs of curved shapes do not carry its 192 bytes.
    pub manifold_cache: Option<Box<crate::collision::manifold_cache::ManifoldCache>>,
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
    /// The solver takes the next frame afresh (the allocation is kept for it).
    pub fn drop_frame(&mut self) {
        if let Some(frame) = &mut self.frame {
            frame.valid = false;
        }
    }

    /// Makes `manifold` current, carrying each previous point's impulses to the new point with
    /// the same feature id, or failing that to the nearest new point within
    /// [`WARM_START_MATCH_DISTANCE`]. Each previous point is used at most once.
    pub fn carry(&mut self, manifold: &Manifold) {
        if self.carry_same_features(manifold) {
            return;
        }
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
        // The frame holds the arms of the previous points, in order: it stays only for the
        // same features in the same order.
        let same_features = manifold.points().iter().zip(old).all(|(new, old)| new.id == old.id);
        if manifold.count != old.len() || !same_features {
            self.drop_frame();
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
        self.take_manifold(manifold);
    }

    /// [`Self::carry`] of a pair at rest, the common case: when `manifold` has the previous
    /// points' features in the same order, each once, point i continues point i (its
    /// impulses, its place in the active set and the frame stay), and this returns true
    /// having done what the general matching would. Otherwise it does nothing.
    fn carry_same_features(&mut self, manifold: &Manifold) -> bool {
        let (old, new) = (self.manifold.points(), manifold.points());
        let same_order = new.len() == old.len() && new.iter().zip(old).all(|(new, old)| new.id == old.id);
        if !same_order || !(0..old.len()).all(|i| old[..i].iter().all(|p| p.id != old[i].id)) {
            return false;
        }
        let count = manifold.count;
        self.impulses[count..].fill(PointImpulse::default());
        self.block_mask &= ((1u32 << count) - 1) as u8;
        self.take_manifold(manifold);
        true
    }

    /// Makes `manifold` current once its points' impulses are carried: the friction impulse
    /// stays unless the manifold emptied or its normal turned by more than about 25°.
    fn take_manifold(&mut self, manifold: &Manifold) {
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
    ///
    /// `flat_faced`: both shapes are flat-faced, so the solver may keep the manifolds' frames
    /// ([`ContactFrame`]). On a curved surface the contact point moves over both bodies (a
    /// rolling ball's stays under its centre), and a kept arm would act at the wrong place.
    pub fn set_manifolds(&mut self, manifolds: &[Manifold], flat_faced: bool) {
        self.carry_manifolds(manifolds);
        if !flat_faced {
            self.first.drop_frame();
            for state in &mut self.more {
                state.drop_frame();
            }
        }
    }

    /// Makes `manifolds` current, each carrying the stored impulses of the old manifold it
    /// continues. No allocation once `more` has grown: the old states wait on the stack.
    fn carry_manifolds(&mut self, manifolds: &[Manifold]) {
        if manifolds.len() <= 1 && self.more.is_empty() {
            self.first.carry(manifolds.first().unwrap_or(&Manifold::new()));
            return;
        }
        let mut old: SmallVec<[ManifoldState; 1 + MAX_PAIR_MANIFOLDS]> =
            std::iter::once(std::mem::take(&mut self.first)).chain(self.more.drain(..)).collect();
        let mut used: SmallVec<[bool; 1 + MAX_PAIR_MANIFOLDS]> = smallvec::smallvec![false; old.len()];
        let mut states = manifolds.iter().map(|manifold| {
            let best = (0..old.len())
                .filter(|&j| !used[j] && old[j].manifold.count > 0)
                .map(|j| (j, old[j].manifold.normal.dot(manifold.normal)))
                .filter(|&(_, cosine)| cosine >= 0.9)
                .max_by(|x, y| x.1.total_cmp(&y.1));
            let mut state = match best {
                Some((j, _)) => {
                    used[j] = true;
                    std::mem::take(&mut old[j])
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
        self.more.extend(states);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A manifold with the same features in the same order keeps each point's impulse, its
    /// active-set bit and the frame; one whose features moved place is matched by id, and
    /// the frame goes. Three points carried onto the same three, then onto them reordered.
    #[test]
    fn the_same_features_keep_their_impulses_and_frame() {
        let mut old = Manifold { normal: Vec3::Y, ..Default::default() };
        for id in 0..3 {
            old.push(Vec3::new(id as f32, 0.0, 0.0), -0.001, 10 + id);
        }
        let mut state = ManifoldState { manifold: old, block_mask: 0b1101, ..Default::default() };
        state.impulses = std::array::from_fn(|i| PointImpulse { normal: 1.0 + i as f32 });
        state.friction_impulse.linear = Vec3::X;
        state.frame = Some(Box::new(ContactFrame { valid: true, ..Default::default() }));
        let mut same = old;
        same.points[1].position.y = 1e-4;
        state.carry(&same);
        assert_eq!(state.impulses.map(|p| p.normal), [1.0, 2.0, 3.0, 0.0]);
        assert_eq!(state.block_mask, 0b101);
        assert!(state.frame.as_ref().is_some_and(|f| f.valid));
        assert_eq!(state.friction_impulse.linear, Vec3::X);
        assert_eq!(state.manifold.points[1].position.y, 1e-4);
        let mut reordered = Manifold { normal: Vec3::Y, ..Default::default() };
        for k in [2, 0, 1] {
            reordered.push(old.points[k].position, -0.001, old.points[k].id);
        }
        state.carry(&reordered);
        assert_eq!(state.impulses.map(|p| p.normal), [3.0, 1.0, 2.0, 0.0]);
        assert_eq!(state.block_mask, 0b011);
        assert!(state.frame.as_ref().is_some_and(|f| !f.valid));
    }

    /// `kept` checks the points four at a time; it decides as the one-point-at-a-time check
    /// it replaced, for random frames and manifolds of 0 to 4 points whose points lie about
    /// the drift limit away from the frame's (so that both answers come up). This checks the
    /// lanes (padding included). That each lane takes glam's operations in their order is by
    /// construction: a regrouped sum flips a decision too rarely for 4,000 cases to show it.
    #[test]
    fn keeping_a_frame_decides_as_one_point_at_a_time() {
        fn one_at_a_time(frame: &ContactFrame, manifold: &Manifold, center_a: Vec3, center_b: Vec3) -> bool {
            let limit = FRAME_DRIFT * FRAME_DRIFT;
            let across = |d: Vec3| (d - d.dot(frame.normal) * frame.normal).length_squared() <= limit;
            manifold.points().iter().zip(&frame.arms).all(|(p, &arm)| {
                across(p.position - center_a - arm) && across(p.position - center_b - arm - frame.offset)
            })
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let vector = |rng: &mut rand_chacha::ChaCha8Rng, scale: f32| {
            Vec3::new(rng.random_range(-scale..scale), rng.random_range(-scale..scale), rng.random_range(-scale..scale))
        };
        let mut answers = [0; 2];
        for case in 0..4000 {
            let normal = vector(&mut rng, 1.0).normalize_or(Vec3::Y);
            let (center_a, center_b) = (vector(&mut rng, 30.0), vector(&mut rng, 30.0));
            let frame = ContactFrame {
                normal,
                arms: std::array::from_fn(|_| vector(&mut rng, 1.0)),
                offset: center_a - center_b + vector(&mut rng, 0.004),
                valid: true,
            };
            let mut manifold = Manifold { normal, ..Default::default() };
            for (id, arm) in frame.arms.iter().enumerate().take(case % (MAX_MANIFOLD_POINTS + 1)) {
                manifold.push(center_a + *arm + vector(&mut rng, 0.005), 0.0, id as u32);
            }
            let expected = one_at_a_time(&frame, &manifold, center_a, center_b);
            assert_eq!(frame.kept(&manifold, center_a, center_b).is_some(), expected, "case {case}");
            answers[expected as usize] += 1;
        }
        assert!(answers[0] > 500 && answers[1] > 500, "kept {} of 4000", answers[1]);
    }
}
