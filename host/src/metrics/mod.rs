//! Metrics in Prometheus' text exposition format (version 0.0.4: what Prometheus scrapes and
//! node_exporter's textfile collector reads), built with the `prometheus` crate.
//!
//! * [`serve`]: `GET /metrics` of `deferral-host serve`: the store's gauges, read at each
//!   scrape, and the server's counters over the process lifetime.
//! * [`tick_file`]: `tick --metrics-file PATH`: the same store gauges, and what that one tick
//!   did, written atomically ([`textfile`]) for node_exporter's textfile collector.
//! * [`counting_store`]: counts store failures whatever the operation.
//!
//! The store gauges are counted by the database (`GROUP BY state, cause`), never by reading
//! the rows. Each pool's forecast drain time is
//! `deferral_host_pool_expected_drain_timestamp_seconds{pool}`. See docs/host-api.md (Metrics) for
//! every family.

pub mod counting_store;
pub mod labels;
pub mod serve;
pub mod textfile;
pub mod tick_file;

pub use counting_store::CountingStore;

use crate::store::{Store, StoreError};
use deferral_core::lifecycle::State;
use prometheus::proto::MetricFamily;
use prometheus::{IntCounterVec, IntGaugeVec, Opts, Registry};

/// The `Content-Type` of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The codes a store failure has (`StoreError::code`), each counted from zero.
const STORE_ERROR_CODES: [&str; 6] = [
    "store-error",
    "store-corrupt",
    "foreign-store",
    "unsafe-store",
    "schema-too-new",
    "store-replaced",
];

fn gauge_vec(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let vec = IntGaugeVec::new(Opts::new(name, help), labels).expect("a valid metric");
    registry
        .register(Box::new(vec.clone()))
        .expect("registered once");
    vec
}

fn counter_vec(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let vec = IntCounterVec::new(Opts::new(name, help), labels).expect("a valid metric");
    registry
        .register(Box::new(vec.clone()))
        .expect("registered once");
    vec
}

/// Store failures by code (`errors` has the one label `code`), every code present from zero
/// so that an alert on the increase sees the first one.
fn zero_store_errors(errors: &IntCounterVec) {
    for code in STORE_ERROR_CODES {
        errors.with_label_values(&[code]);
    }
}

/// The deferral gauges of the store, in a registry of their own (a fresh one each time, so a
/// state and cause that no deferral has any more is gone from the answer):
/// `deferral_host_deferrals{state,cause}` and `deferral_host_deferrals_by_state{state}`
/// (every state, zero included).
pub fn store_gauges(store: &dyn Store) -> Result<Vec<MetricFamily>, StoreError> {
    let counts = store.count_by_state_cause()?;
    let registry = Registry::new();
    let by_cause = gauge_vec(
        &registry,
        "deferral_host_deferrals",
        "Deferrals in the store by state and cause.",
        &["state", "cause"],
    );
    let by_state = gauge_vec(
        &registry,
        "deferral_host_deferrals_by_state",
        "Deferrals in the store by state (every state, zero included).",
        &["state"],
    );
    for state in State::ALL {
        by_state.with_label_values(&[state.as_str()]);
    }
    for (state, cause, n) in counts {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        by_cause
            .with_label_values(&[state.as_str(), &labels::cause(&cause)])
            .add(n);
        by_state.with_label_values(&[state.as_str()]).add(n);
    }
    pool_drain_gauge(store, &registry)?;
    Ok(registry.gather())
}

/// `deferral_host_pool_expected_drain_timestamp_seconds{pool}`: when each listed pool's held
/// backlog is forecast to have started (see `pools::forecast`); a pool with nothing held, or
/// whose drain is beyond the forecast's horizon, has no series. Pool names are checked at
/// record (64 of `[A-Za-z0-9._-]` at most) and the listing is bounded (`PoolStore::pools`).
fn pool_drain_gauge(store: &dyn Store, registry: &Registry) -> Result<(), StoreError> {
    let drain = gauge_vec(
        registry,
        "deferral_host_pool_expected_drain_timestamp_seconds",
        "When each pool's held deferrals are forecast to have started (Unix time).",
        &["pool"],
    );
    let now = crate::clock::now_ms();
    let since = now.saturating_sub(crate::store::pools::LISTED_IDLE_MS);
    let options = crate::pools::PoolOptions::default();
    for row in store.pools(now, since)? {
        let forecast = crate::pools::expect::pool_forecast(store, &row.name, now, &options)
            .map_err(|e| StoreError::Backend(e.message))?;
        if let Some(ms) = forecast.drain_ms {
            drain
                .with_label_values(&[&row.name])
                .set(i64::try_from(ms / 1000).unwrap_or(i64::MAX));
        }
    }
    Ok(())
}

/// The text of `families`, sorted by name.
pub fn encode(mut families: Vec<MetricFamily>) -> String {
    families.sort_by(|a, b| a.name().cmp(b.name()));
    prometheus::TextEncoder::new()
        .encode_to_string(&families)
        .expect("the text encoder writes to a String")
}
