//! The `deferred-receipt-v1` contract: what a deferral says, and nothing more.
//!
//! A receipt holds why work stopped, when a fresh attempt may start and until when, SHA-256
//! bindings to the work, and who owns the wake-up. It never holds a token, a name, a URL or a
//! request. [`validate`] reads one strictly; [`Receipt::handoff`] and [`Receipt::retain`] build
//! one and cannot build an invalid one; [`Receipt::to_json`] writes the canonical field order.
//! [`check`] gives the same verdict as [`validate`] without building the receipt. [`json`] is the
//! strict reader both use.
//!
//! A crate of its own so that the wasm build can optimise it for speed (JS callers validate in
//! hot loops) while the rest of `deferral-core`, which re-exports it as `deferral_core::receipt`,
//! is optimised for size.

mod error;
pub mod json;
mod validate;

pub use error::{ErrorCode, ReceiptError};
pub use validate::{check, validate, validate_str, MAX_BYTES};

use crate::json::write_json_string;

/// The `version` string.
pub const VERSION: &str = "deferred-receipt-v1";
/// The `schema` number.
pub const SCHEMA: u64 = 1;
/// Largest time a receipt may carry: 2^53-1, the largest integer JavaScript holds exactly.
pub const MAX_TIME_MS: u64 = (1 << 53) - 1;
/// Longest span from issue to `resume_by_ms`: 24 hours.
pub const MAX_WINDOW_MS: u64 = 86_400_000;

/// Why the work was deferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    RestReserve,
    GraphqlReserve,
    ProviderSecondaryLimit,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::RestReserve => "rest-reserve",
            Reason::GraphqlReserve => "graphql-reserve",
            Reason::ProviderSecondaryLimit => "provider-secondary-limit",
        }
    }

    pub fn parse(text: &str) -> Option<Reason> {
        match text {
            "rest-reserve" => Some(Reason::RestReserve),
            "graphql-reserve" => Some(Reason::GraphqlReserve),
            "provider-secondary-limit" => Some(Reason::ProviderSecondaryLimit),
            _ => None,
        }
    }
}

/// SHA-256 bindings of the receipt to its work (64 lowercase hex characters each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bindings {
    pub scope_digest: String,
    pub request_digest: String,
    pub plan_digest: Option<String>,
}

/// Who owns the wake-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// A durable host holds the wake-up; only digests of its handles appear here.
    Retained {
        wakeup_digest: String,
        cancellation_digest: String,
    },
    /// Nobody holds a wake-up yet; the caller must resume it (e.g. a workflow dispatch).
    Handoff,
}

/// A valid `deferred-receipt-v1`. Fields are private to keep every instance valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub reason: Reason,
    pub issued_at_ms: u64,
    pub resume_after_ms: u64,
    pub resume_by_ms: u64,
    pub bindings: Bindings,
    pub ownership: Ownership,
    pub fresh_approval_required: bool,
}

impl Receipt {
    /// Builds a governed-handoff receipt, checking every rule the validator checks.
    pub fn handoff(
        reason: Reason,
        issued_at_ms: u64,
        resume_after_ms: u64,
        resume_by_ms: u64,
        bindings: Bindings,
        fresh_approval_required: bool,
    ) -> Result<Receipt, ReceiptError> {
        let receipt = Receipt {
            reason,
            issued_at_ms,
            resume_after_ms,
            resume_by_ms,
            bindings,
            ownership: Ownership::Handoff,
            fresh_approval_required,
        };
        receipt.checked()
    }

    /// The retained form of this receipt: same window and bindings, owned by a durable host.
    pub fn retain(
        &self,
        wakeup_digest: &str,
        cancellation_digest: &str,
    ) -> Result<Receipt, ReceiptError> {
        let mut receipt = self.clone();
        receipt.ownership = Ownership::Retained {
            wakeup_digest: wakeup_digest.to_string(),
            cancellation_digest: cancellation_digest.to_string(),
        };
        receipt.checked()
    }

    /// The governed-handoff form of this receipt (what a host that cannot prove durability emits).
    pub fn as_handoff(&self) -> Receipt {
        let mut receipt = self.clone();
        receipt.ownership = Ownership::Handoff;
        receipt
    }

    /// Re-validates the written form, so builders and the validator can never disagree.
    fn checked(self) -> Result<Receipt, ReceiptError> {
        validate_str(&self.to_json())
    }

    /// The receipt as compact JSON in the contract's field order.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(600);
        out.push_str(
            "{\"schema\":1,\"version\":\"deferred-receipt-v1\",\"status\":\"deferred\",\"reason\":",
        );
        write_json_string(&mut out, self.reason.as_str());
        out.push_str(&format!(
            ",\"issued_at_ms\":{},\"resume_after_ms\":{},\"resume_by_ms\":{},\"bindings\":{{\"scope_digest\":",
            self.issued_at_ms, self.resume_after_ms, self.resume_by_ms
        ));
        write_json_string(&mut out, &self.bindings.scope_digest);
        out.push_str(",\"request_digest\":");
        write_json_string(&mut out, &self.bindings.request_digest);
        out.push_str(",\"plan_digest\":");
        write_optional(&mut out, self.bindings.plan_digest.as_deref());
        out.push_str("},\"ownership\":");
        match &self.ownership {
            Ownership::Retained { wakeup_digest, cancellation_digest } => {
                out.push_str("{\"disposition\":\"retained\",\"mode\":\"durable-host\",\"wakeup_digest\":");
                write_json_string(&mut out, wakeup_digest);
                out.push_str(",\"cancellation_digest\":");
                write_json_string(&mut out, cancellation_digest);
                out.push('}');
            }
            Ownership::Handoff => out.push_str(
                "{\"disposition\":\"handoff\",\"mode\":\"governed-handoff\",\"wakeup_digest\":null,\"cancellation_digest\":null}",
            ),
        }
        out.push_str(",\"fresh_approval_required\":");
        out.push_str(if self.fresh_approval_required {
            "true"
        } else {
            "false"
        });
        out.push('}');
        out
    }

    /// The receipt as a `serde_json::Value` (for embedding in larger outputs).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_str(&self.to_json())
            .unwrap_or_else(|_| unreachable!("receipt JSON is valid"))
    }

    /// `true` when a durable host owns the wake-up.
    pub fn is_retained(&self) -> bool {
        matches!(self.ownership, Ownership::Retained { .. })
    }
}

/// Serde helper: writes an optional receipt inside a larger output exactly as `to_json` does,
/// in the contract's field order (a `Value` would sort the fields alphabetically).
pub fn serialize_optional<S: serde::Serializer>(
    receipt: &Option<Receipt>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    use serde::Serialize as _;
    match receipt {
        Some(r) => serde_json::value::RawValue::from_string(r.to_json())
            .map_err(S::Error::custom)?
            .serialize(serializer),
        None => serializer.serialize_none(),
    }
}

fn write_optional(out: &mut String, value: Option<&str>) {
    match value {
        Some(text) => write_json_string(out, text),
        None => out.push_str("null"),
    }
}
