//! Reading what a gate knows: the CLI's gate or resume JSON line (`status`, `rest`/`graphql`
//! with `limit`, `remaining`, `reserve`, `plannedCost`, `reset`, a `plan`, `deferredReceipt`).
//!
//! At record, the receipt is the line's `deferredReceipt` (validated by the core exactly as a
//! bare receipt is); the planned cost and the rate state the gate saw go beside it. At the end
//! of an attempt, the same line tells the pool what the attempt saw and spent.

use super::wire::refused;
use crate::error::{HostError, HostErrorKind};
use crate::store::pools::{Observation, Window};
pub use deferral_protocol::GateLine;

/// The line's rate state as observations; `spent` takes each resource's planned cost off what
/// remains (a gate or resume that went ahead read the state before its plan ran).
pub fn observations(
    line: &GateLine,
    observed_ms: u64,
    source: &str,
    spent: bool,
) -> Vec<Observation> {
    line.figures()
        .map(|(resource, f)| Observation {
            resource,
            window: Window {
                limit: f.limit,
                remaining: if spent {
                    f.remaining.saturating_sub(f.planned_cost)
                } else {
                    f.remaining
                },
                reserve: f.reserve,
                reset_ms: f.reset.saturating_mul(1000),
            },
            observed_ms,
            source: source.to_string(),
            deferral_id: None,
        })
        .collect()
}

/// Parses a text as a gate or resume line: `Ok(None)` when it is not one.
pub fn parse(text: &str) -> Result<Option<GateLine>, HostError> {
    GateLine::parse(text).map_err(refused)
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
            tag.seen = observations(line, now_ms, "record", false);
        }
    }
    Ok((input.receipt, keys))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::pools::{Cost, Resource};

    const LINE: &str = r#"{"status":"deferred","mode":"gate","rest":{"limit":45,"remaining":3,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":false},"graphql":null,"plan":{"rest":10,"graphql":0,"contentCreating":2},"deferredReceipt":{"b":1, "a":2}}"#;

    #[test]
    fn a_deferred_gate_line_gives_its_receipt_byte_for_byte_cost_and_state() {
        let input = record_input(LINE.as_bytes()).unwrap();
        assert_eq!(input.receipt, br#"{"b":1, "a":2}"#);
        let line = input.line.unwrap();
        assert_eq!(
            line.cost(),
            Cost::default().with(Resource::Rest, 10).with_content(2)
        );
        let obs = observations(&line, 7, "record", false);
        assert_eq!(
            (
                obs[0].window.limit,
                obs[0].window.remaining,
                obs[0].window.reset_ms
            ),
            (45, 3, 1_800_000_000_000)
        );
        assert_eq!(
            observations(&line, 7, "attempt", true)[0].window.remaining,
            0
        );
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
