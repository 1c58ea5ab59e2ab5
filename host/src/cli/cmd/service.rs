//! `run`: the port, the scheduler and the watches as one service ([`crate::run`]).

use crate::cli::args::Cli;
use crate::cli::github_env::github_env;
use crate::cli::store_open::{integrity, store_url};
use crate::error::HostError;

pub(in crate::cli) fn execute(cli: &Cli, args: &crate::run::RunArgs) -> Result<(), HostError> {
    crate::logs::set_format(args.log_format);
    let outside = crate::run::Outside {
        github_env,
        reload: crate::cli::config::reload,
    };
    crate::run::run(store_url(cli)?, integrity(cli), args, outside)
}
