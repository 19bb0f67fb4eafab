//! The contact constraints of a step in one lane width, and the kernels that run them: four
//! lanes as compiled (SSE, on every CPU), or eight through the kernels compiled for AVX2
//! where the CPU has it (`simd_avx.rs`). The solver picks the width once per step
//! ([`SolverData`](super::solver::SolverData)'s `contact_width`) and runs its stages through
//! [`ContactKernels`], generic over the width; each lane gives the same bits in either.

use super::contact_islands::ContactIslands;
use super::contact_prepare_wide::{PairInput, PrepareSettings};
use super::contact_solver::SolveParams;
use super::contact_wide::{self, WideContact};
use super::impacts::{resolve_impacts, ImpactParams};
use super::push_out::{PushLimits, PushOut};
use super::simd::{Lanes, F4};
#[cfg(target_arch = "x86_64")]
use super::simd_avx::F8;
use super::solver_body::{SolverBody, SolverBodyParams};
use crate::collision::contact::Contact;

/// The contact constraints of a step: four lanes per entry, or eight (one list is used).
#[derive(Default)]
pub(crate) struct ContactLists {
    pub four: Vec<WideContact<F4>>,
    #[cfg(target_arch = "x86_64")]
    pub eight: Vec<WideContact<F8>>,
}

/// Runs `$body` with the type `$lanes` set to the lanes of width `$width` (4 or 8).
macro_rules! with_lanes {
    ($width:expr, $lanes:ident => $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if $width == 8 {
            type $lanes = crate::dynamics::simd_avx::F8;
            $body
        } else {
            type $lanes = crate::dynamics::simd::F4;
            $body
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            type $lanes = crate::dynamics::simd::F4;
            $body
        }
    }};
}
pub(crate) use with_lanes;

/// The contact stages of one lane width.
pub(crate) trait ContactKernels: Lanes {
    /// This width's list.
    fn list(lists: &mut ContactLists) -> &mut Vec<WideContact<Self>>;
    /// Prepares `c` from the pairs `pairs[i]` for each i of `lanes` (up to `Self::COUNT`).
    fn prepare(
        c: &mut WideContact<Self>,
        lanes: &[u32],
        pairs: &[PairInput],
        contacts: &[Contact],
        bodies: &[SolverBody],
        settings: &PrepareSettings,
    );
    /// Applies `c`'s accumulated impulses.
    fn warm_start(c: &WideContact<Self>, bodies: &mut [SolverBody]);
    /// One velocity pass over `c`.
    fn solve(c: &mut WideContact<Self>, bodies: &mut [SolverBody], params: &SolveParams);
    /// The impacts of all contacts with restitution.
    fn impacts(
        contacts: &mut [WideContact<Self>],
        bodies: &mut [SolverBody],
        params: &[SolverBodyParams],
        settings: &ImpactParams,
    );
    /// One push-out sweep.
    fn push_out(
        push: &mut PushOut,
        contacts: &[WideContact<Self>],
        bodies: &mut [SolverBody],
        limits: &PushLimits,
        h: f32,
    );
    /// One pass over the exactly solved islands.
    fn islands(
        islands: &mut ContactIslands,
        contacts: &mut [WideContact<Self>],
        bodies: &mut [SolverBody],
        params: &SolveParams,
    );
}

impl ContactKernels for F4 {
    fn list(lists: &mut ContactLists) -> &mut Vec<WideContact<F4>> {
        &mut lists.four
    }
    fn prepare(
        c: &mut WideContact<F4>,
        lanes: &[u32],
        pairs: &[PairInput],
        contacts: &[Contact],
        bodies: &[SolverBody],
        settings: &PrepareSettings,
    ) {
        c.prepare(lanes, pairs, contacts, bodies, settings);
    }
    fn warm_start(c: &WideContact<F4>, bodies: &mut [SolverBody]) {
        contact_wide::warm_start(c, bodies);
    }
    fn solve(c: &mut WideContact<F4>, bodies: &mut [SolverBody], params: &SolveParams) {
        contact_wide::solve(c, bodies, params);
    }
    fn impacts(
        contacts: &mut [WideContact<F4>],
        bodies: &mut [SolverBody],
        params: &[SolverBodyParams],
        settings: &ImpactParams,
    ) {
        resolve_impacts(contacts, bodies, params, settings);
    }
    fn push_out(
        push: &mut PushOut,
        contacts: &[WideContact<F4>],
        bodies: &mut [SolverBody],
        limits: &PushLimits,
        h: f32,
    ) {
        push.sweep(contacts, bodies, limits, h);
    }
    fn islands(
        islands: &mut ContactIslands,
        contacts: &mut [WideContact<F4>],
        bodies: &mut [SolverBody],
        params: &SolveParams,
    ) {
        islands.solve(contacts, bodies, params);
    }
}

// SAFETY (every call below): the eight-lane list is filled only when the solver chose width
// 8, which it does only where the CPU has AVX2 (`simd_avx::eight_lanes_available`).
#[cfg(target_arch = "x86_64")]
impl ContactKernels for F8 {
    fn list(lists: &mut ContactLists) -> &mut Vec<WideContact<F8>> {
        &mut lists.eight
    }
    fn prepare(
        c: &mut WideContact<F8>,
        lanes: &[u32],
        pairs: &[PairInput],
        contacts: &[Contact],
        bodies: &[SolverBody],
        settings: &PrepareSettings,
    ) {
        unsafe { avx2::prepare(c, lanes, pairs, contacts, bodies, settings) }
    }
    fn warm_start(c: &WideContact<F8>, bodies: &mut [SolverBody]) {
        unsafe { avx2::warm_start(c, bodies) }
    }
    fn solve(c: &mut WideContact<F8>, bodies: &mut [SolverBody], params: &SolveParams) {
        unsafe { avx2::solve(c, bodies, params) }
    }
    fn impacts(
        contacts: &mut [WideContact<F8>],
        bodies: &mut [SolverBody],
        params: &[SolverBodyParams],
        settings: &ImpactParams,
    ) {
        unsafe { avx2::impacts(contacts, bodies, params, settings) }
    }
    fn push_out(
        push: &mut PushOut,
        contacts: &[WideContact<F8>],
        bodies: &mut [SolverBody],
        limits: &PushLimits,
        h: f32,
    ) {
        unsafe { avx2::push_out(push, contacts, bodies, limits, h) }
    }
    fn islands(
        islands: &mut ContactIslands,
        contacts: &mut [WideContact<F8>],
        bodies: &mut [SolverBody],
        params: &SolveParams,
    ) {
        unsafe { avx2::islands(islands, contacts, bodies, params) }
    }
}

/// Every contact stage in eight lanes: the generic kernels inlined into functions compiled
/// for AVX2 (callers: as for [`F8`]'s kernels).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn prepare(
        c: &mut WideContact<F8>,
        lanes: &[u32],
        pairs: &[PairInput],
        contacts: &[Contact],
        bodies: &[SolverBody],
        settings: &PrepareSettings,
    ) {
        c.prepare_lanes(lanes, pairs, contacts, bodies, settings);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn warm_start(c: &WideContact<F8>, bodies: &mut [SolverBody]) {
        contact_wide::warm_start_lanes(c, bodies);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn solve(c: &mut WideContact<F8>, bodies: &mut [SolverBody], params: &SolveParams) {
        contact_wide::solve_lanes(c, bodies, params);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn impacts(
        contacts: &mut [WideContact<F8>],
        bodies: &mut [SolverBody],
        params: &[SolverBodyParams],
        settings: &ImpactParams,
    ) {
        resolve_impacts(contacts, bodies, params, settings);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn push_out(
        push: &mut PushOut,
        contacts: &[WideContact<F8>],
        bodies: &mut [SolverBody],
        limits: &PushLimits,
        h: f32,
    ) {
        push.sweep(contacts, bodies, limits, h);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn islands(
        islands: &mut ContactIslands,
        contacts: &mut [WideContact<F8>],
        bodies: &mut [SolverBody],
        params: &SolveParams,
    ) {
        islands.solve(contacts, bodies, params);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::prelude::*;

    /// Appends the bits of each body's position, rotation and velocities (13 values a body).
    pub(crate) fn state_bits(world: &World, ids: &[BodyId], out: &mut Vec<u32>) {
        for &id in ids {
            let b = world.body(id).unwrap();
            let (p, q, v, w) = (b.position(), b.rotation(), b.linear_velocity(), b.angular_velocity());
            out.extend([p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z].map(f32::to_bits));
        }
    }

    /// Asserts that two runs' state bits agree wherever both have one, naming the first
    /// value where `what` parts them.
    pub(crate) fn assert_same_bits(a: &[u32], b: &[u32], what: &str) {
        let first_difference = a.iter().zip(b).position(|(x, y)| x != y);
        assert_eq!(first_difference, None, "{what} part at value {first_difference:?}");
    }

    /// A pile that takes every contact stage: a 12-level pyramid of boxes (colours, block
    /// solver), bouncing spheres (impacts), a box started half inside another (push-out), a
    /// light box under a heavy one (the exact island solve), capsules with rolling resistance
    /// rolling over all of it.
    /// Every body's position, rotation and velocities after 90, 180 and 270 steps, as bits.
    fn pile(four_lanes_only: bool) -> (Vec<u32>, usize) {
        let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
        world.solver.four_lanes_only = four_lanes_only;
        let ground = world.create_body(&BodyDef::fixed(Vec3::new(0.0, -0.5, 0.0))).unwrap();
        world.create_collider(ground, &ColliderDef::new(Shape::cuboid(Vec3::new(30.0, 0.5, 30.0)).unwrap())).unwrap();
        // (restitution, rolling resistance) of a body's collider.
        let add = |world: &mut World, position: Vec3, shape: Shape, density: f32, (bounce, rolling): (f32, f32)| {
            let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
            let collider =
                ColliderDef::new(shape).with_density(density).with_restitution(bounce).with_rolling_resistance(rolling);
            world.create_collider(body, &collider).unwrap();
            body
        };
        let mut ids = Vec::new();
        let cube = Shape::cuboid(Vec3::splat(0.25)).unwrap();
        for level in 0..12 {
            for i in 0..12 - level {
                let x = -3.0 + 0.5 * i as f32 + 0.25 * level as f32;
                ids.push(add(
                    &mut world,
                    Vec3::new(x, 0.25 + 0.5 * level as f32, 0.0),
                    cube.clone(),
                    1000.0,
                    (0.0, 0.0),
                ));
            }
        }
        for i in 0..8 {
            let position = Vec3::new(-4.0 + 1.1 * i as f32, 4.0 + 0.3 * i as f32, 3.0);
            ids.push(add(&mut world, position, Shape::sphere(0.3).unwrap(), 1000.0, (0.6, 0.0)));
            let capsule = Shape::capsule(0.3, 0.2).unwrap();
            ids.push(add(&mut world, Vec3::new(-4.0 + 1.1 * i as f32, 6.0, -0.2), capsule, 500.0, (0.0, 0.05)));
        }
        // (position, half extents, density): a box started half inside another, and a heavy
        // box on a light one.
        let boxes = [
            (Vec3::new(6.0, 0.5, 4.0), Vec3::splat(0.5), 1000.0),
            (Vec3::new(6.2, 0.9, 4.1), Vec3::splat(0.5), 1000.0),
            (Vec3::new(-6.0, 0.2, 4.0), Vec3::new(0.6, 0.2, 0.6), 10.0),
            (Vec3::new(-6.0, 0.9, 4.0), Vec3::splat(0.5), 5000.0),
        ];
        for (position, half_extents, density) in boxes {
            ids.push(add(&mut world, position, Shape::cuboid(half_extents).unwrap(), density, (0.0, 0.0)));
        }
        let mut bits = Vec::new();
        for step in 0..270 {
            world.step(1.0 / 60.0).unwrap();
            if step % 90 == 89 {
                state_bits(&world, &ids, &mut bits);
            }
        }
        (bits, world.solver.contact_width)
    }

    /// Contacts solved eight to a group (on a CPU with AVX2) give the bits they give four to
    /// a group, through every stage.
    #[test]
    fn eight_contact_lanes_give_the_bits_of_four() {
        let (four, four_width) = pile(true);
        let (eight, eight_width) = pile(false);
        assert_eq!(four_width, 4);
        let expected = if crate::dynamics::simd_avx::eight_lanes_available() { 8 } else { 4 };
        assert_eq!(eight_width, expected);
        assert_same_bits(&four, &eight, "the widths");
        assert_eq!(four.len(), eight.len());
        // The spheres bounced and rolled: the comparison is not of bodies at rest.
        assert!(four.chunks(13).any(|body| f32::from_bits(body[7]).abs() > 0.2));
    }
}
