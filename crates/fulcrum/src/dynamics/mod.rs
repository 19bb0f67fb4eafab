//! Dynamics: integration, constraint solving, softness, islands and sleep.

pub(crate) mod block;
pub(crate) mod contact_solver;
pub(crate) mod integrate;
pub(crate) mod island;
pub mod softness;
pub(crate) mod solver;
pub(crate) mod solver_body;
