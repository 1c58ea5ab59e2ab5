//! How pools and held deferrals are shown: `status --pools`, `GET /v1/pools` (with the open
//! admissions, the runners' among them, and their cost), the `pool`,
//! `cost` and `held` of a deferral in `status`/`show`, and the tick report's `held`.

use super::admission::metered;
use crate::clock::iso8601;
use crate::error::HostError;
use crate::store::pools::{Admission, Cost, PoolRow, Resource, LISTED_IDLE_MS};
use crate::store::{Deferral, Store};
use deferral_core::lifecycle::State;
use serde_json::{json, Value};
use std::collections::HashMap;

pub fn cost_json(cost: Option<&Cost>) -> Value {
    cost.map_or(
        Value::Null,
        |c| json!({"rest": c.rest, "graphql": c.graphql, "content_creating": c.content}),
    )
}

/// One pool's state: its windows, its hold, what is admitted and not yet reported.
pub fn pool_json(store: &dyn Store, row: &PoolRow, now_ms: u64) -> Result<Value, HostError> {
    let open = store.open_admissions(&row.name, now_ms)?;
    let mut value = json!({
        "pool": row.name,
        "version": row.version,
        "metered": metered(row),
        "admitted": open.len(),
        "held": row.hold_reason.is_some(),
        "why": row.hold_reason,
        "hold_until": row.hold_until_ms.map(iso8601),
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
        cost.rest = cost.rest.saturating_add(c.rest);
        cost.graphql = cost.graphql.saturating_add(c.graphql);
        cost.content = cost.content.saturating_add(c.content);
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
    format!(
        "{} (rest {}, graphql {}{})",
        open.len(),
        sum(Resource::Rest),
        sum(Resource::Graphql),
        if unknown == 0 {
            String::new()
        } else {
            format!(", {unknown} of unknown cost")
        }
    )
}

/// `{"pools":[...]}`.
pub fn pools_json(store: &dyn Store, now_ms: u64) -> Result<Value, HostError> {
    let mut list = Vec::new();
    for row in store.pools(now_ms, now_ms.saturating_sub(LISTED_IDLE_MS))? {
        list.push(pool_json(store, &row, now_ms)?);
    }
    Ok(json!({ "pools": list }))
}

/// A table of the pools for people.
pub fn pools_text(store: &dyn Store, now_ms: u64) -> Result<String, HostError> {
    let mut out = String::from(
        "POOL  REST (remaining/limit, reserve, reset)  GRAPHQL  ADMITTED  DRAIN  HELD\n",
    );
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
        out.push_str(&format!(
            "{}  {}  {}  {}  {drain}  {}\n",
            row.name,
            window(Resource::Rest),
            window(Resource::Graphql),
            admissions_text(&open),
            row.hold_reason.as_deref().unwrap_or("-")
        ));
    }
    Ok(out)
}

/// Pool rows and forecasts read once per listing.
#[derive(Default)]
pub struct Pools(
    HashMap<String, Option<PoolRow>>,
    HashMap<String, Option<super::forecast::Forecast>>,
);

impl Pools {
    fn row(&mut self, store: &dyn Store, name: &str) -> Option<PoolRow> {
        if !self.0.contains_key(name) {
            let row = store.pool(name).ok().flatten();
            self.0.insert(name.to_string(), row);
        }
        self.0.get(name).cloned().flatten()
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
        if !self.1.contains_key(pool) {
            let options = super::PoolOptions::default();
            let f = super::expect::pool_forecast(store, pool, now_ms, &options).ok();
            self.1.insert(pool.to_string(), f);
        }
        self.1.get(pool)?.as_ref()?.of(&d.id).cloned()
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
        let due =
            d.state == State::Deferred && d.resume_after_ms <= now_ms && now_ms <= d.resume_by_ms;
        let admitted = store
            .admission_of(&d.id, d.reentries + 1, now_ms)
            .ok()
            .flatten()
            .is_some();
        let held = match self.row(store, &pool) {
            Some(row) if due && !admitted => row.hold_reason.map(|why| {
                json!({"why": why, "until": row.hold_until_ms.map(iso8601),
                                  "until_ms": row.hold_until_ms})
            }),
            _ => None,
        };
        view["held"] = held.unwrap_or(Value::Null);
        let expected = self.expected(store, &pool, d, now_ms);
        super::expect::annotate(view, expected.as_ref());
    }

    /// `held: pool ...: why (until ...)` for a person, when held.
    pub fn held_text(&mut self, store: &dyn Store, d: &Deferral, now_ms: u64) -> Option<String> {
        let mut view = json!({});
        self.annotate(store, d, &mut view, now_ms);
        let held = view.get("held").filter(|h| !h.is_null())?;
        Some(match held["until"].as_str() {
            Some(until) => format!(
                "{} (due again at {until})",
                held["why"].as_str().unwrap_or_default()
            ),
            None => held["why"].as_str().unwrap_or_default().to_string(),
        })
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
pub fn held_section_html(store: &dyn Store, now_ms: u64) -> Result<String, HostError> {
    use crate::html::escape;
    let mut out = String::new();
    for row in store.pools(now_ms, now_ms.saturating_sub(LISTED_IDLE_MS))? {
        let Some(why) = &row.hold_reason else {
            continue;
        };
        let ids: Vec<String> = store
            .pool_candidates(&row.name, now_ms, &[], 100)?
            .into_iter()
            .map(|c| escape(&c.id))
            .collect();
        let until = row.hold_until_ms.map_or(String::new(), |t| {
            format!(", due again at <span class=\"at\">{}</span>", iso8601(t))
        });
        out.push_str(&format!(
            "<p><b>{}</b>: {}{until}</p><p class=\"sub\">{}</p>\n",
            escape(&row.name),
            escape(why),
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
) -> Result<String, HostError> {
    let section = super::page::section_html(store, now_ms)? + &held_section_html(store, now_ms)?;
    Ok(match page.rfind("</body>") {
        Some(at) if !section.is_empty() => format!("{}{section}{}", &page[..at], &page[at..]),
        _ => page,
    })
}
