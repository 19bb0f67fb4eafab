//! `World::cast_ray` against shapes at known poses.
//!
//! Each ray is built backwards from a chosen surface point P (local frame, with its outward
//! normal n): a direction d with d·n < 0 and an origin O = P − t d. A convex shape's boundary
//! is crossed once on the way in, so the first hit is P at parameter t, with normal n (both
//! mapped to world space by the shape's pose). Shapes sit 10 m apart and origins lie within
//! 3 m of their target, so no other shape is in the way.

use fulcrum::math::orthonormal_basis;
use fulcrum::prelude::*;
use fulcrum::{Ray, RayCastHit};

/// A surface point of a shape in its local frame and the outward normal there.
struct SurfacePoint {
    point: Vec3,
    normal: Vec3,
}

fn on_surface(point: Vec3, normal: Vec3) -> SurfacePoint {
    SurfacePoint { point, normal: normal.normalize() }
}

/// Places `shape` on a static body at `pose` and returns its collider.
fn place(world: &mut World, shape: Shape, pose: Pose) -> ColliderId {
    let body = world.create_body(&BodyDef::fixed(pose.position).with_rotation(pose.rotation)).unwrap();
    world.create_collider(body, &ColliderDef::new(shape)).unwrap()
}

/// Casts the ray that must first hit `target` at parameter `t` (direction length `scale`),
/// coming in at a slant, and checks t, point, normal and collider to 1e-4.
fn check_hit(world: &World, collider: ColliderId, pose: Pose, target: &SurfacePoint, t: f32, scale: f32, what: &str) {
    let (tangent, _) = orthonormal_basis(target.normal);
    let local_dir = (-target.normal + 0.6 * tangent).normalize();
    let point = pose.transform_point(target.point);
    let direction = pose.transform_vector(local_dir) * scale;
    let ray = Ray::new(point - t * direction, direction);
    let hit: RayCastHit = world.cast_ray(&ray, 100.0, |_| true).unwrap_or_else(|| panic!("{what}: no hit"));
    let normal = pose.transform_vector(target.normal);
    let (t_error, n_error) = ((hit.t - t).abs(), (hit.normal - normal).length());
    eprintln!("{what}: t error {t_error:e}, normal error {n_error:e}");
    assert_eq!(hit.collider, collider, "{what}: hit another collider");
    assert_eq!(hit.body, world.collider(collider).unwrap().body());
    assert!(t_error < 1e-4, "{what}: t = {}, expected {t}", hit.t);
    assert!(n_error < 1e-4, "{what}: normal {}, expected {normal}", hit.normal);
    assert!((hit.point - point).length() < 1e-4 * scale.max(1.0) * t.max(1.0), "{what}: point {}", hit.point);
}

fn pose(x: f32, axis: Vec3, angle: f32) -> Pose {
    Pose::new(Vec3::new(x, 1.0 + 0.1 * x, -0.5), Quat::from_axis_angle(axis.normalize(), angle))
}

#[test]
fn rays_hit_a_sphere_a_box_a_capsule_a_cylinder_and_a_hull_where_predicted() {
    let mut world = World::default();
    let sphere_pose = pose(-20.0, Vec3::new(1.0, 1.0, 0.0), 0.4);
    let sphere = place(&mut world, Shape::sphere(0.7).unwrap(), sphere_pose);
    let box_pose = pose(-10.0, Vec3::new(0.3, 1.0, -0.2), 0.9);
    let cuboid = place(&mut world, Shape::cuboid(Vec3::new(0.5, 0.3, 0.8)).unwrap(), box_pose);
    let capsule_pose = pose(0.0, Vec3::new(1.0, 0.0, 0.5), 1.2);
    let capsule = place(&mut world, Shape::capsule(0.6, 0.3).unwrap(), capsule_pose);
    let cylinder_pose = pose(10.0, Vec3::new(0.0, 0.4, 1.0), 0.5);
    let cylinder = place(&mut world, Shape::cylinder(0.5, 0.4).unwrap(), cylinder_pose);
    let hull_pose = pose(20.0, Vec3::new(-1.0, 2.0, 0.5), 2.0);
    let corners = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    let hull = place(&mut world, Shape::convex_hull(&corners).unwrap(), hull_pose);

    let u = Vec3::new(1.0, 2.0, -1.0).normalize();
    check_hit(&world, sphere, sphere_pose, &on_surface(0.7 * u, u), 2.5, 1.0, "sphere");
    check_hit(&world, sphere, sphere_pose, &on_surface(-0.7 * u, -u), 1.5, 2.0, "sphere, |d| = 2");
    let box_x = on_surface(Vec3::new(0.5, 0.1, -0.4), Vec3::X);
    check_hit(&world, cuboid, box_pose, &box_x, 3.0, 1.0, "box +x face");
    let box_z = on_surface(Vec3::new(0.2, -0.1, -0.8), -Vec3::Z);
    check_hit(&world, cuboid, box_pose, &box_z, 2.0, 1.0, "box -z face");
    let phi = 0.7f32;
    let radial = Vec3::new(phi.cos(), 0.0, phi.sin());
    check_hit(
        &world,
        capsule,
        capsule_pose,
        &on_surface(0.3 * radial + 0.2 * Vec3::Y, radial),
        2.0,
        1.0,
        "capsule side",
    );
    let cap = Vec3::new(0.3, 1.0, 0.5).normalize();
    check_hit(&world, capsule, capsule_pose, &on_surface(0.6 * Vec3::Y + 0.3 * cap, cap), 2.0, 1.0, "capsule cap");
    let cyl_cap = on_surface(Vec3::new(0.1, 0.5, 0.2), Vec3::Y);
    check_hit(&world, cylinder, cylinder_pose, &cyl_cap, 2.0, 1.0, "cylinder cap");
    check_hit(&world, cylinder, cylinder_pose, &on_surface(0.4 * radial, radial), 2.0, 1.0, "cylinder side");
    let slanted = on_surface(Vec3::new(0.2, 0.3, 0.5), Vec3::ONE);
    check_hit(&world, hull, hull_pose, &slanted, 2.0, 1.0, "hull slanted face");
    check_hit(&world, hull, hull_pose, &on_surface(Vec3::new(0.3, 0.0, 0.2), -Vec3::Y), 2.0, 1.0, "hull y = 0 face");
}

/// Two colliders on one line: the closer wins regardless of creation order, the filter can
/// exclude it (then the farther one is hit), max_t cuts the ray, and rays that pass beside
/// or point away miss.
#[test]
fn closest_hit_wins_filter_excludes_and_misses_return_none() {
    let mut world = World::default();
    // The far box first, so creation order cannot explain the result.
    let far =
        place(&mut world, Shape::cuboid(Vec3::splat(0.5)).unwrap(), Pose::from_position(Vec3::new(0.0, 2.0, 3.0)));
    let near = place(&mut world, Shape::sphere(0.5).unwrap(), Pose::from_position(Vec3::new(0.0, 2.0, 0.0)));
    let ray = Ray::new(Vec3::new(0.0, 2.0, -5.0), Vec3::Z);
    let hit = world.cast_ray(&ray, 100.0, |_| true).unwrap();
    assert_eq!(hit.collider, near);
    assert!((hit.t - 4.5).abs() < 1e-4 && (hit.normal + Vec3::Z).length() < 1e-4, "{hit:?}");
    let hit = world.cast_ray(&ray, 100.0, |c| c != near).unwrap();
    assert_eq!(hit.collider, far);
    assert!((hit.t - 7.5).abs() < 1e-4 && (hit.normal + Vec3::Z).length() < 1e-4, "{hit:?}");
    assert!(world.cast_ray(&ray, 100.0, |_| false).is_none());
    // max_t shorter than the distance to the sphere: nothing; just longer: the sphere.
    assert!(world.cast_ray(&ray, 4.4, |_| true).is_none());
    assert_eq!(world.cast_ray(&ray, 4.6, |_| true).map(|h| h.collider), Some(near));
    // Pointing away, and passing 0.51 m beside both (radius and half extent 0.5).
    assert!(world.cast_ray(&Ray::new(ray.origin, -Vec3::Z), 100.0, |_| true).is_none());
    assert!(world.cast_ray(&Ray::new(Vec3::new(0.51, 2.0, -5.0), Vec3::Z), 100.0, |_| true).is_none());
    // A ray starting inside the sphere hits it at t = 0.
    let inside = world.cast_ray(&Ray::new(Vec3::new(0.0, 2.1, 0.0), Vec3::X), 100.0, |_| true).unwrap();
    assert_eq!((inside.collider, inside.t), (near, 0.0));
}

/// Ray casts see bodies where the last step left them: a falling ball is found at its new
/// height, not where it was created.
#[test]
fn ray_casts_follow_moving_bodies() {
    let mut world = World::default();
    let ball = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 10.0, 0.0))).unwrap();
    world.create_collider(ball, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let y = world.body(ball).unwrap().position().y;
    assert!(y < 9.0);
    let hit = world.cast_ray(&Ray::new(Vec3::new(0.0, -5.0, 0.0), Vec3::Y), 100.0, |_| true).unwrap();
    assert!((hit.t - (y - 0.5 + 5.0)).abs() < 1e-4, "t = {} for a ball at y = {y}", hit.t);
}
