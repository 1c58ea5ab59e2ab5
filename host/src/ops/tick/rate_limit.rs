//! `tick --rate-limit-pool NAME`: before admission, the host asks GitHub what is left of the
//! quota its own credentials spend (`GET /rate_limit`, free of primary quota) and teaches pool
//! NAME, as any report teaches a pool (source `host rate_limit`). The credentials are the pool:
//! `GITHUB_TOKEN` is its user's quota (or, for an Actions token, its repository's); a GitHub
//! App's installation is the one that holds `--rate-limit-repo`.
//!
//! A failed call changes nothing and never fails the tick: admission decides on what the pool
//! knew, and the report says why it learned nothing.

use crate::github::client::GithubClient;
use crate::github::rate_limit::{self, RateLimit};
use crate::store::pools::{Observation, Sane, Window};
use crate::store::Store;
use deferral_core::decision::Reserve;
use deferral_protocol::tick::{Failure, RateLimitLearned};
use deferral_protocol::Windows;

/// Which pool the host's own `GET /rate_limit` teaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitPool {
    pub pool: String,
    /// With a GitHub App: the repository whose installation's quota this is.
    pub repo: Option<String>,
    /// The reserve a window gets when the pool knows none yet (`--github-reserve`).
    pub reserve: Reserve,
}

pub const SOURCE: &str = "host rate_limit";

/// Reads `GET /rate_limit` and teaches the pool; answers the report's `rate_limit` entry.
pub(super) fn learn(
    store: &dyn Store,
    client: &GithubClient,
    how: &RateLimitPool,
    now_ms: &dyn Fn() -> u64,
) -> RateLimitLearned {
    let pool = how.pool.clone();
    let windows = match rate_limit::read(client, how.repo.as_deref()) {
        Ok(RateLimit::Windows(windows)) => windows,
        Ok(RateLimit::Unlimited) => {
            let why =
                "the server enforces no primary rate limit (404 Rate limiting is not enabled)";
            return RateLimitLearned::Unlimited {
                pool,
                unlimited: true,
                why,
            };
        }
        Err(err) => {
            let error = Failure {
                code: err.code().to_string(),
                message: err.message(),
            };
            return RateLimitLearned::Read {
                clamped: Vec::new(),
                error: Some(error),
                learned: false,
                pool,
                windows: Windows::default(),
            };
        }
    };
    if windows.is_empty() {
        return RateLimitLearned::NotLearned {
            learned: false,
            pool,
            why: "GET /rate_limit named neither a core nor a graphql bucket",
        };
    }
    let known = store.pool(&how.pool).ok().flatten();
    let now = now_ms();
    let seen: Vec<Observation> = windows
        .iter()
        .map(|w| Observation {
            resource: w.resource,
            window: Window {
                limit: w.limit,
                remaining: w.remaining,
                // The reserve the pool's gates keep, else the host's own.
                reserve: known
                    .as_ref()
                    .and_then(|p| p.window(w.resource))
                    .map_or_else(|| how.reserve.of(w.limit), |k| k.reserve),
                reset_ms: w.reset_ms,
            },
            observed_ms: now,
            source: SOURCE.to_string(),
            deferral_id: None,
        })
        .collect();
    let mut read = Windows::default();
    let mut clamped = Vec::new();
    for o in &seen {
        read = read.with(o.resource, o.window);
        clamped.extend(
            Sane::of(o)
                .clamped
                .into_iter()
                .map(|c| format!("{}: {c}", o.resource.as_str())),
        );
    }
    // `clamped`: what GitHub (or a proxy) answered out of bounds, and how the pool took it.
    let error = crate::ops::release::observe(store, &how.pool, &seen, now_ms)
        .err()
        .map(|err| Failure {
            code: err.code,
            message: err.message,
        });
    RateLimitLearned::Read {
        clamped,
        learned: error.is_none(),
        error,
        pool,
        windows: read,
    }
}
