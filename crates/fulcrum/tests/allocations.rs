//! A settled world steps without allocating per body, pair or joint: every list the step
//! fills keeps its capacity from step to step. A global allocator that wraps the system's
//! counts the allocations. Four small lists of borrowed runs (the bodies' and the joints' runs
//! for the workers) are made each step whatever the world's size; beyond them only events
//! allocate (a new pair's cache, a contact's first face frame, a list growing to a new
//! size).

mod common;
use common::*;
use fulcrum::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The system allocator, counting allocations and reallocations while `COUNTING` is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A pyramid of boxes with `base` boxes a side, `shapes` spheres, capsules and cylinders on a
/// bumpy heightfield, and a chain of `links` ball joints hanging from a static bar; awake
/// (sleeping off), one thread, settled for two seconds. Returns the allocations of the next
/// sixty steps.
fn allocations_of_settled_world(base: usize, shapes: usize, links: usize) -> usize {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    add_ground(&mut world, 0.6);
    add_pyramid(&mut world, base);
    let bump = |i: usize, j: usize| 0.3 * (i as f32 * 0.5).sin() * (j as f32 * 0.4).cos();
    let heights: Vec<Vec<f32>> = (0..33).map(|i| (0..33).map(|j| bump(i, j)).collect()).collect();
    let field = world.create_body(&BodyDef::fixed(Vec3::new(30.0, 0.0, 0.0))).unwrap();
    world.create_collider(field, &ColliderDef::new(Shape::heightfield(heights, Vec3::ONE).unwrap())).unwrap();
    let kinds = [Shape::sphere(0.4).unwrap(), Shape::capsule(0.3, 0.3).unwrap(), Shape::cylinder(0.3, 0.35).unwrap()];
    for (k, shape) in kinds.iter().cycle().take(shapes).enumerate() {
        let position = Vec3::new(20.0 + 1.5 * (k % 12) as f32, 1.5, -10.0 + 1.5 * (k / 12) as f32);
        let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
        world.create_collider(body, &ColliderDef::new(shape.clone())).unwrap();
    }
    let bar = world.create_body(&BodyDef::fixed(Vec3::new(-10.0, 20.0, 0.0))).unwrap();
    let mut previous = bar;
    for k in 0..links {
        let link = world.create_body(&BodyDef::dynamic(Vec3::new(-10.0, 19.5 - 0.5 * k as f32, 0.0))).unwrap();
        world.create_collider(link, &ColliderDef::new(Shape::sphere(0.1).unwrap())).unwrap();
        let pivot = Vec3::new(-10.0, 19.75 - 0.5 * k as f32, 0.0);
        world.create_joint(&JointDef::ball(Some(previous), link, pivot)).unwrap();
        previous = link;
    }
    run(&mut world, 120);
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    run(&mut world, 60);
    COUNTING.store(false, Ordering::Relaxed);
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Sixty steps of a settled world allocate at most 6 times a step on average (the four lists
/// and the events), and a world four times the size at most 25% more often. Measured: 243
/// and 268; before the step's working lists were kept (the joint forest's walk, the further
/// manifolds' lanes, the colliders leaving their proxies), 369 and 540.
#[test]
fn a_settled_world_steps_without_allocating_per_body() {
    let small = allocations_of_settled_world(5, 12, 6);
    let large = allocations_of_settled_world(10, 48, 24);
    eprintln!("allocations in 60 steps: {small} (small world), {large} (large world)");
    for (name, count) in [("small", small), ("large", large)] {
        assert!(count <= 6 * 60, "the {name} world allocated {count} times in 60 steps");
    }
    assert!(4 * large <= 5 * small, "the allocations grew with the world: {small} -> {large}");
}
