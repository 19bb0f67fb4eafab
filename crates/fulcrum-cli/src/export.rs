//! `fulcrum export SAMPLE [--out FILE]`: writes a built-in sample's scene file.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `fulcrum export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The name of a built-in sample (see `fulcrum list`).
    pub sample: String,
    /// Write to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Writes the sample's text, exactly as shipped.
pub fn export(args: &ExportArgs) -> Result<(), String> {
    let sample = crate::samples::find(&args.sample).ok_or_else(|| {
        format!("{}: no built-in sample has that name (samples: {})", args.sample, crate::samples::names())
    })?;
    match &args.out {
        None => crate::print_out(sample.text),
        Some(path) => {
            std::fs::write(path, sample.text).map_err(|e| format!("{}: cannot write the file: {e}", path.display()))?;
            crate::print_out(&format!("wrote {} to {}\n", sample.name, path.display()))
        }
    }
}
