//! The gate decision: from the rate state (plus the shared ledger), the policy, the plan and the
//! bindings, decide whether work may proceed now (`ready`), must stop with a handoff receipt
//! (`deferred`), can never run as planned (`blocked`), or cannot be judged (`error`).
//!
//! A pure function of its input: the same input gives the same output natively and in wasm.
//! The JSON shapes are documented in `docs/decision.md`.

mod code;
mod output;
mod policy;
mod resource;

pub use code::Code;
pub use output::{BindingFigures, Decision, Diagnostic, ResourceFigures, SecondaryFigures, Status};
pub use policy::{Policy, Reserve, DEFAULT_BUFFER_MS, DEFAULT_JITTER_MAX_MS, DEFAULT_WINDOW_MS};
pub use resource::{Resource, RESOURCES};

use crate::digest;
use crate::jcs::JcsError;
use crate::ledger::{Ledger, ResourceEntry, LEDGER_VERSION};
use crate::plan::{Plan, PlanCost};
use crate::receipt::{Bindings, Reason, Receipt, MAX_WINDOW_MS};
use crate::signals::RateSnapshot;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Everything the decision needs; see `docs/decision.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionInput {
    /// Fresh rate state (`/rate_limit`, or windows gathered from headers).
    pub rate: RateSnapshot,
    /// The shared ledger, merged into `rate` before deciding.
    #[serde(default)]
    pub ledger: Option<Ledger>,
    #[serde(default)]
    pub policy: Policy,
    /// The plan document as given (its digest binds the receipt).
    #[serde(default)]
    pub plan: Option<Value>,
    /// The scope the receipt binds (any JSON value).
    pub scope: Value,
    /// The request the receipt binds, or null.
    #[serde(default)]
    pub request: Option<Value>,
    /// Written into a receipt this decision emits.
    #[serde(default = "yes")]
    pub fresh_approval_required: bool,
    /// Host clock, epoch milliseconds.
    pub now_ms: u64,
    /// Server clock minus host clock; defaults to the ledger's latest, else 0.
    #[serde(default)]
    pub clock_offset_ms: Option<i64>,
}

fn yes() -> bool {
    true
}

/// Computes the bindings of DESIGN.md section 2 for this input.
/// Fails when the scope, request or plan holds a number with no canonical form (e.g. `1e400`).
pub fn bindings(input: &DecisionInput) -> Result<Bindings, JcsError> {
    let scope_digest = digest::scope_digest(&input.scope)?;
    let request_digest = digest::request_digest(
        &scope_digest,
        &input.policy.normalised(),
        input.request.as_ref(),
    )?;
    Ok(Bindings {
        scope_digest,
        request_digest,
        plan_digest: digest::plan_digest(input.plan.as_ref())?,
    })
}

/// Jitter in `0..=max_ms` from the first 8 bytes of the request digest, so that one request
/// always wakes at the same offset and different requests spread out.
pub fn jitter_ms(request_digest: &str, max_ms: u64) -> u64 {
    let head = request_digest
        .get(..16)
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .unwrap_or(0);
    match max_ms.checked_add(1) {
        Some(modulus) => head % modulus,
        None => head,
    }
}

/// `decide` over JSON text: the wasm and CLI entry point. Input that does not parse gives an
/// `error` decision with code `invalid-input`.
pub fn decide_json(input: &str) -> String {
    match serde_json::from_str::<DecisionInput>(input) {
        Ok(input) => decide(&input).to_json(),
        Err(error) => {
            Decision::invalid_input(format!("the decision input is not valid: {error}")).to_json()
        }
    }
}

/// One of the two checked resources, while deciding.
struct Checked {
    figures: ResourceFigures,
    reason: Reason,
}

/// Decides; see the module docs and `docs/decision.md`.
pub fn decide(input: &DecisionInput) -> Decision {
    let mut d = Decision::new();
    let bound = match bindings(input) {
        Ok(bound) => bound,
        Err(e) => {
            d.note(
                Code::InvalidInput,
                format!("the work has no canonical form: {e}"),
            );
            return d.with_status(Status::Error, Some(Code::InvalidInput));
        }
    };
    d.bindings = Some(BindingFigures {
        scope_digest: bound.scope_digest.clone(),
        request_digest: bound.request_digest.clone(),
        plan_digest: bound.plan_digest.clone(),
    });
    if let Err(field) = input.policy.check() {
        d.note(
            Code::InvalidPolicy,
            format!("policy field {field} is out of range"),
        );
        return d.with_status(Status::Error, Some(Code::InvalidPolicy));
    }
    if let Some(ledger) = &input.ledger {
        if ledger.version != LEDGER_VERSION {
            d.note(
                Code::UnsupportedLedgerVersion,
                format!("the ledger version is not {LEDGER_VERSION}"),
            );
            return d.with_status(Status::Error, Some(Code::InvalidLedger));
        }
    }
    let cost = match &input.plan {
        None => PlanCost::default(),
        Some(value) => match Plan::from_value(value).and_then(|plan| plan.cost()) {
            Ok(cost) => {
                d.plan = Some(cost);
                cost
            }
            Err(error) => {
                d.note_code(error.code(), error.to_string());
                return d.with_status(Status::Error, Some(Code::InvalidPlan));
            }
        },
    };
    d.secondary.minutes = cost.secondary_minutes;
    if cost.secondary_minutes > 1 {
        d.note(
            Code::SecondaryBudget,
            format!(
                "the plan needs {} minutes of secondary budget; pace it",
                cost.secondary_minutes
            ),
        );
    }

    let offset = input
        .clock_offset_ms
        .or_else(|| {
            input
                .ledger
                .as_ref()
                .and_then(|l| l.clock)
                .map(|c| c.offset_ms)
        })
        .unwrap_or(0);
    d.clock_offset_ms = offset;
    let server_now_ms = (i128::from(input.now_ms) + i128::from(offset)).max(0);
    let hold_until = input
        .ledger
        .as_ref()
        .and_then(|l| l.hold_until(input.now_ms));
    d.secondary.hold_until_ms = hold_until;

    let mut checked = Vec::new();
    if input.rate.unlimited {
        d.unlimited = true;
        d.note(
            Code::Unlimited,
            "the server does not enforce primary rate limits",
        );
    } else {
        for row in &RESOURCES {
            let name = row.name;
            let Some(entry) = effective_window(input, name, server_now_ms, &mut d) else {
                if row.required && hold_until.is_some() {
                    // /rate_limit itself answered with a secondary limit: no windows to check,
                    // and the hold that answer recorded is what decides.
                    d.note(
                        Code::RateStateUnavailable,
                        format!("no fresh {name} window; the active secondary hold decides"),
                    );
                    continue;
                }
                if row.required {
                    d.note(
                        row.missing_code,
                        format!("the rate state has no {name} resource"),
                    );
                    return d.with_status(Status::Error, Some(row.missing_code));
                }
                d.note(
                    row.missing_code,
                    format!("the rate state has no {name} resource; {name} is not checked"),
                );
                continue;
            };
            let planned_cost = (row.cost)(&cost);
            let reserve = (row.reserve)(&input.policy).of(entry.limit);
            let needed = planned_cost.saturating_add(reserve);
            let figures = ResourceFigures {
                resource: name.to_string(),
                limit: entry.limit,
                remaining: entry.remaining,
                reserve,
                planned_cost,
                reset: entry.reset,
                ok: entry.remaining >= needed,
            };
            if !figures.ok {
                d.note(
                    row.below_reserve_code,
                    format!(
                        "{name} has {} remaining; the plan needs {planned_cost} above a reserve of {reserve}",
                        entry.remaining
                    ),
                );
            }
            *(row.figures_mut)(&mut d) = Some(figures.clone());
            let reason = row.reason;
            checked.push(Checked { figures, reason });
        }
    }

    // A plan that cannot fit even a full window would be deferred forever: block it instead.
    if let Some(never) = checked
        .iter()
        .find(|c| c.figures.planned_cost.saturating_add(c.figures.reserve) > c.figures.limit)
    {
        let f = &never.figures;
        d.reason = Some(never.reason.as_str());
        d.note(
            Code::PlanExceedsWindow,
            format!(
                "{} needs {} plus a reserve of {} but a whole window holds only {}",
                f.resource, f.planned_cost, f.reserve, f.limit
            ),
        );
        return d.with_status(Status::Blocked, Some(Code::PlanExceedsWindow));
    }

    // What stops the work, as (host time it ends, reason); the latest one binds.
    let mut binding: Option<(i128, Reason)> = None;
    for c in checked.iter().filter(|c| !c.figures.ok) {
        let until = i128::from(c.figures.reset) * 1000 - i128::from(offset);
        if binding.is_none_or(|(t, _)| until > t) {
            binding = Some((until, c.reason));
        }
    }
    if let Some(until) = hold_until {
        d.note(
            Code::SecondaryHold,
            format!("a secondary rate limit holds work until {until} ms"),
        );
        if binding.is_none_or(|(t, _)| i128::from(until) > t) {
            binding = Some((i128::from(until), Reason::ProviderSecondaryLimit));
        }
    }
    let Some((until, reason)) = binding else {
        return d.with_status(Status::Ready, None);
    };
    d.reason = Some(reason.as_str());

    let issued = input.now_ms;
    let jitter = jitter_ms(&bound.request_digest, input.policy.jitter_max_ms);
    let resume_after = until.max(i128::from(issued))
        + i128::from(input.policy.resume_buffer_ms)
        + i128::from(jitter);
    let latest = i128::from(issued) + i128::from(MAX_WINDOW_MS);
    if resume_after > latest {
        d.resume_after_ms = u64::try_from(resume_after).ok();
        d.note(
            Code::WindowUnreachable,
            "the earliest resume time is more than 24 hours away, beyond what a receipt may span",
        );
        return d.with_status(Status::Blocked, Some(Code::WindowUnreachable));
    }
    let resume_after = u64::try_from(resume_after).unwrap_or(u64::MAX);
    let resume_by = issued
        .saturating_add(MAX_WINDOW_MS)
        .min(resume_after.saturating_add(input.policy.resume_window_ms));
    d.resume_after_ms = Some(resume_after);
    d.resume_by_ms = Some(resume_by);
    match Receipt::handoff(
        reason,
        issued,
        resume_after,
        resume_by,
        bound,
        input.fresh_approval_required,
    ) {
        Ok(receipt) => {
            d.receipt = Some(receipt);
            d.with_status(Status::Deferred, None)
        }
        Err(error) => {
            d.note_code(error.code(), error.message.clone());
            d.with_status(Status::Error, Some(Code::ReceiptError))
        }
    }
}

/// The window of `name` after merging the ledger; once its reset has passed (server clock) the
/// window has refilled, so `remaining` is the full limit again.
fn effective_window(
    input: &DecisionInput,
    name: &str,
    server_now_ms: i128,
    d: &mut Decision,
) -> Option<ResourceEntry> {
    let fresh = input
        .rate
        .resources
        .get(name)
        .map(|w| ResourceEntry::from_window(w, input.now_ms));
    let recorded = input
        .ledger
        .as_ref()
        .and_then(|l| l.resources.get(name))
        .copied();
    let mut entry = match (fresh, recorded) {
        (Some(a), Some(b)) => a.merge(&b),
        (a, b) => a.or(b)?,
    };
    if i128::from(entry.reset) * 1000 <= server_now_ms && entry.remaining < entry.limit {
        d.note(
            Code::WindowElapsed,
            format!("the {name} window has reset since it was observed; counted as full"),
        );
        entry.remaining = entry.limit;
        entry.used = 0;
    }
    Some(entry)
}
