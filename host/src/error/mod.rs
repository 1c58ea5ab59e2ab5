//! Errors of host commands: a stable code, an optional JSON path, a sentence, and the exit code.
//!
//! Exit codes: 0 ok, 1 store or internal failure, 2 invalid input (receipt, launch target,
//! unknown id, usage), 3 unusable credentials (a GitHub App key that cannot sign), 4 provider
//! or transport failure, 5 refused (wrong handle, illegal transition, stale attempt, conflict).

use crate::store::StoreError;
use deferral_core::lifecycle::IllegalTransition;
use deferral_core::receipt::ReceiptError;
use std::fmt;

mod kind;

pub use kind::{
    HostErrorKind, EXIT_AUTH, EXIT_FAILURE, EXIT_INVALID, EXIT_OK, EXIT_PROVIDER, EXIT_REFUSED,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    pub code: String,
    /// JSON path inside a receipt, for receipt errors.
    pub path: Option<String>,
    pub message: String,
    pub exit_code: u8,
}

impl HostError {
    /// An error of `kind`: its code and exit code come from the kind.
    pub fn new(kind: HostErrorKind, message: impl Into<String>) -> HostError {
        HostError {
            code: kind.code().to_string(),
            path: None,
            message: message.into(),
            exit_code: kind.exit_code(),
        }
    }

    /// The same error with a JSON path inside a receipt.
    pub fn at(mut self, path: impl Into<String>) -> HostError {
        self.path = Some(path.into());
        self
    }

    /// The host's kind of this error; `None` for a receipt error (its code is the core's).
    pub fn kind(&self) -> Option<HostErrorKind> {
        HostErrorKind::from_code(&self.code)
    }

    /// `{"code","message","path"?}`.
    pub fn detail(&self) -> deferral_protocol::answers::ErrorDetail<'_> {
        deferral_protocol::answers::ErrorDetail {
            code: &self.code,
            message: &self.message,
            path: self.path.as_deref(),
        }
    }

    /// `{"error":{"code","message","path"?}}`.
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(deferral_protocol::answers::ErrorAnswer {
            error: self.detail(),
        })
        .unwrap_or_default()
    }

    pub fn is_conflict(&self) -> bool {
        self.kind() == Some(HostErrorKind::Conflict)
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for HostError {}

impl From<ReceiptError> for HostError {
    fn from(err: ReceiptError) -> HostError {
        HostError {
            code: err.code().to_string(),
            path: Some(err.path.clone()),
            message: err.message,
            exit_code: EXIT_INVALID,
        }
    }
}

impl From<StoreError> for HostError {
    fn from(err: StoreError) -> HostError {
        HostError::new(store_kind(&err), err.to_string())
    }
}

/// The kind of a store error (its code is `StoreError::code`, the same string).
fn store_kind(err: &StoreError) -> HostErrorKind {
    match err {
        StoreError::Conflict { .. } => HostErrorKind::Conflict,
        StoreError::NotFound(_) => HostErrorKind::NotFound,
        StoreError::Duplicate(_) => HostErrorKind::Duplicate,
        StoreError::Corrupt(_) => HostErrorKind::StoreCorrupt,
        StoreError::Foreign(_) => HostErrorKind::ForeignStore,
        StoreError::Unsafe(_) => HostErrorKind::UnsafeStore,
        StoreError::SchemaTooNew { .. } => HostErrorKind::SchemaTooNew,
        StoreError::Backend(_) => HostErrorKind::StoreError,
        StoreError::Missing(_) => HostErrorKind::StoreNotFound,
        StoreError::Replaced(_) => HostErrorKind::StoreReplaced,
    }
}

impl From<IllegalTransition> for HostError {
    fn from(err: IllegalTransition) -> HostError {
        HostError::new(HostErrorKind::IllegalTransition, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deferral_core::lifecycle::State;

    #[test]
    fn a_store_error_keeps_its_code_and_exit_class() {
        let s = || "x".to_string();
        let cases = [
            (
                StoreError::Conflict {
                    id: s(),
                    expected_state: State::Deferred,
                    expected_fence: 1,
                },
                EXIT_REFUSED,
            ),
            (StoreError::NotFound(s()), EXIT_INVALID),
            (StoreError::Missing(s()), EXIT_INVALID),
            (StoreError::Replaced(s()), EXIT_FAILURE),
            (StoreError::Duplicate(s()), EXIT_FAILURE),
            (StoreError::Corrupt(s()), EXIT_FAILURE),
            (StoreError::Foreign(s()), EXIT_FAILURE),
            (StoreError::Unsafe(s()), EXIT_FAILURE),
            (
                StoreError::SchemaTooNew {
                    found: 9,
                    supported: 8,
                },
                EXIT_FAILURE,
            ),
            (StoreError::Backend(s()), EXIT_FAILURE),
        ];
        for (err, exit) in cases {
            let code = err.code();
            let host = HostError::from(err);
            assert_eq!((host.code.as_str(), host.exit_code), (code, exit));
        }
    }
}
