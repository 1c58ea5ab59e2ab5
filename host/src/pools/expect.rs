//! The forecast as shown: a pool's, read from the store, and the fields it adds to a pool
//! (`expected_drain`) and to a held deferral (`expected_start`, `will_expire`).

use super::forecast::{forecast, Expected, Forecast};
use super::PoolOptions;
use crate::clock::iso8601;
use crate::error::HostError;
use crate::store::pools::PoolRow;
use crate::store::Store;
use deferral_protocol::StartForecast;
use serde_json::{json, Value};

/// A forecast plays at most this many of a pool's held deferrals (highest priority, then
/// earliest, first); those after are not forecast. It bounds what every read that forecasts
/// costs: reading and playing a held deferral takes some microseconds, and a read must answer
/// in milliseconds (BENCHMARKS.md, "Reads that forecast a pool").
pub const BACKLOG_LOOK: usize = 1_000;

/// The forecast of `pool` at `now_ms`.
pub fn pool_forecast(
    store: &dyn Store,
    pool: &str,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<Forecast, HostError> {
    if crate::abandon::cancelled() {
        // Nobody reads it (see `crate::abandon`).
        return Ok(forecast(
            &PoolRow::empty(pool),
            &[],
            Vec::new(),
            now_ms,
            options,
        ));
    }
    let row = store.pool(pool)?.unwrap_or_else(|| PoolRow::empty(pool));
    let open = store.open_admissions(pool, now_ms)?;
    let backlog = store.pool_backlog(pool, now_ms, BACKLOG_LOOK)?;
    Ok(forecast(&row, &open, backlog, now_ms, options))
}

/// The forecast of deferral `id` (`None`: not held in a pool, or not within the look).
pub fn of_deferral(
    store: &dyn Store,
    id: &str,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<Option<Expected>, HostError> {
    let Some((pool, _)) = store.pool_of(id)? else {
        return Ok(None);
    };
    Ok(pool_forecast(store, &pool, now_ms, options)?
        .of(id)
        .cloned())
}

/// Adds `expected_start` (ISO 8601, null when not forecast), `expected_start_ms` and
/// `will_expire` to a deferral's JSON view, and its `priority` and `fairness_key` (as the
/// forecast read them: null for a deferral not held).
pub fn annotate(view: &mut Value, expected: Option<&Expected>) {
    let start = start_of(expected);
    view["expected_start"] = json!(start.expected_start);
    view["expected_start_ms"] = json!(start.expected_start_ms);
    view["will_expire"] = json!(start.will_expire);
    view["priority"] = json!(expected.map(|e| e.priority));
    view["fairness_key"] = json!(expected.map(|e| &e.key));
}

/// `expected_drain` (ISO 8601, null when nothing is held) and `expected_drain_ms` of a pool.
pub fn drain_json(view: &mut Value, forecast: &Forecast) {
    view["expected_drain"] = forecast.drain_ms.map_or(Value::Null, |t| json!(iso8601(t)));
    view["expected_drain_ms"] = json!(forecast.drain_ms);
    view["held_forecast"] = json!(forecast.expected.len());
}

/// When deferral `d`'s pool is expected to start it, for the record answer: `None` for one
/// recorded ready. Its pool is forecast with the default options (no weights, no urgent share:
/// `tick`'s flags are not known here).
pub fn start_forecast(
    store: &dyn Store,
    d: &crate::store::Deferral,
    now_ms: u64,
) -> Result<Option<StartForecast>, HostError> {
    if d.state != deferral_core::lifecycle::State::Deferred {
        return Ok(None);
    }
    let expected = of_deferral(store, &d.id, now_ms, &PoolOptions::default())?;
    Ok(Some(start_of(expected.as_ref())))
}

/// When `expected` starts (nothing known: no start, not expiring), as every answer says it.
fn start_of(expected: Option<&Expected>) -> StartForecast {
    let start = expected.and_then(|e| e.start_ms);
    StartForecast {
        expected_start: start.map(iso8601),
        expected_start_ms: start,
        will_expire: expected.is_some_and(|e| e.will_expire),
    }
}
