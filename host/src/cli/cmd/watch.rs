//! `watch OWNER/REPO`: one pass for cron that ingests trusted `deferred-receipt` artifacts
//! ([`crate::ops::ingest`]).

use crate::cli::args::{Cli, WatchArgs};
use crate::cli::github_env::github_env;
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::{HostError, HostErrorKind};
use crate::launch::Launchers;

pub(in crate::cli) fn execute(cli: &Cli, args: &WatchArgs) -> Result<(), HostError> {
    crate::launch::github_names::check_repo(&args.repo)?;
    Launchers::builtin().parse(&args.launch)?;
    if let Some(pool) = &args.pool {
        crate::pools::check_name(pool)?;
    }
    let client = args
        .github
        .client(github_env(), args.http_timeout)?
        .ok_or_else(|| {
            HostError::new(
                HostErrorKind::NoGithubCredentials,
                "watch needs GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key",
            )
        })?;
    let store = open_store(cli)?;
    let options = crate::ops::ingest::WatchOptions {
        repo: args.repo.clone(),
        launch: args.launch.clone(),
        artifact_name: args.artifact.clone(),
        max_reentries: args.max_reentries,
        commit_status: None,
        pool: args.pool.clone(),
        trust: crate::github::trust::Trust {
            workflows: args.workflows.clone(),
            branches: args.branches.clone(),
            events: args.events.clone(),
        },
    };
    let answer = crate::ops::ingest::watch(&*store, &client, &options, &now_ms)
        .map_err(|e| HostError::new(e.kind(), e.message()))?;
    out!("{answer}");
    Ok(())
}
