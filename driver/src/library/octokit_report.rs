//! The Octokit gate's line for `deferral-host`'s report file (`DEFERRAL_REPORT_FILE`, see
//! docs/host-launch.md): when the plugin runs in a process the host launched and its plan is let
//! through (admitted, with a pool), it appends the same JSON line `deferral gate` prints for
//! that decision, so the host's pool learns what the work saw and planned, whatever the
//! process prints last. The line is the CLI's own ([`Finished::line`]), made from the core's
//! decision on the same input the gate decided on.

use super::{obj, Answer};
use crate::attempt::view::{Finished, Mode};
use deferral_core::decision::{decide, DecisionInput, Status};
use deferral_core::exit::Exit;
use serde::Deserialize;
use serde_json::Value;

/// `{input, pool, admission}` -> `{line}`: the gate line of the decision on `input` (the
/// plugin's decision input), with the pool and admission when there are; `line` is null for
/// an input the decision cannot read.
pub fn line(v: &Value) -> Answer {
    let mut input = v["input"].clone();
    if input["rate"].is_null() {
        input["rate"] = serde_json::json!({"unlimited": false, "resources": {}});
    }
    let Ok(input) = DecisionInput::deserialize(&input) else {
        return Ok(obj(vec![("line", Value::Null)]));
    };
    let d = decide(&input);
    let text = |name: &str| v[name].as_str().map(str::to_string);
    let finished = Finished {
        mode: Mode::Gate,
        status: d.status,
        code: d.code.clone(),
        error: None,
        receipt: d.receipt.clone(),
        ownership: None,
        field: None,
        diagnostics: d.diagnostics.clone(),
        exit: if d.status == Status::Ready {
            Exit::Ok
        } else {
            Exit::Deferred
        },
        deferral_id: None,
        handle_path: None,
        pool: text("pool"),
        admission: text("admission"),
        pool_reason: None,
        commit: None,
        decision: Some(d),
    };
    Ok(obj(vec![("line", Value::from(finished.line()))]))
}
