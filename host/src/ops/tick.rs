//! One pass of the ticker: expire, recover stale leases, then claim and launch what is due.
//!
//! Safe to run as often as one likes and from several processes at once: every step is a
//! compare-and-set, so when two tickers see the same due deferral exactly one claim succeeds
//! and the other skips it. A ticker that dies leaves a lease; after the lease ends the next
//! tick returns that deferral to `deferred` (counting the re-entry) and launches it again.

use crate::error::{HostError, HostErrorKind};
use crate::github::client::GithubClient;
use crate::handle::lease_owner;
use crate::launch::{recover, LaunchPass, Launched, Launchers};
use crate::lifecycle;
use crate::ops::follow;
use crate::store::{Deferral, Store};
use deferral_core::lifecycle::State;
use std::time::Duration;

mod admitted;
mod held;
mod launch_one;
pub mod rate_limit;
pub mod report;

pub use held::Held;
pub use report::{GithubCalls, Recovered, Skipped, TickReport};

use launch_one::{launch, planned, Skip};

pub struct TickOptions {
    pub dry_run: bool,
    pub lease_timeout: Duration,
    /// Only these deferrals (all when empty).
    pub ids: Vec<String>,
    /// At most this many of each kind of work per pass.
    pub limit: usize,
    /// Timeout of one GitHub request.
    pub http_timeout: Duration,
    /// The GitHub client for dispatching and following runs (`None`: no credentials given).
    pub github: Option<GithubClient>,
    /// Successors a chain may have before progress blocks (`chain-limit`).
    pub max_chain: u32,
    /// How admission waits for a pool's next window (see `pools`).
    pub pools: crate::pools::PoolOptions,
    /// Teach this pool the host's own `GET /rate_limit` before admission (needs `github`).
    pub rate_limit: Option<rate_limit::RateLimitPool>,
    /// The launcher kinds this tick launches ([`Launchers::builtin`]; a target of another kind
    /// is refused as `invalid-launch`).
    pub launchers: Launchers,
    /// `--follow-interval`: list a workflow's dispatched runs at most this often (`None`: every
    /// pass), polling as the reconciler when webhooks end runs.
    pub follow_interval: Option<Duration>,
    /// Follow the attempts whose outcome comes later (dispatched runs) in this pass. `tick`
    /// always does; `run` only when its follow is due, not on every wake.
    pub follow: bool,
}

/// `tick`'s defaults, the same as its flags' (`--lease-timeout 15m`, `--limit 1000`, ...).
pub const DEFAULT_LEASE_TIMEOUT: Duration = Duration::from_secs(15 * 60);
pub const DEFAULT_LIMIT: usize = crate::pools::hold::EXAMINED;
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

impl TickOptions {
    /// The options of a plain `tick` with no flag given, launching the kinds of `launchers`:
    /// callers set only what differs (`TickOptions { limit: 10, ..TickOptions::new(..) }`).
    pub fn new(launchers: Launchers) -> TickOptions {
        TickOptions {
            dry_run: false,
            lease_timeout: DEFAULT_LEASE_TIMEOUT,
            ids: Vec::new(),
            limit: DEFAULT_LIMIT,
            http_timeout: DEFAULT_HTTP_TIMEOUT,
            github: None,
            max_chain: lifecycle::outcome::DEFAULT_MAX_CHAIN,
            pools: crate::pools::PoolOptions::default(),
            rate_limit: None,
            launchers,
            follow: true,
            follow_interval: None,
        }
    }

    fn lease_ms(&self) -> u64 {
        u64::try_from(self.lease_timeout.as_millis()).unwrap_or(u64::MAX)
    }

    /// What the launcher kinds see of this pass.
    fn pass<'a>(&'a self, store: &'a dyn Store, now_ms: &'a dyn Fn() -> u64) -> LaunchPass<'a> {
        LaunchPass {
            store,
            github: self.github.as_ref(),
            ids: &self.ids,
            limit: self.limit,
            lease_ms: self.lease_ms(),
            max_chain: self.max_chain,
            now_ms,
        }
    }
}

use crate::store::rules::{is_due, is_expirable, is_stale_lease as is_stale};

/// The three work lists, from the store's indexed queries or, with ids, from those rows.
pub fn plan(
    store: &dyn Store,
    options: &TickOptions,
    now: u64,
) -> Result<[Vec<Deferral>; 3], HostError> {
    if options.ids.is_empty() {
        return Ok([
            store.expirable(now, options.limit)?,
            store.stale_leases(now, options.limit)?,
            store.due(now, options.limit)?,
        ]);
    }
    let mut rows = Vec::new();
    for id in &options.ids {
        rows.push(lifecycle::change::load(store, id)?);
    }
    let pick =
        |test: fn(&Deferral, u64) -> bool| rows.iter().filter(|d| test(d, now)).cloned().collect();
    Ok([pick(is_expirable), pick(is_stale), pick(is_due)])
}

/// What a pass is doing, as it does it, for a progress display (`crate::progress`).
pub enum TickStep<'a> {
    /// Expiry and lease recovery are done; this many are due (not sent on `--dry-run`).
    Planned { expired: usize, due: usize },
    /// About to claim and launch this deferral.
    Launching { id: &'a str, attempt: u32 },
    /// A launch ended: its entry in `launched`.
    Launched(&'a Launched),
    /// Not launched: another ticker claimed it first.
    ClaimedElsewhere { id: &'a str },
    /// Not launched: its entry in `skipped`.
    Skipped(&'a Skipped),
}

pub fn tick(
    store: &dyn Store,
    options: &TickOptions,
    now_ms: impl Fn() -> u64,
) -> Result<TickReport, HostError> {
    tick_observed(store, options, now_ms, &mut |_| {})
}

/// [`tick`], telling `observe` about each step as it happens.
pub fn tick_observed(
    store: &dyn Store,
    options: &TickOptions,
    now_ms: impl Fn() -> u64,
    observe: &mut dyn FnMut(TickStep),
) -> Result<TickReport, HostError> {
    let now = now_ms();
    let [expirable, stale, due] = plan(store, options, now)?;
    let mut report = TickReport {
        dry_run: options.dry_run,
        ..TickReport::default()
    };
    if options.dry_run {
        report.expired = expirable.iter().map(|d| d.id.clone()).collect();
        report.recovered = stale
            .iter()
            .map(|d| Recovered::Planned {
                id: d.id.clone(),
                attempt_status: d.attempt_status,
            })
            .collect();
        if options.ids.is_empty() {
            // What each pool would admit and hold.
            admitted::dry_run(store, options, &now_ms, &mut report)?;
            return Ok(report);
        }
        report.launched = due.iter().map(|d| planned(d, d.reentries + 1)).collect();
        return Ok(report);
    }
    for d in &expirable {
        if d.state == State::Resumable {
            // Nothing launches it again, but nothing of it should keep running either.
            let _ = recover::end_old_launch(store, d);
        }
        match lifecycle::change::expire(store, d, now_ms()) {
            Ok(_) => report.expired.push(d.id.clone()),
            Err(err) if err.is_conflict() => {}
            Err(err) => return Err(err),
        }
    }
    let mut due = due;
    for d in &stale {
        match options.launchers.recover(store, d, now_ms()) {
            Ok(Some(after)) => {
                if is_due(&after, now_ms()) && !due.iter().any(|x| x.id == after.id) {
                    due.push(after.clone());
                }
                report.recovered.push(Recovered::Done(Box::new(after)));
            }
            Ok(None) => {}
            Err(err) if err.is_conflict() => {}
            Err(err) if err.kind() == Some(HostErrorKind::LaunchStillRunning) => {
                report.skipped.push(Skipped::new(&d.id, format!("{err}")));
            }
            Err(err) => return Err(err),
        }
    }
    // Attempts whose outcome comes later (dispatched runs), before new launches.
    let ends_on_github = options.launchers.iter().any(|kind| kind.ends_on_github());
    if let Some(client) = options
        .github
        .as_ref()
        .filter(|_| options.follow && ends_on_github)
    {
        let every_ms = options
            .follow_interval
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        report.follow = Some(follow::follow(
            store,
            client,
            &options.ids,
            options.limit,
            options.max_chain,
            every_ms,
            &now_ms,
        )?);
    }
    observe(TickStep::Planned {
        expired: report.expired.len(),
        due: due.len(),
    });
    let owner = lease_owner();
    if options.ids.is_empty() {
        // Recovered deferrals are due again: admission finds them like the others.
        admitted::launch_admitted(store, &owner, options, &now_ms, &mut report, observe)?;
        report.github = github_summary(options, &report);
        return Ok(report);
    }
    for d in &due {
        observe(TickStep::Launching {
            id: &d.id,
            attempt: d.reentries + 1,
        });
        match launch(store, d, &owner, options, &now_ms) {
            Ok(Some(entry)) => {
                observe(TickStep::Launched(&entry));
                report.launched.push(entry);
            }
            Ok(None) => observe(TickStep::ClaimedElsewhere { id: &d.id }),
            Err(Skip(why)) => {
                let entry = Skipped::new(&d.id, why);
                observe(TickStep::Skipped(&entry));
                report.skipped.push(entry);
            }
        }
    }
    report.github = github_summary(options, &report);
    Ok(report)
}

/// The report's `github` part: calls made, why they stopped, errors met while following.
fn github_summary(options: &TickOptions, report: &TickReport) -> Option<GithubCalls> {
    let client = options.github.as_ref()?;
    let calls = client.calls();
    let stopped = client.quota.borrow().stopped().map(str::to_string);
    let unreachable = client.unreachable();
    let errors = report
        .follow
        .as_ref()
        .map_or(Vec::new(), |f| f.errors.clone());
    Some(GithubCalls {
        requests: calls.requests,
        not_modified: calls.not_modified,
        blob: calls.blob,
        stopped,
        unreachable,
        errors,
    })
}
