//! User constraints: the bead on the half-pipe of `examples/bead_halfpipe.rs` against the
//! analytic motion of a frictionless bead (on the curve, in the plane, back to the rim
//! height, the elliptic-integral period), an inequality row that only pushes (free fall
//! above it, m·g when resting on it, free flight after a kick), a friction-like bounded row
//! (μ·g deceleration), bad rows that must not reach other bodies, and the world API.

#[path = "../examples/bead_halfpipe.rs"]
#[allow(dead_code)]
mod bead_halfpipe;

use bead_halfpipe::{
    analytic_period, bead_world, bead_world_with, largest_errors, rightward_crossings, solver_step, turning_heights,
    BeadOnHalfPipe, HalfPipe,
};
use fulcrum::joint::{UserBody, UserConstraint, UserRow, UserRows};
use fulcrum::prelude::*;
use fulcrum::UserConstraintId;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

/// The solver settings every physics test runs in.
fn solvers() -> [(&'static str, SolverSettings); 3] {
    [
        ("soft step", SolverSettings::default()),
        ("pgs + ngs", SolverSettings::pgs(PositionCorrection::Ngs)),
        ("pgs + baumgarte", SolverSettings::pgs(PositionCorrection::Baumgarte)),
    ]
}

/// The bead released at rest on the left rim (height 1 m) stays on the curve within 1 mm
/// and in the plane z = 0 within 1 mm although gravity also pulls it out of the plane
/// (3 m/s² along z), turns at 1 m within 2% at each of the six rims it reaches in 10 s,
/// keeps its energy within 2%, and swings with the analytic period within 1%. The energy is
/// the one symplectic Euler conserves exactly in free fall, ½v² + g·y − ½·g·h·v_y (h the
/// solver step; see `Sample::energy`).
#[test]
fn bead_stays_on_the_half_pipe_and_keeps_its_energy() {
    let pipe = HalfPipe::STANDARD;
    for (name, solver) in solvers() {
        let (mut world, bead) = bead_world(pipe, solver);
        world.set_gravity(Vec3::new(0.0, -G, 3.0)).unwrap();
        let samples = bead_halfpipe::run(&mut world, bead, 10.0);
        let (off_curve, off_plane) = largest_errors(pipe, &samples);
        let turns = turning_heights(&samples);
        let worst_turn = turns.iter().map(|&(_, y)| (y - 1.0).abs()).fold(0.0, f32::max);
        let h = solver_step(&solver);
        let energy_change = samples.iter().map(|s| (s.energy(h) / G - 1.0).abs()).fold(0.0, f32::max);
        let crossings = rightward_crossings(&samples);
        let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32;
        let expected_period = analytic_period(pipe);
        eprintln!(
            "bead ({name}): off curve {:.4} mm, off plane {:.4} mm, {} turns, worst turn {:.3}% from 1 m, \
             energy change {:.3}%, period {period:.4} s vs {expected_period:.4} s",
            off_curve * 1e3,
            off_plane * 1e3,
            turns.len(),
            worst_turn * 100.0,
            energy_change * 100.0
        );
        assert!(off_curve < 1e-3, "{name}: {off_curve} m off the curve");
        assert!(off_plane < 1e-3, "{name}: {off_plane} m off the plane");
        assert!(turns.len() >= 6, "{name}: only {} turns", turns.len());
        assert!(worst_turn < 0.02, "{name}: turned {worst_turn} from the rim height");
        assert!(energy_change < 0.02, "{name}: energy changed by {energy_change}");
        assert!((period / expected_period - 1.0).abs() < 0.01, "{name}: period {period}");
    }
}

/// The plain rows of the brief (Ċ = 0 on the normal row, no look-ahead) also keep the bead
/// within 1 mm of the curve and its turns within 2% of 1 m in the soft step: its position
/// bias supplies the inward velocity the look-ahead asks for once the error has settled.
/// (In pgs at 60 Hz the plain row loses about 11% of the energy per pass; see the example.)
#[test]
fn plain_normal_row_holds_in_the_soft_step() {
    let pipe = HalfPipe::STANDARD;
    let (mut world, bead) = bead_world_with(BeadOnHalfPipe { pipe, look_ahead: false }, SolverSettings::default());
    let samples = bead_halfpipe::run(&mut world, bead, 10.0);
    let (off_curve, _) = largest_errors(pipe, &samples);
    let turns = turning_heights(&samples);
    let worst_turn = turns.iter().map(|&(_, y)| (y - 1.0).abs()).fold(0.0, f32::max);
    eprintln!(
        "plain row (soft step): off curve {:.4} mm, {} turns, worst turn {:.3}% from 1 m",
        off_curve * 1e3,
        turns.len(),
        worst_turn * 100.0
    );
    assert!(off_curve < 1e-3, "{off_curve} m off the curve");
    assert!(turns.len() >= 6 && worst_turn < 0.02, "turns {turns:?}");
}

/// The normal row's force is the analytic normal force on the bead: m·g on the bottom, and
/// m·(g + v²/R) at the foot of an arc (where the speed is √(2gR) whatever the solver).
#[test]
fn bead_normal_force_is_the_centripetal_load() {
    let pipe = HalfPipe::STANDARD;
    let (mut world, bead) = bead_world(pipe, SolverSettings::default());
    let mass = world.body(bead).unwrap().mass();
    let samples = bead_halfpipe::run(&mut world, bead, 1.6);
    let on_bottom = samples.iter().find(|s| s.position.x.abs() < 0.5).unwrap();
    let bottom_error = on_bottom.normal_force / (mass * G) - 1.0;
    // The first sample on the right arc just past its foot: speed and direction measured.
    let on_arc = samples.iter().find(|s| s.position.x > 1.02).unwrap();
    let closest = pipe.closest(on_arc.position);
    let expected = mass * (G * closest.normal.y + on_arc.velocity.length_squared() / pipe.radius);
    let arc_error = on_arc.normal_force / expected - 1.0;
    eprintln!(
        "normal force: bottom {:.4} N vs m·g {:.4} N; arc {:.4} N vs {expected:.4} N",
        on_bottom.normal_force,
        mass * G,
        on_arc.normal_force
    );
    assert!(bottom_error.abs() < 1e-3, "bottom: {bottom_error}");
    assert!(arc_error.abs() < 0.03, "arc: {arc_error}");
}

/// A floor of the user's own at y = 0 under a ball of radius `radius`: one inequality row
/// C = y − radius ≥ 0 on the ball's centre, plus optional friction rows along x and z
/// bounded by ±μ times the floor row's force.
struct Floor {
    radius: f32,
    friction: Option<f32>,
}

impl UserConstraint for Floor {
    fn rows(&mut self, world: &UserBody, ball: &UserBody, rows: &mut UserRows) -> fulcrum::Result<()> {
        let center = ball.center_of_mass();
        let contact = Vec3::new(center.x, 0.0, center.z);
        let lift = Vec3::new(0.0, self.radius, 0.0);
        rows.push(UserRow::between_points(Vec3::Y, contact + lift, center, world, ball).inequality())?;
        if let Some(mu) = self.friction {
            let bound = mu * rows.force(0);
            for axis in [Vec3::X, Vec3::Z] {
                rows.push(UserRow::between_points(axis, center, center, world, ball).bounded(-bound, bound))?;
            }
        }
        Ok(())
    }
}

/// A ball of `radius` and 2 kg at `position`, without collisions with anything.
fn ball(world: &mut World, position: Vec3, radius: f32) -> BodyId {
    let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::sphere(radius).unwrap())).unwrap();
    world.set_mass(body, Some(2.0)).unwrap();
    body
}

fn world_with(solver: SolverSettings) -> World {
    World::new(WorldSettings { solver, sleep: false, ..Default::default() }).unwrap()
}

/// The symplectic Euler recurrence of motion under gravity from (`y0`, `v0`): (height,
/// velocity) after each of `steps` steps of `substeps` substeps.
fn free_fall(y0: f32, v0: f32, steps: usize, substeps: u32) -> Vec<(f32, f32)> {
    let h = DT / substeps as f32;
    let (mut y, mut v) = (y0, v0);
    let mut states = Vec::with_capacity(steps);
    for _ in 0..steps {
        for _ in 0..substeps {
            v -= G * h;
            y += v * h;
        }
        states.push((y, v));
    }
    states
}

/// The symplectic Euler recurrence of a slide from `v0` decelerated at `deceleration` until
/// it stops: the distance after `steps` steps of `substeps` substeps.
fn slide(v0: f32, deceleration: f32, steps: usize, substeps: u32) -> f32 {
    let h = DT / substeps as f32;
    let (mut x, mut v) = (0.0, v0);
    for _ in 0..steps * substeps as usize {
        v = (v - deceleration * h).max(0.0);
        x += v * h;
    }
    x
}

/// Solver substeps per step (1 in pgs).
fn substeps(solver: &SolverSettings) -> u32 {
    if solver.mode == SolverMode::SoftStep {
        WorldSettings::default().substeps
    } else {
        1
    }
}

/// An inequality row only pushes: a ball dropped from 1 m above the user floor falls as in
/// free fall until it is within a step of the floor (the speculative row does nothing
/// before), rests on it with the row's force m·g, and when kicked up at 3 m/s flies off
/// again (the row never pulls) exactly as the free-flight recurrence (v²/2g less v·h/2 at
/// step ends). Its force is never negative.
#[test]
fn inequality_row_only_pushes() {
    let radius = 0.1;
    for (name, solver) in solvers() {
        let substeps = substeps(&solver);
        let mut world = world_with(solver);
        let body = ball(&mut world, Vec3::new(0.0, 1.0 + radius, 0.0), radius);
        let floor = world.create_user_constraint(None, body, Box::new(Floor { radius, friction: None })).unwrap();
        let mut least_force = f32::INFINITY;
        let mut step = |world: &mut World| {
            world.step(DT).unwrap();
            let force = world.user_constraint(floor).unwrap().reaction().row_forces[0];
            least_force = least_force.min(force);
        };
        for _ in 0..20 {
            step(&mut world);
        }
        let (expected_y, expected_v) = free_fall(1.0 + radius, 0.0, 20, substeps)[19];
        let body_now = world.body(body).unwrap();
        let fall_error = (body_now.position().y - expected_y).abs() + (body_now.linear_velocity().y - expected_v).abs();
        for _ in 0..100 {
            step(&mut world);
        }
        let rest = world.body(body).unwrap().position().y - radius;
        let kicked_from = world.body(body).unwrap().position().y;
        let resting_force = world.user_constraint(floor).unwrap().reaction().force_b;
        world.set_linear_velocity(body, Vec3::new(0.0, 3.0, 0.0)).unwrap();
        let mut apex = 0.0f32;
        for _ in 0..60 {
            step(&mut world);
            apex = apex.max(world.body(body).unwrap().position().y - kicked_from);
        }
        let flight = free_fall(0.0, 3.0, 60, substeps);
        let expected_apex = flight.iter().map(|s| s.0).fold(0.0, f32::max);
        eprintln!(
            "inequality row ({name}): free-fall error {fall_error:.2e}, rest at {:.3} mm, resting force {:.4} N \
             vs {:.4} N, apex {apex:.4} m vs {expected_apex:.4} m, least force {least_force:.3e} N",
            rest * 1e3,
            resting_force.y,
            2.0 * G
        );
        assert!(fall_error < 1e-4, "{name}: the row acted before contact ({fall_error})");
        assert!(rest.abs() < 1e-3, "{name}: rests {rest} m from the floor");
        assert!((resting_force.y / (2.0 * G) - 1.0).abs() < 0.01, "{name}: resting force {resting_force}");
        assert!(resting_force.x.abs() + resting_force.z.abs() < 1e-4, "{name}: sideways {resting_force}");
        assert!((apex - expected_apex).abs() < 1e-4, "{name}: apex {apex}");
        assert!(least_force >= 0.0, "{name}: the row pulled with {least_force} N");
    }
}

/// A bounded (friction-like) row: a ball sliding at 3 m/s on the user floor with friction
/// rows bounded by μ times the floor row's force (μ = 0.5) decelerates at μ·g and stops
/// where the recurrence of that deceleration stops (v²/(2μg) = 0.917 m less v·h/2), within
/// 0.1%, and stays there.
#[test]
fn bounded_rows_give_coulomb_friction() {
    let (radius, mu, v0) = (0.1, 0.5, 3.0);
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        let body = ball(&mut world, Vec3::new(0.0, radius, 0.0), radius);
        world.create_user_constraint(None, body, Box::new(Floor { radius, friction: Some(mu) })).unwrap();
        world.step(DT).unwrap();
        world.set_linear_velocity(body, Vec3::new(v0, 0.0, 0.0)).unwrap();
        let start = world.body(body).unwrap().position().x;
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        let slid = world.body(body).unwrap().position().x - start;
        let speed = world.body(body).unwrap().linear_velocity().length();
        let expected = slide(v0, mu * G, 120, substeps(&solver));
        eprintln!(
            "friction rows ({name}): slid {slid:.4} m vs {expected:.4} m (v²/2μg = {:.4} m), final speed {speed:.2e} m/s",
            v0 * v0 / (2.0 * mu * G)
        );
        assert!((slid / expected - 1.0).abs() < 1e-3, "{name}: slid {slid} m");
        assert!(speed < 1e-3, "{name}: still moving at {speed}");
    }
}

/// Returns rows that go bad: NaN from the `from_call`-th call on (0: always), in the error
/// or in a Jacobian; or an `Err`; or seven rows.
struct Broken {
    calls: usize,
    from_call: usize,
    fault: Fault,
}

#[derive(Clone, Copy)]
enum Fault {
    NanError,
    NanJacobian,
    Refuse,
    TooManyRows,
}

impl UserConstraint for Broken {
    fn rows(&mut self, a: &UserBody, b: &UserBody, rows: &mut UserRows) -> fulcrum::Result<()> {
        self.calls += 1;
        let bad = self.calls > self.from_call;
        let center = b.center_of_mass();
        let mut row = UserRow::between_points(Vec3::Y, a.center_of_mass(), center, a, b);
        row.error = 0.0;
        match self.fault {
            Fault::NanError if bad => row.error = f32::NAN,
            Fault::NanJacobian if bad => row.linear_b = Vec3::new(f32::NAN, 1.0, 0.0),
            Fault::Refuse if bad => return Err(fulcrum::Error::new("curve", "left the curve's domain")),
            Fault::TooManyRows if bad => {
                for _ in 0..6 {
                    let _ = rows.push(row);
                }
            }
            _ => {}
        }
        rows.push(row)
    }
}

/// Free-falling balls next to bodies whose user constraints go bad (NaN errors, NaN
/// Jacobians, an `Err` from the user's code, too many rows; from the first call or in the
/// middle of a step) move bit for bit as in a world without them; the broken constraints'
/// own bodies stay finite and enabled, and every failure is reported each step with the
/// field at fault.
#[test]
fn bad_rows_do_not_corrupt_other_bodies() {
    for (name, solver) in solvers() {
        let mut reference = world_with(solver);
        let mut world = world_with(solver);
        let free: Vec<Vec3> = (0..3).map(|i| Vec3::new(3.0 * i as f32, 2.0, 0.0)).collect();
        let reference_balls: Vec<BodyId> = free.iter().map(|&p| ball(&mut reference, p, 0.2)).collect();
        let balls: Vec<BodyId> = free.iter().map(|&p| ball(&mut world, p, 0.2)).collect();
        let faults = [Fault::NanError, Fault::NanJacobian, Fault::Refuse, Fault::TooManyRows];
        let mut broken = Vec::new();
        for (i, fault) in faults.into_iter().enumerate() {
            for from_call in [0, 5] {
                let position = Vec3::new(-3.0 * (i + 1) as f32, 2.0, 4.0 * from_call as f32);
                let body = ball(&mut world, position, 0.2);
                let constraint = Broken { calls: 0, from_call, fault };
                // Body A is one of the free balls for half of them: it must not be touched.
                let body_a = (from_call == 5).then_some(balls[i % balls.len()]);
                broken.push((body, world.create_user_constraint(body_a, body, Box::new(constraint)).unwrap()));
            }
        }
        let mut failures = 0;
        for _ in 0..30 {
            reference.step(DT).unwrap();
            world.step(DT).unwrap();
            failures += world.events().user_constraint_failures.len();
            for (&a, &b) in balls.iter().zip(&reference_balls) {
                let (got, want) = (world.body(a).unwrap(), reference.body(b).unwrap());
                assert_eq!(got.position(), want.position(), "{name}: a free ball moved differently");
                assert_eq!(got.linear_velocity(), want.linear_velocity(), "{name}");
            }
        }
        let fields: Vec<String> =
            world.events().user_constraint_failures.iter().map(|f| f.error.field.clone()).collect();
        eprintln!("bad rows ({name}): {failures} failures reported in 30 steps; last step's fields {fields:?}");
        assert_eq!(failures, 30 * broken.len(), "{name}: every broken constraint reported every step");
        assert!(fields.iter().any(|f| f == "rows[0].error"), "{name}: {fields:?}");
        assert!(fields.iter().any(|f| f == "rows[0].linear_b[0]"), "{name}: {fields:?}");
        assert!(fields.iter().any(|f| f == "curve"), "{name}: {fields:?}");
        assert!(fields.iter().any(|f| f == "rows"), "{name}: {fields:?}");
        for &(body, constraint) in &broken {
            let state = world.body(body).unwrap();
            assert!(state.position().is_finite() && state.linear_velocity().is_finite(), "{name}");
            assert!(world.events().disabled_bodies.is_empty(), "{name}: a body was disabled");
            assert_eq!(world.user_constraint(constraint).unwrap().reaction().row_count, 0, "{name}");
        }
    }
}

/// A ball joint of the user's own: the point `local_b` of B (body frame) held at the world
/// point `pivot`, three equality rows solved as one block.
struct UserBallJoint {
    pivot: Vec3,
    local_b: Vec3,
}

impl UserConstraint for UserBallJoint {
    fn rows(&mut self, a: &UserBody, b: &UserBody, rows: &mut UserRows) -> fulcrum::Result<()> {
        let anchor = b.transform_point(self.local_b);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            rows.push(UserRow::between_points(axis, self.pivot, anchor, a, b))?;
        }
        Ok(())
    }
}

/// A physical pendulum on a user ball joint: a 1 m × 0.1 m × 0.1 m bar hung from the
/// centre of its top face, released at 10°, swings with the period 2π·√(I/(m·g·d))·1.0019
/// (I about the pivot, d = 0.5 m) within 0.5% and keeps its pivot within 1 mm, in every
/// solver mode: the rows' angular parts (lever arm 0.5 m) are right.
#[test]
fn user_ball_joint_swings_a_physical_pendulum() {
    let (half, d, amplitude) = (Vec3::new(0.05, 0.5, 0.05), 0.5f32, 10f32.to_radians());
    let inertia_ratio = (4.0 * half.y * half.y + 4.0 * half.x * half.x) / 12.0 + d * d;
    let expected = std::f32::consts::TAU * (inertia_ratio / (G * d)).sqrt() * 1.0019;
    let pivot = Vec3::new(0.0, 2.0, 0.0);
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        let rotation = Quat::from_rotation_z(amplitude);
        let center = pivot - rotation * Vec3::new(0.0, d, 0.0);
        let bar = world.create_body(&BodyDef::dynamic(center).with_rotation(rotation)).unwrap();
        world.create_collider(bar, &ColliderDef::new(Shape::cuboid(half).unwrap())).unwrap();
        let joint = UserBallJoint { pivot, local_b: Vec3::new(0.0, d, 0.0) };
        world.create_user_constraint(None, bar, Box::new(joint)).unwrap();
        let (mut crossings, mut previous, mut gap) = (Vec::new(), center.x - pivot.x, 0.0f32);
        for step in 1..=600 {
            world.step(DT).unwrap();
            let pose = world.body(bar).unwrap().pose();
            gap = gap.max((pose.transform_point(Vec3::new(0.0, d, 0.0)) - pivot).length());
            let x = world.body(bar).unwrap().center_of_mass().x - pivot.x;
            if previous < 0.0 && x >= 0.0 {
                crossings.push((step as f32 - x / (x - previous)) * DT);
            }
            previous = x;
        }
        let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32;
        eprintln!("user ball joint ({name}): period {period:.4} s vs {expected:.4} s, pivot gap {:.4} mm", gap * 1e3);
        assert!((period / expected - 1.0).abs() < 0.005, "{name}: period {period}");
        assert!(gap < 1e-3, "{name}: pivot opened {gap} m");
    }
}

/// Keeps B's centre `height` above A's (above y = 0 for the world): one equality row on y.
struct Height {
    height: f32,
}

impl UserConstraint for Height {
    fn rows(&mut self, a: &UserBody, b: &UserBody, rows: &mut UserRows) -> fulcrum::Result<()> {
        let center = b.center_of_mass();
        let target = Vec3::new(center.x, a.center_of_mass().y + self.height, center.z);
        rows.push(UserRow::between_points(Vec3::Y, target, center, a, b))
    }
}

fn height_of(world: &World, id: UserConstraintId) -> f32 {
    world.user_constraint(id).unwrap().constraint().downcast_ref::<Height>().unwrap().height
}

/// The world API: creation refuses bad bodies with the field named; the constraint reads
/// back as its own type; changing it through `user_constraint_mut` wakes its sleeping body,
/// which then moves to the new height; the reaction is m·g; a disabled constraint lets go;
/// destroying the body destroys its constraints; destroying a constraint hands it back.
#[test]
fn world_api_creates_reads_changes_and_destroys() {
    let mut world = World::default();
    let body = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), 0.1);
    let other = ball(&mut world, Vec3::new(2.0, 1.0, 0.0), 0.1);
    let refused = world.create_user_constraint(Some(body), body, Box::new(Height { height: 1.0 })).unwrap_err();
    assert_eq!(refused.field, "body_b");
    world.destroy_body(other).unwrap();
    let stale = world.create_user_constraint(None, other, Box::new(Height { height: 1.0 })).unwrap_err();
    assert_eq!(stale.field, "body_b");

    let id = world.create_user_constraint(None, body, Box::new(Height { height: 1.0 })).unwrap();
    assert_eq!(world.user_constraint_count(), 1);
    assert_eq!(
        (world.user_constraint(id).unwrap().body_a(), world.user_constraint(id).unwrap().body_b()),
        (None, body)
    );
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    let reaction = world.user_constraint(id).unwrap().reaction();
    eprintln!("api: resting reaction {:?} N (m·g = {:.3} N)", reaction.force_b, 2.0 * G);
    assert!((reaction.force_b.y / (2.0 * G) - 1.0).abs() < 1e-3);
    assert!(world.body(body).unwrap().is_sleeping(), "the held ball falls asleep");

    world.user_constraint_mut(id).unwrap().downcast_mut::<Height>().unwrap().height = 1.5;
    assert!(!world.body(body).unwrap().is_sleeping(), "changing the constraint wakes the body");
    assert_eq!(height_of(&world, id), 1.5);
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let y = world.body(body).unwrap().position().y;
    assert!((y - 1.5).abs() < 1e-3, "moved to the new height: {y}");

    world.set_user_constraint_enabled(id, false).unwrap();
    for _ in 0..10 {
        world.step(DT).unwrap();
    }
    assert!(world.body(body).unwrap().position().y < 1.4, "a disabled constraint lets go");
    world.set_user_constraint_enabled(id, true).unwrap();

    let handed_back = world.destroy_user_constraint(id).unwrap();
    assert_eq!(handed_back.downcast_ref::<Height>().map(|h| h.height), Some(1.5));
    assert!(world.user_constraint(id).is_none());
    assert!(world.destroy_user_constraint(id).is_err());

    let again = world.create_user_constraint(None, body, Box::new(Height { height: 1.0 })).unwrap();
    world.destroy_body(body).unwrap();
    assert!(world.user_constraint(again).is_none(), "destroying the body destroyed its constraint");
    assert_eq!(world.user_constraint_count(), 0);
}

/// Two bodies joined by a user constraint form one sleeping island: they fall asleep
/// together, and an impulse on one wakes the other at once.
#[test]
fn constrained_bodies_sleep_and_wake_together() {
    let mut world = World::new(WorldSettings { gravity: Vec3::ZERO, ..Default::default() }).unwrap();
    let a = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), 0.1);
    let b = ball(&mut world, Vec3::new(1.0, 1.0, 0.0), 0.1);
    world.create_user_constraint(Some(a), b, Box::new(Height { height: 0.0 })).unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    assert!(world.body(a).unwrap().is_sleeping() && world.body(b).unwrap().is_sleeping(), "both asleep");
    world.apply_impulse(a, Vec3::new(0.0, 1.0, 0.0)).unwrap();
    assert!(!world.body(b).unwrap().is_sleeping(), "waking one wakes the other");
}
