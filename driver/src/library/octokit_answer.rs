//! What one answer tells an Octokit gate: it is recorded into the gate's own ledger (as the
//! shared ledger records it), and a primary limit, which GitHub defines by the status and
//! `x-ratelimit-remaining: 0` or a GraphQL `RATE_LIMITED` error, marks its bucket spent in
//! both the ledger and the `/rate_limit` snapshot the gate holds: the answer is fresher than
//! anything seen before it, so no older window of that bucket can outvote it.

use super::obj;
use deferral_core::ledger::{Ledger, ResourceEntry};
use deferral_core::observe::answer_of;
use deferral_core::signals::{classify_at, Classification, RateSnapshot};
use serde::Deserialize;
use serde_json::Value;

/// `{ledger, snapshot, path, status, headers, body, now_ms}` -> `{ledger, snapshot, kind,
/// limited, bucket}`: `limited` for a primary or secondary limit, `bucket` the one a primary
/// limit spent (null when it names none).
pub fn observe(v: &Value) -> Value {
    let now = v["now_ms"].as_u64().unwrap_or(0);
    let mut ledger = Ledger::from_value(&v["ledger"]).unwrap_or_default();
    let mut snapshot = v["snapshot"].clone();
    let Ok((status, headers, body)) = answer_of(v) else {
        return obj(vec![
            ("ledger", ledger.to_value()),
            ("snapshot", snapshot),
            ("kind", Value::from("not-rate-limited")),
            ("limited", Value::Bool(false)),
            ("bucket", Value::Null),
        ]);
    };
    // The snapshot's buckets give the limit of an answer that lacks x-ratelimit-limit.
    if let Ok(seen) = RateSnapshot::deserialize(&snapshot) {
        for (name, window) in &seen.resources {
            if !ledger.resources.contains_key(name) {
                ledger
                    .resources
                    .insert(name.clone(), ResourceEntry::from_window(window, now));
            }
        }
    }
    let classified = classify_at(v["path"].as_str(), status, &headers, &body);
    let recorded = ledger.observe_response(&classified, now);
    let mut bucket = Value::Null;
    if let (true, Some((name, window))) = (classified.is_primary(), recorded) {
        let spent = ResourceEntry {
            limit: window.limit,
            remaining: 0,
            used: window.limit,
            reset: window.reset,
            observed_at_ms: now,
        };
        ledger.resources.insert(name.clone(), spent);
        if let Some(resources) = snapshot.get_mut("resources").and_then(Value::as_object_mut) {
            resources.insert(name.clone(), spent.window().to_value());
        }
        bucket = Value::from(name);
    }
    let limited = matches!(
        classified.kind,
        Classification::PrimaryRest | Classification::PrimaryGraphql | Classification::Secondary
    );
    obj(vec![
        ("ledger", ledger.to_value()),
        ("snapshot", snapshot),
        ("kind", Value::from(classified.kind.as_str())),
        ("limited", Value::Bool(limited)),
        ("bucket", bucket),
    ])
}
