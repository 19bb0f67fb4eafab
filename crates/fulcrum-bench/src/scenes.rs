//! Engine-neutral descriptions of the standard bench scenes of `shared/bench/SCENES.md`.
//!
//! A [`SceneDesc`] is plain data: bodies (static or dynamic, one shape each, a position, a
//! density, friction and restitution), ball joints with local anchors, the number
//! of steps, the time step, gravity, a collision rule and what the quality figure tracks. Each
//! engine adapter turns it into its own world, so every engine runs the very same scene.
//!
//! Conventions: metres, kilograms, seconds; +y is up; every body starts at rest with the
//! identity rotation. Body indices are positions in [`SceneDesc::bodies`]; where a scene has a
//! ground (a box, or the terrain's heightfield or mesh) it is body 0 and it is not counted by
//! [`SceneDesc::body_count`]. The big terrain data sits behind an [`Arc`], so cloning a scene
//! stays cheap.

use std::sync::Arc;

pub use crate::terrain::{terrain, terrain_mesh, HeightGrid};

/// Friction coefficient of every body of every standard scene (dimensionless).
pub const FRICTION: f32 = 0.6;
/// Restitution of every body of every standard scene (dimensionless).
pub const RESTITUTION: f32 = 0.0;
/// Time step of every standard scene, in seconds.
pub const DT: f32 = 1.0 / 60.0;
/// Gravity of every standard scene, in metres per second squared.
pub const GRAVITY: [f32; 3] = [0.0, -9.81, 0.0];
/// Half extents of the unit cube, in metres.
pub const UNIT_CUBE_HALF_EXTENTS: [f32; 3] = [0.5, 0.5, 0.5];
/// Names of the standard scenes, in the order of SCENES.md.
pub const SCENE_NAMES: [&str; 7] =
    ["large_pyramid", "many_pyramids", "joint_grid", "balls", "pyramid3d", "terrain", "terrain_mesh"];

/// The one collision shape of a body, in its local frame (centred on the body's origin).
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeDesc {
    /// A sphere of the given radius, in metres.
    Sphere {
        /// Radius in metres.
        radius: f32,
    },
    /// An axis-aligned (in the body frame) box of the given half extents, in metres.
    Box {
        /// Half extents along local x, y, z in metres.
        half_extents: [f32; 3],
    },
    /// A capsule: the segment from (0, -half_height, 0) to (0, half_height, 0) swept by a
    /// sphere of `radius`, in metres.
    Capsule {
        /// Half the length of the inner segment along local y, in metres.
        half_height: f32,
        /// Radius in metres.
        radius: f32,
    },
    /// A solid cylinder along local y, in metres.
    Cylinder {
        /// Half the height along local y, in metres.
        half_height: f32,
        /// Radius of the circular faces, in metres.
        radius: f32,
    },
    /// A heightfield (static bodies only): a grid of samples, solid below its surface; see
    /// [`HeightGrid`] for the layout and how a cell is split into two triangles.
    HeightField {
        /// The samples and their scale.
        grid: Arc<HeightGrid>,
    },
    /// A one-sided triangle mesh (static bodies only): a triangle collides on its front face,
    /// the side from which its corners run counter-clockwise.
    TriMesh {
        /// Corner positions in the body frame, in metres.
        vertices: Arc<[[f32; 3]]>,
        /// Three indices into `vertices` per triangle.
        indices: Arc<[[u32; 3]]>,
    },
}

/// One rigid body of a scene.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDesc {
    /// `true` for a static (fixed, infinite-mass) body, `false` for a dynamic one.
    pub is_static: bool,
    /// The body's single collision shape.
    pub shape: ShapeDesc,
    /// Initial world position of the body origin, in metres (the rotation is the identity).
    pub position: [f32; 3],
    /// Density in kilograms per cubic metre (mass = density * shape volume; unused if static).
    pub density: f32,
    /// Friction coefficient (dimensionless).
    pub friction: f32,
    /// Restitution coefficient (dimensionless).
    pub restitution: f32,
}

/// A ball (spherical) joint: the two anchor points are held together, rotation is free.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BallJointDesc {
    /// Index of the first body in [`SceneDesc::bodies`].
    pub body_a: usize,
    /// Index of the second body in [`SceneDesc::bodies`].
    pub body_b: usize,
    /// Anchor point in body A's local frame, in metres.
    pub local_anchor_a: [f32; 3],
    /// Anchor point in body B's local frame, in metres.
    pub local_anchor_b: [f32; 3],
}

/// Which pairs of bodies may collide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollisionRule {
    /// Every pair of shapes collides (static/static pairs need no handling).
    All,
    /// Two spheres never collide with each other; every other pair collides.
    /// Engines map this to a collision group / layer that does not collide with itself.
    NoSphereSphere,
}

/// A body whose final position feeds the quality figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackedBody {
    /// Index in [`SceneDesc::bodies`].
    pub body: usize,
    /// Its initial position, in metres (equal to the body's `position`).
    pub initial_position: [f32; 3],
}

/// What the quality figure of a scene measures at the end of the run.
#[derive(Clone, Debug, PartialEq)]
pub enum QualityDesc {
    /// Drop of the tracked top cube(s): `top_drop_m` is the largest initial-minus-final height
    /// over the tracked bodies; with `report_drift`, `top_drift_m` is the largest horizontal
    /// (x, z) distance from the initial position.
    TopCubes {
        /// The top cube of each pyramid.
        tracked: Vec<TrackedBody>,
        /// Whether `top_drift_m` is reported too.
        report_drift: bool,
    },
    /// `max_joint_gap_m`: the largest world distance between the two anchors of any joint.
    JointGap,
    /// `max_penetration_m`: the deepest sphere/sphere or sphere/box overlap.
    Penetration,
    /// `max_penetration_m`: the deepest any dynamic body's centre goes below the ground surface
    /// (the ground body's grid, evaluated as its triangles) at any recorded step; and
    /// `max_speed_end_mps`: the largest linear speed of a dynamic body at the end.
    Terrain {
        /// The ground's surface (the ground body carries it as a heightfield or a mesh).
        surface: Arc<HeightGrid>,
    },
}

/// A complete engine-neutral scene.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneDesc {
    /// Scene name as in SCENES.md (e.g. `"large_pyramid"`).
    pub name: &'static str,
    /// All bodies, static ones included, in creation order.
    pub bodies: Vec<BodyDesc>,
    /// All ball joints, in creation order.
    pub joints: Vec<BallJointDesc>,
    /// Index of the ground box in `bodies`, if the scene has one.
    pub ground: Option<usize>,
    /// Number of steps of a standard run.
    pub steps: usize,
    /// Time step in seconds.
    pub dt: f32,
    /// Gravity in metres per second squared.
    pub gravity: [f32; 3],
    /// Which pairs collide.
    pub collision_rule: CollisionRule,
    /// What the quality figure measures.
    pub quality: QualityDesc,
}

impl SceneDesc {
    /// Number of bodies as reported by the bench (all bodies except the ground box).
    pub fn body_count(&self) -> usize {
        self.bodies.len() - usize::from(self.ground.is_some())
    }

    /// Number of dynamic bodies.
    pub fn dynamic_count(&self) -> usize {
        self.bodies.iter().filter(|body| !body.is_static).count()
    }

    /// Number of joints as reported by the bench.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Whether bodies `a` and `b` may collide under the scene's [`CollisionRule`].
    /// Out-of-range indices give `false`.
    pub fn may_collide(&self, a: usize, b: usize) -> bool {
        let (Some(body_a), Some(body_b)) = (self.bodies.get(a), self.bodies.get(b)) else {
            return false;
        };
        let both_spheres =
            matches!(body_a.shape, ShapeDesc::Sphere { .. }) && matches!(body_b.shape, ShapeDesc::Sphere { .. });
        match self.collision_rule {
            CollisionRule::All => true,
            CollisionRule::NoSphereSphere => !both_spheres,
        }
    }
}

/// Builds the scene called `name` (one of [`SCENE_NAMES`]).
///
/// Errors with a message listing the known names when `name` is unknown.
pub fn build_scene(name: &str) -> Result<SceneDesc, String> {
    match name {
        "large_pyramid" => Ok(large_pyramid()),
        "many_pyramids" => Ok(many_pyramids()),
        "joint_grid" => Ok(joint_grid()),
        "balls" => Ok(balls()),
        "pyramid3d" => Ok(pyramid3d()),
        "terrain" => Ok(terrain()),
        "terrain_mesh" => Ok(terrain_mesh()),
        _ => Err(format!("unknown scene `{name}`; known scenes: {}", SCENE_NAMES.join(", "))),
    }
}

/// The scene called `name` scaled to about `bodies` cubes (`fulcrum bench --size`): the
/// large_pyramid with the row count whose triangle holds the nearest number of cubes,
/// rows (rows + 1)/2; many_pyramids with the nearest square grid of 55-cube pyramids (at
/// least 2 × 2). Other scenes have no size.
pub fn sized_scene(name: &str, bodies: usize) -> Result<SceneDesc, String> {
    match name {
        "large_pyramid" => Ok(large_pyramid_with_rows(nearest_size(bodies, 1, |rows| rows * (rows + 1) / 2))),
        "many_pyramids" => Ok(many_pyramids_with_grid(nearest_size(bodies, 2, |grid| 55 * grid * grid))),
        _ => Err(format!("--size applies to large_pyramid and many_pyramids, not `{name}`")),
    }
}

/// The k ≥ `first` whose `count(k)` (growing with k) is nearest to `bodies`.
fn nearest_size(bodies: usize, first: usize, count: impl Fn(usize) -> usize) -> usize {
    let mut k = first;
    while count(k) < bodies {
        k += 1;
    }
    if k > first && bodies - count(k - 1) < count(k) - bodies {
        k - 1
    } else {
        k
    }
}

/// Builds all seven standard scenes in the order of [`SCENE_NAMES`].
pub fn all_scenes() -> Vec<SceneDesc> {
    vec![large_pyramid(), many_pyramids(), joint_grid(), balls(), pyramid3d(), terrain(), terrain_mesh()]
}

/// The static ground box at (0, -1, 0) with the given half extents (its top face is y = 0).
fn ground_box(half_extents: [f32; 3]) -> BodyDesc {
    BodyDesc {
        is_static: true,
        shape: ShapeDesc::Box { half_extents },
        position: [0.0, -1.0, 0.0],
        density: 1.0,
        friction: FRICTION,
        restitution: RESTITUTION,
    }
}

/// A dynamic unit cube at `position` with the given density in kg/m^3.
fn unit_cube(position: [f32; 3], density: f32) -> BodyDesc {
    BodyDesc {
        is_static: false,
        shape: ShapeDesc::Box { half_extents: UNIT_CUBE_HALF_EXTENTS },
        position,
        density,
        friction: FRICTION,
        restitution: RESTITUTION,
    }
}

/// A sphere of `radius` metres at `position`.
fn sphere(position: [f32; 3], radius: f32, density: f32, is_static: bool) -> BodyDesc {
    BodyDesc {
        is_static,
        shape: ShapeDesc::Sphere { radius },
        position,
        density,
        friction: FRICTION,
        restitution: RESTITUTION,
    }
}

/// A scene skeleton with the common settings and no bodies.
pub(crate) fn empty_scene(name: &'static str, steps: usize, quality: QualityDesc) -> SceneDesc {
    SceneDesc {
        name,
        bodies: Vec::new(),
        joints: Vec::new(),
        ground: None,
        steps,
        dt: DT,
        gravity: GRAVITY,
        collision_rule: CollisionRule::All,
        quality,
    }
}

/// Records the last body pushed as a tracked top cube.
fn track_last(scene: &mut SceneDesc) {
    let index = scene.bodies.len() - 1;
    let initial_position = scene.bodies[index].position;
    if let QualityDesc::TopCubes { tracked, .. } = &mut scene.quality {
        tracked.push(TrackedBody { body: index, initial_position });
    }
}

/// large_pyramid: one 2D pyramid of 100 rows (5,050 cubes, density 100) on a 800 x 800 ground.
///
/// Row i in 0..100 sits at y = (2i+1)/2 and holds cubes j in i..100 at
/// x = (i+1)/2 + (j-i) - 50, so row 0 spans x = -49.5..49.5 and the top cube is at (0, 99.5, 0).
pub fn large_pyramid() -> SceneDesc {
    large_pyramid_with_rows(100)
}

/// The large_pyramid's wall with `rows` rows (rows (rows + 1)/2 cubes), centred the same way.
pub fn large_pyramid_with_rows(rows: usize) -> SceneDesc {
    let quality = QualityDesc::TopCubes { tracked: Vec::new(), report_drift: true };
    let mut scene = empty_scene("large_pyramid", 200, quality);
    scene.bodies.push(ground_box([400.0, 1.0, 400.0]));
    scene.ground = Some(0);
    for row in 0..rows {
        let y = (2 * row + 1) as f32 * 0.5;
        for column in row..rows {
            let x = (row + 1) as f32 * 0.5 + 2.0 * (column - row) as f32 * 0.5 - 0.5 * rows as f32;
            scene.bodies.push(unit_cube([x, y, 0.0], 100.0));
        }
    }
    track_last(&mut scene);
    scene
}

/// many_pyramids: 14 x 14 pyramids of base 10 (55 cubes each, 10,780 cubes, density 100).
///
/// Ground half extent G = 0.5*14*11 = 77. Pyramid (r, c) has its rows at
/// z = -G + 1 + r*dz with dz = 2(G-1)/13 and its base starting at cx = -G + 11c + 1;
/// in it row i sits at y = (2i+1)/2 with cubes j in i..10 at x = (i+1)/2 + (j-i) + cx - 1/2.
/// Every pyramid's top cube (i = j = 9) is tracked.
pub fn many_pyramids() -> SceneDesc {
    many_pyramids_with_grid(14)
}

/// The many_pyramids layout with `grid` × `grid` pyramids (at least 2 × 2), ground and spacing
/// scaled the same way.
pub fn many_pyramids_with_grid(grid: usize) -> SceneDesc {
    const BASE: usize = 10;
    let grid = grid.max(2);
    let half_ground = 0.5 * grid as f32 * (BASE + 1) as f32;
    let dz = 2.0 * (half_ground - 1.0) / (grid - 1) as f32;
    let quality = QualityDesc::TopCubes { tracked: Vec::new(), report_drift: false };
    let mut scene = empty_scene("many_pyramids", 100, quality);
    scene.bodies.push(ground_box([half_ground, 1.0, half_ground]));
    scene.ground = Some(0);
    for grid_row in 0..grid {
        let z = -half_ground + 1.0 + grid_row as f32 * dz;
        for grid_column in 0..grid {
            let cx = -half_ground + (grid_column * (BASE + 1)) as f32 + 1.0;
            for row in 0..BASE {
                let y = (2 * row + 1) as f32 * 0.5;
                for column in row..BASE {
                    let x = (row + 1) as f32 * 0.5 + (column - row) as f32 + cx - 0.5;
                    scene.bodies.push(unit_cube([x, y, z], 100.0));
                }
            }
            track_last(&mut scene);
        }
    }
    scene
}

/// Index of the joint_grid sphere in column `column` and row `row` (columns outer).
pub fn joint_grid_index(column: usize, row: usize) -> usize {
    column * JOINT_GRID_SIZE + row
}

/// Number of columns and of rows of the joint_grid scene.
pub const JOINT_GRID_SIZE: usize = 100;

/// joint_grid: 100 x 100 spheres (radius 0.4, density 1) at (k, -i, 0) joined by ball joints.
///
/// Loop k (columns) outer, i (rows) inner; row 0 is static. For i > 0 a joint to the sphere
/// above (body A = upper, anchor (0,-0.5,0); body B = lower, anchor (0,0.5,0)); then for k > 0
/// a joint to the previous column (body A = left, anchor (0.5,0,0); body B = right, anchor
/// (-0.5,0,0)). All 19,800 joints are kept, including the 99 between two static spheres of
/// row 0 (their gap is always zero; an engine may skip creating them). Spheres never collide
/// with each other, and there is no ground.
pub fn joint_grid() -> SceneDesc {
    let mut scene = empty_scene("joint_grid", 100, QualityDesc::JointGap);
    scene.collision_rule = CollisionRule::NoSphereSphere;
    for column in 0..JOINT_GRID_SIZE {
        for row in 0..JOINT_GRID_SIZE {
            let position = [column as f32, -(row as f32), 0.0];
            scene.bodies.push(sphere(position, 0.4, 1.0, row == 0));
            let index = joint_grid_index(column, row);
            if row > 0 {
                scene.joints.push(BallJointDesc {
                    body_a: joint_grid_index(column, row - 1),
                    body_b: index,
                    local_anchor_a: [0.0, -0.5, 0.0],
                    local_anchor_b: [0.0, 0.5, 0.0],
                });
            }
            if column > 0 {
                scene.joints.push(BallJointDesc {
                    body_a: joint_grid_index(column - 1, row),
                    body_b: index,
                    local_anchor_a: [0.5, 0.0, 0.0],
                    local_anchor_b: [-0.5, 0.0, 0.0],
                });
            }
        }
    }
    scene
}

/// The linear congruential generator of the balls scene.
///
/// State update `s = s*1664525 + 1013904223` (u32, wrapping) from `s0 = 12345`; each draw
/// returns `(s >> 8) / 2^24 - 0.5`, a value in [-0.5, 0.5) that is exact in f32.
#[derive(Clone, Copy, Debug)]
pub struct BallsLcg {
    state: u32,
}

impl BallsLcg {
    /// The generator in its initial state s0 = 12345.
    pub fn new() -> Self {
        Self { state: 12345 }
    }

    /// Advances the state and returns the next value in [-0.5, 0.5).
    pub fn next_offset(&mut self) -> f32 {
        self.state = self.state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.state >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    }
}

impl Default for BallsLcg {
    fn default() -> Self {
        Self::new()
    }
}

/// balls: 4,000 spheres (radius 0.5, density 1) on a jittered 20 x 10 x 20 lattice.
///
/// x = (i - 9.5)*1.2 + 0.1*r1, y = 1 + 1.2j, z = (k - 9.5)*1.2 + 0.1*r2 for i, k in 0..20,
/// j in 0..10, loop order i, j, k, with r1 then r2 drawn from [`BallsLcg`] for each sphere.
pub fn balls() -> SceneDesc {
    let mut scene = empty_scene("balls", 200, QualityDesc::Penetration);
    scene.bodies.push(ground_box([100.0, 1.0, 100.0]));
    scene.ground = Some(0);
    let mut lcg = BallsLcg::new();
    for i in 0..20 {
        for j in 0..10 {
            for k in 0..20 {
                let r1 = lcg.next_offset();
                let r2 = lcg.next_offset();
                let x = (i as f32 - 9.5) * 1.2 + 0.1 * r1;
                let y = 1.0 + j as f32 * 1.2;
                let z = (k as f32 - 9.5) * 1.2 + 0.1 * r2;
                scene.bodies.push(sphere([x, y, z], 0.5, 1.0, false));
            }
        }
    }
    scene
}

/// pyramid3d: a square pyramid of 385 unit cubes (density 1), 10 layers.
///
/// Layer l in 0..10 has n = 10 - l cubes per side at x = a - (n-1)/2 (a in 0..n, outer loop),
/// z = b - (n-1)/2 (b in 0..n, inner loop), y = 0.5 + l. The top cube is at (0, 9.5, 0).
pub fn pyramid3d() -> SceneDesc {
    const LAYERS: usize = 10;
    let quality = QualityDesc::TopCubes { tracked: Vec::new(), report_drift: true };
    let mut scene = empty_scene("pyramid3d", 300, quality);
    scene.bodies.push(ground_box([100.0, 1.0, 100.0]));
    scene.ground = Some(0);
    for layer in 0..LAYERS {
        let per_side = LAYERS - layer;
        let centre_offset = (per_side - 1) as f32 * 0.5;
        let y = 0.5 + layer as f32;
        for a in 0..per_side {
            for b in 0..per_side {
                let position = [a as f32 - centre_offset, y, b as f32 - centre_offset];
                scene.bodies.push(unit_cube(position, 1.0));
            }
        }
    }
    track_last(&mut scene);
    scene
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f32 = 1e-5;

    fn assert_close(actual: [f32; 3], expected: [f32; 3]) {
        for axis in 0..3 {
            assert!((actual[axis] - expected[axis]).abs() <= EPS, "{actual:?} vs {expected:?}");
        }
    }

    fn tracked(scene: &SceneDesc) -> &[TrackedBody] {
        match &scene.quality {
            QualityDesc::TopCubes { tracked, .. } => tracked,
            other => panic!("unexpected quality {other:?}"),
        }
    }

    #[test]
    fn sized_scenes_hold_the_nearest_body_count() {
        assert_eq!(sized_scene("large_pyramid", 5050).unwrap().body_count(), 5050);
        assert_eq!(sized_scene("large_pyramid", 50_000).unwrap().body_count(), 316 * 317 / 2);
        assert_eq!(sized_scene("many_pyramids", 10_780).unwrap().body_count(), 10_780);
        assert_eq!(sized_scene("many_pyramids", 1_000).unwrap().body_count(), 55 * 4 * 4);
        assert_eq!(sized_scene("many_pyramids", 1).unwrap().body_count(), 55 * 2 * 2);
        assert!(sized_scene("balls", 1000).is_err());
        // The standard scenes are the sized ones at their own size.
        assert_eq!(format!("{:?}", large_pyramid()), format!("{:?}", sized_scene("large_pyramid", 5050).unwrap()));
        assert_eq!(format!("{:?}", many_pyramids()), format!("{:?}", sized_scene("many_pyramids", 10_780).unwrap()));
    }

    #[test]
    fn large_pyramid_layout() {
        let scene = large_pyramid();
        assert_eq!(scene.body_count(), 5050);
        assert_eq!(scene.dynamic_count(), 5050);
        assert_eq!(scene.joint_count(), 0);
        assert_eq!(scene.steps, 200);
        assert_close(scene.bodies[1].position, [-49.5, 0.5, 0.0]);
        assert_close(scene.bodies[100].position, [49.5, 0.5, 0.0]);
        // Row 1 starts right after the 100 cubes of row 0, half a cube in.
        assert_close(scene.bodies[101].position, [-49.0, 1.5, 0.0]);
        let top = tracked(&scene);
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].body, 5050);
        assert_close(top[0].initial_position, [0.0, 99.5, 0.0]);
    }

    #[test]
    fn many_pyramids_layout() {
        let scene = many_pyramids();
        assert_eq!(scene.body_count(), 10780);
        assert_eq!(scene.dynamic_count(), 10780);
        assert_eq!(scene.steps, 100);
        let ShapeDesc::Box { half_extents } = scene.bodies[0].shape else {
            panic!("ground is not a box");
        };
        assert_close(half_extents, [77.0, 1.0, 77.0]);
        // First pyramid: cx = -76, z = -76.
        assert_close(scene.bodies[1].position, [-76.0, 0.5, -76.0]);
        let top = tracked(&scene);
        assert_eq!(top.len(), 196);
        assert_close(top[0].initial_position, [-71.5, 9.5, -76.0]);
        // Last pyramid: cx = -76 + 143 = 67, z = -76 + 13 * 152/13 = 76.
        assert_close(top[195].initial_position, [71.5, 9.5, 76.0]);
        assert_eq!(top[195].body, 10780);
    }

    #[test]
    fn joint_grid_layout() {
        let scene = joint_grid();
        assert_eq!(scene.body_count(), 10000);
        assert_eq!(scene.dynamic_count(), 9900);
        assert_eq!(scene.joint_count(), 19800);
        assert_eq!(scene.collision_rule, CollisionRule::NoSphereSphere);
        assert!(!scene.may_collide(0, 1));
        let static_pairs = scene
            .joints
            .iter()
            .filter(|j| scene.bodies[j.body_a].is_static && scene.bodies[j.body_b].is_static)
            .count();
        assert_eq!(static_pairs, 99);
        assert_close(scene.bodies[joint_grid_index(3, 7)].position, [3.0, -7.0, 0.0]);
        // Every joint's anchors coincide in the initial configuration.
        for joint in &scene.joints {
            let a = scene.bodies[joint.body_a].position;
            let b = scene.bodies[joint.body_b].position;
            for axis in 0..3 {
                let gap = a[axis] + joint.local_anchor_a[axis] - b[axis] - joint.local_anchor_b[axis];
                assert!(gap.abs() <= EPS);
            }
        }
    }

    #[test]
    fn lcg_values_match_hand_computation() {
        // s1 = 12345*1664525 + 1013904223 mod 2^32 = 87628868, r = (s1 >> 8)/2^24 - 0.5.
        let expected = [-0.479_597_33, -0.483_452_2, 0.043_155_79, 0.134_904_03];
        let mut lcg = BallsLcg::new();
        for value in expected {
            assert!((lcg.next_offset() - value).abs() <= 1e-7);
        }
    }

    #[test]
    fn balls_layout() {
        let scene = balls();
        assert_eq!(scene.body_count(), 4000);
        assert_eq!(scene.steps, 200);
        assert_close(scene.bodies[1].position, [-11.4 - 0.047_959_73, 1.0, -11.4 - 0.048_345_22]);
        // Second sphere is k = 1 with the third and fourth draws.
        assert_close(scene.bodies[2].position, [-11.4 + 0.004_315_58, 1.0, -10.2 + 0.013_490_4]);
        // Sphere (i, j, k) = (0, 1, 0) is the 21st: y = 2.2.
        assert!((scene.bodies[21].position[1] - 2.2).abs() <= EPS);
    }

    #[test]
    fn pyramid3d_layout() {
        let scene = pyramid3d();
        assert_eq!(scene.body_count(), 385);
        assert_eq!(scene.steps, 300);
        assert_close(scene.bodies[1].position, [-4.5, 0.5, -4.5]);
        assert_close(scene.bodies[2].position, [-4.5, 0.5, -3.5]);
        let top = tracked(&scene);
        assert_eq!(top[0].body, 385);
        assert_close(top[0].initial_position, [0.0, 9.5, 0.0]);
    }

    #[test]
    fn common_settings_hold_everywhere() {
        for scene in all_scenes() {
            assert_eq!(scene.dt, 1.0 / 60.0);
            assert_eq!(scene.gravity, [0.0, -9.81, 0.0]);
            for body in &scene.bodies {
                assert_eq!(body.friction, 0.6);
                assert_eq!(body.restitution, 0.0);
            }
            assert_eq!(build_scene(scene.name).as_ref(), Ok(&scene));
        }
        assert!(build_scene("nope").is_err());
    }
}
