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

impl ErrorCode {
    /// The one message template of the code: `{name}` stands for a value of the refused input
    /// (a JSON path, a type, a number as written). Every message the validator writes for the
    /// code has this shape, and the vectors in `tests/vectors/receipts/cases.json` carry the
    /// exact messages.
    pub fn template(self) -> &'static str {
        match self {
            ErrorCode::MalformedJson => "not a JSON document: {why} at byte {offset}",
            ErrorCode::TooLarge => "the receipt is {size} bytes; at most 16384 are accepted",
            ErrorCode::NotAnObject => "{path} must be an object, not {type}",
            ErrorCode::DuplicateField => "the field {path} appears more than once",
            ErrorCode::UnknownField => "{path} is not a field of the contract{hint}",
            ErrorCode::MissingField => "{path} is required",
            ErrorCode::WrongType
            | ErrorCode::UnsupportedVersion
            | ErrorCode::InvalidStatus
            | ErrorCode::InvalidReason
            | ErrorCode::InvalidOwnership => "{path} must be {want}, not {got}",
            ErrorCode::InvalidTime => "{path} must be an integer from 0 to 9007199254740991 (2^53-1) written without sign, fraction or exponent, not {got}",
            ErrorCode::WindowOrder => "{later} is earlier than {earlier}",
            ErrorCode::WindowTooLong => {
                "resume_by_ms is more than 24 hours (86400000 ms) after issued_at_ms"
            }
            ErrorCode::InvalidDigest => "{path} must be exactly 64 lowercase hex characters",
        }
    }

    /// `true` when `message` has the shape of [`ErrorCode::template`]: its literal parts, in
    /// order, with anything (at least one character, or none for `{hint}`) in place of each
    /// `{name}`.
    pub fn fits(self, message: &str) -> bool {
        let template = self.template();
        let mut pieces = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            pieces.push(&rest[..open]);
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            rest = &rest[close..];
        }
        pieces.push(rest);
        let mut at = 0;
        for (i, piece) in pieces.iter().enumerate() {
            let found = if i == 0 {
                message.starts_with(piece).then_some(0)
            } else if i == pieces.len() - 1 && !piece.is_empty() {
                message
                    .ends_with(piece)
                    .then(|| message.len() - piece.len())
            } else {
                message[at..].find(piece).map(|p| at + p)
            };
            match found {
                Some(p) if p >= at => at = p + piece.len(),
                _ => return false,
            }
        }
        true
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
