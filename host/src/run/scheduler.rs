//! `run`'s scheduler: the pass of `tick` (expire, recover, follow, admit, launch), run when
//! work is due instead of from cron, and the passes of `watch` for the configured repositories.
//!
//! It sleeps until the earliest of: the next instant a work rule picks a row
//! ([`Store::next_deadline`]: a due deferral, a lease that ends, a window that closes), the end
//! of a pool's hold, the expiry of an open admission, and the next follow (at most
//! `--follow-interval` after the last pass). A notice ([`Wake`]) cuts the sleep short. Deadlines
//! are read from the last pass's start, so a row a pass already saw does not wake it again.

use super::wake::Wake;
use super::{Outside, RunArgs};
use crate::clock::now_ms;
use crate::error::{HostError, HostErrorKind};
use crate::ops::ingest::WatchOptions;
use crate::store::Store;
use crate::tick::{self, TickOptions, TickReport};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The configuration read at the last SIGHUP, for the scheduler to build its settings from
/// (a GitHub client stays on the thread that made it, so the settings are built there).
pub type Pending = Arc<Mutex<Option<RunArgs>>>;

/// What the scheduler is told by the flags and the file; built again on SIGHUP.
pub struct Settings {
    options: TickOptions,
    follow_ms: u64,
    watches: Vec<WatchOptions>,
    /// The environment gates (`[[gate]]`): their ended deferrals are rejected after each pass.
    gates: Vec<crate::ops::gate::GateOptions>,
    /// `--commit-status-port`: statuses for the commits the port's records name.
    commit_status_port: bool,
    /// `--commit-status-budget`: statuses and check runs written at most per pass.
    commit_status_budget: usize,
    quiet: bool,
}

impl Settings {
    pub fn from_args(args: &RunArgs, outside: &Outside) -> Result<Settings, HostError> {
        let options = args.scheduler.tick_options((outside.github_env)())?;
        let watches = args
            .watches
            .iter()
            .map(|w| w.options())
            .collect::<Result<Vec<_>, _>>()?;
        if !watches.is_empty() && options.github.is_none() {
            return Err(HostError::new(
                HostErrorKind::NoGithubCredentials,
                "[[watch]] needs GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key",
            ));
        }
        if args.commit_status_port && options.github.is_none() {
            return Err(HostError::new(
                HostErrorKind::NoGithubCredentials,
                "--commit-status-port needs GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key (with statuses: write)",
            ));
        }
        let check_runs = watches
            .iter()
            .any(|w| w.commit_status == Some(crate::store::Face::CheckRun));
        if check_runs && !options.github.as_ref().is_some_and(|c| c.is_app()) {
            return Err(HostError::new(
                HostErrorKind::NoGithubCredentials,
                "commit-status = \"check-run\" needs --github-app-id with --github-app-key: only a GitHub App makes check runs (with checks: write)",
            ));
        }
        let gates = crate::ops::gate::config::check_for_run(
            &args.gates,
            args.webhook.is_set(),
            options.github.as_ref(),
        )?;
        Ok(Settings {
            gates,
            options,
            follow_ms: u64::try_from(args.follow_interval().as_millis())
                .unwrap_or(u64::MAX)
                .max(1000),
            watches,
            commit_status_port: args.commit_status_port,
            commit_status_budget: args.commit_status_budget,
            quiet: args.quiet,
        })
    }

    /// The `[[watch]]` tables, as a webhook delivery ingests for them.
    pub fn watches(&self) -> &[WatchOptions] {
        &self.watches
    }

    /// The `[[gate]]` tables, as a webhook delivery is taken for them.
    pub fn gates(&self) -> &[crate::ops::gate::GateOptions] {
        &self.gates
    }
}

pub struct Scheduler {
    store: Box<dyn Store + Send>,
    /// What the last SIGHUP read and checked (see `super::reload`), taken before a pass.
    pending: Pending,
    outside: Outside,
    settings: Settings,
    wake: Arc<Wake>,
    /// When the last pass started: rows it saw do not wake the scheduler again.
    last_pass: Option<u64>,
    last_follow: Option<u64>,
    /// When the last rejection of ended environment gates started (see `settle_gates`).
    last_settle: Option<u64>,
    /// Where the last statuses pass stopped short (its budget spent, a write to try again):
    /// the next one reads from there instead of from the pass before.
    statuses_from: Option<u64>,
}

/// How far back the first pass looks for deferrals whose commit status may be due.
const STATUS_LOOKBACK_MS: u64 = 3_600_000;

/// How far before the last settle a pass reads again what ended.
const SETTLE_MARGIN_MS: u64 = 5_000;

fn log(level: &str, message: &str) {
    crate::logs::message(level, "run", message);
}

impl Scheduler {
    pub fn new(
        store: Box<dyn Store + Send>,
        settings: Settings,
        wake: Arc<Wake>,
        outside: Outside,
        pending: Pending,
    ) -> Scheduler {
        Scheduler {
            store,
            pending,
            outside,
            settings,
            wake,
            last_pass: None,
            last_follow: None,
            last_settle: None,
            statuses_from: None,
        }
    }

    /// Runs passes until a stop notice; the pass running then finishes first (its launches
    /// end as the lease allows, an `exec:` process at the latest just before its lease ends).
    pub fn run(mut self) {
        let mut due = true;
        loop {
            if !due {
                let now = now_ms();
                let wait = match self.deadline(now) {
                    Ok(at) => Duration::from_millis(at.saturating_sub(now)),
                    Err(err) => {
                        log("warn", &format!("cannot read the next deadline: {err}"));
                        Duration::from_secs(1)
                    }
                };
                let notices = self.wake.wait(wait);
                if notices.stop {
                    return;
                }
                if notices.reload {
                    self.reload();
                }
                due = notices.changed || !notices.reload;
            }
            if self.wake.is_stopping() {
                return;
            }
            if due {
                due = self.pass();
            }
        }
    }

    /// The earliest instant something may be due, at most one follow interval after the last pass.
    fn deadline(&self, now: u64) -> Result<u64, HostError> {
        let since = self.last_pass.unwrap_or(now);
        let mut at = since.saturating_add(self.settings.follow_ms);
        let mut earlier = |t: u64| at = at.min(t);
        if let Some(t) = self.store.next_deadline(since)? {
            earlier(t);
        }
        // The pools with work or a deferral waiting (idle ones have no deadline to give).
        let idle_since = since.saturating_sub(crate::store::pools::LISTED_IDLE_MS);
        for pool in self.store.pools(since, idle_since)? {
            if let Some(t) = pool.hold_until_ms.filter(|t| *t > since) {
                earlier(t);
            }
            for a in self.store.open_admissions(&pool.name, since)? {
                earlier(a.expires_ms.saturating_add(1));
            }
        }
        Ok(at)
    }

    /// One pass; `true` when another should follow at once (it launched something, so a pool
    /// may have room again).
    fn pass(&mut self) -> bool {
        let started = now_ms();
        let follow = self
            .last_follow
            .is_none_or(|t| started >= t.saturating_add(self.settings.follow_ms));
        self.settings.options.follow = follow;
        if let Some(client) = &self.settings.options.github {
            client.new_pass();
        }
        let mut progress = crate::progress::TickProgress::new(false, self.settings.quiet);
        let store: &dyn Store = &*self.store;
        let report = tick::tick_observed(store, &self.settings.options, now_ms, &mut |step| {
            progress.step(step)
        });
        self.last_pass = Some(started);
        let again = match report {
            Ok(report) => {
                if active(&report) {
                    let now = now_ms();
                    let next = store.next_wakeup(now).ok().flatten();
                    progress.summary(&report, next.as_ref(), now);
                }
                !report.launched.is_empty()
            }
            Err(err) => {
                log("error", &format!("the pass failed: {err}"));
                false
            }
        };
        if follow {
            self.last_follow = Some(started);
            self.watch();
        }
        self.settle_gates(started, follow);
        again
    }

    /// Rejects the environment gates' deferrals that ended unapproved (see
    /// [`crate::ops::gate::settle`]), then writes the commit statuses due (see
    /// [`crate::ops::commit_status`]). A pass reads what changed since the last one began
    /// (less a margin for replicas' clocks and writes in flight); a follow pass reads the
    /// rejections back further.
    fn settle_gates(&mut self, started: u64, follow: bool) {
        let Some(client) = self.settings.options.github.as_ref() else {
            return;
        };
        let statuses = self.settings.commit_status_port
            || self
                .settings
                .gates
                .iter()
                .any(|g| g.commit_status.is_some())
            || self
                .settings
                .watches
                .iter()
                .any(|w| w.commit_status.is_some());
        if self.settings.gates.is_empty() && !statuses {
            return;
        }
        let last = self.last_settle.map(|t| t.saturating_sub(SETTLE_MARGIN_MS));
        self.last_settle = Some(started);
        let store: &dyn Store = &*self.store;
        if !self.settings.gates.is_empty() {
            let since = if follow { None } else { last };
            for settled in crate::ops::gate::settle::settle(store, client, now_ms(), since) {
                log("info", &format!("gate {}: {}", settled.id, settled.said));
            }
            let pools = &self.settings.options.pools;
            for said in crate::ops::gate::progress::report(store, client, now_ms(), last, pools) {
                log("info", &format!("gate {}: {}", said.id, said.said));
            }
        }
        if statuses {
            let pools = &self.settings.options.pools;
            // At start, what changed in the last hour: the statuses of older changes were written.
            let since = self
                .statuses_from
                .or(last)
                .unwrap_or_else(|| started.saturating_sub(STATUS_LOOKBACK_MS));
            let budget = self.settings.commit_status_budget;
            let written = crate::ops::commit_status::update(
                store,
                client,
                now_ms(),
                Some(since),
                budget,
                pools,
            );
            for said in &written.said {
                log("info", &format!("commit status {said}"));
            }
            self.statuses_from = written.left.then_some(since);
        }
    }

    fn watch(&self) {
        let Some(client) = &self.settings.options.github else {
            return;
        };
        for w in &self.settings.watches {
            match crate::ops::ingest::watch(&*self.store, client, w, &now_ms) {
                Ok(answer) => {
                    if !self.settings.quiet {
                        log("info", &format!("watch {}: {answer}", w.repo));
                    }
                }
                Err(err) => log("warn", &format!("watch {}: {}", w.repo, err.message())),
            }
        }
    }

    /// SIGHUP: the settings from the configuration the reload thread read and checked (the
    /// webhook's secrets were replaced there already, at once).
    fn reload(&mut self) {
        let Some(args) = self.pending.lock().ok().and_then(|mut slot| slot.take()) else {
            return;
        };
        match Settings::from_args(&args, &self.outside) {
            Ok(settings) => {
                self.settings = settings;
                // The new follow interval and watches apply from this pass on.
                self.last_follow = None;
            }
            Err(err) => log(
                "error",
                &format!("the scheduler's settings not applied, the running ones stay: {err}"),
            ),
        }
    }
}

fn active(report: &TickReport) -> bool {
    !(report.launched.is_empty()
        && report.expired.is_empty()
        && report.recovered.is_empty()
        && report.follow.as_ref().is_none_or(|f| f.followed.is_empty()))
}
