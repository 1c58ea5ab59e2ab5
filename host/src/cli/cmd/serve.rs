//! `serve`: the durable port ([`crate::serve`]), with GitHub's webhooks when configured.

use crate::cli::args::{Cli, ServeArgs};
use crate::cli::github_env::github_env;
use crate::cli::store_open::{open_store, store_url};
use crate::error::HostError;
use crate::lifecycle;

pub(in crate::cli) fn execute(cli: &Cli, args: &ServeArgs) -> Result<(), HostError> {
    crate::logs::set_format(args.log_format);
    let token = args.port.token()?;
    // Opened once here, before the port listens, to migrate and check it (a missing store
    // is refused: only `init` creates one); each worker then opens its own connection.
    drop(open_store(cli)?);
    let pools = crate::pools::PoolOptions {
        buffer: args.pool_buffer,
        fair: crate::pools::fair::rules(&args.pool_weights, &args.pool_urgent_shares)?,
        ..crate::pools::PoolOptions::default()
    };
    let mut options = args.port.serve_options(token, store_url(cli)?, pools)?;
    options.webhook = args.webhook.intake(crate::flags::webhook::Follow {
        store: &options.store,
        github: &args.github,
        env: github_env,
        http_timeout: args.http_timeout,
        max_chain: lifecycle::outcome::DEFAULT_MAX_CHAIN,
    })?;
    crate::serve::serve(options)
}
