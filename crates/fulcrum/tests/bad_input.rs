//! Bad input never panics: every constructor and setter refuses it with an error naming the
//! field and the reason, and a body whose state becomes non-finite is taken out of the
//! simulation while the rest carries on.

mod common;
use common::*;
use fulcrum::prelude::*;
use fulcrum::Error;

fn assert_err<T: std::fmt::Debug>(result: Result<T, Error>, field: &str, reason_part: &str) {
    let err = result.expect_err("expected an error");
    assert_eq!(err.field, field, "wrong field in {err}");
    assert!(err.reason.contains(reason_part), "reason of {err} should mention {reason_part:?}");
}

#[test]
fn shapes_refuse_bad_sizes() {
    assert_err(Shape::sphere(0.0), "radius", "greater than zero");
    assert_err(Shape::sphere(-1.0), "radius", "greater than zero");
    assert_err(Shape::sphere(f32::NAN), "radius", "finite");
    assert_err(Shape::cuboid(Vec3::new(1.0, 0.0, 1.0)), "half_extents[1]", "greater than zero");
    assert_err(Shape::cuboid(Vec3::new(1.0, 1.0, f32::INFINITY)), "half_extents[2]", "finite");
    assert_err(Shape::capsule(-0.1, 0.5), "half_height", "greater than zero");
    assert_err(Shape::capsule(0.5, 0.0), "radius", "greater than zero");
    assert_err(Shape::cylinder(0.5, f32::NAN), "radius", "finite");
    assert_err(Shape::plane(Vec3::ZERO, 0.0), "normal", "zero vector");
}

#[test]
fn degenerate_hulls_are_refused() {
    let too_few = [Vec3::ZERO, Vec3::X, Vec3::Y];
    assert!(Shape::convex_hull(&too_few).unwrap_err().field.starts_with("points"));
    let coplanar = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.5, 0.2, 0.0)];
    let err = Shape::convex_hull(&coplanar).unwrap_err();
    assert!(err.field.starts_with("points") && err.reason.contains("plane"), "{err}");
    let nan = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 0.0, f32::NAN)];
    assert!(Shape::convex_hull(&nan).unwrap_err().field.starts_with("points"));
}

#[test]
fn bodies_refuse_bad_definitions() {
    let mut world = World::default();
    assert_err(world.create_body(&BodyDef::dynamic(Vec3::new(f32::NAN, 0.0, 0.0))), "position[0]", "finite");
    assert_err(
        world.create_body(&BodyDef::dynamic(Vec3::ZERO).with_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0))),
        "rotation",
        "unit quaternion",
    );
    assert_err(world.create_body(&BodyDef { mass: Some(0.0), ..Default::default() }), "mass", "greater than zero");
    assert_err(world.create_body(&BodyDef { mass: Some(-5.0), ..Default::default() }), "mass", "greater than zero");
    assert_err(
        world.create_body(&BodyDef { linear_damping: -1.0, ..Default::default() }),
        "linear_damping",
        "negative",
    );
    assert_err(
        world.create_body(&BodyDef { angular_velocity: Vec3::new(0.0, f32::INFINITY, 0.0), ..Default::default() }),
        "angular_velocity[1]",
        "finite",
    );
    assert_eq!(world.body_count(), 0, "nothing half-created");
}

#[test]
fn colliders_refuse_bad_definitions() {
    let mut world = World::default();
    let body = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    let sphere = Shape::sphere(0.5).unwrap();
    assert_err(
        world.create_collider(body, &ColliderDef::new(sphere.clone()).with_density(0.0)),
        "density",
        "greater than zero",
    );
    assert_err(
        world.create_collider(body, &ColliderDef::new(sphere.clone()).with_friction(-0.1)),
        "friction",
        "negative",
    );
    assert_err(
        world.create_collider(body, &ColliderDef::new(sphere.clone()).with_restitution(f32::NAN)),
        "restitution",
        "finite",
    );
    assert_err(
        world.create_collider(body, &ColliderDef::new(sphere.clone()).with_rolling_resistance(-0.1)),
        "rolling_resistance",
        "negative",
    );
    let plane = Shape::plane(Vec3::Y, 0.0).unwrap();
    assert_err(world.create_collider(body, &ColliderDef::new(plane)), "shape", "static body");
    assert_eq!(world.collider_count(), 0);
}

#[test]
fn stale_and_unknown_ids_are_refused() {
    let mut world = World::default();
    let body = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    let collider = world.create_collider(body, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    world.destroy_body(body).unwrap();
    assert!(world.body(body).is_none());
    assert_err(world.destroy_body(body), "body", "no body");
    assert_err(world.destroy_collider(collider), "collider", "no collider");
    assert_err(world.create_collider(body, &ColliderDef::new(Shape::sphere(0.5).unwrap())), "body", "no body");
    assert_err(world.set_linear_velocity(body, Vec3::ONE), "body", "no body");
    assert_err(world.apply_force(body, Vec3::ONE), "body", "no body");
    // A new body may reuse the slot, but the old id still does not reach it.
    let other = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    assert_eq!(other.index(), body.index());
    assert!(world.body(body).is_none());
}

#[test]
fn setters_refuse_non_finite_values() {
    let mut world = World::default();
    let body = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    assert_err(world.set_linear_velocity(body, Vec3::new(0.0, f32::NAN, 0.0)), "linear_velocity[1]", "finite");
    assert_err(world.apply_impulse_at_point(body, Vec3::X, Vec3::splat(f32::INFINITY)), "point[0]", "finite");
    assert_err(
        world.set_body_pose(body, Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        "rotation",
        "unit quaternion",
    );
    assert_err(world.set_mass(body, Some(-1.0)), "mass", "greater than zero");
    assert_err(world.set_gravity(Vec3::new(0.0, f32::NEG_INFINITY, 0.0)), "gravity[1]", "finite");
    assert_err(world.step(0.0), "dt", "greater than zero");
    assert_err(world.step(f32::NAN), "dt", "finite");
}

#[test]
fn settings_are_validated() {
    let err = World::new(WorldSettings { substeps: 0, ..Default::default() }).err().unwrap();
    assert_eq!(err.field, "substeps");
    let solver = SolverSettings { contact_hertz: -3.0, ..Default::default() };
    let mut world = World::default();
    assert_err(
        world.set_settings(WorldSettings { solver, ..Default::default() }),
        "solver.contact_hertz",
        "greater than zero",
    );
    assert_eq!(
        world.settings().solver.contact_hertz,
        SolverSettings::default().contact_hertz,
        "unchanged after refusal"
    );
}

/// A force so large that the velocity overflows to infinity takes that body out of the
/// simulation; it is reported and everything else keeps moving normally.
#[test]
fn a_body_that_blows_up_is_removed_and_reported() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let doomed = add_box(&mut world, Vec3::new(5.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let faller = world.create_body(&BodyDef::dynamic(Vec3::new(-5.0, 3.0, 0.0))).unwrap();
    world.create_collider(faller, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    // Each force is finite; their sum overflows to infinity inside the body.
    world.apply_force(doomed, Vec3::new(f32::MAX, f32::MAX, 0.0)).unwrap();
    world.apply_force(doomed, Vec3::new(f32::MAX, f32::MAX, 0.0)).unwrap();
    world.step(DT).unwrap();
    let disabled = &world.events().disabled_bodies;
    assert_eq!(disabled.len(), 1);
    assert_eq!(disabled[0].body, doomed);
    assert!(disabled[0].reason.contains("non-finite"));
    let body = world.body(doomed).unwrap();
    assert!(!body.is_enabled() && body.position().is_finite());
    run(&mut world, 59);
    // The other body fell normally: y = 3 - g t²/2 to within the integration error.
    let y = pos(&world, faller).y;
    assert!((y - (3.0 - 0.5 * 9.81)).abs() < 0.1 || y > 0.4, "faller at {y}");
    assert!(world.body(faller).unwrap().is_enabled());
}

/// Joints: bad definitions and setters are refused with the field named, and extreme but
/// valid parameters (stiff springs, huge forces, tiny ratios, limits at ±π) never panic; a
/// body they drive non-finite would be disabled and reported while the world carries on.
#[test]
fn joints_refuse_bad_input_and_survive_extremes() {
    use fulcrum::joint::{AxisMotion, JointDef, JointKind, Limits, Motor, Spring};
    let mut world = World::new(WorldSettings::default()).unwrap();
    let a = add_box(&mut world, Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY, Vec3::splat(0.2), 0.5);
    let b = add_box(&mut world, Vec3::new(1.0, 2.0, 0.0), Quat::IDENTITY, Vec3::splat(0.2), 0.5);
    let anchor = Vec3::new(0.5, 2.0, 0.0);
    assert_err(world.create_joint(&JointDef::ball(Some(a), a, anchor)), "body_b", "two different bodies");
    assert_err(world.create_joint(&JointDef::ball(Some(a), b, Vec3::new(f32::NAN, 0.0, 0.0))), "anchors[0]", "finite");
    assert_err(world.create_joint(&JointDef::hinge(Some(a), b, anchor, Vec3::ZERO)), "axes", "zero vector");
    let backwards = JointDef::hinge(Some(a), b, anchor, Vec3::Z).with_limits(Limits::new(1.0, -1.0));
    assert!(world.create_joint(&backwards).is_err(), "lower above upper is refused");
    let gone = add_box(&mut world, Vec3::new(3.0, 2.0, 0.0), Quat::IDENTITY, Vec3::splat(0.2), 0.5);
    world.destroy_body(gone).unwrap();
    assert!(world.create_joint(&JointDef::ball(Some(a), gone, anchor)).is_err(), "a destroyed body is refused");

    // Extreme but valid: every setter on live joints, then steps.
    let hinge = world.create_joint(&JointDef::hinge(None, a, Vec3::new(0.0, 2.5, 0.0), Vec3::Z)).unwrap();
    let slider = world.create_joint(&JointDef::prismatic(Some(a), b, anchor, Vec3::X)).unwrap();
    world.set_joint_spring(hinge, Some(Spring::new(1e6, 0.0))).unwrap();
    world.set_joint_motor(hinge, Some(Motor::Velocity { target_velocity: 1e4, max_force: 1e30 })).unwrap();
    world.set_joint_limits(slider, Some(Limits::new(-1e-6, 1e-6))).unwrap();
    world.set_joint_break_limits(slider, Some(f32::MAX), None).unwrap();
    assert_err(world.set_joint_spring(hinge, Some(Spring::new(-1.0, 0.0))), "spring.frequency_hz", "greater than zero");
    let six = JointKind::SixDof { axes: [AxisMotion::Free; 6] };
    world.create_joint(&JointDef::new(six, Some(a), b, anchor)).unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
        for disabled in &world.events().disabled_bodies {
            assert!(disabled.body == a || disabled.body == b, "only the driven bodies may be disabled");
        }
    }
    for body in [a, b] {
        let body = world.body(body).unwrap();
        assert!(!body.is_enabled() || body.pose().is_finite(), "a body left enabled stays finite");
    }
    world.destroy_joint(hinge).unwrap();
    assert!(world.destroy_joint(hinge).is_err(), "a destroyed joint is refused");
    assert!(world.set_joint_enabled(hinge, true).is_err(), "setters refuse a destroyed joint");
    world.step(DT).unwrap();
}

/// The next `f32` beyond `bound`, away from zero: the smallest step out of a range.
fn beyond(bound: f32) -> f32 {
    f32::from_bits(bound.to_bits() + 1)
}

/// `make(bound)` is accepted and `make(beyond(bound))` refused, naming `field`.
fn assert_bound<T: std::fmt::Debug>(field: &str, bound: f32, mut make: impl FnMut(f32) -> Result<T, Error>) {
    if let Err(err) = make(bound) {
        panic!("{field} = {bound} lies on its bound and should be accepted: {err}");
    }
    let err = make(beyond(bound)).expect_err("one float beyond the bound should be refused");
    assert_eq!(err.field, field, "wrong field in {err}");
    assert!(err.reason.contains(&format!("{}", beyond(bound))), "the reason quotes the value: {err}");
}

#[test]
fn shape_sizes_are_bounded() {
    use fulcrum::shape::MAX_SHAPE_SIZE as MAX;
    assert_bound("radius", MAX, Shape::sphere);
    assert_bound("half_extents[1]", MAX, |h| Shape::cuboid(Vec3::new(0.5, h, 0.5)));
    assert_bound("half_height", MAX, |h| Shape::capsule(h, 0.3));
    assert_bound("radius", MAX, |r| Shape::capsule(0.3, r));
    assert_bound("half_height", MAX, |h| Shape::cylinder(h, 0.3));
    assert_bound("radius", MAX, |r| Shape::cylinder(0.3, r));
    for bound in [MAX, -MAX] {
        assert_bound("offset", bound, |d| Shape::plane(Vec3::Y, d));
        assert_bound("points[0][0]", bound, |x| {
            Shape::convex_hull(&[Vec3::new(x, 0.0, 0.0), Vec3::Y, Vec3::Z, Vec3::ZERO])
        });
    }
    // A plane's normal may be any finite non-zero vector, even one whose length overflows.
    let Shape::Plane(plane) = Shape::plane(Vec3::new(f32::MAX, f32::MAX, 0.0), 0.0).unwrap() else { unreachable!() };
    assert!((plane.normal - Vec3::new(1.0, 1.0, 0.0).normalize()).length() < 1e-6, "{:?}", plane.normal);
}

#[test]
fn body_definitions_are_bounded() {
    use fulcrum::body::{MAX_ANGULAR_SPEED, MAX_DAMPING, MAX_GRAVITY_SCALE, MAX_LINEAR_SPEED, MAX_MASS, MAX_POSITION};
    let mut world = World::default();
    let mut create = |def: BodyDef| world.create_body(&def);
    for sign in [1.0, -1.0] {
        assert_bound("position[0]", sign * MAX_POSITION, |x| create(BodyDef::dynamic(Vec3::new(x, 0.0, 0.0))));
        let v = |v| create(BodyDef::dynamic(Vec3::ZERO).with_linear_velocity(Vec3::new(0.0, v, 0.0)));
        assert_bound("linear_velocity[1]", sign * MAX_LINEAR_SPEED, v);
        let w = |w| create(BodyDef::dynamic(Vec3::ZERO).with_angular_velocity(Vec3::new(0.0, 0.0, w)));
        assert_bound("angular_velocity[2]", sign * MAX_ANGULAR_SPEED, w);
        assert_bound("gravity_scale", sign * MAX_GRAVITY_SCALE, |g| {
            create(BodyDef { gravity_scale: g, ..Default::default() })
        });
    }
    assert_bound("linear_damping", MAX_DAMPING, |d| create(BodyDef { linear_damping: d, ..Default::default() }));
    assert_bound("angular_damping", MAX_DAMPING, |d| create(BodyDef { angular_damping: d, ..Default::default() }));
    assert_bound("mass", MAX_MASS, |m| create(BodyDef { mass: Some(m), ..Default::default() }));
}

#[test]
fn collider_definitions_are_bounded() {
    use fulcrum::collider::{MAX_DENSITY, MAX_FRICTION, MAX_RESTITUTION, MAX_ROLLING_RESISTANCE};
    use fulcrum::shape::MAX_SHAPE_SIZE;
    let mut world = World::default();
    let body = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    let sphere = ColliderDef::new(Shape::sphere(0.5).unwrap());
    let mut create = |def: ColliderDef| world.create_collider(body, &def);
    for z in [MAX_SHAPE_SIZE, -MAX_SHAPE_SIZE] {
        let at = |z| sphere.clone().with_pose(Vec3::new(0.0, 0.0, z), Quat::IDENTITY);
        assert_bound("position[2]", z, |z| create(at(z)));
    }
    assert_bound("density", MAX_DENSITY, |d| create(sphere.clone().with_density(d)));
    assert_bound("friction", MAX_FRICTION, |f| create(sphere.clone().with_friction(f)));
    assert_bound("restitution", MAX_RESTITUTION, |e| create(sphere.clone().with_restitution(e)));
    let rolling = |c| create(sphere.clone().with_rolling_resistance(c));
    assert_bound("rolling_resistance", MAX_ROLLING_RESISTANCE, rolling);
    // A shape changed after it was built is checked again.
    let Shape::Sphere(mut ball) = Shape::sphere(0.5).unwrap() else { unreachable!() };
    ball.radius = beyond(MAX_SHAPE_SIZE);
    assert_err(create(ColliderDef::new(Shape::Sphere(ball))), "shape.radius", "at most");
}

#[test]
fn setters_check_the_ranges_of_the_definitions() {
    use fulcrum::body::{MAX_ANGULAR_SPEED, MAX_DAMPING, MAX_GRAVITY_SCALE, MAX_LINEAR_SPEED, MAX_MASS, MAX_POSITION};
    let mut world = World::default();
    let body = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::sphere(0.5).unwrap())).unwrap();
    let w = &mut world;
    assert_bound("position[1]", -MAX_POSITION, |y| w.set_body_pose(body, Vec3::new(0.0, y, 0.0), Quat::IDENTITY));
    assert_bound("linear_velocity[0]", MAX_LINEAR_SPEED, |v| w.set_linear_velocity(body, Vec3::new(v, 0.0, 0.0)));
    assert_bound("angular_velocity[0]", MAX_ANGULAR_SPEED, |v| w.set_angular_velocity(body, Vec3::new(v, 0.0, 0.0)));
    assert_bound("linear_damping", MAX_DAMPING, |d| w.set_damping(body, d, 0.0));
    assert_bound("angular_damping", MAX_DAMPING, |d| w.set_damping(body, 0.0, d));
    assert_bound("gravity_scale", -MAX_GRAVITY_SCALE, |g| w.set_gravity_scale(body, g));
    assert_bound("mass", MAX_MASS, |m| w.set_mass(body, Some(m)));
    assert_bound("gravity[2]", 1e6, |g| w.set_gravity(Vec3::new(0.0, -9.81, g)));
}

/// The issue's example: a scene box with half extents of 1e38 is refused at its JSON path
/// (it used to be accepted and make the solver panic).
#[test]
fn a_scene_with_a_huge_box_is_refused_at_its_path() {
    let text = r#"{"format": 1, "bodies": [{"name": "crate", "position": [0, 1, 0],
        "colliders": [{"shape": {"type": "box", "half_extents": [0.5, 1e38, 0.5]}}]}]}"#;
    let err = fulcrum::Scene::from_json_str(text, "huge.json").unwrap_err();
    assert_eq!(err.field, "huge.json: bodies[0].colliders[0].shape.half_extents[1]");
    assert!(err.reason.contains("at most 10000"), "{err}");
}
