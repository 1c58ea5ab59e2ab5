//! Why a receipt was refused: a stable code, the JSON path, and a sentence for people.

use std::fmt;

/// The stable machine codes of DESIGN.md section 2. No catch-all: every refusal has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    MalformedJson,
    TooLarge,
    NotAnObject,
    DuplicateField,
    UnknownField,
    MissingField,
    WrongType,
    UnsupportedVersion,
    InvalidStatus,
    InvalidReason,
    InvalidTime,
    WindowOrder,
    WindowTooLong,
    InvalidDigest,
    InvalidOwnership,
}

impl ErrorCode {
    /// Every code, in the order of the contract's table.
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::MalformedJson,
        ErrorCode::TooLarge,
        ErrorCode::NotAnObject,
        ErrorCode::DuplicateField,
        ErrorCode::UnknownField,
        ErrorCode::MissingField,
        ErrorCode::WrongType,
        ErrorCode::UnsupportedVersion,
        ErrorCode::InvalidStatus,
        ErrorCode::InvalidReason,
        ErrorCode::InvalidTime,
        ErrorCode::WindowOrder,
        ErrorCode::WindowTooLong,
        ErrorCode::InvalidDigest,
        ErrorCode::InvalidOwnership,
    ];

    /// The kebab-case code written in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::MalformedJson => "malformed-json",
            ErrorCode::TooLarge => "too-large",
            ErrorCode::NotAnObject => "not-an-object",
            ErrorCode::DuplicateField => "duplicate-field",
            ErrorCode::UnknownField => "unknown-field",
            ErrorCode::MissingField => "missing-field",
            ErrorCode::WrongType => "wrong-type",
            ErrorCode::UnsupportedVersion => "unsupported-version",
            ErrorCode::InvalidStatus => "invalid-status",
            ErrorCode::InvalidReason => "invalid-reason",
            ErrorCode::InvalidTime => "invalid-time",
            ErrorCode::WindowOrder => "window-order",
            ErrorCode::WindowTooLong => "window-too-long",
            ErrorCode::InvalidDigest => "invalid-digest",
            ErrorCode::InvalidOwnership => "invalid-ownership",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptError {
    pub code: ErrorCode,
    /// JSON path of the offending value, e.g. `$.bindings.scope_digest` (`$` for the document).
    pub path: String,
    /// One lowercase sentence for people.
    pub message: String,
}

impl ReceiptError {
    pub(crate) fn new(
        code: ErrorCode,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ReceiptError {
            code,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The stable machine code.
    pub fn code(&self) -> &'static str {
        self.code.as_str()
    }

    /// `{"code","path","message"}` as a JSON object.
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::json!({"code": self.code(), "path": self.path, "message": self.message})
    }
}

impl fmt::Display for ReceiptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.code, self.path, self.message)
    }
}

impl std::error::Error for ReceiptError {}
