//! GitHub's webhooks' flags and the one place they become the port's [`Intake`]: the secret
//! file ([`WebhookSecretArgs`], shared by `serve` and `run`) and, for `serve`, the
//! repositories whose trusted runs' `deferred-receipt` artifacts a delivery ingests
//! (`--watch-*`, [`WebhookArgs`]; `run` takes those from its `[[watch]]` tables instead).

use crate::error::{HostError, HostErrorKind};
use crate::github::options::{GithubArgs, GithubEnv};
use crate::github::trust::Trust;
use crate::github::DEFAULT_ARTIFACT;
use crate::ops::ingest::WatchOptions;
use crate::private_file::{self, Holds};
use crate::store::StoreUrl;
use crate::webhook::{worker, Intake};
use clap::Args;
use deferral_core::lifecycle::DEFAULT_MAX_REENTRIES;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Largest secret file read.
const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

/// The shortest webhook secret taken, in characters. GitHub asks for "a random string of text
/// with high entropy" and names no length; 16 is the floor the port's bearer token has (16
/// random characters of a hex or base64 alphabet are 64 to 96 bits), and refuses the one-word
/// secrets a signature would not protect.
pub const MIN_SECRET_LEN: usize = 16;

#[derive(Args, Debug, Clone, Default)]
pub struct WebhookSecretArgs {
    /// Take GitHub's webhooks at POST /v1/github/webhook (no bearer token: the signature is
    /// the proof): FILE holds the webhook's secret, one a line (two lines while rotating),
    /// each at least 16 characters; a regular file of this user's (or root's) that no one else
    /// may read (`chmod 600`).
    #[arg(long, env = "DEFERRAL_GITHUB_WEBHOOK_SECRET_FILE", value_name = "FILE")]
    pub github_webhook_secret_file: Option<PathBuf>,
}

/// `serve`'s webhook flags: the secret file and the repositories to ingest for.
#[derive(Args, Debug, Clone, Default)]
pub struct WebhookArgs {
    #[command(flatten)]
    pub secret: WebhookSecretArgs,
    /// With webhooks: ingest the `deferred-receipt` artifact of a completed run of this
    /// repository that the watch rules trust (repeatable; as `watch OWNER/REPO`).
    #[arg(long = "watch", value_name = "OWNER/REPO", requires = "watch_launch")]
    pub watch_repos: Vec<String>,
    /// Launch target of the deferrals those artifacts record (as `watch --launch`).
    #[arg(long, value_name = "TARGET")]
    pub watch_launch: Option<String>,
    /// Trust only runs of this workflow (repeatable; as `watch --workflow`).
    #[arg(long = "watch-workflow", value_name = "FILE")]
    pub watch_workflows: Vec<String>,
    /// Trust only runs on this branch (repeatable; default: the repository's default branch).
    #[arg(long = "watch-branch", value_name = "NAME")]
    pub watch_branches: Vec<String>,
    /// Trust only runs of this event (repeatable; default: any but pull_request and
    /// pull_request_target).
    #[arg(long = "watch-event", value_name = "NAME")]
    pub watch_events: Vec<String>,
    /// The artifact name the runs upload their receipt under.
    #[arg(long, default_value = DEFAULT_ARTIFACT, value_name = "NAME")]
    pub watch_artifact: String,
    /// The pool the ingested deferrals wait in.
    #[arg(long, value_name = "NAME")]
    pub watch_pool: Option<String>,
}

fn invalid(message: String) -> HostError {
    HostError::new(HostErrorKind::InvalidGithub, message)
}

/// The secrets in `path`: one a line, blank lines and surrounding spaces ignored. The file is
/// a secret's (see [`crate::private_file`]: this user's or root's, no one else's to read) and
/// each secret is at least [`MIN_SECRET_LEN`] characters.
pub fn read_secrets(path: &Path) -> Result<Vec<Vec<u8>>, HostError> {
    let shown = path.display();
    let what = format!("the webhook secret file {shown}");
    let bytes = private_file::read(path, Holds::Secret, MAX_SECRET_FILE_BYTES)
        .map_err(|refusal| invalid(refusal.message(&what, path, Holds::Secret)))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| invalid(format!("{what} is not UTF-8 text (one secret a line)")))?;
    let secrets: Vec<Vec<u8>> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| line.as_bytes().to_vec())
        .collect();
    if secrets.is_empty() {
        return Err(invalid(format!("{what} holds no secret (one a line)")));
    }
    // Which line, never what it holds.
    if let Some(line) = text
        .lines()
        .map(str::trim)
        .position(|line| !line.is_empty() && line.chars().count() < MIN_SECRET_LEN)
    {
        return Err(invalid(format!(
            "{what}: the secret on line {} is shorter than {MIN_SECRET_LEN} characters; a webhook secret must be at least {MIN_SECRET_LEN} characters, a random string (openssl rand -hex 32), set alike on GitHub",
            line + 1
        )));
    }
    Ok(secrets)
}

/// How the webhook's worker follows a delivery's run: the store, GitHub's credentials (as the
/// command's flags and the environment give them) and the chain limit.
pub struct Follow<'a> {
    pub store: &'a StoreUrl,
    pub github: &'a GithubArgs,
    pub env: fn() -> GithubEnv,
    pub http_timeout: Duration,
    pub max_chain: u32,
}

/// Called by the worker after each delivery it handled (`run` wakes its scheduler with it).
pub type Handled = Arc<dyn Fn() + Send + Sync>;

impl WebhookSecretArgs {
    /// Whether webhooks are configured.
    pub fn is_set(&self) -> bool {
        self.github_webhook_secret_file.is_some()
    }

    /// The secrets, when webhooks are configured.
    pub fn secrets(&self) -> Result<Option<Vec<Vec<u8>>>, HostError> {
        self.github_webhook_secret_file
            .as_deref()
            .map(read_secrets)
            .transpose()
    }

    /// With `--github-webhook-secret-file`: the secrets read, GitHub's credentials required (a
    /// delivery's run is followed with them), and the worker started, ingesting for `watches`
    /// and calling `handled` after each delivery. `None` without webhooks.
    pub fn intake(
        &self,
        follow: Follow<'_>,
        watches: Vec<WatchOptions>,
        handled: Option<Handled>,
    ) -> Result<Option<Intake>, HostError> {
        let Some(secrets) = self.secrets()? else {
            return Ok(None);
        };
        if follow
            .github
            .client((follow.env)(), follow.http_timeout)?
            .is_none()
        {
            return Err(HostError::new(
                HostErrorKind::NoGithubCredentials,
                "webhooks need GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key to read a run's artifacts",
            ));
        }
        worker::start(
            worker::Worker {
                store: follow.store.clone(),
                github: follow.github.clone(),
                env: (follow.env)(),
                http_timeout: follow.http_timeout,
                max_chain: follow.max_chain,
                handled,
            },
            secrets,
            watches,
        )
        .map(Some)
        .map_err(|e| {
            HostError::new(
                HostErrorKind::RuntimeFailed,
                format!("cannot start the webhook worker: {e}"),
            )
        })
    }
}

impl WebhookArgs {
    /// `serve`'s intake: [`WebhookSecretArgs::intake`] with the `--watch` repositories.
    pub fn intake(&self, follow: Follow<'_>) -> Result<Option<Intake>, HostError> {
        if !self.secret.is_set() {
            return Ok(None);
        }
        let watches = self.watches()?;
        self.secret.intake(follow, watches, None)
    }

    /// The watches a delivery may ingest for, each checked as `watch` checks its arguments.
    pub fn watches(&self) -> Result<Vec<WatchOptions>, HostError> {
        let launchers = crate::launch::Launchers::builtin();
        if let Some(launch) = &self.watch_launch {
            launchers.parse(launch)?;
        }
        if let Some(pool) = &self.watch_pool {
            crate::pools::check_name(pool)?;
        }
        self.watch_repos
            .iter()
            .map(|repo| {
                crate::launch::github_names::check_repo(repo)?;
                Ok(WatchOptions {
                    repo: repo.clone(),
                    launch: self.watch_launch.clone().unwrap_or_default(),
                    artifact_name: self.watch_artifact.clone(),
                    max_reentries: DEFAULT_MAX_REENTRIES,
                    commit_status: None,
                    pool: self.watch_pool.clone(),
                    trust: Trust {
                        workflows: self.watch_workflows.clone(),
                        branches: self.watch_branches.clone(),
                        events: self.watch_events.clone(),
                    },
                })
            })
            .collect()
    }
}
