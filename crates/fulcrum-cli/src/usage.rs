//! Bad command lines: one line on stderr and exit code 2. The line says what is wrong (the
//! option, the value given and what it accepts), then one hint: a suggested spelling when clap
//! has one, else the help to read (`fulcrum run --help`). clap's own rendering spreads a
//! message over several lines with two hints, and offers `-- -5` for a negative count (which
//! then fails), so its error kinds are rendered here instead.

use std::error::Error as _;
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::process::ExitCode;
use std::str::FromStr;

use clap::error::{ContextKind, ErrorKind};

/// Exit code of a bad command line.
const USAGE_EXIT_CODE: u8 = 2;

/// A whole number within `range`, as a clap value parser. Text, a negative number and a number
/// outside the range fail alike, with a reason naming the range. (Arguments taking one must
/// also allow negative numbers, or clap reads `-5` as an unknown option.)
pub fn count<T>(range: RangeInclusive<T>) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    move |text| match text.parse::<T>() {
        Ok(number) if range.contains(&number) => Ok(number),
        _ => Err(format!("expected a whole number from {} to {}", range.start(), range.end())),
    }
}

/// Reports a command line clap refused. Help and version go to stdout with success; anything
/// else becomes one line on stderr and exit code 2. `args` is the command line (program name
/// first): its subcommand, if any, picks the help the hint points to.
pub fn report(error: &clap::Error, args: &[String], subcommands: &[&str]) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        _ => {
            let subcommand = args.get(1).map(String::as_str).filter(|name| subcommands.contains(name));
            eprintln!("error: {}", one_line(error, subcommand, subcommands));
            ExitCode::from(USAGE_EXIT_CODE)
        }
    }
}

/// The complaint and one hint.
fn one_line(error: &clap::Error, subcommand: Option<&str>, subcommands: &[&str]) -> String {
    let help = match subcommand {
        Some(name) => format!("fulcrum {name} --help"),
        None => "fulcrum --help".to_string(),
    };
    let see_help = format!("(see `{help}`)");
    let arg = context(error, ContextKind::InvalidArg);
    match error.kind() {
        ErrorKind::ValueValidation => {
            let reason = error.source().map_or_else(String::new, |source| format!(": {source}"));
            format!("invalid value '{}' for {arg}{reason} {see_help}", context(error, ContextKind::InvalidValue))
        }
        ErrorKind::InvalidValue => {
            match (context(error, ContextKind::InvalidValue), context(error, ContextKind::ValidValue)) {
                (value, _) if value.is_empty() => format!("{arg} needs a value {see_help}"),
                (value, valid) if valid.is_empty() => format!("invalid value '{value}' for {arg} {see_help}"),
                (value, valid) => format!("invalid value '{value}' for {arg}: expected one of {valid} {see_help}"),
            }
        }
        ErrorKind::UnknownArgument if arg.starts_with('-') => match suggestion(error, ContextKind::SuggestedArg) {
            Some(known) => format!("unknown option '{arg}'; did you mean '{known}'?"),
            None => format!("unknown option '{arg}' {see_help}"),
        },
        ErrorKind::UnknownArgument => format!("unexpected argument '{arg}' {see_help}"),
        ErrorKind::InvalidSubcommand => {
            let given = context(error, ContextKind::InvalidSubcommand);
            match suggestion(error, ContextKind::SuggestedSubcommand) {
                Some(known) => format!("unknown command '{given}'; did you mean '{known}'?"),
                None => format!("unknown command '{given}': use {} {see_help}", one_of(subcommands)),
            }
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            format!("no command given: use {} {see_help}", one_of(subcommands))
        }
        ErrorKind::MissingRequiredArgument => format!("missing {arg} {see_help}"),
        ErrorKind::ArgumentConflict => match context(error, ContextKind::PriorArg) {
            prior if prior.is_empty() || prior == arg => format!("{arg} is given more than once {see_help}"),
            prior => format!("{arg} cannot be used with {prior} {see_help}"),
        },
        _ => format!("{} {see_help}", first_line(error)),
    }
}

/// "a, b or c".
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A context value of the error as text ("" when clap gave none).
fn context(error: &clap::Error, kind: ContextKind) -> String {
    error.get(kind).map(ToString::to_string).unwrap_or_default()
}

/// The first of clap's suggestions of a given kind, if any.
fn suggestion(error: &clap::Error, kind: ContextKind) -> Option<String> {
    let suggestions = context(error, kind);
    suggestions.split(", ").next().filter(|first| !first.is_empty()).map(str::to_string)
}

/// clap's own message without the "error: " prefix, its tips and its usage.
fn first_line(error: &clap::Error) -> String {
    let text = error.to_string();
    let line = text.lines().next().unwrap_or_default();
    line.trim_start_matches("error: ").trim().to_string()
}
