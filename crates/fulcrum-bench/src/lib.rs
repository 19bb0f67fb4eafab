//! Benchmark support for fulcrum: engine-neutral descriptions of the standard scenes of
//! `shared/bench/SCENES.md` and an engine-agnostic harness that times, repeats and judges
//! any engine that implements [`BenchEngine`].
//!
//! - [`scenes`]: the seven scenes as plain data ([`SceneDesc`]).
//! - [`terrain`]: the height grid of the `terrain` and `terrain_mesh` scenes and its surface.
//! - [`harness`]: the [`BenchEngine`] trait, timing of `step` calls only, medians, peak RSS,
//!   JSON lines and a table.
//! - [`quality`]: quality figures computed from poses, velocities and the description alone
//!   (the terrain scenes' penetration is recorded after every step).
//! - [`cli`]: the options shared by `fulcrum bench` and `fulcrum-compare`.
//!
//! - [`fulcrum_engine`]: fulcrum's adapter.
//!
//! The harness itself is engine-agnostic; comparison crates (rapier3d, ...) add their own
//! adapters without pulling another engine into the workspace.
#![warn(missing_docs)]

pub mod cli;
pub mod fulcrum_engine;
pub mod harness;
pub mod quality;
pub mod scenes;
pub mod terrain;

pub use harness::{measure_once, run_scene, summarize, BenchEngine, RepeatSample, SceneResult};
pub use quality::{BodyPose, Quality};
pub use scenes::SceneDesc;
