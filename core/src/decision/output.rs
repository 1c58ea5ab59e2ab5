//! What the gate decision returns: the status, the figures it judged by, diagnostics with
//! stable codes, and the receipt when deferred. The JSON shape is documented in
//! `docs/decision.md`.

use super::Code;
use crate::plan::PlanCost;
use crate::receipt::Receipt;
use serde::{Deserialize, Serialize};

/// The outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ready,
    Deferred,
    Blocked,
    Error,
}

impl Status {
    /// Every status, in the order the docs list them.
    pub const ALL: [Status; 4] = [
        Status::Ready,
        Status::Deferred,
        Status::Blocked,
        Status::Error,
    ];

    /// The status as JSON spells it (`ready`, `deferred`, `blocked`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ready => "ready",
            Status::Deferred => "deferred",
            Status::Blocked => "blocked",
            Status::Error => "error",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One resource's figures as the decision saw them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceFigures {
    /// The bucket name (`core` or `graphql`).
    pub resource: String,
    pub limit: u64,
    /// After merging the ledger, and `limit` again once the reset has passed.
    pub remaining: u64,
    pub reserve: u64,
    pub planned_cost: u64,
    /// Epoch seconds, server clock.
    pub reset: u64,
    /// `remaining - planned_cost >= reserve`.
    pub ok: bool,
}

/// Secondary-limit figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondaryFigures {
    /// Minutes of secondary budget the plan needs (0 without a plan).
    pub minutes: u64,
    /// End of an active secondary hold from the ledger (host clock).
    pub hold_until_ms: Option<u64>,
}

/// The three digests a receipt carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindingFigures {
    pub scope_digest: String,
    pub request_digest: String,
    pub plan_digest: Option<String>,
}

/// A coded note about the decision. Messages never contain the scope or request text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub code: String,
    pub message: String,
}

/// The decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub status: Status,
    /// Why blocked or error (`plan-exceeds-window`, `window-unreachable`, `invalid-plan`, ...).
    pub code: Option<String>,
    /// The binding resource when deferred (or blocked by it).
    pub reason: Option<&'static str>,
    pub unlimited: bool,
    pub rest: Option<ResourceFigures>,
    pub graphql: Option<ResourceFigures>,
    /// The plan's cost, when a plan was given and is valid.
    pub plan: Option<PlanCost>,
    pub secondary: SecondaryFigures,
    pub clock_offset_ms: i64,
    pub resume_after_ms: Option<u64>,
    pub resume_by_ms: Option<u64>,
    pub bindings: Option<BindingFigures>,
    pub diagnostics: Vec<Diagnostic>,
    /// The handoff receipt when deferred.
    #[serde(serialize_with = "crate::receipt::serialize_optional")]
    pub receipt: Option<Receipt>,
}

impl Decision {
    pub(crate) fn new() -> Self {
        Decision {
            status: Status::Error,
            code: None,
            reason: None,
            unlimited: false,
            rest: None,
            graphql: None,
            plan: None,
            secondary: SecondaryFigures {
                minutes: 0,
                hold_until_ms: None,
            },
            clock_offset_ms: 0,
            resume_after_ms: None,
            resume_by_ms: None,
            bindings: None,
            diagnostics: Vec::new(),
            receipt: None,
        }
    }

    pub(crate) fn note(&mut self, code: Code, message: impl Into<String>) {
        self.note_code(code.as_str(), message);
    }

    /// A note under another part's code (a plan's, a receipt's refusal).
    pub(crate) fn note_code(&mut self, code: &str, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            code: code.to_string(),
            message: message.into(),
        });
    }

    /// The decision with its status and code set (the notes and figures as they are).
    pub(crate) fn with_status(mut self, status: Status, code: Option<Code>) -> Self {
        self.status = status;
        self.code = code.map(|c| c.as_str().to_string());
        self
    }

    /// The error outcome for input that is not a valid [`super::DecisionInput`].
    pub fn invalid_input(message: impl Into<String>) -> Decision {
        let mut decision = Decision::new();
        decision.note(Code::InvalidInput, message);
        decision.with_status(Status::Error, Some(Code::InvalidInput))
    }

    /// Compact JSON.
    pub fn to_json(&self) -> String {
        // Cannot fail. `unreachable!`, not `expect`: `expect` would format the error with Debug,
        // which brings serde_json's Debug code into the wasm build (also in jcs and receipt).
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("decision serializes"))
    }
}
