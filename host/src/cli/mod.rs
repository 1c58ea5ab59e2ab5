//! The `deferral-host` command line: parses arguments, opens the store, runs one command,
//! prints its result (one JSON line, or a table for people) and returns the exit code.
//!
//! `args` holds the clap definitions (and so every `--help` text), `config` the `--config` file
//! of `run`, `run` the choice of command, `cmd/` one file per command (read its arguments, call
//! the operation, print), `store_open` and `input` what commands read, `text` the tables and
//! reports printed for people.

#[macro_use]
mod out;

mod args;
mod cmd;
pub mod config;
mod github_env;
mod input;
mod run;
mod store_open;
mod text;

pub use crate::view::deferral_json;
pub use args::Cli;
pub use run::run;
