//! The fresh resume preflight (DESIGN.md section 6): what a fresh process checks, in order,
//! before it plans or applies anything on the strength of a receipt.
//!
//! 1. The receipt is valid (`invalid-receipt`, status `error`: invalid input, exit 2).
//! 2. It is due: `resume_after_ms <= now` (`not-yet-due`) and `now <= resume_by_ms` (`expired`).
//! 3. Retained ownership: the raw wake-up handle hashes to `wakeup_digest`
//!    (`claim-unavailable`). The digest is lowercase hex SHA-256 of the UTF-8 bytes of the
//!    handle text (surrounding whitespace trimmed), as the host stores it. Handoff ownership
//!    relies on the caller's own exclusivity (a workflow `concurrency:` group).
//! 4. The scope, request and plan digests recomputed from the fresh inputs match the receipt
//!    (`binding-mismatch`, naming the first field that differs).
//! 5. `fresh_approval_required` needs fresh approval (`approval-required`).
//! 6. The gate decision on fresh rate state: still limited gives a new receipt (`deferred`),
//!    otherwise `ready` (or the decision's own `blocked`/`error`).
//!
//! The lease, cancellation and expiry bookkeeping of a durable host live in the host; this is
//! the part every caller shares. Its messages say what failed and name no flag: the CLI's and
//! the Action's words for the way out are the shell's (`deferral-driver`).

use crate::decision::{bindings, decide, Code, Decision, DecisionInput, Diagnostic, Status};
use crate::digest::{constant_time_eq, sha256_hex};
use crate::receipt::{validate, Ownership, Receipt};
use serde::{Deserialize, Serialize};

/// What the preflight needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreflightInput {
    /// The receipt as JSON text (kept as text so validation sees duplicate keys and the exact
    /// number forms).
    pub receipt: String,
    /// The raw wake-up handle (`DEFERRAL_WAKEUP_HANDLE`), for retained receipts.
    #[serde(default)]
    pub wakeup_handle: Option<String>,
    /// `true` when this run has fresh approval (e.g. a protected environment).
    #[serde(default)]
    pub approval_granted: bool,
    /// The fresh decision input: fresh rate state, the same scope, request, policy and plan,
    /// and `now_ms`.
    pub fresh: DecisionInput,
}

/// The preflight's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preflight {
    pub status: Status,
    /// Why blocked or error: `invalid-receipt`, `not-yet-due`, `expired`, `claim-unavailable`,
    /// `binding-mismatch`, `approval-required`, or the decision's code.
    pub code: Option<String>,
    /// For `binding-mismatch`: `scope_digest`, `request_digest` or `plan_digest`.
    pub field: Option<&'static str>,
    /// `retained` or `handoff`, once the receipt is valid.
    pub ownership: Option<&'static str>,
    pub diagnostics: Vec<Diagnostic>,
    /// The fresh decision, when the checks got that far.
    pub decision: Option<Decision>,
    /// The new receipt when still limited.
    #[serde(serialize_with = "crate::receipt::serialize_optional")]
    pub receipt: Option<Receipt>,
}

impl Preflight {
    fn new() -> Self {
        Preflight {
            status: Status::Error,
            code: None,
            field: None,
            ownership: None,
            diagnostics: Vec::new(),
            decision: None,
            receipt: None,
        }
    }

    fn stop(mut self, status: Status, code: Code, message: impl Into<String>) -> Self {
        self.status = status;
        self.code = Some(code.as_str().to_string());
        self.diagnostics.push(Diagnostic {
            code: code.as_str().to_string(),
            message: message.into(),
        });
        self
    }

    /// Compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("preflight serializes"))
    }
}

/// `preflight` over JSON text: the wasm and CLI entry point. Input that does not parse gives an
/// `error` with code `invalid-input`.
pub fn preflight_json(input: &str) -> String {
    match serde_json::from_str::<PreflightInput>(input) {
        Ok(input) => preflight(&input).to_json(),
        Err(error) => Preflight::new()
            .stop(
                Status::Error,
                Code::InvalidInput,
                format!("the preflight input is not valid: {error}"),
            )
            .to_json(),
    }
}

/// Runs the checks in order; the first failure decides.
pub fn preflight(input: &PreflightInput) -> Preflight {
    let out = Preflight::new();
    let now = input.fresh.now_ms;
    let receipt = match validate(input.receipt.as_bytes()) {
        Ok(receipt) => receipt,
        Err(error) => {
            let error = crate::receipt_hint::with_hint(input.receipt.as_bytes(), error);
            let message = format!(
                "the receipt is invalid: {} at {}: {}",
                error.code(),
                error.path,
                error.message
            );
            return out.stop(Status::Error, Code::InvalidReceipt, message);
        }
    };
    let mut out = out;
    out.ownership = Some(if receipt.is_retained() {
        "retained"
    } else {
        "handoff"
    });
    if now < receipt.resume_after_ms {
        let wait = receipt.resume_after_ms - now;
        return out.stop(
            Status::Blocked,
            Code::NotYetDue,
            format!("the receipt is not due for another {wait} ms"),
        );
    }
    if now > receipt.resume_by_ms {
        return out.stop(
            Status::Blocked,
            Code::Expired,
            "the receipt's resume window has passed",
        );
    }
    if let Ownership::Retained { wakeup_digest, .. } = &receipt.ownership {
        let claimed = input.wakeup_handle.as_deref().is_some_and(|handle| {
            constant_time_eq(&sha256_hex(handle.trim().as_bytes()), wakeup_digest)
        });
        if !claimed {
            return out.stop(
                Status::Blocked,
                Code::ClaimUnavailable,
                "no wake-up handle matching the receipt's wakeup_digest was given",
            );
        }
    }
    let fresh = match bindings(&input.fresh) {
        Ok(fresh) => fresh,
        Err(e) => {
            return out.stop(
                Status::Error,
                Code::InvalidInput,
                format!("the fresh work has no canonical form: {e}"),
            )
        }
    };
    let checks = [
        (
            "scope_digest",
            Some(&fresh.scope_digest) == Some(&receipt.bindings.scope_digest),
        ),
        (
            "request_digest",
            fresh.request_digest == receipt.bindings.request_digest,
        ),
        (
            "plan_digest",
            fresh.plan_digest == receipt.bindings.plan_digest,
        ),
    ];
    if let Some((field, _)) = checks.iter().find(|(_, same)| !same) {
        out.field = Some(field);
        return out.stop(
            Status::Blocked,
            Code::BindingMismatch,
            format!(
                "the fresh {field} differs from the receipt's; this is not the deferred work, or \
                 the resume was not given what the gate was"
            ),
        );
    }
    if receipt.fresh_approval_required && !input.approval_granted {
        return out.stop(
            Status::Blocked,
            Code::ApprovalRequired,
            "the receipt requires fresh approval and none was granted",
        );
    }
    let decision = decide(&input.fresh);
    out.status = decision.status;
    out.code = decision.code.clone();
    out.receipt = decision.receipt.clone();
    out.decision = Some(decision);
    out
}
