//! The scheduler's flags, shared by `tick` and `run`, and the one place they become the
//! [`TickOptions`] of a pass (with the GitHub client the flags and the environment give).

use crate::clock::parse_duration;
use crate::error::{HostError, HostErrorKind};
use crate::github::options::{GithubArgs, GithubEnv};
use crate::launch::Launchers;
use crate::lifecycle;
use crate::ops::tick::rate_limit::RateLimitPool;
use crate::ops::tick::TickOptions;
use clap::Args;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct SchedulerArgs {
    /// How long a launch may hold its lease (an exec process is killed before it ends).
    #[arg(long, default_value = "15m", value_parser = parse_duration)]
    pub lease_timeout: Duration,
    /// Timeout of each GitHub request.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub http_timeout: Duration,
    /// At most this many deferrals of each kind of work per pass.
    #[arg(long, default_value_t = crate::ops::tick::DEFAULT_LIMIT)]
    pub limit: usize,
    /// Successors a chain of progress may have before it is blocked (`chain-limit`).
    #[arg(long, default_value_t = lifecycle::outcome::DEFAULT_MAX_CHAIN)]
    pub max_chain: u32,
    /// After a pool's window resets, wait this long before admitting into the new one.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub pool_buffer: Duration,
    /// Plus a random wait of up to this long (several hosts sharing a quota spread out).
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub pool_jitter: Duration,
    /// A fairness key's jobs per turn in a pool (repeatable; default 1 each).
    #[arg(long = "pool-weight", value_name = "POOL:KEY=N")]
    pub pool_weights: Vec<String>,
    /// The fraction of each window of a pool (above its reserve) that only priority > 0 may
    /// use (repeatable; default 0).
    #[arg(long = "pool-urgent-share", value_name = "POOL=F")]
    pub pool_urgent_shares: Vec<String>,
    /// Before admission, read GET /rate_limit with the host's GitHub credentials (free of
    /// primary quota) and teach this pool what is left: the pool those credentials spend.
    #[arg(long, value_name = "NAME")]
    pub rate_limit_pool: Option<String>,
    /// With a GitHub App: the repository (OWNER/REPO) whose installation's quota is that pool.
    #[arg(long, value_name = "OWNER/REPO")]
    pub rate_limit_repo: Option<String>,
    #[command(flatten)]
    pub github: GithubArgs,
}

impl SchedulerArgs {
    /// The options of a pass over every due deferral (not a dry run), launching the built-in
    /// kinds: what `tick` and `run` both build from these flags, with GitHub's token, API URL
    /// and proxy as `cli` read them from the environment.
    pub fn tick_options(&self, env: GithubEnv) -> Result<TickOptions, HostError> {
        let github = self.github.client(env, self.http_timeout)?;
        let rate_limit = self.rate_limit_pool(github.is_some())?;
        Ok(TickOptions {
            lease_timeout: self.lease_timeout,
            limit: self.limit,
            http_timeout: self.http_timeout,
            github,
            max_chain: self.max_chain,
            pools: self.pool_options()?,
            rate_limit,
            ..TickOptions::new(Launchers::builtin())
        })
    }

    /// How admission waits for a window and shares it (`--pool-*`), checked.
    pub fn pool_options(&self) -> Result<crate::pools::PoolOptions, HostError> {
        Ok(crate::pools::PoolOptions {
            buffer: self.pool_buffer,
            jitter: self.pool_jitter,
            fair: crate::pools::fair::rules(&self.pool_weights, &self.pool_urgent_shares)?,
        })
    }

    /// `--rate-limit-pool NAME [--rate-limit-repo OWNER/REPO]`, checked: a pool name, GitHub
    /// credentials to read with, and with a GitHub App the repository whose installation it is.
    fn rate_limit_pool(&self, credentials: bool) -> Result<Option<RateLimitPool>, HostError> {
        let bad = |message: &str| HostError::new(HostErrorKind::InvalidGithub, message);
        let Some(pool) = &self.rate_limit_pool else {
            if self.rate_limit_repo.is_some() {
                return Err(bad("--rate-limit-repo goes with --rate-limit-pool NAME"));
            }
            return Ok(None);
        };
        crate::pools::check_name(pool)?;
        if !credentials {
            return Err(HostError::new(
                HostErrorKind::NoGithubCredentials,
                "--rate-limit-pool reads GET /rate_limit: it needs GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key",
            ));
        }
        if let Some(repo) = &self.rate_limit_repo {
            crate::launch::github_names::check_repo(repo)?;
        } else if self.github.github_app_id.is_some() {
            return Err(bad(
                "--rate-limit-pool with a GitHub App needs --rate-limit-repo OWNER/REPO: the repository whose installation's quota the pool is",
            ));
        }
        let reserve = deferral_core::decision::Reserve::parse(&self.github.github_reserve)
            .ok_or_else(|| bad("--github-reserve is neither a count nor a percentage"))?;
        Ok(Some(RateLimitPool {
            pool: pool.clone(),
            repo: self.rate_limit_repo.clone(),
            reserve,
        }))
    }
}
