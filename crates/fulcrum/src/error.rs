//! The error type of every fallible public call.

use std::fmt;

/// What went wrong, and where: `field` names the offending value (an argument name such as
/// `half_extents.y`, or a JSON path such as `bodies[3].colliders[0].shape.radius`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Error {
    /// The value that was refused: an argument or a JSON path.
    pub field: String,
    /// Why it was refused, in words.
    pub reason: String,
}

impl Error {
    /// An error about `field` for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { field: field.into(), reason: reason.into() }
    }

    /// Prefixes the field path, e.g. `shape` + `.radius` -> `shape.radius`.
    pub fn within(mut self, prefix: &str) -> Self {
        if self.field.is_empty() {
            self.field = prefix.to_string();
        } else if self.field.starts_with('[') {
            self.field = format!("{prefix}{}", self.field);
        } else {
            self.field = format!("{prefix}.{}", self.field);
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}

impl std::error::Error for Error {}

/// Result with the engine's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Checks that `value` is finite.
pub fn check_finite(field: &str, value: f32) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::new(field, format!("must be a finite number, got {value}")))
    }
}

/// Checks that `value` is finite and strictly positive.
pub fn check_positive(field: &str, value: f32) -> Result<()> {
    check_finite(field, value)?;
    if value > 0.0 {
        Ok(())
    } else {
        Err(Error::new(field, format!("must be greater than zero, got {value}")))
    }
}

/// Checks that `value` is finite and not negative.
pub fn check_non_negative(field: &str, value: f32) -> Result<()> {
    check_finite(field, value)?;
    if value >= 0.0 {
        Ok(())
    } else {
        Err(Error::new(field, format!("must not be negative, got {value}")))
    }
}

/// Checks that `value` is finite and within `[low, high]` (a lower bound of 0 reads "must not
/// be negative").
pub fn check_range(field: &str, value: f32, low: f32, high: f32) -> Result<()> {
    check_finite(field, value)?;
    if low == 0.0 && value < 0.0 {
        return check_non_negative(field, value);
    }
    if value < low || value > high {
        return Err(Error::new(field, format!("must lie within [{low}, {high}], got {value}")));
    }
    Ok(())
}

/// Checks that every component of `v` is finite.
pub fn check_vec3(field: &str, v: glam::Vec3) -> Result<()> {
    // The fast test first: naming the component allocates.
    if v.is_finite() {
        return Ok(());
    }
    for (i, value) in v.to_array().into_iter().enumerate() {
        check_finite(&component(field, i), value)?;
    }
    Ok(())
}

/// The name of component `i` of the vector `field`: `half_extents[1]`, as in JSON.
pub fn component(field: &str, i: usize) -> String {
    format!("{field}[{i}]")
}

/// Checks that every component of `v` is finite and within `[low, high]`.
pub fn check_vec3_range(field: &str, v: glam::Vec3, low: f32, high: f32) -> Result<()> {
    if v.is_finite() && v.cmpge(glam::Vec3::splat(low)).all() && v.cmple(glam::Vec3::splat(high)).all() {
        return Ok(());
    }
    for (i, value) in v.to_array().into_iter().enumerate() {
        check_range(&component(field, i), value, low, high)?;
    }
    Ok(())
}

/// Checks that `value` is finite, above zero and at most `max`.
pub fn check_above_zero(field: &str, value: f32, max: f32) -> Result<()> {
    check_positive(field, value)?;
    if value > max {
        return Err(Error::new(field, format!("must be at most {max}, got {value}")));
    }
    Ok(())
}

/// Checks that every component of `v` is finite, above zero and at most `max`.
pub fn check_above_zero_vec3(field: &str, v: glam::Vec3, max: f32) -> Result<()> {
    if v.is_finite() && v.cmpgt(glam::Vec3::ZERO).all() && v.cmple(glam::Vec3::splat(max)).all() {
        return Ok(());
    }
    for (i, value) in v.to_array().into_iter().enumerate() {
        check_above_zero(&component(field, i), value, max)?;
    }
    Ok(())
}

/// Checks that `q` is finite and close enough to unit length to be normalised (0.9..1.1), and
/// returns it normalised.
pub fn check_rotation(field: &str, q: glam::Quat) -> Result<glam::Quat> {
    if !q.is_finite() {
        return Err(Error::new(field, "must be a finite quaternion"));
    }
    let len = q.length();
    if !(0.9..=1.1).contains(&len) {
        return Err(Error::new(field, format!("must be a unit quaternion, its length is {len}")));
    }
    Ok(q.normalize())
}
