//! Broad phase: which collider pairs may touch.
