//! The library's refusals: a stable code, one message template each, and the JS error it is
//! thrown as (upstream's two `TypeError`s, a plain `TypeError`, or the port's `PortError`).

use deferral_core::json::object as obj;
use deferral_core::receipt::ReceiptError;
use serde_json::Value;

/// Every code the JS library throws with, besides the receipt's own and `illegal-transition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    NotRetained,
    AlreadyRetained,
    NotYetDue,
    Expired,
    InvalidOutcome,
    InvalidClock,
    InvalidNow,
    InvalidFreshProcess,
    InvalidDurablePort,
    InvalidLaunch,
    MissingReceipt,
    StaleAttempt,
    UnexpectedReceipt,
    InvalidPort,
    PortUnreachable,
    PortError,
    InvalidKeyStore,
    InvalidKey,
    AlreadyRecorded,
    KeyStoreFailed,
    NoCancellationHandle,
    InvalidPortAnswer,
    InvalidPool,
    InvalidAdmissionRequest,
    InvalidPriority,
    InvalidFairnessKey,
    CoordinatorFailed,
    AdmissionSpent,
    AdmissionReleased,
    /// Thrown with the decision's own code (`invalid-input`, ...), which says what is wrong.
    InvalidOptions,
    InvalidOctokit,
    AlreadyGated,
    UnknownOp,
}

impl Code {
    pub const ALL: [Code; 33] = [
        Code::NotRetained,
        Code::AlreadyRetained,
        Code::NotYetDue,
        Code::Expired,
        Code::InvalidOutcome,
        Code::InvalidClock,
        Code::InvalidNow,
        Code::InvalidFreshProcess,
        Code::InvalidDurablePort,
        Code::InvalidLaunch,
        Code::MissingReceipt,
        Code::StaleAttempt,
        Code::UnexpectedReceipt,
        Code::InvalidPort,
        Code::PortUnreachable,
        Code::PortError,
        Code::InvalidKeyStore,
        Code::InvalidKey,
        Code::AlreadyRecorded,
        Code::KeyStoreFailed,
        Code::NoCancellationHandle,
        Code::InvalidPortAnswer,
        Code::InvalidPool,
        Code::InvalidAdmissionRequest,
        Code::InvalidPriority,
        Code::InvalidFairnessKey,
        Code::CoordinatorFailed,
        Code::AdmissionSpent,
        Code::AdmissionReleased,
        Code::InvalidOptions,
        Code::InvalidOctokit,
        Code::AlreadyGated,
        Code::UnknownOp,
    ];

    /// The kebab-case code callers see as `err.code`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::NotRetained => "not-retained",
            Code::AlreadyRetained => "already-retained",
            Code::NotYetDue => "not-yet-due",
            Code::Expired => "expired",
            Code::InvalidOutcome => "invalid-outcome",
            Code::InvalidClock => "invalid-clock",
            Code::InvalidNow => "invalid-now",
            Code::InvalidFreshProcess => "invalid-fresh-process",
            Code::InvalidDurablePort => "invalid-durable-port",
            Code::InvalidLaunch => "invalid-launch",
            Code::MissingReceipt => "missing-receipt",
            Code::StaleAttempt => "stale-attempt",
            Code::UnexpectedReceipt => "unexpected-receipt",
            Code::InvalidPort => "invalid-port",
            Code::PortUnreachable => "port-unreachable",
            Code::PortError => "port-error",
            Code::InvalidKeyStore => "invalid-key-store",
            Code::InvalidKey => "invalid-key",
            Code::AlreadyRecorded => "already-recorded",
            Code::KeyStoreFailed => "key-store-failed",
            Code::NoCancellationHandle => "no-cancellation-handle",
            Code::InvalidPortAnswer => "invalid-port-answer",
            Code::InvalidPool => "invalid-pool",
            Code::InvalidAdmissionRequest => "invalid-admission-request",
            Code::InvalidPriority => "invalid-priority",
            Code::InvalidFairnessKey => "invalid-fairness-key",
            Code::CoordinatorFailed => "coordinator-failed",
            Code::AdmissionSpent => "admission-spent",
            Code::AdmissionReleased => "admission-released",
            Code::InvalidOptions => "invalid-options",
            Code::InvalidOctokit => "invalid-octokit",
            Code::AlreadyGated => "already-gated",
            Code::UnknownOp => "unknown-op",
        }
    }

    /// The one message template of the code; `{name}` stands for a value of the call.
    pub fn template(self) -> &'static str {
        match self {
            Code::NotRetained => "the receipt is a governed handoff; retain it first",
            Code::AlreadyRetained => "the receipt is already retained; hand over the governed-handoff receipt the gate emitted",
            Code::NotYetDue => "the receipt is not due for another {wait} ms",
            Code::Expired => "the receipt's resume window has passed",
            Code::InvalidOutcome => "the outcome {got} is not complete, deferred or blocked",
            Code::InvalidClock => "nowMs must be a function answering epoch milliseconds, not {got}",
            Code::InvalidNow => "the clock must give epoch milliseconds as a whole number, got {got}",
            Code::InvalidFreshProcess => "resume needs the fresh process as a function, not {got}",
            Code::InvalidDurablePort => "a durable port needs schedule, state and cancel methods; missing: {missing}",
            Code::InvalidLaunch => "a launch target is required: exec:COMMAND or workflow-dispatch:OWNER/REPO/WORKFLOW@REF",
            Code::MissingReceipt => "a deferred outcome needs the new receipt",
            Code::StaleAttempt => "attempt {attempt} is not the current attempt {current}",
            Code::UnexpectedReceipt => "the host answered a receipt that is not the retained form of the one sent",
            Code::InvalidPort => "the port needs {what}",
            Code::PortUnreachable => "cannot reach the durable port at {origin}: {why}",
            Code::PortError => "the durable port answered HTTP {status} without a JSON error",
            Code::InvalidKeyStore => "the key store needs get(key) and set(key, value) methods",
            Code::InvalidKey => "a key store key is a receipt digest (64 lowercase hex), got {key}",
            Code::AlreadyRecorded => "deferral {id} recorded this receipt before, through another port; its retained receipt and cancellation handle are where it was scheduled",
            Code::KeyStoreFailed => "deferral {id} is recorded, but its cancellation handle could not be kept: {why}",
            Code::NoCancellationHandle => "this port keeps no cancellation handle for the receipt: cancel where it was scheduled, or with deferral-host cancel and the handle",
            Code::InvalidPortAnswer => "the durable port answered {detail}; nothing of it was kept or used",
            Code::InvalidPool => "a pool is 1 to 64 of A-Z a-z 0-9 . _ -, not {got}",
            Code::InvalidAdmissionRequest => "an admission request needs {what}",
            Code::InvalidPriority => "priority must be a whole number from -9007199254740991 to 9007199254740991, not {got}",
            Code::InvalidFairnessKey => "a fairness key is 1 to 200 characters without control characters, not {got}",
            Code::CoordinatorFailed => "pool {pool} refused the plan, yet its window leaves room for it: the host and the gate disagree, so nothing was sent",
            Code::AdmissionSpent => "this instance was admitted {what} in pool {pool} and has spent it: nothing is sent beyond an admission (admit a plan that covers the whole batch)",
            Code::AdmissionReleased => "this instance's admission in pool {pool} was released: nothing is sent without one (gate the next batch with a new instance)",
            Code::InvalidOptions => "invalid deferral options: {why}",
            Code::InvalidOctokit => "wrapOctokit needs an Octokit instance (with hook and request)",
            Code::AlreadyGated => "this Octokit instance is already gated by deferral",
            Code::UnknownOp => "the core has no library op {op}",
        }
    }

    /// The template with each `{name}` replaced by its value.
    pub fn message(self, values: &[(&str, &str)]) -> String {
        values
            .iter()
            .fold(self.template().to_string(), |text, (name, value)| {
                text.replace(&format!("{{{name}}}"), value)
            })
    }
}

/// Upstream's message of a refused receipt (`parseDeferredReceiptV1`).
pub const INVALID_RECEIPT: &str = "invalid deferred receipt";
/// Upstream's message of a call the lifecycle does not allow now.
pub const INVALID_TRANSITION: &str = "invalid deferral transition";

/// How the JS throws a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `TypeError(INVALID_RECEIPT)` with `code`, `path`, `detail` (upstream's receipt functions).
    Receipt,
    /// `TypeError(INVALID_TRANSITION)` with `code`, `detail` (upstream's host).
    Transition,
    /// `TypeError(message)` with `code` (a call made with the wrong kind of argument).
    Type,
    /// `PortError(0, code, message, path)`: refused locally by the serve client or port.
    Port,
}

/// A refusal, ready to be thrown by the JS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub form: Form,
    /// The HTTP status of a port's answer; 0 when nothing was answered (or sent).
    pub status: u16,
    pub code: String,
    pub path: Option<String>,
    pub message: String,
}

impl Refusal {
    pub fn new(form: Form, code: Code, values: &[(&str, &str)]) -> Refusal {
        Refusal {
            form,
            status: 0,
            code: code.as_str().to_string(),
            path: None,
            message: code.message(values),
        }
    }

    pub fn at(mut self, path: &str) -> Refusal {
        self.path = Some(path.to_string());
        self
    }

    /// A refused receipt in the given form (its code, path and message as the validator wrote).
    pub fn receipt(form: Form, error: &ReceiptError) -> Refusal {
        Refusal {
            form,
            status: 0,
            code: error.code().to_string(),
            path: Some(error.path.clone()),
            message: error.message.clone(),
        }
    }

    /// `{"class","message","props"}`: the JS error's class, its message and its properties.
    pub fn to_value(&self) -> Value {
        let code = Value::from(self.code.as_str());
        let path = self.path.as_deref().map_or(Value::Null, Value::from);
        let detail = Value::from(self.message.as_str());
        let (class, message, props) = match self.form {
            Form::Receipt => (
                "TypeError",
                INVALID_RECEIPT.to_string(),
                obj(vec![("code", code), ("path", path), ("detail", detail)]),
            ),
            Form::Transition => (
                "TypeError",
                INVALID_TRANSITION.to_string(),
                obj(vec![("code", code), ("detail", detail)]),
            ),
            Form::Type => ("TypeError", self.message.clone(), obj(vec![("code", code)])),
            Form::Port => (
                "PortError",
                self.message.clone(),
                obj(vec![
                    ("status", Value::from(self.status)),
                    ("code", code),
                    ("path", path),
                ]),
            ),
        };
        let mut props = props;
        if let Some(map) = props.as_object_mut() {
            map.retain(|_, v| !v.is_null());
        }
        obj(vec![
            ("class", Value::from(class)),
            ("message", Value::from(message)),
            ("props", props),
        ])
    }
}
