//! `run --config FILE`: a TOML file whose keys are `run`'s long flag names (`listen`,
//! `lease-timeout`, `allow-launch`, ... and the global `store`), plus `[[watch]]` tables for the
//! repositories to ingest. What the command line (or a flag's environment variable) gives wins
//! over the file; the file wins over the defaults. Each key the file gives and the command line
//! does not is handed to clap as `--KEY=VALUE`, so a value is checked exactly as the flag checks
//! it. A key that is not a flag of `run` is refused, naming the key.
//!
//! The file is read only when no other user can change it (see [`crate::private_file`]: this
//! user's or root's, writable by no one else), since it chooses what the host runs. An error
//! about it names the key and its line, never the value: a value may be a secret pasted in the
//! wrong place, and errors reach logs.

use super::Cli;
use crate::error::{HostError, HostErrorKind};
use crate::private_file::{self, Holds};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::run::watches::WatchConfig;

/// Why the command line could not be parsed.
pub enum ParseError {
    /// clap's own (a bad flag on the command line, `--help`).
    Usage(clap::Error),
    /// The configuration file's (`invalid-config`).
    Config(HostError),
}

/// Largest configuration file read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

fn invalid(path: &Path, message: impl std::fmt::Display) -> HostError {
    HostError::new(
        HostErrorKind::InvalidConfig,
        format!("{}: {message}", path.display()),
    )
}

/// The flags and watches a configuration file gives, and its text (for the lines of keys).
struct File {
    text: String,
    flags: toml::Table,
    watches: Vec<WatchConfig>,
    gates: Vec<crate::ops::gate::GateConfig>,
}

fn read(path: &Path) -> Result<File, HostError> {
    let what = format!("the configuration file {}", path.display());
    let bytes = private_file::read(path, Holds::Settings, MAX_CONFIG_BYTES).map_err(|refusal| {
        HostError::new(
            HostErrorKind::InvalidConfig,
            refusal.message(&what, path, Holds::Settings),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| invalid(path, "not UTF-8 text"))?;
    let mut flags: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| invalid(path, located(&text, &e)))?;
    let watches = match flags.remove("watch") {
        None => Vec::new(),
        Some(toml::Value::Array(_)) => {
            #[derive(serde::Deserialize)]
            struct Watches {
                watch: Vec<WatchConfig>,
            }
            toml::from_str::<Watches>(&text)
                .map_err(|e| invalid(path, format!("[[watch]] {}", located(&text, &e))))?
                .watch
        }
        Some(_) => {
            return Err(invalid(path, "`watch` must be [[watch]] tables (repo, launch, workflow, branch, event, artifact, pool, max-reentries, commit-status)"))
        }
    };
    let gates = match flags.remove("gate") {
        None => Vec::new(),
        Some(toml::Value::Array(_)) => {
            #[derive(serde::Deserialize)]
            struct Gates {
                gate: Vec<crate::ops::gate::GateConfig>,
            }
            toml::from_str::<Gates>(&text)
                .map_err(|e| invalid(path, format!("[[gate]] {}", located(&text, &e))))?
                .gate
        }
        Some(_) => {
            return Err(invalid(path, "`gate` must be [[gate]] tables (repo, environment, pool, cost or plan, priority, fairness-key, resume-by, max-reentries, commit-status)"))
        }
    };
    Ok(File {
        text,
        flags,
        watches,
        gates,
    })
}

/// The 1-based line of `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

/// The key a line sets (`key = ...`), when it sets one.
fn key_on_line(text: &str, line: usize) -> Option<&str> {
    let (key, _) = text.lines().nth(line - 1)?.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then_some(key)
}

/// The line of top-level `key` in `text`.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let table = toml::de::DeTable::parse(text).ok()?;
    let (name, _) = table.get_ref().get_key_value(key)?;
    Some(line_of(text, name.span().start))
}

/// A TOML error in words: its line and the key that line sets, and what is wrong without the
/// value (the snippet of the file that the error's `Display` quotes is left out).
fn located(text: &str, err: &toml::de::Error) -> String {
    let message = without_value(err.message());
    let Some(span) = err.span() else {
        return message;
    };
    let line = line_of(text, span.start);
    match key_on_line(text, line) {
        Some(key) => format!("line {line}: `{key}`: {message}"),
        None => format!("line {line}: {message}"),
    }
}

/// serde's "invalid type: string \"...\", expected ..." without the value it quotes.
fn without_value(message: &str) -> String {
    let message = message.trim();
    for (prefix, says) in [
        ("invalid type: ", "a value of the wrong type"),
        ("invalid value: ", "a value it does not take"),
    ] {
        if let Some(rest) = message.strip_prefix(prefix) {
            return match rest.rsplit_once(", expected ") {
                Some((_, expected)) => format!("{says}, expected {expected}"),
                None => says.to_string(),
            };
        }
    }
    message.to_string()
}

/// The error about `key` of the file, with its line.
fn invalid_key(path: &Path, text: &str, key: &str, message: impl std::fmt::Display) -> HostError {
    match line_of_key(text, key) {
        Some(line) => invalid(path, format!("line {line}: `{key}` {message}")),
        None => invalid(path, format!("`{key}` {message}")),
    }
}

/// clap's refusal of the arguments the file's keys became (`given`: the keys), naming the key
/// and its line and never its value; an error about no key of the file is clap's message with
/// the file's values left out.
fn refused_arguments(
    path: &Path,
    file: &File,
    given: &[(String, String)],
    err: &clap::Error,
) -> HostError {
    use clap::error::{ContextKind, ContextValue};
    let flag = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(flag)) => flag.clone(),
        _ => String::new(),
    };
    let named: String = flag
        .trim_start_matches('-')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    if let Some((key, value)) = given.iter().find(|(key, _)| *key == named) {
        let reason = std::error::Error::source(err)
            .map(ToString::to_string)
            .filter(|reason| value.is_empty() || !reason.contains(value.as_str()))
            .map(|reason| format!(": {reason}"))
            .unwrap_or_default();
        let choices = match err.get(ContextKind::ValidValue) {
            Some(ContextValue::Strings(values)) => format!(" (one of: {})", values.join(", ")),
            _ => String::new(),
        };
        return invalid_key(
            path,
            &file.text,
            key,
            format!("is not a value {flag} takes{reason}{choices}"),
        );
    }
    let mut message = crate::usage::message(err);
    for (_, value) in given {
        if value.len() >= 3 {
            message = message.replace(value.as_str(), "(a value of the file)");
        }
    }
    invalid(path, message)
}

/// Whether the command line (or the flag's environment variable) gave `id`.
fn given(matches: &[&ArgMatches], id: &str) -> bool {
    // `value_source` panics on an id the matches do not know: ask it only of those that do.
    matches.iter().any(|m| {
        matches!(m.try_get_raw(id), Ok(Some(_)))
            && matches!(
                m.value_source(id),
                Some(ValueSource::CommandLine | ValueSource::EnvVariable)
            )
    })
}

/// The `--KEY=VALUE` arguments of one key of the file.
fn arguments(
    path: &Path,
    text: &str,
    key: &str,
    value: &toml::Value,
    action: &ArgAction,
) -> Result<Vec<String>, HostError> {
    let scalar = |value: &toml::Value| match value {
        toml::Value::String(text) => Ok(text.clone()),
        toml::Value::Integer(n) => Ok(n.to_string()),
        other => Err(invalid_key(
            path,
            text,
            key,
            format!(
                "must be a string or a whole number, not {}",
                other.type_str()
            ),
        )),
    };
    match (action, value) {
        (ArgAction::SetTrue, toml::Value::Boolean(on)) => Ok(if *on {
            vec![format!("--{key}")]
        } else {
            Vec::new()
        }),
        (ArgAction::SetTrue, other) => Err(invalid_key(
            path,
            text,
            key,
            format!("is true or false, not {}", other.type_str()),
        )),
        (ArgAction::Append, toml::Value::Array(items)) => items
            .iter()
            .map(|item| scalar(item).map(|v| format!("--{key}={v}")))
            .collect(),
        (_, toml::Value::Array(_)) => {
            Err(invalid_key(path, text, key, "takes one value, not a list"))
        }
        (_, value) => Ok(vec![format!("--{key}={}", scalar(value)?)]),
    }
}

/// Parses the command line; for `run --config FILE`, with the file's keys added for the flags
/// the command line does not give, and its `[[watch]]` tables.
pub fn parse(argv: Vec<OsString>) -> Result<Cli, ParseError> {
    let command = Cli::command();
    let matches = command
        .clone()
        .try_get_matches_from(&argv)
        .map_err(ParseError::Usage)?;
    let config = match matches.subcommand() {
        Some(("run", run)) => run
            .get_one::<PathBuf>("config")
            .cloned()
            .map(|path| (path, run.clone())),
        _ => None,
    };
    let Some((path, run)) = config else {
        return Cli::from_arg_matches(&matches).map_err(ParseError::Usage);
    };
    let file = read(&path).map_err(ParseError::Config)?;
    let run_command = command.find_subcommand("run").expect("the run command");
    let mut extra = Vec::new();
    // Each key the file gave and the command line did not, with its value as clap is given it.
    let mut given_by_file = Vec::new();
    for (key, value) in &file.flags {
        let arg = (key != "config" && key != "help")
            .then(|| {
                run_command
                    .get_arguments()
                    .chain(command.get_arguments())
                    .find(|a| a.get_long() == Some(key.as_str()))
            })
            .flatten();
        let Some(arg) = arg else {
            let hint = if key.contains('_') {
                format!(" (flag names use dashes: `{}`)", key.replace('_', "-"))
            } else {
                String::new()
            };
            let line = line_of_key(&file.text, key)
                .map(|line| format!("line {line}: "))
                .unwrap_or_default();
            return Err(ParseError::Config(invalid(
                &path,
                format!("{line}unknown key `{key}`{hint}: the keys are the long flags of `deferral-host run` (see --help) [[watch]] and [[gate]] tables"),
            )));
        };
        if given(&[&matches, &run], arg.get_id().as_str()) {
            continue;
        }
        let arguments = arguments(&path, &file.text, key, value, arg.get_action())
            .map_err(ParseError::Config)?;
        for argument in &arguments {
            let value = argument.split_once('=').map_or("", |(_, v)| v);
            given_by_file.push((key.clone(), value.to_string()));
        }
        extra.extend(arguments);
    }
    let mut full = argv;
    full.extend(extra.into_iter().map(OsString::from));
    let merged = command
        .try_get_matches_from(&full)
        .map_err(|e| ParseError::Config(refused_arguments(&path, &file, &given_by_file, &e)))?;
    let mut cli = Cli::from_arg_matches(&merged).map_err(ParseError::Usage)?;
    if let Some(args) = cli.run_args_mut() {
        args.watches = file.watches;
        args.gates = file.gates;
    }
    Ok(cli)
}

/// The `run` arguments again, from the same command line and the file as it is now (SIGHUP).
pub fn reload() -> Result<crate::run::RunArgs, HostError> {
    match parse(std::env::args_os().collect()) {
        Ok(mut cli) => cli
            .run_args_mut()
            .map(|args| args.clone())
            .ok_or_else(|| HostError::new(HostErrorKind::InvalidConfig, "not the run command")),
        Err(ParseError::Config(err)) => Err(err),
        Err(ParseError::Usage(err)) => Err(HostError::new(
            HostErrorKind::InvalidConfig,
            crate::usage::message(&err),
        )),
    }
}
