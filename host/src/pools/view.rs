//! How pools and held deferrals are shown: `status --pools`, `GET /v1/pools` (with the open
//! admissions, the runners' among them, and their cost), the `pool`,
//! `cost` and `held` of a deferral in `status`/`show`, and the tick report's `held`.

use super::admission::metered;
use super::hold::Hold;
use super::PoolOptions;
use crate::clock::iso8601;
use crate::error::HostError;
use crate::store::pools::{Admission, Cost, PoolRow, Resource, LISTED_IDLE_MS};
use crate::store::{Deferral, Store};
use deferral_core::lifecycle::State;
use serde_json::{json, Value};
use std::collections::HashMap;

/// `{"rest","graphql",...,"content_creating"}`.
pub fn cost_json(cost: Option<&Cost>) -> Value {
    cost.map_or(Value::Null, |c| {
        let mut value = serde_json::Map::new();
        for (r, amount) in c.resources.iter() {
            value.insert(r.as_str().into(), json!(amount));
        }
        value.insert("content_creating".into(), json!(c.content));
        Value::Object(value)
    })
}

/// `{"why","until","until_ms"}` of a hold, as every surface gives it.
fn hold_json(hold: &Hold) -> Value {
    json!({"why": hold.why, "until": hold.until_ms.map(iso8601), "until_ms": hold.until_ms})
}

/// One pool's state: its windows, its hold ([`super::hold`]), what is admitted and not yet
/// reported.
pub fn pool_json(
    store: &dyn Store,
    row: &PoolRow,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<Value, HostError> {
    let open = store.open_admissions(&row.name, now_ms)?;
    let hold = super::hold::of_pool(store, &row.name, now_ms, options)?;
    let mut value = json!({
        "pool": row.name,
        "version": row.version,
        "metered": metered(row),
        "admitted": open.len(),
        "held": hold.is_some(),
        "why": hold.as_ref().and_then(|h| h.why.clone()),
        "hold_until": hold.as_ref().and_then(|h| h.until_ms).map(iso8601),
        "hold_until_ms": hold.as_ref().and_then(|h| h.until_ms),
        "held_count": hold.as_ref().map_or(0, |h| h.held.len()),
        "updated": iso8601(row.updated_ms),
    });
    for r in Resource::ALL {
        let in_flight = open
            .iter()
            .filter_map(|a| a.cost.map(|c| c.of(r)))
            .fold(0u64, u64::saturating_add);
        value[r.as_str()] = row.window(r).map_or(Value::Null, |w| {
            json!({"limit": w.limit, "remaining": w.left(), "reported_remaining": w.remaining,
                   "spent_by_admissions": w.spent, "reserve": w.reserve,
                   "reset": iso8601(w.reset_ms), "reset_ms": w.reset_ms, "reset_passed": w.reset_ms <= now_ms,
                   "reset_assumed": !w.reset_known, "window_length_ms": w.assumed_length(),
                   "learned_window_length_ms": w.length_ms,
                   "observed": iso8601(w.observed_ms), "source": w.source, "in_flight": in_flight})
        });
    }
    if !row.unmetered.is_empty() {
        // Buckets this host does not meter (a newer host's rows): shown as stored, never used.
        let unmetered: serde_json::Map<String, Value> = row
            .unmetered
            .iter()
            .map(|(name, w)| {
                (
                    name.clone(),
                    json!({"limit": w.limit, "remaining": w.remaining, "reserve": w.reserve,
                    "reset": iso8601(w.reset_ms), "reset_ms": w.reset_ms,
                    "observed": iso8601(w.observed_ms), "source": w.source}),
                )
            })
            .collect();
        value["unmetered"] = Value::Object(unmetered);
    }
    value["unknown_cost_in_flight"] = json!(open.iter().filter(|a| a.cost.is_none()).count());
    let forecast =
        super::expect::pool_forecast(store, &row.name, now_ms, &super::PoolOptions::default())?;
    super::expect::drain_json(&mut value, &forecast);
    value["admissions"] = admissions_json(&open);
    Ok(value)
}

/// What is admitted and not yet reported: how many, how many of them runners asked for
/// (`POST /v1/admissions`), and their cost together.
fn admissions_json(open: &[Admission]) -> Value {
    let mut cost = Cost::default();
    for c in open.iter().filter_map(|a| a.cost.as_ref()) {
        cost = cost.saturating_add(c);
    }
    json!({
        "open": open.len(),
        "runners": open.iter().filter(|a| a.deferral_id.is_none()).count(),
        "cost": cost_json(Some(&cost)),
        "unknown_cost": open.iter().filter(|a| a.cost.is_none()).count(),
    })
}

/// `3 (rest 30, graphql 0)`: the open admissions and their known cost, for people.
fn admissions_text(open: &[Admission]) -> String {
    if open.is_empty() {
        return "0".to_string();
    }
    let sum = |r: Resource| -> u64 {
        open.iter()
            .filter_map(|a| a.cost.map(|c| c.of(r)))
            .fold(0, u64::saturating_add)
    };
    let unknown = open.iter().filter(|a| a.cost.is_none()).count();
    let sums: Vec<String> = Resource::ALL
        .iter()
        .map(|r| format!("{} {}", r.as_str(), sum(*r)))
        .collect();
    format!(
        "{} ({}{})",
        open.len(),
        sums.join(", "),
        if unknown == 0 {
            String::new()
        } else {
            format!(", {unknown} of unknown cost")
        }
    )
}

/// `{"pools":[...]}`.
pub fn pools_json(
    store: &dyn Store,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<Value, HostError> {
    let mut list = Vec::new();
    for row in store.pools(now_ms, now_ms.saturating_sub(LISTED_IDLE_MS))? {
        list.push(pool_json(store, &row, now_ms, options)?);
    }
    Ok(json!({ "pools": list }))
}

/// A table of the pools for people.
pub fn pools_text(
    store: &dyn Store,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<String, HostError> {
    // `POOL  REST (remaining/limit, reserve, reset)  GRAPHQL  ADMITTED  DRAIN  HELD`
    let mut out = String::from("POOL");
    for (i, r) in Resource::ALL.iter().enumerate() {
        out.push_str("  ");
        out.push_str(&r.as_str().to_uppercase());
        if i == 0 {
            out.push_str(" (remaining/limit, reserve, reset)");
        }
    }
    out.push_str("  ADMITTED  DRAIN  HELD\n");
    for row in store.pools(now_ms, now_ms.saturating_sub(LISTED_IDLE_MS))? {
        let open = store.open_admissions(&row.name, now_ms)?;
        let window = |r: Resource| {
            row.window(r).map_or("-".to_string(), |w| {
                format!(
                    "{}/{}, {}, {}",
                    w.left(),
                    w.limit,
                    w.reserve,
                    iso8601(w.reset_ms)
                )
            })
        };
        let drain =
            super::expect::pool_forecast(store, &row.name, now_ms, &super::PoolOptions::default())?
                .drain_ms
                .map_or("-".to_string(), iso8601);
        let held = super::hold::of_pool(store, &row.name, now_ms, options)?
            .map_or("-".to_string(), |h| hold_text(&h));
        let windows: Vec<String> = Resource::ALL.into_iter().map(window).collect();
        out.push_str(&format!(
            "{}  {}  {}  {drain}  {held}\n",
            row.name,
            windows.join("  "),
            admissions_text(&open),
        ));
    }
    Ok(out)
}

/// `why (due again at ...)`: a hold for a person.
pub fn hold_text(hold: &Hold) -> String {
    let why = hold.why.as_deref().unwrap_or("the pool holds");
    match hold.until_ms {
        Some(until) => format!("{why} (due again at {})", iso8601(until)),
        None => why.to_string(),
    }
}

/// Pools' holds and forecasts worked out once per listing.
#[derive(Default)]
pub struct Pools {
    options: PoolOptions,
    holds: HashMap<String, Option<Hold>>,
    forecasts: HashMap<String, Option<super::forecast::Forecast>>,
}

impl Pools {
    /// With the pool options of the host that shows them (`serve`'s, `run`'s).
    pub fn with_options(options: PoolOptions) -> Pools {
        Pools {
            options,
            ..Pools::default()
        }
    }

    fn hold(&mut self, store: &dyn Store, name: &str, now_ms: u64) -> Option<Hold> {
        if !self.holds.contains_key(name) {
            let hold = super::hold::of_pool(store, name, now_ms, &self.options)
                .ok()
                .flatten();
            self.holds.insert(name.to_string(), hold);
        }
        self.holds.get(name).cloned().flatten()
    }

    /// The hold of `d`'s pool when `d` is held by it: due, without an admission, and not among
    /// those its pool would admit now.
    pub fn held(&mut self, store: &dyn Store, d: &Deferral, now_ms: u64) -> Option<Hold> {
        let due =
            d.state == State::Deferred && d.resume_after_ms <= now_ms && now_ms <= d.resume_by_ms;
        if !due {
            return None;
        }
        let (pool, _) = store.pool_of(&d.id).ok().flatten()?;
        let admitted = store
            .admission_of(&d.id, d.reentries + 1, now_ms)
            .ok()
            .flatten()
            .is_some();
        if admitted {
            return None;
        }
        self.hold(store, &pool, now_ms).filter(|h| h.holds(&d.id))
    }

    /// The forecast of a deferred deferral in `pool` (`None`: not forecast).
    fn expected(
        &mut self,
        store: &dyn Store,
        pool: &str,
        d: &Deferral,
        now_ms: u64,
    ) -> Option<super::forecast::Expected> {
        if d.state != State::Deferred {
            return None;
        }
        if !self.forecasts.contains_key(pool) {
            let options = super::PoolOptions::default();
            let f = super::expect::pool_forecast(store, pool, now_ms, &options).ok();
            self.forecasts.insert(pool.to_string(), f);
        }
        self.forecasts.get(pool)?.as_ref()?.of(&d.id).cloned()
    }

    /// `expected start ...` and `will-expire` of a deferral its pool starts later than it is
    /// due, for a person (`None` for one expected at its due time).
    pub fn expected_text(
        &mut self,
        store: &dyn Store,
        d: &Deferral,
        now_ms: u64,
    ) -> Option<String> {
        let (pool, _) = store.pool_of(&d.id).ok().flatten()?;
        let e = self.expected(store, &pool, d, now_ms)?;
        // Only what the table does not say already: a start later than it is due.
        if !e.will_expire && e.start_ms == Some(d.resume_after_ms) {
            return None;
        }
        let start = e.start_ms.map_or("not within 30 days".to_string(), iso8601);
        Some(if e.will_expire {
            format!(
                "{start} will-expire (its window ends at {})",
                iso8601(d.resume_by_ms)
            )
        } else {
            start
        })
    }

    /// Adds `pool`, `cost` and `held` (`{"why","until"}` or null) to a deferral's JSON view. A
    /// deferral is held when it is due, its pool holds, and it has no admission.
    pub fn annotate(&mut self, store: &dyn Store, d: &Deferral, view: &mut Value, now_ms: u64) {
        let Ok(Some((pool, cost))) = store.pool_of(&d.id) else {
            return;
        };
        view["pool"] = json!(pool);
        view["cost"] = cost_json(cost.as_ref());
        view["held"] = self
            .held(store, d, now_ms)
            .map_or(Value::Null, |h| hold_json(&h));
        let expected = self.expected(store, &pool, d, now_ms);
        super::expect::annotate(view, expected.as_ref());
    }

    /// `held: pool ...: why (until ...)` for a person, when held.
    pub fn held_text(&mut self, store: &dyn Store, d: &Deferral, now_ms: u64) -> Option<String> {
        self.held(store, d, now_ms).map(|h| hold_text(&h))
    }
}

/// The rate states reported with a deferral (its gate line's, its attempts'), as reported.
pub fn observations_json(store: &dyn Store, id: &str) -> Result<Value, HostError> {
    Ok(Value::Array(
        store
            .observations_of(id)?
            .iter()
            .map(|o| {
                json!({"resource": o.resource.as_str(), "limit": o.window.limit, "remaining": o.window.remaining,
                       "reserve": o.window.reserve, "reset_ms": o.window.reset_ms, "reset": iso8601(o.window.reset_ms),
                       "observed": iso8601(o.observed_ms), "source": o.source})
            })
            .collect(),
    ))
}

/// The status page's section on held deferrals: each pool that holds, why, until when, and the
/// first 100 of its held deferrals. Empty when no pool holds.
pub fn held_section_html(
    store: &dyn Store,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<String, HostError> {
    use crate::html::escape;
    let mut out = String::new();
    for row in store.pools(now_ms, now_ms.saturating_sub(LISTED_IDLE_MS))? {
        let Some(hold) = super::hold::of_pool(store, &row.name, now_ms, options)? else {
            continue;
        };
        let ids: Vec<String> = hold.held.iter().take(100).map(|id| escape(id)).collect();
        let until = hold.until_ms.map_or(String::new(), |t| {
            format!(", due again at <span class=\"at\">{}</span>", iso8601(t))
        });
        out.push_str(&format!(
            "<p><b>{}</b>: {}{until}</p><p class=\"sub\">{}</p>\n",
            escape(&row.name),
            escape(hold.why.as_deref().unwrap_or("the pool holds")),
            ids.join(" ")
        ));
    }
    if out.is_empty() {
        return Ok(out);
    }
    Ok(format!("<h2>Held by their pool</h2>\n{out}"))
}

/// `page` with the pools and their forecast ([`super::page`]) and [`held_section_html`] before
/// its end.
pub fn with_held_section(
    store: &dyn Store,
    page: String,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<String, HostError> {
    let section =
        super::page::section_html(store, now_ms)? + &held_section_html(store, now_ms, options)?;
    Ok(match page.rfind("</body>") {
        Some(at) if !section.is_empty() => format!("{}{section}{}", &page[..at], &page[at..]),
        _ => page,
    })
}
