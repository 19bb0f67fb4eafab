//! Time of impact of two convex shapes moving over `t ∈ [0, 1]`, by conservative advancement
//! on the GJK distance.
//!
//! Each shape rides on a moving frame (for a body: its centre of mass and rotation) that goes
//! from a start pose to an end pose: the frame's origin moves linearly, `p(t) = p₀ + t·Δp`,
//! and its rotation turns at a constant rate, `R(t) = slerp(R₀, R₁, t)`, about the axis of
//! `R₁R₀⁻¹` by its angle `θ ≤ π` (the short way round). A point `x` of the shape then moves at
//! `Δp + ω × (x − p)` with `|ω| = θ`, so no point of a shape whose core lies within `r` of
//! the frame's origin moves faster than `|Δp·n| + θ·r` along any unit `n`.
//!
//! Conservative advancement: at time `t` GJK gives the distance `d` and the normal `n` from A
//! to B. The gap along `n` cannot close faster than
//!
//! ```text
//! bound = |(Δp_A − Δp_B)·n| + θ_A·r_A + θ_B·r_B
//! ```
//!
//! so `t += (d − target) / bound` never brings the shapes closer than `target`. This repeats
//! until `d ≤ target + tolerance` (a hit at `t`) or `t ≥ 1` (no hit). Two shapes that only
//! translate and move apart along `n` never meet (the plane through the gap normal to `n`
//! keeps separating them): no hit. After [`ToiSettings::max_iterations`] without converging
//! the time reached so far is returned as the hit: it is still safe (no overlap), only early.
//!
//! The radii `r` are those of the shapes' *cores* (GJK's view: a sphere is a point, a capsule a
//! segment, both with a radius around them), because the rounded layer looks the same at every
//! rotation: a sphere spinning about its centre has `r = 0` and never slows the search.
//!
//! Planes are handled exactly: the distance of a shape from the plane is that of its support
//! point against the plane's normal.

use crate::collision::narrow_phase::gjk::{gjk, ConvexCore, CoreKind};
use crate::geometry::Aabb;
use crate::math::{Pose, Vec3};
use crate::shape::{Plane, Shape, Triangle};

/// The motion of a shape over `t ∈ [0, 1]`: a frame moving from `start` to `end`, and the
/// shape's pose in that frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The frame at `t = 0` (for a body: its centre of mass and rotation).
    pub start: Pose,
    /// The frame at `t = 1`.
    pub end: Pose,
    /// The shape's pose in the moving frame.
    pub local: Pose,
}

impl Sweep {
    /// A shape resting at `pose` for the whole interval.
    pub fn fixed(pose: Pose) -> Self {
        Self { start: pose, end: pose, local: Pose::IDENTITY }
    }

    /// A shape at `pose` translated by `translation` over the interval, without turning.
    pub fn translation(pose: Pose, translation: Vec3) -> Self {
        let end = Pose::new(pose.position + translation, pose.rotation);
        Self { start: pose, end, local: Pose::IDENTITY }
    }

    /// A shape at `pose` moving with constant linear velocity `v` (m/s) and angular velocity
    /// `w` (rad/s, world axes) for `dt` seconds: `end = (p + v·dt, exp(w·dt)·q)`.
    #[cfg(test)]
    pub fn from_velocity(pose: Pose, v: Vec3, w: Vec3, dt: f32) -> Self {
        let turn = crate::math::Quat::from_scaled_axis(w * dt);
        let end = Pose::new(pose.position + v * dt, (turn * pose.rotation).normalize());
        Self { start: pose, end, local: Pose::IDENTITY }
    }

    /// The frame at `t`: position interpolated linearly, rotation by slerp (short way).
    pub fn frame_at(&self, t: f32) -> Pose {
        let position = self.start.position.lerp(self.end.position, t);
        Pose::new(position, self.start.rotation.slerp(self.end.rotation, t).normalize())
    }

    /// The shape's world pose at `t`.
    pub fn pose_at(&self, t: f32) -> Pose {
        self.frame_at(t).mul_pose(&self.local)
    }

    /// The frame's displacement over the interval, `Δp`.
    pub fn linear(&self) -> Vec3 {
        self.end.position - self.start.position
    }

    /// The angle `θ ∈ [0, π]` the frame turns through: `θ = 2·acos(|w|)` of `R₁R₀⁻¹`.
    pub fn angle(&self) -> f32 {
        let delta = self.end.rotation * self.start.rotation.inverse();
        2.0 * delta.w.abs().clamp(0.0, 1.0).acos()
    }
}

/// Tolerances of [`time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiSettings {
    /// The separation the search stops at, metres (0 for an exact contact time).
    pub target: f32,
    /// A hit is reported once `distance ≤ target + tolerance`, metres.
    pub tolerance: f32,
    /// Most advancement steps.
    pub max_iterations: u32,
}

impl ToiSettings {
    /// For continuous collision: stop 5 mm short of contact (the speculative contacts of the
    /// next step close the gap), to within 1.25 mm.
    pub const CONTINUOUS: ToiSettings = ToiSettings { target: 0.005, tolerance: 0.00125, max_iterations: 64 };
    /// For the exact contact time, to within 10 µm of separation. GJK's witness points are
    /// poorly conditioned this close (two flat features touching along a line or a face can
    /// give witnesses that do not face each other), so prefer [`ToiSettings::CAST`] when the
    /// points matter.
    #[cfg(test)]
    pub const EXACT: ToiSettings = ToiSettings { target: 0.0, tolerance: 1.0e-5, max_iterations: 64 };
    /// For shape casts: stop 1 mm short (to 0.1 mm), where GJK's normal and points are well
    /// conditioned (at 0.1 mm an edge resting on a face had its normal 2.5 mrad off, at 1 mm
    /// 0.3 mrad); a pure translation then finishes the last millimetre analytically (see
    /// `World::cast_shape`).
    pub const CAST: ToiSettings = ToiSettings { target: 1.0e-3, tolerance: 1.0e-4, max_iterations: 64 };
}

/// A time of impact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Toi {
    /// The time in `[0, 1)` at which the shapes come within the target separation.
    pub t: f32,
    /// Unit normal from A to B at that time (world); zero when the shapes overlapped at
    /// `t = 0` and no normal could be measured.
    pub normal: Vec3,
    /// A's point nearest to B at that time (world).
    pub point_a: Vec3,
    /// B's point nearest to A at that time (world).
    pub point_b: Vec3,
    /// The separation at that time, metres (≤ `target + tolerance`; ≤ 0 when they overlapped).
    pub distance: f32,
    /// Advancement steps taken.
    pub iterations: u32,
    /// The index of the triangle met, against a mesh or heightfield (`None` for convex pairs).
    pub triangle: Option<u32>,
}

/// The distance between two shapes at fixed poses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    /// Signed distance, metres (≤ 0 when they touch or overlap).
    pub distance: f32,
    /// Unit normal from A to B; zero when the cores overlap.
    pub normal: Vec3,
    /// A's point nearest to B (world).
    pub point_a: Vec3,
    /// B's point nearest to A (world).
    pub point_b: Vec3,
}

/// Distance between `shape_a` at `pose_a` and `shape_b` at `pose_b`; `None` for two planes.
pub fn separation(shape_a: &Shape, pose_a: &Pose, shape_b: &Shape, pose_b: &Pose) -> Option<Separation> {
    match (shape_a, shape_b) {
        (Shape::Plane(_), Shape::Plane(_)) => None,
        (Shape::Plane(p), _) => plane_separation(p, pose_a, shape_b, pose_b).map(Separation::flipped),
        (_, Shape::Plane(p)) => plane_separation(p, pose_b, shape_a, pose_a),
        _ => {
            let a = ConvexCore::from_shape(shape_a, pose_a)?;
            let b = ConvexCore::from_shape(shape_b, pose_b)?;
            let result = gjk(&a, &b, Vec3::ZERO);
            let distance = if result.overlapping { -(a.radius + b.radius) } else { result.distance };
            Some(Separation { distance, normal: result.normal, point_a: result.point_a, point_b: result.point_b })
        }
    }
}

impl Separation {
    /// The same separation seen from the other shape.
    fn flipped(self) -> Self {
        Self { distance: self.distance, normal: -self.normal, point_a: self.point_b, point_b: self.point_a }
    }
}

/// A convex shape (A) against a plane (B): with `n` the plane's world normal and `s` A's core
/// support point along `−n`, `d = n·s − offset − radius_A`; the normal from A to the plane is
/// `−n`, A's point is `s − radius_A·n`, the plane's point is that point moved `d` along `−n`.
fn plane_separation(plane: &Plane, plane_pose: &Pose, shape: &Shape, pose: &Pose) -> Option<Separation> {
    let core = ConvexCore::from_shape(shape, pose)?;
    let n = plane_pose.transform_vector(plane.normal);
    let offset = n.dot(plane_pose.transform_point(plane.normal * plane.offset));
    let support = core.support(-n);
    let distance = n.dot(support) - offset - core.radius;
    let point_a = support - core.radius * n;
    Some(Separation { distance, normal: -n, point_a, point_b: point_a - distance * n })
}

/// Largest distance of a shape's core from the frame origin when the shape sits at `local`
/// in the frame: `|local.position|` plus the core's own radius about the shape's origin.
pub fn core_reach(shape: &Shape, local: &Pose) -> f32 {
    let own = match ConvexCore::from_shape(shape, &Pose::IDENTITY).map(|c| c.kind) {
        None | Some(CoreKind::Point) => 0.0,
        Some(CoreKind::Segment { half_height }) => half_height,
        Some(CoreKind::Box { half_extents }) => half_extents.length(),
        Some(CoreKind::Cylinder { half_height, radius }) => half_height.hypot(radius),
        Some(CoreKind::Hull(hull)) => hull.local_aabb.min.abs().max(hull.local_aabb.max.abs()).length(),
        Some(CoreKind::Triangle(v)) => v.iter().map(|p| p.length()).fold(0.0, f32::max),
    };
    local.position.length() + own
}

/// The time of impact of `shape_a` moving along `sweep_a` and `shape_b` along `sweep_b`
/// (see the module docs); `None` when they stay further apart than the target over the
/// whole interval. Shapes within the target at `t = 0` give a hit at `t = 0`. Against a mesh
/// or heightfield: the earliest impact with any of its triangles near the swept path.
pub fn time_of_impact(
    shape_a: &Shape,
    sweep_a: &Sweep,
    shape_b: &Shape,
    sweep_b: &Sweep,
    settings: &ToiSettings,
) -> Option<Toi> {
    if is_surface(shape_b) {
        return surface_time_of_impact(shape_a, sweep_a, shape_b, sweep_b, settings);
    }
    if is_surface(shape_a) {
        return surface_time_of_impact(shape_b, sweep_b, shape_a, sweep_a, settings).map(Toi::flipped);
    }
    let relative_motion = sweep_a.linear() - sweep_b.linear();
    let spin =
        sweep_a.angle() * core_reach(shape_a, &sweep_a.local) + sweep_b.angle() * core_reach(shape_b, &sweep_b.local);
    let gap_at = |t: f32| separation(shape_a, &sweep_a.pose_at(t), shape_b, &sweep_b.pose_at(t));
    advance(gap_at, relative_motion, spin, settings)
}

fn is_surface(shape: &Shape) -> bool {
    matches!(shape, Shape::TriMesh(_) | Shape::HeightField(_))
}

/// Conservative advancement: with d(t) the distance and `bound` ≥ the closing speed of any
/// two points, t grows by (d − target)/bound until d is within the target (a hit) or t
/// passes 1 (none).
fn advance(
    gap_at: impl Fn(f32) -> Option<Separation>,
    relative_motion: Vec3,
    spin: f32,
    settings: &ToiSettings,
) -> Option<Toi> {
    let mut t = 0.0f32;
    let mut last_normal = Vec3::ZERO;
    for iteration in 0..settings.max_iterations {
        let gap = gap_at(t)?;
        let normal = if gap.normal == Vec3::ZERO { last_normal } else { gap.normal };
        let hit = Toi {
            t,
            normal,
            point_a: gap.point_a,
            point_b: gap.point_b,
            distance: gap.distance,
            iterations: iteration,
            triangle: None,
        };
        if gap.distance <= settings.target + settings.tolerance {
            return Some(hit);
        }
        let approach = relative_motion.dot(normal);
        if spin == 0.0 && approach <= 0.0 {
            return None;
        }
        let bound = approach.abs() + spin;
        t += (gap.distance - settings.target) / bound;
        if !(t < 1.0) {
            return None;
        }
        last_normal = normal;
    }
    // Not converged: the time reached is still safe, only early.
    let gap = gap_at(t)?;
    let normal = if gap.normal == Vec3::ZERO { last_normal } else { gap.normal };
    Some(Toi {
        t,
        normal,
        point_a: gap.point_a,
        point_b: gap.point_b,
        distance: gap.distance,
        iterations: settings.max_iterations,
        triangle: None,
    })
}

/// A convex shape against the triangles of a mesh or heightfield near its swept path (its
/// bounds at the start and the end in the surface's frame, grown by the target): the
/// earliest of [`surface_impacts`] (the first triangle found on a tie).
fn surface_time_of_impact(
    convex: &Shape,
    sweep: &Sweep,
    surface: &Shape,
    surface_sweep: &Sweep,
    settings: &ToiSettings,
) -> Option<Toi> {
    let mut earliest: Option<Toi> = None;
    surface_impacts(convex, sweep, surface, surface_sweep, settings, |toi, _| {
        if earliest.is_none_or(|e| toi.t < e.t) {
            earliest = Some(toi);
        }
    });
    earliest
}

/// Calls `visit` with the impact (its [`Toi::triangle`] set) and the triangle (surface
/// frame) for each triangle of a mesh or heightfield near the convex shape's swept path
/// that the shape meets: conservative advancement against each triangle on its own, in the
/// order the surface lists them. A one-sided mesh's triangles whose plane the shape's origin
/// starts behind are skipped (it may pass them from behind); a heightfield's never are.
pub fn surface_impacts(
    convex: &Shape,
    sweep: &Sweep,
    surface: &Shape,
    surface_sweep: &Sweep,
    settings: &ToiSettings,
    mut visit: impl FnMut(Toi, &Triangle),
) {
    let local = |t: f32| surface_sweep.pose_at(t).inv_mul_pose(&sweep.pose_at(t));
    let (start, end) = (convex.aabb(&local(0.0)), convex.aabb(&local(1.0)));
    let grow = Vec3::splat(settings.target + settings.tolerance);
    let bounds = Aabb::new(start.min.min(end.min) - grow, start.max.max(end.max) + grow);
    let center = local(0.0).position;
    let solid_below = matches!(surface, Shape::HeightField(_));
    let relative_motion = sweep.linear() - surface_sweep.linear();
    let reach = core_reach(convex, &sweep.local);
    let mut impact = |index: u32, triangle: &Triangle| {
        let behind = triangle.normal.dot(center - triangle.vertices[0]) < 0.0;
        if behind && !triangle.two_sided && !solid_below {
            return true;
        }
        let triangle_reach = triangle.vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
        let spin = sweep.angle() * reach + surface_sweep.angle() * triangle_reach;
        let gap_at = |t: f32| triangle_separation(convex, &sweep.pose_at(t), triangle, &surface_sweep.pose_at(t));
        if let Some(toi) = advance(gap_at, relative_motion, spin, settings) {
            visit(Toi { triangle: Some(index), ..toi }, triangle);
        }
        true
    };
    surface.for_each_triangle_in(&bounds, &mut impact);
}

/// The distance between a convex shape at `pose` and a triangle (surface frame) of a surface
/// at `surface_pose`, by GJK on the shape's core and the triangle; `None` when `convex` has
/// no core (a plane, mesh or heightfield).
pub fn triangle_separation(
    convex: &Shape,
    pose: &Pose,
    triangle: &Triangle,
    surface_pose: &Pose,
) -> Option<Separation> {
    let a = ConvexCore::from_shape(convex, pose)?;
    let b = ConvexCore { kind: CoreKind::Triangle(triangle.vertices), pose: *surface_pose, radius: 0.0 };
    let result = gjk(&a, &b, Vec3::ZERO);
    let distance = if result.overlapping { -a.radius } else { result.distance };
    Some(Separation { distance, normal: result.normal, point_a: result.point_a, point_b: result.point_b })
}

impl Toi {
    /// The same impact seen from the other shape.
    fn flipped(self) -> Self {
        Self { normal: -self.normal, point_a: self.point_b, point_b: self.point_a, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    const EXACT: ToiSettings = ToiSettings::EXACT;

    /// Two spheres of radii 0.5 and 0.3, centres 3 m apart along x, closing at 4 m over the
    /// interval: they touch when the gap 3 − 0.8 = 2.2 m is closed, at t = 2.2 / 4 = 0.55.
    #[test]
    fn spheres_hit_at_the_analytic_time() {
        let (a, b) = (Shape::sphere(0.5).unwrap(), Shape::sphere(0.3).unwrap());
        let sweep_a = Sweep::translation(Pose::IDENTITY, Vec3::new(3.0, 0.0, 0.0));
        let sweep_b = Sweep::translation(Pose::from_position(Vec3::new(3.0, 0.0, 0.0)), Vec3::new(-1.0, 0.0, 0.0));
        let hit = time_of_impact(&a, &sweep_a, &b, &sweep_b, &EXACT).unwrap();
        assert!((hit.t - 0.55).abs() < 1e-5, "{}", hit.t);
        assert!((hit.normal - Vec3::X).length() < 1e-5);
        assert!((hit.point_a - Vec3::new(2.15, 0.0, 0.0)).length() < 1e-4, "{}", hit.point_a);
        // Off-centre: centre offset 0.6 sideways; they touch when the x gap is √(0.8² − 0.6²).
        let sweep_b = Sweep::fixed(Pose::from_position(Vec3::new(3.0, 0.6, 0.0)));
        let hit = time_of_impact(&a, &sweep_a, &b, &sweep_b, &EXACT).unwrap();
        let expected = (3.0 - (0.64f32 - 0.36).sqrt()) / 3.0;
        assert!((hit.t - expected).abs() < 1e-5, "{} vs {expected}", hit.t);
        // The 5 mm target of continuous collision stops 5 mm (to 1.25 mm) short.
        let hit = time_of_impact(&a, &sweep_a, &b, &sweep_b, &ToiSettings::CONTINUOUS).unwrap();
        assert!(hit.distance >= 0.005 && hit.distance <= 0.00625, "{}", hit.distance);
    }

    /// Spheres that pass 1 m apart (radii sum 0.8) never hit, with or without spin.
    #[test]
    fn no_hit_when_they_pass_by() {
        let (a, b) = (Shape::sphere(0.5).unwrap(), Shape::cuboid(Vec3::splat(0.3)).unwrap());
        let sweep_a = Sweep::translation(Pose::IDENTITY, Vec3::new(6.0, 0.0, 0.0));
        let sweep_b =
            Sweep::from_velocity(Pose::from_position(Vec3::new(3.0, 1.4, 0.0)), Vec3::ZERO, Vec3::Z * 2.0, 1.0);
        assert_eq!(time_of_impact(&a, &sweep_a, &b, &sweep_b, &EXACT), None);
        let away = Sweep::translation(Pose::IDENTITY, Vec3::new(-6.0, 0.0, 0.0));
        assert_eq!(time_of_impact(&a, &away, &b, &Sweep::fixed(sweep_b.start), &EXACT), None);
    }

    /// A unit cube turned 45° about z (a corner down, 1/√2 below its centre) falls 2 m onto a
    /// box whose top is at y = 0, from a centre height of 1.5: the corner touches when the
    /// centre is at 1/√2, t = (1.5 − 1/√2) / 2. Turning meanwhile by 0.3 rad about x makes
    /// the corner reach lower sooner; the hit must lie before the untwisted time, with the
    /// shapes then exactly touching.
    #[test]
    fn rotated_box_falls_on_a_box() {
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        let floor = Shape::cuboid(Vec3::new(5.0, 0.5, 5.0)).unwrap();
        let floor_sweep = Sweep::fixed(Pose::from_position(Vec3::new(0.0, -0.5, 0.0)));
        let start = Pose::new(Vec3::new(0.0, 1.5, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
        let fall = Sweep::translation(start, Vec3::new(0.0, -2.0, 0.0));
        let hit = time_of_impact(&cube, &fall, &floor, &floor_sweep, &EXACT).unwrap();
        let expected = (1.5 - std::f32::consts::FRAC_1_SQRT_2) / 2.0;
        assert!((hit.t - expected).abs() < 1e-5, "{} vs {expected}", hit.t);
        assert!((hit.normal + Vec3::Y).length() < 1e-4, "{}", hit.normal);
        let twist = Sweep::from_velocity(start, Vec3::new(0.0, -2.0, 0.0), Vec3::X * 0.3, 1.0);
        let hit = time_of_impact(&cube, &twist, &floor, &floor_sweep, &EXACT).unwrap();
        assert!(hit.t < expected && hit.t > 0.2, "{}", hit.t);
        let gap = separation(&cube, &twist.pose_at(hit.t), &floor, &floor_sweep.start).unwrap();
        assert!(gap.distance.abs() < 2e-5, "{}", gap.distance);
    }

    /// A rod 1 m × 2 cm × 2 cm spinning at 1 rad per interval about z while it moves 1.5 m
    /// along x at a plate 1 cm thick 0.8 m away: it ends wholly past the plate (a discrete
    /// test would miss it); the hit comes first, with the rod then 5 mm (to 1.25 mm) away.
    #[test]
    fn spinning_rod_meets_a_thin_plate() {
        let rod = Shape::cuboid(Vec3::new(0.5, 0.01, 0.01)).unwrap();
        let plate = Shape::cuboid(Vec3::new(0.005, 2.0, 2.0)).unwrap();
        let plate_sweep = Sweep::fixed(Pose::from_position(Vec3::new(0.8, 0.0, 0.0)));
        let start = Pose::new(Vec3::ZERO, Quat::from_rotation_z(1.2));
        let sweep = Sweep::from_velocity(start, Vec3::new(1.5, 0.0, 0.0), Vec3::Z * 1.0, 1.0);
        let end_gap = separation(&rod, &sweep.end, &plate, &plate_sweep.start).unwrap();
        assert!(end_gap.distance > 0.0 && sweep.end.position.x > 0.8, "the rod ends past the plate");
        let hit = time_of_impact(&rod, &sweep, &plate, &plate_sweep, &ToiSettings::CONTINUOUS).unwrap();
        assert!(hit.t > 0.0 && hit.t < 1.0);
        assert!(hit.distance >= 0.005 && hit.distance <= 0.00625, "{}", hit.distance);
        // Nothing in between is closer: sample the sweep up to the hit.
        for k in 0..=100 {
            let t = hit.t * k as f32 / 100.0;
            let gap = separation(&rod, &sweep.pose_at(t), &plate, &plate_sweep.start).unwrap();
            assert!(gap.distance >= 0.005 - 1e-5, "t = {t}: {}", gap.distance);
        }
        eprintln!("rod: hit at t = {} after {} iterations", hit.t, hit.iterations);
    }

    /// A sphere falling on a plane touches when its centre is one radius above it.
    #[test]
    fn sphere_meets_a_plane() {
        let ball = Shape::sphere(0.25).unwrap();
        let ground = Shape::plane(Vec3::Y, 0.0).unwrap();
        let fall = Sweep::translation(Pose::from_position(Vec3::new(0.0, 1.25, 0.0)), Vec3::new(0.0, -4.0, 0.0));
        let hit = time_of_impact(&ball, &fall, &ground, &Sweep::fixed(Pose::IDENTITY), &EXACT).unwrap();
        assert!((hit.t - 0.25).abs() < 1e-5, "{}", hit.t);
        assert!((hit.normal + Vec3::Y).length() < 1e-6);
    }
}
