//! The `deferral-host` command line: parses arguments, opens the store, runs one command,
//! prints its result (one JSON line, or a table for people) and returns the exit code.
//!
//! `args` holds the clap definitions (and so every `--help` text), `run` the work of each
//! command, `text` the tables and reports printed for people.

mod args;
pub mod config;
mod github_env;
mod run;
mod text;

pub use crate::view::deferral_json;
pub use args::Cli;
pub use run::run;
