//! The `deferral-host` command line: parses arguments, opens the store, runs one command,
//! prints its result (one JSON line, or a table for people) and returns the exit code.
//!
//! `args` holds the clap definitions (and so every `--help` text), `run` the work of each
//! command, `text` the tables and reports printed for people.

mod args;
pub mod port;
mod run;
pub mod scheduler;
mod text;

pub use crate::view::deferral_json;
pub(crate) use args::non_empty;
pub use args::Cli;
pub use run::run;
