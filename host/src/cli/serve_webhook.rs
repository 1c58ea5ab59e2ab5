//! `serve --github-webhook-secret-file`: what the command line checks and starts before the
//! port serves webhooks (see `crate::github::webhook` and `crate::serve::webhook`).

use super::args::ServeArgs;
use crate::coordinator;
use crate::error::{HostError, HostErrorKind};
use crate::github::options::GithubEnv;
use crate::store::StoreUrl;

/// With `--github-webhook-secret-file`: the secrets read, the watches checked, GitHub's
/// credentials required (a delivery's run is followed with them), and the worker started.
pub(super) fn intake(
    args: &ServeArgs,
    store: &StoreUrl,
    github_env: fn() -> GithubEnv,
) -> Result<Option<crate::github::webhook::Intake>, HostError> {
    let Some(secrets) = args.webhook.secrets()? else {
        return Ok(None);
    };
    let watches = args.webhook.watches()?;
    if args
        .github
        .client(github_env(), args.http_timeout)?
        .is_none()
    {
        return Err(HostError::new(
            HostErrorKind::NoGithubCredentials,
            "webhooks need GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key to read a run's artifacts",
        ));
    }
    let queue = crate::github::webhook::worker::start(crate::github::webhook::worker::Worker {
        store: store.clone(),
        github: args.github.clone(),
        env: github_env(),
        http_timeout: args.http_timeout,
        max_chain: coordinator::DEFAULT_MAX_CHAIN,
        watches,
    })
    .map_err(|e| {
        HostError::new(
            HostErrorKind::RuntimeFailed,
            format!("cannot start the webhook worker: {e}"),
        )
    })?;
    Ok(Some(crate::github::webhook::Intake { secrets, queue }))
}
