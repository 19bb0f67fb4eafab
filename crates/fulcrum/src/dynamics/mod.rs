//! Dynamics: integration, constraint solving, softness, islands and sleep.

pub(crate) mod batches;
pub(crate) mod block;
pub(crate) mod coloring;
pub(crate) mod contact_islands;
pub(crate) mod contact_kernels;
pub(crate) mod contact_prepare_wide;
pub(crate) mod contact_solver;
pub(crate) mod contact_wide;
pub(crate) mod denormals;
pub(crate) mod impacts;
pub(crate) mod integrate;
pub(crate) mod island;
pub(crate) mod joints;
pub(crate) mod parts;
pub(crate) mod push_out;
pub(crate) mod rk4;
pub(crate) mod simd;
pub(crate) mod simd_avx;
pub mod softness;
pub(crate) mod solver;
pub(crate) mod solver_body;
pub(crate) mod step_context;
#[cfg(feature = "parallel")]
pub(crate) mod team;
pub(crate) mod workers;
