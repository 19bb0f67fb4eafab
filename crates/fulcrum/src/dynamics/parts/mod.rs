//! Reusable constraint parts. A joint is assembled from a few of them; each part computes its
//! Jacobian rows and position errors from the joint's current frames, owns its accumulated
//! impulses, and has the same verbs: warm start, solve (with the pass's softness) and, for the
//! pgs + ngs mode, position correction.
//!
//! - [`row`]: one Jacobian row (linear or angular) and its algebra.
//! - [`dense`]: small symmetric solves (≤ 6 rows).
//! - [`equality`]: a block of equality rows solved together, soft or rigid.
//! - [`frames`]: the joint frames at the current substep.
//! - [`point`]: anchors coincide (3 rows); [`rotation_lock`]: orientation locked (3 rows);
//!   [`hinge_rotation`]: axes parallel (2 rows); [`perpendicular`]: B's anchor on A's axis
//!   (2 rows) and the slide row along it.
//! - [`swing_twist`]: swing and twist of the relative rotation with the rows of their rates
//!   (the ball joint's limits, the six-DOF joint's three angles).
//! - [`dof`]: one degree of freedom with spring, motor and limits.
//! - [`length`]: the distance between two points and its row (distance joint, pulley).
//! - [`cone`]: the cone limit of a ball joint.

pub(crate) mod cone;
pub(crate) mod dense;
pub(crate) mod dof;
pub(crate) mod equality;
pub(crate) mod frames;
pub(crate) mod hinge_rotation;
pub(crate) mod length;
pub(crate) mod perpendicular;
pub(crate) mod point;
pub(crate) mod rotation_lock;
pub(crate) mod row;
pub(crate) mod swing_twist;
