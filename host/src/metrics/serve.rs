//! The metrics of `deferral-host serve` (`GET /metrics`, token-protected like every route):
//! the store's deferral gauges, read at each scrape, and counters over the process lifetime
//! (they start at zero when the server starts):
//!
//! * `deferral_host_http_requests_total{route,status}`: answered requests.
//! * `deferral_host_store_errors_total{code}`: store failures (not conflicts or unknown ids).
//! * `deferral_host_serve_start_timestamp_seconds`: when this process started.
//!
//! `serve` launches nothing and calls no GitHub API: launches and GitHub requests are the
//! tick's (see `tick_file`).

use super::{counter_vec, encode, store_gauges, zero_store_errors};
use crate::error::HostError;
use crate::store::Store;
use prometheus::{Gauge, IntCounterVec, Registry};
use std::sync::LazyLock;

struct ServeMetrics {
    registry: Registry,
    http_requests: IntCounterVec,
    store_errors: IntCounterVec,
}

static METRICS: LazyLock<ServeMetrics> = LazyLock::new(|| {
    let registry = Registry::new();
    let http_requests = counter_vec(
        &registry,
        "deferral_host_http_requests_total",
        "Requests serve answered, by route and HTTP status, since it started.",
        &["route", "status"],
    );
    let store_errors = counter_vec(
        &registry,
        "deferral_host_store_errors_total",
        "Store failures (not conflicts or unknown ids) since serve started, by code.",
        &["code"],
    );
    zero_store_errors(&store_errors);
    let started = Gauge::new(
        "deferral_host_serve_start_timestamp_seconds",
        "When this serve process started, in seconds since the Unix epoch.",
    )
    .expect("a valid metric");
    started.set(crate::clock::now_ms() as f64 / 1000.0);
    registry
        .register(Box::new(started))
        .expect("registered once");
    ServeMetrics {
        registry,
        http_requests,
        store_errors,
    }
});

/// Starts the process-lifetime counters (the start timestamp is taken now).
pub fn start() {
    LazyLock::force(&METRICS);
}

/// The store-failure counter (label `code`), for [`super::CountingStore`].
pub fn store_errors() -> &'static IntCounterVec {
    &METRICS.store_errors
}

/// Counts one answered request.
pub fn request(path: &str, status: u16) {
    METRICS
        .http_requests
        .with_label_values(&[route_of(path), &status.to_string()])
        .inc();
}

/// The route label of `path`: a few fixed words, never an id or a digest.
fn route_of(path: &str) -> &'static str {
    if path == "/" {
        return "page";
    }
    if path == "/metrics" {
        return "metrics";
    }
    if path.starts_with("/v1/receipts/") {
        return "receipt";
    }
    if path == "/v1/pools" {
        return "pools";
    }
    if path == "/v1/admissions" {
        return "admissions";
    }
    if let Some(rest) = path.strip_prefix("/v1/admissions/") {
        return match rest.split_once('/') {
            Some((seq, "release")) if !seq.is_empty() => "release",
            _ => "unknown",
        };
    }
    match path.strip_prefix("/v1/deferrals") {
        Some("") => "record",
        Some(rest) => match rest.rsplit('/').next() {
            Some("cancel") if rest.matches('/').count() == 2 => "cancel",
            Some("claim") if rest.matches('/').count() == 2 => "claim",
            Some("outcome") if rest.matches('/').count() == 2 => "outcome",
            Some("retry") if rest.matches('/').count() == 2 => "retry",
            _ if rest.matches('/').count() == 1 => "deferral",
            _ => "unknown",
        },
        None => "unknown",
    }
}

/// The answer to `GET /metrics`: the store gauges (read now) and the lifetime counters.
pub fn exposition(store: &dyn Store) -> Result<String, HostError> {
    let mut families = METRICS.registry.gather();
    families.extend(store_gauges(store)?);
    Ok(encode(families))
}

#[cfg(test)]
mod tests {
    #[test]
    fn routes_are_labelled_without_ids() {
        let cases = [
            ("/", "page"),
            ("/metrics", "metrics"),
            ("/v1/deferrals", "record"),
            ("/v1/deferrals/d-1", "deferral"),
            ("/v1/deferrals/d-1/cancel", "cancel"),
            ("/v1/deferrals/d-1/claim", "claim"),
            ("/v1/deferrals/d-1/outcome", "outcome"),
            ("/v1/deferrals/d-1/x/y", "unknown"),
            ("/v1/receipts/abc", "receipt"),
            ("/v1/deferrals/d-1/retry", "retry"),
            ("/v1/pools", "pools"),
            ("/v1/admissions", "admissions"),
            ("/v1/admissions/7/release", "release"),
            ("/v1/admissions/7/x", "unknown"),
            ("/etc/passwd", "unknown"),
        ];
        for (path, route) in cases {
            assert_eq!(super::route_of(path), route, "{path}");
        }
    }
}
