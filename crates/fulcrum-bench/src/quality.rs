//! Quality figures computed from body poses, velocities and the scene description alone, so
//! every engine is judged by the same code.
//!
//! Keys, as in SCENES.md: `top_drop_m`, `top_drift_m`, `max_joint_gap_m`, `max_penetration_m`,
//! plus `max_speed_end_mps` (the terrain scenes' "fastest body at the end": the largest linear
//! speed of a dynamic body after the last step, in metres per second). Most figures are taken
//! from the final state; the terrain scenes' `max_penetration_m` is the deepest over every
//! step, gathered by a [`QualityRecorder`].

use crate::scenes::{QualityDesc, SceneDesc, ShapeDesc};
use crate::terrain::HeightGrid;

/// World pose of one body: position in metres and rotation as a unit quaternion
/// `[x, y, z, w]` (vector part first, scalar last, as glam and nalgebra store it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyPose {
    /// Position of the body origin, in metres.
    pub position: [f32; 3],
    /// Unit quaternion `[x, y, z, w]` rotating body-local vectors into world vectors.
    pub rotation: [f32; 4],
}

impl BodyPose {
    /// The pose at `position` with the identity rotation.
    pub fn at(position: [f32; 3]) -> Self {
        Self { position, rotation: [0.0, 0.0, 0.0, 1.0] }
    }

    /// Maps a body-local point (metres) to world coordinates: p + q v q*.
    pub fn transform_point(&self, local: [f32; 3]) -> [f32; 3] {
        add(self.position, rotate(self.rotation, local))
    }

    /// Maps a world point (metres) to body-local coordinates: q* (p_world - p) q.
    pub fn inverse_transform_point(&self, world: [f32; 3]) -> [f32; 3] {
        let [x, y, z, w] = self.rotation;
        rotate([-x, -y, -z, w], sub(world, self.position))
    }
}

/// The quality figures of one run; a figure the scene does not define is `None`.
/// Non-finite poses give NaN figures (written as JSON `null`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quality {
    /// Largest drop (initial minus final height, metres) of a tracked top cube.
    pub top_drop_m: Option<f64>,
    /// Largest horizontal (x, z) distance of a tracked top cube from its start, metres.
    pub top_drift_m: Option<f64>,
    /// Largest distance between the two world anchors of any joint, metres.
    pub max_joint_gap_m: Option<f64>,
    /// Deepest overlap of two colliding spheres or of a sphere and a box, or (terrain scenes)
    /// deepest body centre under the ground surface at any recorded step, metres (>= 0).
    pub max_penetration_m: Option<f64>,
    /// Largest linear speed of a dynamic body at the end, metres per second.
    pub max_speed_end_mps: Option<f64>,
}

impl Quality {
    /// The defined figures as `(key, value)` pairs in the key order of SCENES.md.
    pub fn entries(&self) -> Vec<(&'static str, f64)> {
        let all = [
            ("top_drop_m", self.top_drop_m),
            ("top_drift_m", self.top_drift_m),
            ("max_joint_gap_m", self.max_joint_gap_m),
            ("max_penetration_m", self.max_penetration_m),
            ("max_speed_end_mps", self.max_speed_end_mps),
        ];
        all.into_iter().filter_map(|(key, value)| value.map(|v| (key, v))).collect()
    }

    /// Whether two runs gave bit-identical figures (NaN equals NaN here).
    pub fn same_bits(&self, other: &Quality) -> bool {
        let bits = |q: &Quality| q.entries().iter().map(|(_, v)| v.to_bits()).collect::<Vec<_>>();
        bits(self) == bits(other)
    }
}

/// Gathers the quality figures of one run: [`Self::record_step`] after every step when
/// [`Self::wants_every_step`], then [`Self::finish`] with the final state.
#[derive(Clone, Debug)]
pub struct QualityRecorder<'a> {
    scene: &'a SceneDesc,
    /// Deepest body centre under the terrain surface over the recorded steps, metres (>= 0).
    deepest_under_surface_m: f64,
}

impl<'a> QualityRecorder<'a> {
    /// A recorder for one run of `scene`, with nothing recorded yet.
    pub fn new(scene: &'a SceneDesc) -> Self {
        Self { scene, deepest_under_surface_m: 0.0 }
    }

    /// Whether the scene's figures need the poses after every step (the terrain scenes).
    pub fn wants_every_step(&self) -> bool {
        matches!(self.scene.quality, QualityDesc::Terrain { .. })
    }

    /// Records the `poses` after one step (a no-op for scenes judged on their final state).
    /// Errors when the number of poses differs from the number of bodies.
    pub fn record_step(&mut self, poses: &[BodyPose]) -> Result<(), String> {
        check_count(self.scene, "poses", poses.len())?;
        if let QualityDesc::Terrain { surface } = &self.scene.quality {
            let depth = deepest_under_surface(self.scene, surface, poses);
            self.deepest_under_surface_m = max_or_nan(self.deepest_under_surface_m, depth);
        }
        Ok(())
    }

    /// The run's figures from the final `poses` and linear `velocities` (m/s), one each per
    /// body in description order: [`measure_quality`] of the final poses, and for the terrain
    /// scenes the deepest penetration over the recorded steps and the final state, and
    /// `max_speed_end_mps`. Errors when a count differs from the number of bodies.
    pub fn finish(&self, poses: &[BodyPose], velocities: &[[f32; 3]]) -> Result<Quality, String> {
        check_count(self.scene, "velocities", velocities.len())?;
        let mut quality = measure_quality(self.scene, poses)?;
        if let QualityDesc::Terrain { .. } = self.scene.quality {
            let final_depth = quality.max_penetration_m.unwrap_or(0.0);
            quality.max_penetration_m = Some(max_or_nan(self.deepest_under_surface_m, final_depth));
            quality.max_speed_end_mps = Some(max_dynamic_speed(self.scene, velocities));
        }
        Ok(quality)
    }
}

/// Errors unless the engine returned one `what` per body of `scene`.
fn check_count(scene: &SceneDesc, what: &str, count: usize) -> Result<(), String> {
    if count == scene.bodies.len() {
        return Ok(());
    }
    Err(format!("scene `{}` has {} bodies but the engine returned {count} {what}", scene.name, scene.bodies.len()))
}

/// Computes the scene's quality figures that depend on the final `poses` alone (one per body,
/// in description order); for the terrain scenes that is the penetration of this state only.
/// Errors when the number of poses differs from the number of bodies.
pub fn measure_quality(scene: &SceneDesc, poses: &[BodyPose]) -> Result<Quality, String> {
    check_count(scene, "poses", poses.len())?;
    let mut quality = Quality::default();
    match &scene.quality {
        QualityDesc::TopCubes { tracked, report_drift } => {
            let (drop, drift) = top_cube_figures(tracked, poses);
            quality.top_drop_m = Some(drop);
            quality.top_drift_m = report_drift.then_some(drift);
        }
        QualityDesc::JointGap => quality.max_joint_gap_m = Some(max_joint_gap(scene, poses)),
        QualityDesc::Penetration => quality.max_penetration_m = Some(max_penetration(scene, poses)),
        QualityDesc::Terrain { surface } => {
            quality.max_penetration_m = Some(deepest_under_surface(scene, surface, poses));
        }
    }
    Ok(quality)
}

/// max over dynamic bodies of (surface height at the centre's x, z) − (centre's y), both
/// relative to the ground body's position, or 0 when no centre is under the surface. Centres
/// beyond the grid's x, z extent are not under it; a non-finite centre gives NaN.
fn deepest_under_surface(scene: &SceneDesc, surface: &HeightGrid, poses: &[BodyPose]) -> f64 {
    let origin = scene.ground.map_or([0.0; 3], |ground| poses[ground].position).map(f64::from);
    let mut deepest = 0.0f64;
    let dynamic = scene.bodies.iter().zip(poses).filter(|(body, _)| !body.is_static);
    for (_, pose) in dynamic {
        let [x, y, z] = pose.position.map(f64::from);
        if ![x, y, z].iter().all(|c| c.is_finite()) {
            return f64::NAN;
        }
        if let Some(height) = surface.surface_height(x - origin[0], z - origin[2]) {
            deepest = deepest.max(height + origin[1] - y);
        }
    }
    deepest
}

/// max over dynamic bodies of |v|, in metres per second (0 without dynamic bodies).
fn max_dynamic_speed(scene: &SceneDesc, velocities: &[[f32; 3]]) -> f64 {
    let dynamic = scene.bodies.iter().zip(velocities).filter(|(body, _)| !body.is_static);
    dynamic.fold(0.0, |fastest, (_, &velocity)| max_or_nan(fastest, length(velocity)))
}

/// Largest NaN-propagating maximum: once a NaN is seen the result stays NaN.
fn max_or_nan(current: f64, candidate: f64) -> f64 {
    if current.is_nan() || candidate.is_nan() {
        f64::NAN
    } else {
        current.max(candidate)
    }
}

/// drop = y0 - y, drift = sqrt((x - x0)^2 + (z - z0)^2), each maximised over tracked bodies.
fn top_cube_figures(tracked: &[crate::scenes::TrackedBody], poses: &[BodyPose]) -> (f64, f64) {
    let mut largest_drop = f64::NEG_INFINITY;
    let mut largest_drift = 0.0f64;
    for body in tracked {
        let start = body.initial_position;
        let end = poses[body.body].position;
        let drop = f64::from(start[1]) - f64::from(end[1]);
        let dx = f64::from(end[0]) - f64::from(start[0]);
        let dz = f64::from(end[2]) - f64::from(start[2]);
        largest_drop = max_or_nan(largest_drop, drop);
        largest_drift = max_or_nan(largest_drift, (dx * dx + dz * dz).sqrt());
    }
    (largest_drop, largest_drift)
}

/// gap = |(p_a + R_a r_a) - (p_b + R_b r_b)|, maximised over joints (0 without joints).
fn max_joint_gap(scene: &SceneDesc, poses: &[BodyPose]) -> f64 {
    let mut largest = 0.0f64;
    for joint in &scene.joints {
        let anchor_a = poses[joint.body_a].transform_point(joint.local_anchor_a);
        let anchor_b = poses[joint.body_b].transform_point(joint.local_anchor_b);
        largest = max_or_nan(largest, length(sub(anchor_a, anchor_b)));
    }
    largest
}

/// Deepest overlap among sphere/sphere pairs (r_a + r_b - |c_a - c_b|) and sphere/box pairs
/// (see [`sphere_box_penetration`]) that may collide; 0 when nothing overlaps. Other shapes
/// are not judged here.
///
/// Sphere pairs are found by sweep and prune along x: spheres sorted by c_x - r, and a sphere
/// is only tested against later ones whose interval start lies before its own interval end.
fn max_penetration(scene: &SceneDesc, poses: &[BodyPose]) -> f64 {
    let mut spheres: Vec<(usize, f32)> = Vec::new();
    let mut boxes: Vec<(usize, [f32; 3])> = Vec::new();
    for (index, body) in scene.bodies.iter().enumerate() {
        match body.shape {
            ShapeDesc::Sphere { radius } => spheres.push((index, radius)),
            ShapeDesc::Box { half_extents } => boxes.push((index, half_extents)),
            _ => {}
        }
    }
    let mut deepest = 0.0f64;
    for &(sphere, radius) in &spheres {
        let centre = poses[sphere].position;
        for &(cuboid, half_extents) in &boxes {
            if scene.may_collide(sphere, cuboid) {
                let depth = sphere_box_penetration(centre, radius, &poses[cuboid], half_extents);
                deepest = max_or_nan(deepest, depth);
            }
        }
    }
    max_or_nan(deepest, max_sphere_sphere_penetration(scene, poses, &mut spheres))
}

/// Sweep-and-prune part of [`max_penetration`] for the sphere pairs.
fn max_sphere_sphere_penetration(scene: &SceneDesc, poses: &[BodyPose], spheres: &mut [(usize, f32)]) -> f64 {
    let start_x = |&(index, radius): &(usize, f32)| poses[index].position[0] - radius;
    if spheres.iter().any(|s| !start_x(s).is_finite()) {
        return f64::NAN;
    }
    spheres.sort_by(|a, b| start_x(a).total_cmp(&start_x(b)));
    let mut deepest = 0.0f64;
    for (slot, &(index_a, radius_a)) in spheres.iter().enumerate() {
        let centre_a = poses[index_a].position;
        let end_x = centre_a[0] + radius_a;
        for &(index_b, radius_b) in &spheres[slot + 1..] {
            if poses[index_b].position[0] - radius_b > end_x {
                break;
            }
            if !scene.may_collide(index_a, index_b) {
                continue;
            }
            let distance = length(sub(centre_a, poses[index_b].position));
            let depth = f64::from(radius_a) + f64::from(radius_b) - distance;
            deepest = max_or_nan(deepest, depth);
        }
    }
    deepest
}

/// Overlap depth of a sphere (centre `centre`, radius r) with a box of half extents h at
/// `box_pose`, in metres; <= 0 when apart.
///
/// With c the centre in box coordinates: outside the box, depth = r - |c - clamp(c, -h, h)|;
/// inside, depth = r + min_i (h_i - |c_i|) (the distance to the nearest face plus the radius).
pub fn sphere_box_penetration(centre: [f32; 3], radius: f32, box_pose: &BodyPose, half_extents: [f32; 3]) -> f64 {
    let local = box_pose.inverse_transform_point(centre);
    if !local.iter().all(|c| c.is_finite()) {
        return f64::NAN;
    }
    let mut outside_sq = 0.0f64;
    let mut inside_depth = f64::INFINITY;
    for axis in 0..3 {
        let c = f64::from(local[axis]);
        let h = f64::from(half_extents[axis]);
        let excess = c.abs() - h;
        if excess > 0.0 {
            outside_sq += excess * excess;
        }
        inside_depth = inside_depth.min(h - c.abs());
    }
    if outside_sq > 0.0 {
        f64::from(radius) - outside_sq.sqrt()
    } else {
        f64::from(radius) + inside_depth
    }
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Euclidean length, accumulated in f64.
fn length(v: [f32; 3]) -> f64 {
    v.iter().map(|&c| f64::from(c) * f64::from(c)).sum::<f64>().sqrt()
}

/// Rotates v by the unit quaternion q = (u, w): v' = v + 2w (u x v) + 2 u x (u x v).
fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let u = [q[0], q[1], q[2]];
    let w = q[3];
    let t = cross(u, v);
    let t2 = [2.0 * t[0], 2.0 * t[1], 2.0 * t[2]];
    let ut = cross(u, t2);
    [v[0] + w * t2[0] + ut[0], v[1] + w * t2[1] + ut[1], v[2] + w * t2[2] + ut[2]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::{balls, joint_grid, large_pyramid, many_pyramids};

    fn initial_poses(scene: &SceneDesc) -> Vec<BodyPose> {
        scene.bodies.iter().map(|b| BodyPose::at(b.position)).collect()
    }

    /// Quaternion of a rotation by `angle` radians about the unit axis `axis`.
    fn axis_angle(axis: [f32; 3], angle: f32) -> [f32; 4] {
        let (s, c) = (0.5 * angle).sin_cos();
        [axis[0] * s, axis[1] * s, axis[2] * s, c]
    }

    #[test]
    fn rotation_matches_hand_result() {
        // A quarter turn about z maps x to y and y to -x.
        let pose =
            BodyPose { position: [1.0, 2.0, 3.0], rotation: axis_angle([0.0, 0.0, 1.0], std::f32::consts::FRAC_PI_2) };
        let world = pose.transform_point([1.0, 0.0, 0.0]);
        for (a, b) in world.iter().zip([1.0, 3.0, 3.0]) {
            assert!((a - b).abs() < 1e-6);
        }
        let back = pose.inverse_transform_point(world);
        for (a, b) in back.iter().zip([1.0, 0.0, 0.0]) {
            assert!((a - b).abs() < 1e-6);
        }
    }

    #[test]
    fn initial_state_is_perfect() {
        let grid = joint_grid();
        let quality = measure_quality(&grid, &initial_poses(&grid)).unwrap();
        assert!(quality.max_joint_gap_m.unwrap() < 1e-6);
        assert_eq!(quality.entries().len(), 1);
        let pyramid = large_pyramid();
        let quality = measure_quality(&pyramid, &initial_poses(&pyramid)).unwrap();
        assert_eq!(quality.top_drop_m, Some(0.0));
        assert_eq!(quality.top_drift_m, Some(0.0));
        // Ball centres are 1.2 m apart with at most 0.05 m jitter per axis and radius 0.5:
        // no overlap, and none with the ground (lowest centre y = 1).
        let balls = balls();
        let quality = measure_quality(&balls, &initial_poses(&balls)).unwrap();
        assert_eq!(quality.max_penetration_m, Some(0.0));
        assert!(measure_quality(&balls, &[]).is_err());
    }

    #[test]
    fn top_cube_drop_and_drift_are_largest_over_pyramids() {
        let scene = many_pyramids();
        let mut poses = initial_poses(&scene);
        let QualityDesc::TopCubes { tracked, .. } = &scene.quality else {
            panic!("many_pyramids tracks top cubes");
        };
        poses[tracked[5].body].position[1] -= 0.25;
        poses[tracked[9].body].position[1] -= 0.125;
        poses[tracked[9].body].position[0] += 3.0;
        let quality = measure_quality(&scene, &poses).unwrap();
        assert!((quality.top_drop_m.unwrap() - 0.25).abs() < 1e-5);
        assert_eq!(quality.top_drift_m, None);
    }

    #[test]
    fn joint_gap_sees_a_rotated_body() {
        // Turning the lower sphere of a vertical joint by 180 degrees about x moves its anchor
        // (0, 0.5, 0) to (0, -0.5, 0): the gap becomes 1 m.
        let scene = joint_grid();
        let mut poses = initial_poses(&scene);
        let lower = crate::scenes::joint_grid_index(0, 99);
        poses[lower].rotation = axis_angle([1.0, 0.0, 0.0], std::f32::consts::PI);
        let gap = measure_quality(&scene, &poses).unwrap().max_joint_gap_m.unwrap();
        assert!((gap - 1.0).abs() < 1e-5, "gap {gap}");
    }

    #[test]
    fn penetration_against_brute_force() {
        // Push pairs of balls into each other and one into the ground; compare with an O(n^2)
        // reference over all spheres plus the analytic ground depth r - y.
        let scene = balls();
        let mut poses = initial_poses(&scene);
        poses[1].position = poses[2].position;
        poses[1].position[2] -= 0.7; // overlap 0.3
        poses[300].position[1] = 0.1; // ground overlap 0.4
        poses[301].position = poses[302].position;
        poses[301].position[0] += 0.05; // overlap 0.95
        let sweep = measure_quality(&scene, &poses).unwrap().max_penetration_m.unwrap();
        let mut brute = 0.0f64;
        for a in 1..poses.len() {
            brute = brute.max(0.5 - f64::from(poses[a].position[1]));
            for b in a + 1..poses.len() {
                let d = length(sub(poses[a].position, poses[b].position));
                brute = brute.max(1.0 - d);
            }
        }
        assert!((sweep - brute).abs() < 1e-9, "{sweep} vs {brute}");
        assert!((sweep - 0.95).abs() < 1e-5);
    }

    #[test]
    fn sphere_box_depth_cases() {
        let ground = BodyPose::at([0.0, -1.0, 0.0]);
        let half = [100.0, 1.0, 100.0];
        // Resting exactly on the top face, hovering, sunk 0.2, centre inside the box.
        assert!(sphere_box_penetration([0.0, 0.5, 0.0], 0.5, &ground, half).abs() < 1e-6);
        assert!((sphere_box_penetration([0.0, 0.7, 0.0], 0.5, &ground, half) + 0.2).abs() < 1e-6);
        assert!((sphere_box_penetration([3.0, 0.3, 0.0], 0.5, &ground, half) - 0.2).abs() < 1e-6);
        assert!((sphere_box_penetration([3.0, -0.25, 0.0], 0.5, &ground, half) - 0.75).abs() < 1e-6);
        // Off a corner edge: centre 0.3 m beyond x and y faces, distance 0.3*sqrt(2).
        let corner = sphere_box_penetration([100.3, 0.3, 0.0], 0.5, &ground, half);
        assert!((corner - (0.5 - 0.3 * 2f64.sqrt())).abs() < 1e-5);
    }

    #[test]
    fn terrain_penetration_is_the_deepest_recorded_step() {
        // Body 1 sinks 0.3 m under the surface at step 1 and is back on it at step 2; body 2
        // (beyond the grid's edge, so never under it) moves at (3, 0, 4) m/s at the end.
        let scene = crate::scenes::terrain_mesh();
        let QualityDesc::Terrain { surface } = &scene.quality else { panic!("terrain quality") };
        let mut poses = initial_poses(&scene);
        let [x, _, z] = poses[1].position;
        let ground_y = surface.surface_height(f64::from(x), f64::from(z)).unwrap() as f32;
        let mut recorder = QualityRecorder::new(&scene);
        assert!(recorder.wants_every_step());
        poses[1].position[1] = ground_y - 0.3;
        poses[2].position = [70.0, -5.0, 0.0];
        recorder.record_step(&poses).unwrap();
        poses[1].position[1] = ground_y + 0.4;
        recorder.record_step(&poses).unwrap();
        let mut velocities = vec![[0.0; 3]; poses.len()];
        velocities[2] = [3.0, 0.0, 4.0];
        velocities[0] = [100.0, 0.0, 0.0]; // the static ground is not judged
        let quality = recorder.finish(&poses, &velocities).unwrap();
        assert!((quality.max_penetration_m.unwrap() - 0.3).abs() < 1e-5);
        assert!((quality.max_speed_end_mps.unwrap() - 5.0).abs() < 1e-6);
        // The final state alone shows no penetration; wrong counts are refused.
        assert_eq!(measure_quality(&scene, &poses).unwrap().max_penetration_m, Some(0.0));
        assert!(recorder.finish(&poses, &velocities[1..]).is_err());
        assert!(QualityRecorder::new(&scene).record_step(&poses[1..]).is_err());
        assert!(!QualityRecorder::new(&balls()).wants_every_step());
    }

    #[test]
    fn nan_poses_give_nan_figures() {
        let scene = balls();
        let mut poses = initial_poses(&scene);
        poses[7].position[0] = f32::NAN;
        let quality = measure_quality(&scene, &poses).unwrap();
        assert!(quality.max_penetration_m.unwrap().is_nan());
        assert!(quality.same_bits(&quality));
    }
}
