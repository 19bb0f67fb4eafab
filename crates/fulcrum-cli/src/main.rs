//! `fulcrum`: the engine's command line tool. One module per subcommand:
//!
//! ```text
//! fulcrum run SCENE [--steps N] [--every K] [--out FILE.jsonl]   simulate, write a trajectory
//! fulcrum check SCENE                                            validate and summarise
//! fulcrum export SAMPLE [--out FILE]                             write a built-in sample
//! fulcrum list                                                   list the built-in samples
//! fulcrum bench [--scene NAME] [--steps N] [--repeats R] [--json] time the standard scenes
//! fulcrum view [SCENE] [--port P] [--host H]                      live testbed in the browser
//! ```
//! SCENE is a scene file (shared/docs/scene-format.md) or the name of a built-in sample.
//! Every failure exits non-zero with one line on stderr: 2 for bad command lines, 1 otherwise.

mod bench;
mod check;
mod export;
mod list;
mod run;
mod samples;
mod view;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// The fulcrum physics engine's command line tool.
#[derive(Parser)]
#[command(name = "fulcrum", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene headless and write its trajectory.
    Run(run::RunArgs),
    /// Validate a scene and print a summary, or the first error.
    Check(check::CheckArgs),
    /// Write a built-in sample as a scene file.
    Export(export::ExportArgs),
    /// List the built-in samples.
    List,
    /// Time the standard benchmark scenes (shared/bench/SCENES.md).
    Bench(bench::BenchArgs),
    /// Open the live testbed: serve the page, run the scene at real time until Ctrl-C.
    View(view::ViewArgs),
}

fn main() -> ExitCode {
    // A bug must still end in one line, not a trace; the message keeps the word "panicked".
    std::panic::set_hook(Box::new(|info| {
        eprintln!("error: internal error, please report it: {}", info.to_string().replace('\n', " "));
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return command_line_error(&error),
    };
    let result = match &cli.command {
        Command::Run(args) => run::run(args),
        Command::Check(args) => check::check(args),
        Command::Export(args) => export::export(args),
        Command::List => list::list(),
        Command::Bench(args) => bench::bench(args),
        Command::View(args) => view::view(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Help and version go to stdout with success; any other parse error becomes one line on
/// stderr and exit code 2.
fn command_line_error(error: &clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            eprintln!("error: no command given: use run, check, export, list, bench or view (see `fulcrum --help`)");
            ExitCode::from(2)
        }
        _ => {
            // clap spreads a message over lines (argument names, tips) before "Usage:".
            let text = error.to_string();
            let parts: Vec<&str> = text
                .lines()
                .take_while(|line| !line.starts_with("Usage:"))
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .collect();
            let message = parts.join(" ").replace(" tip:", "; tip:");
            eprintln!("{message} (see `fulcrum --help`)");
            ExitCode::from(2)
        }
    }
}

/// Writes `text` to stdout; a closed pipe (`fulcrum list | head -1`) is not an error.
pub(crate) fn print_out(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write to stdout: {e}")),
        _ => Ok(()),
    }
}
