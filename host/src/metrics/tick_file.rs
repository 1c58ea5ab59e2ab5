//! `tick --metrics-file PATH`: after each tick, the file node_exporter's textfile collector
//! reads. It holds the store's deferral gauges (as `serve` answers them) and what this one
//! tick did, as gauges that the next tick replaces (a tick is a short process: it has no
//! lifetime to count over):
//!
//! * `deferral_host_tick_last_run_timestamp_seconds`, `deferral_host_tick_duration_seconds`,
//!   `deferral_host_tick_failed` (1 when the tick ended with an error);
//! * `deferral_host_tick_launches{kind,outcome}`: `kind` `exec`, `workflow-dispatch` or
//!   `environment-gate`, `outcome` the state the launch left (`complete`, `deferred`,
//!   `blocked`), `dispatched` (or `dispatch-unknown`) for a run GitHub accepted, `error` when its
//!   outcome could not be recorded;
//! * `deferral_host_tick_expired`, `..._recovered`, `..._skipped`: deferrals of each;
//! * `deferral_host_tick_github_requests{kind,status}`: GitHub answers by request kind and
//!   HTTP status (304s under their own status, `kind="blob"` for artifact storage);
//! * `deferral_host_tick_store_errors{code}`: store failures during the tick.

use super::{encode, gauge_vec, store_gauges, zero_store_errors, STORE_ERROR_CODES};
use crate::error::HostError;
use crate::github::client::CallLog;
use crate::launch::{Launched, Launchers};
use crate::ops::tick::TickReport;
use crate::store::Store;
use prometheus::{Gauge, IntCounterVec, IntGauge, Opts, Registry};
use std::time::Instant;

const OUTCOMES: [&str; 5] = ["complete", "deferred", "blocked", "dispatched", "error"];

/// What one tick counts while it runs; [`TickMetrics::render`] makes the file's text.
pub struct TickMetrics {
    started: Instant,
    errors: IntCounterVec,
}

impl Default for TickMetrics {
    fn default() -> TickMetrics {
        TickMetrics::new()
    }
}

impl TickMetrics {
    /// Starts the clock of the tick's duration.
    pub fn new() -> TickMetrics {
        let errors = IntCounterVec::new(Opts::new("errors", "store errors"), &["code"])
            .expect("a valid metric");
        TickMetrics {
            started: Instant::now(),
            errors,
        }
    }

    /// The store-failure counter for [`super::CountingStore`].
    pub fn store_errors(&self) -> &IntCounterVec {
        &self.errors
    }

    /// Counts `err` when it is a store failure met outside the counting store (opening it).
    pub fn count_error(&self, err: &HostError) {
        if STORE_ERROR_CODES.contains(&err.code.as_str()) {
            self.errors.with_label_values(&[&err.code]).inc();
        }
    }

    /// The file's text: `store` (when it could be opened) for the gauges and the launch kinds,
    /// the tick's `outcome`, and the GitHub client's answers.
    pub fn render(
        &self,
        store: Option<&dyn Store>,
        outcome: Result<&TickReport, &HostError>,
        github: Option<&CallLog>,
    ) -> String {
        let registry = Registry::new();
        let mut families = Vec::new();
        if let Some(store) = store {
            match store_gauges(store) {
                Ok(gauges) => families.extend(gauges),
                Err(err) => super::counting_store::count(&self.errors, &err),
            }
        }
        let gauge = |name: &str, help: &str, value: f64| {
            let g = Gauge::new(name, help).expect("a valid metric");
            g.set(value);
            registry.register(Box::new(g)).expect("registered once");
        };
        gauge(
            "deferral_host_tick_last_run_timestamp_seconds",
            "When the last tick ended, in seconds since the Unix epoch.",
            crate::clock::now_ms() as f64 / 1000.0,
        );
        gauge(
            "deferral_host_tick_duration_seconds",
            "How long the last tick took, in seconds.",
            self.started.elapsed().as_secs_f64(),
        );
        gauge(
            "deferral_host_tick_failed",
            "1 when the last tick ended with an error (see its log), else 0.",
            if outcome.is_err() { 1.0 } else { 0.0 },
        );
        let count = |name: &str, help: &str, n: usize| {
            let g = IntGauge::new(name, help).expect("a valid metric");
            g.set(i64::try_from(n).unwrap_or(i64::MAX));
            registry.register(Box::new(g)).expect("registered once");
        };
        let report = outcome.ok();
        count(
            "deferral_host_tick_expired",
            "Deferrals the last tick expired.",
            report.map_or(0, |r| r.expired.len()),
        );
        count(
            "deferral_host_tick_recovered",
            "Stale leases the last tick recovered.",
            report.map_or(0, |r| r.recovered.len()),
        );
        count(
            "deferral_host_tick_skipped",
            "Due deferrals the last tick did not launch (see its report).",
            report.map_or(0, |r| r.skipped.len()),
        );
        let launches = gauge_vec(
            &registry,
            "deferral_host_tick_launches",
            "Launches of the last tick by kind and outcome.",
            &["kind", "outcome"],
        );
        for kind in Launchers::builtin().iter() {
            for outcome in OUTCOMES {
                launches.with_label_values(&[kind.name(), outcome]);
            }
        }
        for entry in report.map_or(&[][..], |r| &r.launched[..]) {
            let kind = store.map_or("unknown", |s| kind_of(s, entry));
            launches.with_label_values(&[kind, entry.outcome()]).inc();
        }
        if let Some(calls) = github {
            let requests = gauge_vec(
                &registry,
                "deferral_host_tick_github_requests",
                "GitHub answers in the last tick by request kind and HTTP status.",
                &["kind", "status"],
            );
            for ((kind, status), n) in &calls.by_kind {
                requests
                    .with_label_values(&[*kind, status.to_string().as_str()])
                    .set(i64::from(*n));
            }
        }
        let errors = gauge_vec(
            &registry,
            "deferral_host_tick_store_errors",
            "Store failures (not conflicts or unknown ids) in the last tick, by code.",
            &["code"],
        );
        zero_store_errors(&self.errors);
        for code in STORE_ERROR_CODES {
            let n = self.errors.with_label_values(&[code]).get();
            errors
                .with_label_values(&[code])
                .set(i64::try_from(n).unwrap_or(i64::MAX));
        }
        families.extend(registry.gather());
        encode(families)
    }
}

/// The launched deferral's kind (`exec`, `workflow-dispatch`, ...), from its stored target:
/// `invalid` when no kind of this program names it.
fn kind_of(store: &dyn Store, entry: &Launched) -> &'static str {
    let launch = store.get(&entry.id).ok().flatten().map(|d| d.launch);
    match launch {
        Some(launch) => Launchers::builtin()
            .kind_of(&launch)
            .map_or("invalid", |kind| kind.name()),
        None => "unknown",
    }
}

impl TickMetrics {
    /// [`TickMetrics::render`] written to `path` atomically (see `super::textfile`).
    pub fn write(
        &self,
        path: &std::path::Path,
        store: Option<&dyn Store>,
        outcome: Result<&TickReport, &HostError>,
        github: Option<&CallLog>,
    ) -> Result<(), HostError> {
        super::textfile::write_atomically(path, &self.render(store, outcome, github))
    }
}
