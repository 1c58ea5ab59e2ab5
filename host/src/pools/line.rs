//! Reading what a gate knows: the CLI's gate or resume JSON line (`status`, `rest`/`graphql`
//! with `limit`, `remaining`, `reserve`, `plannedCost`, `reset`, a `plan`, `deferredReceipt`).
//!
//! At record, the receipt is the line's `deferredReceipt` (validated by the core exactly as a
//! bare receipt is); the planned cost and the rate state the gate saw go beside it. At the end
//! of an attempt, the same line tells the pool what the attempt saw and spent.

use crate::error::{HostError, HostErrorKind};
use crate::store::pools::{Cost, Observation, Resource, MAX_FIGURE};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;

/// One resource's figures as the line states them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figures {
    pub resource: Resource,
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    pub planned_cost: u64,
    /// Epoch seconds, as GitHub states it.
    pub reset_s: u64,
}

/// A gate or resume line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateLine {
    pub status: String,
    pub figures: Vec<Figures>,
    /// The plan's content-creating requests, when the line carries them.
    pub content: Option<u64>,
    /// `deferredReceipt`'s exact text, when there is one.
    pub receipt: Option<String>,
}

impl GateLine {
    /// The planned cost per resource (a resource the line has no figures for costs 0).
    pub fn cost(&self) -> Cost {
        let of = |r: Resource| {
            self.figures
                .iter()
                .find(|f| f.resource == r)
                .map_or(0, |f| f.planned_cost)
        };
        Cost {
            rest: of(Resource::Rest),
            graphql: of(Resource::Graphql),
            content: self.content.unwrap_or(0),
        }
    }

    /// The rate state as observations; `spent` takes each resource's planned cost off what
    /// remains (a gate or resume that went ahead read the state before its plan ran).
    pub fn observations(&self, observed_ms: u64, source: &str, spent: bool) -> Vec<Observation> {
        self.figures
            .iter()
            .map(|f| Observation {
                resource: f.resource,
                limit: f.limit,
                remaining: if spent {
                    f.remaining.saturating_sub(f.planned_cost)
                } else {
                    f.remaining
                },
                reserve: f.reserve,
                reset_ms: f.reset_s.saturating_mul(1000),
                observed_ms,
                source: source.to_string(),
                deferral_id: None,
            })
            .collect()
    }
}

fn whole(value: Option<&Value>, code: HostErrorKind, what: &str) -> Result<u64, HostError> {
    match value {
        Some(v) => v.as_u64().filter(|n| *n <= MAX_FIGURE).ok_or_else(|| {
            HostError::new(
                code,
                format!("{what} must be a whole number from 0 to 2^53-1, as the gate's (got {v})"),
            )
        }),
        None => Err(HostError::new(code, format!("{what} is missing"))),
    }
}

fn figures(resource: Resource, value: &Value) -> Result<Option<Figures>, HostError> {
    if value.is_null() {
        return Ok(None);
    }
    let name = resource.as_str();
    let field = |key: &str| value.get(key);
    let rate = |key: &str| {
        whole(
            field(key),
            HostErrorKind::InvalidRateState,
            &format!("{name}.{key}"),
        )
    };
    let f = Figures {
        resource,
        limit: rate("limit")?,
        remaining: rate("remaining")?,
        reserve: rate("reserve")?,
        reset_s: rate("reset")?,
        planned_cost: whole(
            field("plannedCost"),
            HostErrorKind::InvalidCost,
            &format!("{name}.plannedCost"),
        )?,
    };
    if f.planned_cost > f.limit {
        return Err(HostError::new(
            HostErrorKind::InvalidCost,
            format!(
                "{name}.plannedCost {} is larger than the whole window ({name}.limit {}): it can never fit",
                f.planned_cost, f.limit
            ),
        ));
    }
    Ok(Some(f))
}

/// Reads a gate or resume line from its fields; `None` when it is not one (no `status`, no
/// `deferredReceipt`, no `rest`/`graphql`: a bare receipt or something else).
fn read(fields: &HashMap<String, Box<RawValue>>) -> Result<Option<GateLine>, HostError> {
    let is_line = fields.contains_key("deferredReceipt")
        || (fields.contains_key("status") && fields.contains_key("mode"));
    if !is_line {
        return Ok(None);
    }
    let value = |key: &str| -> Value {
        fields
            .get(key)
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or(Value::Null)
    };
    let status = value("status").as_str().unwrap_or_default().to_string();
    let mut list = Vec::new();
    for resource in Resource::ALL {
        if let Some(f) = figures(resource, &value(resource.as_str()))? {
            list.push(f);
        }
    }
    let plan = value("plan");
    let content = match plan.get("contentCreating") {
        None | Some(Value::Null) => None,
        Some(v) => Some(whole(
            Some(v),
            HostErrorKind::InvalidCost,
            "plan.contentCreating",
        )?),
    };
    let receipt = fields
        .get("deferredReceipt")
        .map(|raw| raw.get().to_string())
        .filter(|text| text != "null");
    Ok(Some(GateLine {
        status,
        figures: list,
        content,
        receipt,
    }))
}

/// Parses a text as a gate or resume line: `Ok(None)` when it is not one.
pub fn parse(text: &str) -> Result<Option<GateLine>, HostError> {
    let Ok(fields) = serde_json::from_str::<HashMap<String, Box<RawValue>>>(text.trim()) else {
        return Ok(None);
    };
    read(&fields)
}

/// The last stdout line of an attempt that is a gate or resume line (bad figures: none).
pub fn last_gate_line(stdout: &str) -> Option<GateLine> {
    stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('{'))
        .and_then(|l| parse(l).ok().flatten())
}

/// What `record` was given: the receipt's bytes and, from a gate line, the cost and rate state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordInput {
    pub receipt: Vec<u8>,
    /// `Some` for a gate line.
    pub line: Option<GateLine>,
}

/// Splits `record`'s input: a gate or resume line whose `status` is `deferred` gives its
/// `deferredReceipt`; any other line is refused (`gate-not-deferred`), bad figures are
/// `invalid-cost` or `invalid-rate-state`; anything else is a bare receipt (cost unknown), left
/// to the core's validation.
/// Whether `text` is `record`'s own answer passed back in (`{"id","receipt","cancellation_handle"}`).
fn is_record_answer(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
        ["id", "receipt", "cancellation_handle"]
            .iter()
            .all(|k| v.get(k).is_some())
    })
}

pub fn record_input(bytes: &[u8]) -> Result<RecordInput, HostError> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(RecordInput {
            receipt: bytes.to_vec(),
            line: None,
        });
    };
    if is_record_answer(text) {
        return Err(HostError::new(
            HostErrorKind::RecordAnswer,
            "this is deferral-host record's answer ({\"id\",\"receipt\",\"cancellation_handle\"}), \
             not something to record: that deferral is recorded already (see `status ID`); \
             record takes the gate's JSON line (deferral gate ... > gate.json) or its handoff receipt",
        ));
    }
    let Some(line) = parse(text)? else {
        return Ok(RecordInput {
            receipt: bytes.to_vec(),
            line: None,
        });
    };
    if line.status != "deferred" {
        return Err(HostError::new(
            HostErrorKind::GateNotDeferred,
            format!(
                "the gate line's status is {:?}, not \"deferred\": it holds no receipt to record",
                line.status
            ),
        ));
    }
    let Some(receipt) = line.receipt.clone() else {
        return Err(HostError::new(
            HostErrorKind::MissingReceipt,
            "the gate line has no deferredReceipt",
        ));
    };
    Ok(RecordInput {
        receipt: receipt.into_bytes(),
        line: Some(line),
    })
}

/// `record`'s input and keys with what a gate line brings: the receipt's bytes, and the line's
/// cost and seen rate state in the keys' pool tag (the pool named stays as given).
pub fn with_line(
    bytes: &[u8],
    mut keys: crate::store::RecordKeys,
    now_ms: u64,
) -> Result<(Vec<u8>, crate::store::RecordKeys), HostError> {
    let input = record_input(bytes)?;
    if let Some(line) = &input.line {
        // A cost or rate state given beside the line (serve's body) wins over the line's.
        let tag = keys.pool.get_or_insert_with(Default::default);
        if tag.cost.is_none() {
            tag.cost = Some(line.cost());
        }
        if tag.seen.is_empty() {
            tag.seen = line.observations(now_ms, "record", false);
        }
    }
    Ok((input.receipt, keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"status":"deferred","mode":"gate","rest":{"limit":45,"remaining":3,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":false},"graphql":null,"plan":{"rest":10,"graphql":0,"contentCreating":2},"deferredReceipt":{"b":1, "a":2}}"#;

    #[test]
    fn a_deferred_gate_line_gives_its_receipt_byte_for_byte_cost_and_state() {
        let input = record_input(LINE.as_bytes()).unwrap();
        assert_eq!(input.receipt, br#"{"b":1, "a":2}"#);
        let line = input.line.unwrap();
        assert_eq!(
            line.cost(),
            Cost {
                rest: 10,
                graphql: 0,
                content: 2
            }
        );
        let obs = line.observations(7, "record", false);
        assert_eq!(
            (obs[0].limit, obs[0].remaining, obs[0].reset_ms),
            (45, 3, 1_800_000_000_000)
        );
        assert_eq!(line.observations(7, "attempt", true)[0].remaining, 0);
    }

    #[test]
    fn bad_lines_have_their_codes() {
        let code = |text: &str| record_input(text.as_bytes()).unwrap_err().code;
        assert_eq!(
            code(r#"{"id":"d1","receipt":{},"cancellation_handle":"h"}"#),
            "record-answer"
        );
        assert_eq!(
            code(&LINE.replace("\"deferred\",\"mode\"", "\"ready\",\"mode\"")),
            "gate-not-deferred"
        );
        assert_eq!(
            code(&LINE.replace("\"plannedCost\":10", "\"plannedCost\":-1")),
            "invalid-cost"
        );
        assert_eq!(
            code(&LINE.replace("\"plannedCost\":10", "\"plannedCost\":1.5")),
            "invalid-cost"
        );
        assert_eq!(
            code(&LINE.replace("\"plannedCost\":10", "\"plannedCost\":46")),
            "invalid-cost"
        );
        assert_eq!(
            code(&LINE.replace("\"remaining\":3", "\"remaining\":\"3\"")),
            "invalid-rate-state"
        );
        assert_eq!(
            code(&LINE.replace("\"contentCreating\":2", "\"contentCreating\":-2")),
            "invalid-cost"
        );
        let bare = br#"{"schema":1,"version":"deferred-receipt-v1"}"#;
        assert_eq!(record_input(bare).unwrap().line, None);
    }
}
