//! `run --config FILE`: a TOML file whose keys are `run`'s long flag names (`listen`,
//! `lease-timeout`, `allow-launch`, ... and the global `store`), plus `[[watch]]` tables for the
//! repositories to ingest. What the command line (or a flag's environment variable) gives wins
//! over the file; the file wins over the defaults. Each key the file gives and the command line
//! does not is handed to clap as `--KEY=VALUE`, so a value is checked exactly as the flag checks
//! it. A key that is not a flag of `run` is refused, naming the key.

use super::Cli;
use crate::error::{HostError, HostErrorKind};
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

fn invalid(path: &Path, message: impl std::fmt::Display) -> HostError {
    HostError::new(
        HostErrorKind::InvalidConfig,
        format!("{}: {message}", path.display()),
    )
}

/// The flags and watches a configuration file gives.
struct File {
    flags: toml::Table,
    watches: Vec<WatchConfig>,
    gates: Vec<crate::ops::gate::GateConfig>,
}

fn read(path: &Path) -> Result<File, HostError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| invalid(path, format!("cannot read it: {e}")))?;
    let mut flags: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| invalid(path, e.to_string().trim()))?;
    let watches = match flags.remove("watch") {
        None => Vec::new(),
        Some(toml::Value::Array(tables)) => tables
            .into_iter()
            .enumerate()
            .map(|(i, table)| {
                table
                    .try_into::<WatchConfig>()
                    .map_err(|e| invalid(path, format!("[[watch]] table {}: {}", i + 1, e.to_string().trim())))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(invalid(path, "`watch` must be [[watch]] tables (repo, launch, workflow, branch, event, artifact, pool, max-reentries, commit-status)"))
        }
    };
    let gates = match flags.remove("gate") {
        None => Vec::new(),
        Some(toml::Value::Array(tables)) => tables
            .into_iter()
            .enumerate()
            .map(|(i, table)| {
                table
                    .try_into::<crate::ops::gate::GateConfig>()
                    .map_err(|e| invalid(path, format!("[[gate]] table {}: {}", i + 1, e.to_string().trim())))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(invalid(path, "`gate` must be [[gate]] tables (repo, environment, pool, cost or plan, priority, fairness-key, resume-by, max-reentries)"))
        }
    };
    Ok(File {
        flags,
        watches,
        gates,
    })
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
    key: &str,
    value: &toml::Value,
    action: &ArgAction,
) -> Result<Vec<String>, HostError> {
    let scalar = |value: &toml::Value| match value {
        toml::Value::String(text) => Ok(text.clone()),
        toml::Value::Integer(n) => Ok(n.to_string()),
        other => Err(invalid(
            path,
            format!(
                "`{key}` must be a string or a whole number, not {}",
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
        (ArgAction::SetTrue, other) => Err(invalid(
            path,
            format!("`{key}` is true or false, not {}", other.type_str()),
        )),
        (ArgAction::Append, toml::Value::Array(items)) => items
            .iter()
            .map(|item| scalar(item).map(|v| format!("--{key}={v}")))
            .collect(),
        (_, toml::Value::Array(_)) => Err(invalid(
            path,
            format!("`{key}` takes one value, not a list"),
        )),
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
            return Err(ParseError::Config(invalid(
                &path,
                format!("unknown key `{key}`{hint}: the keys are the long flags of `deferral-host run` (see --help), [[watch]] and [[gate]] tables"),
            )));
        };
        if given(&[&matches, &run], arg.get_id().as_str()) {
            continue;
        }
        extra.extend(arguments(&path, key, value, arg.get_action()).map_err(ParseError::Config)?);
    }
    let mut full = argv;
    full.extend(extra.into_iter().map(OsString::from));
    let merged = command
        .try_get_matches_from(&full)
        .map_err(|e| ParseError::Config(invalid(&path, crate::usage::message(&e))))?;
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
