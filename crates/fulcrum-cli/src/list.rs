//! `fulcrum list`: the built-in samples with the first sentence of their descriptions.

use crate::samples::SAMPLES;

/// Prints one line per sample.
pub fn list() -> Result<(), String> {
    let width = SAMPLES.iter().map(|sample| sample.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for sample in SAMPLES {
        let description = sample.scene()?.description.unwrap_or_default();
        let first_sentence = description.split_inclusive(". ").next().unwrap_or("").trim_end();
        text.push_str(&format!("{:width$}  {first_sentence}\n", sample.name));
    }
    crate::print_out(&text)
}
