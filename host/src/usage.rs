//! Usage errors of the command line (a missing argument, an unknown flag, a bad value) answered
//! like every other error: one JSON line `{"error":{"code","message"}}` on stdout, clap's
//! explanation with the usage on stderr, exit 2. `--help` and `--version` stay plain text.

use crate::error::{HostError, HostErrorKind, EXIT_INVALID, EXIT_OK};
use clap::error::ErrorKind;
use std::io::Write;

/// The stable code of a usage error.
pub fn code(kind: ErrorKind) -> HostErrorKind {
    match kind {
        ErrorKind::UnknownArgument => HostErrorKind::UnknownFlag,
        ErrorKind::InvalidSubcommand => HostErrorKind::UnknownCommand,
        ErrorKind::MissingRequiredArgument
        | ErrorKind::MissingSubcommand
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => HostErrorKind::MissingArgument,
        ErrorKind::InvalidValue
        | ErrorKind::ValueValidation
        | ErrorKind::WrongNumberOfValues
        | ErrorKind::TooManyValues
        | ErrorKind::TooFewValues
        | ErrorKind::NoEquals
        | ErrorKind::InvalidUtf8 => HostErrorKind::InvalidValue,
        ErrorKind::ArgumentConflict => HostErrorKind::ConflictingArguments,
        _ => HostErrorKind::Usage,
    }
}

/// Prints what a parse error calls for and returns the exit code.
pub fn report(err: &clap::Error) -> u8 {
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        // Help and version are answers, not errors: clap prints them on stdout.
        let _ = err.print();
        return EXIT_OK;
    }
    let rendered = err.render().to_string();
    let error = HostError::new(code(err.kind()), message(err));
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", error.to_json_value());
    let _ = write!(std::io::stderr().lock(), "{rendered}");
    EXIT_INVALID
}

/// The explanation of a parse error on one line, with clap's suggestions, without the usage.
pub fn message(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    // The explanation is what comes before the usage, on one line: "error: the following
    // required arguments were not provided: --handle <HANDLE>".
    let message = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut message = message
        .strip_prefix("error: ")
        .unwrap_or(&message)
        .to_string();
    // A misspelled command or flag: clap's suggestion ("tip: a similar subcommand exists:
    // 'status'") goes into the message too.
    for tip in rendered
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("tip: "))
    {
        message.push_str("; ");
        message.push_str(&tip["tip: ".len()..]);
    }
    message
}
