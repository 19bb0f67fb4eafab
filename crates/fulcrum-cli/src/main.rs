//! `fulcrum`: the engine's command line tool. One module per subcommand:
//!
//! ```text
//! fulcrum run SCENE [--steps N] [--every K] [--out FILE.jsonl] [--html FILE.html] [--threads N]
//!             [--snapshot-at N --snapshot-out FILE] | --resume FILE [--steps M] ...
//!                                                                simulate, write a trajectory / replay page
//! fulcrum check SCENE                                            validate and summarise
//! fulcrum export SAMPLE [--out FILE]                             write a built-in sample
//! fulcrum list                                                   list the built-in samples
//! fulcrum bench [--scene NAME] [--steps N] [--repeats R] [--threads N] [--json] [--profile]
//!                                                                time the standard scenes
//! fulcrum view [SCENE] [--port P] [--host H] [--threads N]        live testbed in the browser
//! ```
//! SCENE is a scene file (shared/docs/scene-format.md) or the name of a built-in sample.
//! Every failure exits non-zero with one line on stderr: 2 for bad command lines, 1 otherwise.

mod bench;
mod check;
mod export;
mod list;
mod profile;
mod run;
mod run_snapshot;
mod samples;
mod usage;
mod view;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

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
        Err(error) => {
            let args: Vec<String> = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned()).collect();
            let command = Cli::command();
            let subcommands: Vec<&str> = command.get_subcommands().map(|sub| sub.get_name()).collect();
            return usage::report(&error, &args, &subcommands);
        }
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

/// Writes `text` to stdout; a closed pipe (`fulcrum list | head -1`) is not an error.
pub(crate) fn print_out(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write to stdout: {e}")),
        _ => Ok(()),
    }
}
