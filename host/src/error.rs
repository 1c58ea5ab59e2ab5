//! Errors of host commands: a stable code, an optional JSON path, a sentence, and the exit code.
//!
//! Exit codes: 0 ok, 1 store or internal failure, 2 invalid input (receipt, launch target,
//! unknown id, usage), 3 unusable credentials (a GitHub App key that cannot sign), 4 provider
//! or transport failure, 5 refused (wrong handle, illegal transition, stale attempt, conflict).

use crate::store::StoreError;
use deferral_core::lifecycle::IllegalTransition;
use deferral_core::receipt::ReceiptError;
use std::fmt;

pub const EXIT_OK: u8 = 0;
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_INVALID: u8 = 2;
/// Credentials that cannot authenticate (a GitHub App key that parses but cannot sign).
pub const EXIT_AUTH: u8 = 3;
/// A provider (GitHub) or transport failure: `watch` when GitHub does not answer usably.
pub const EXIT_PROVIDER: u8 = 4;
pub const EXIT_REFUSED: u8 = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    pub code: String,
    /// JSON path inside a receipt, for receipt errors.
    pub path: Option<String>,
    pub message: String,
    pub exit_code: u8,
}

impl HostError {
    fn new(code: &str, message: impl Into<String>, exit_code: u8) -> HostError {
        HostError {
            code: code.to_string(),
            path: None,
            message: message.into(),
            exit_code,
        }
    }

    /// Invalid input: exit 2.
    pub fn invalid(code: &str, message: impl Into<String>) -> HostError {
        HostError::new(code, message, EXIT_INVALID)
    }

    /// A refused operation: exit 5.
    pub fn refused(code: &str, message: impl Into<String>) -> HostError {
        HostError::new(code, message, EXIT_REFUSED)
    }

    /// Credentials that cannot authenticate: exit 3.
    pub fn auth(code: &str, message: impl Into<String>) -> HostError {
        HostError::new(code, message, EXIT_AUTH)
    }

    /// A provider or transport failure: exit 4.
    pub fn provider(code: &str, message: impl Into<String>) -> HostError {
        HostError::new(code, message, EXIT_PROVIDER)
    }

    /// A store or internal failure: exit 1.
    pub fn failure(code: &str, message: impl Into<String>) -> HostError {
        HostError::new(code, message, EXIT_FAILURE)
    }

    /// `{"error":{"code","path"?,"message"}}`.
    pub fn to_json_value(&self) -> serde_json::Value {
        let mut error = serde_json::json!({"code": self.code, "message": self.message});
        if let Some(path) = &self.path {
            error["path"] = serde_json::Value::String(path.clone());
        }
        serde_json::json!({ "error": error })
    }

    pub fn is_conflict(&self) -> bool {
        self.code == "conflict"
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
        let exit = match err {
            StoreError::Conflict { .. } => EXIT_REFUSED,
            StoreError::NotFound(_) | StoreError::Missing(_) => EXIT_INVALID,
            _ => EXIT_FAILURE,
        };
        HostError::new(err.code(), err.to_string(), exit)
    }
}

impl From<IllegalTransition> for HostError {
    fn from(err: IllegalTransition) -> HostError {
        HostError::refused(err.code(), err.to_string())
    }
}
