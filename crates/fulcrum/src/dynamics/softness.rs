//! Soft constraints: a constraint that behaves like a damped spring of frequency `hertz` and
//! damping ratio `zeta`, solved implicitly so it stays stable at any stiffness.
//!
//! For a constraint with effective mass m, error C and velocity Cdot, the implicit spring
//! step of length h gives the impulse
//!   λ = -m_eff (Cdot + bias_rate·C) · mass_scale - impulse_scale · λ_accumulated
//! with ω = 2π·hertz, a1 = 2ζ + hω, a2 = hω·a1, a3 = 1/(1 + a2):
//!   bias_rate = ω / a1,  mass_scale = a2·a3,  impulse_scale = a3.
//! hertz = 0 gives a rigid constraint without bias (mass_scale 1, impulse_scale 0).

/// Coefficients of a soft constraint for one substep length.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Softness {
    /// Multiplies the position error to give a velocity bias, 1/s.
    pub bias_rate: f32,
    /// Scales the effective mass (≤ 1).
    pub mass_scale: f32,
    /// Scales the accumulated impulse fed back (≥ 0).
    pub impulse_scale: f32,
}

impl Softness {
    /// A rigid constraint.
    pub const RIGID: Softness = Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };

    /// Softness of a spring at `hertz` with damping ratio `zeta`, for steps of `h` seconds.
    pub fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        if hertz <= 0.0 {
            return Softness::RIGID;
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit mass on a soft constraint (C = x) must oscillate at the set frequency: simulate
    /// with the impulse formula and count zero crossings.
    #[test]
    fn soft_constraint_oscillates_at_its_frequency() {
        let hertz = 2.0;
        let h = 1.0 / 600.0;
        let soft = Softness::new(hertz, 0.0, h);
        let (mut x, mut v) = (1.0f32, 0.0f32);
        let mut crossings = Vec::new();
        for step in 0..6000 {
            // One velocity iteration from zero accumulated impulse each step.
            let impulse = -(v + soft.bias_rate * x) * soft.mass_scale;
            v += impulse;
            let x_new = x + h * v;
            if x > 0.0 && x_new <= 0.0 {
                crossings.push(step as f32 * h);
            }
            x = x_new;
        }
        let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32;
        assert!((period * hertz - 1.0).abs() < 0.03, "period {period}");
    }
}
