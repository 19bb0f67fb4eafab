//! # fulcrum-view
//!
//! The browser testbed of the fulcrum engine (docs/testbed-protocol.md is the contract):
//!
//! - [`assets`]: the page (`assets/index.html`, `app.js`, `style.css`) and the vendored
//!   three.js, compiled into the binary; nothing is read from disk at run time.
//! - [`frame`]: what the page reads, built from a [`fulcrum::World`]: the `scene` message (every
//!   body with its colliders and the joints), the `settings` message, and the binary frames
//!   (poses, state flags, counts, per-stage timings, contact points).
//! - [`replay`]: a recording of a run (the scene message and frames) written as one
//!   self-contained HTML file that replays it offline (`fulcrum run SCENE --html FILE`).
#![warn(missing_docs)]

pub mod assets;
pub mod frame;
pub mod replay;
