//! Runs one parsed command: reads `--config` when given, calls the command's file in `cmd/`,
//! and prints an error as every command does.

use super::args::{Cli, Command};
use super::cmd;
use crate::error::{HostError, EXIT_OK};

/// Runs the command line and returns the process exit code.
pub fn run() -> u8 {
    // Before any secret is read: no process of this user may read them from ours.
    crate::sealed_process::seal();
    // `run --config FILE` fills in what the command line leaves out (see `cli::config`).
    let cli = match super::config::parse(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(super::config::ParseError::Usage(err)) => return crate::usage::report(&err),
        Err(super::config::ParseError::Config(err)) => return fail(&err),
    };
    match execute(&cli) {
        Ok(()) => EXIT_OK,
        Err(err) => fail(&err),
    }
}

/// Prints an error as every command does (a JSON line on stdout, a sentence on stderr) and
/// returns its exit code.
fn fail(err: &HostError) -> u8 {
    out!("{}", err.to_json_value());
    if crate::logs::is_json() {
        let fields = serde_json::to_value(err.detail()).unwrap_or_default();
        crate::logs::json("error", "host", "error", fields);
        return err.exit_code;
    }
    eprintln!(
        "deferral-host: {}{}",
        err,
        err.path
            .as_ref()
            .map(|p| format!(" (at {p})"))
            .unwrap_or_default()
    );
    err.exit_code
}

fn execute(cli: &Cli) -> Result<(), HostError> {
    match &cli.command {
        Command::Record(args) => cmd::record::execute(cli, args),
        Command::Status(args) => cmd::status::execute(cli, args),
        Command::Show(args) => cmd::show::execute(cli, args),
        Command::Cancel(args) => cmd::cancel::execute(cli, args),
        Command::Retry(args) => cmd::retry::execute(cli, args),
        Command::Init => cmd::init::execute(cli),
        Command::Tick(args) => cmd::tick::execute(cli, args),
        Command::Report(args) => cmd::report::execute(cli, args),
        Command::Resolve(args) => cmd::resolve::execute(cli, args),
        Command::Serve(args) => cmd::serve::execute(cli, args),
        Command::Watch(args) => cmd::watch::execute(cli, args),
        Command::Run(args) => cmd::service::execute(cli, args),
        Command::Prune(args) => cmd::prune::execute(cli, args),
    }
}
