//! Strict, fail-closed validation of `deferred-receipt-v1` documents.
//!
//! Checks run in a fixed order so that one input always yields one code: size, syntax (with
//! duplicate keys), shape (unknown before missing fields), then each field in contract order,
//! then the window rules. The first failure is reported.

use crate::json::{self, child_path, Json, ParseError};
use crate::{
    Bindings, ErrorCode, Ownership, Reason, Receipt, ReceiptError, MAX_TIME_MS, MAX_WINDOW_MS,
};
use std::borrow::Cow;

/// Largest accepted input: 16 KiB.
pub const MAX_BYTES: usize = 16 * 1024;

const TOP_FIELDS: [&str; 10] = [
    "schema",
    "version",
    "status",
    "reason",
    "issued_at_ms",
    "resume_after_ms",
    "resume_by_ms",
    "bindings",
    "ownership",
    "fresh_approval_required",
];
const BINDING_FIELDS: [&str; 3] = ["scope_digest", "request_digest", "plan_digest"];
const OWNERSHIP_FIELDS: [&str; 4] = [
    "disposition",
    "mode",
    "wakeup_digest",
    "cancellation_digest",
];

/// Validates a receipt given as text.
pub fn validate_str(text: &str) -> Result<Receipt, ReceiptError> {
    validate(text.as_bytes())
}

/// Validates a receipt given as raw bytes (UTF-8 without a byte-order mark).
pub fn validate(bytes: &[u8]) -> Result<Receipt, ReceiptError> {
    check_with(bytes, |fields| fields.into_receipt())
}

/// Checks a receipt given as raw bytes without building it: the same verdict and error as
/// [`validate`], for callers that keep the text (the wasm entry answers a valid receipt with a
/// number, so copying its digests into a [`Receipt`] would be wasted).
pub fn check(bytes: &[u8]) -> Result<(), ReceiptError> {
    check_with(bytes, |_| ())
}

/// The fields of a valid receipt, borrowed from the parsed document.
struct Fields<'a> {
    reason: Reason,
    issued_at_ms: u64,
    resume_after_ms: u64,
    resume_by_ms: u64,
    scope_digest: &'a str,
    request_digest: &'a str,
    plan_digest: Option<&'a str>,
    /// The wake-up and cancellation digests when a durable host owns the wake-up.
    retained: Option<(&'a str, &'a str)>,
    fresh_approval_required: bool,
}

impl Fields<'_> {
    fn into_receipt(self) -> Receipt {
        Receipt {
            reason: self.reason,
            issued_at_ms: self.issued_at_ms,
            resume_after_ms: self.resume_after_ms,
            resume_by_ms: self.resume_by_ms,
            bindings: Bindings {
                scope_digest: self.scope_digest.to_string(),
                request_digest: self.request_digest.to_string(),
                plan_digest: self.plan_digest.map(str::to_string),
            },
            ownership: match self.retained {
                Some((wakeup, cancellation)) => Ownership::Retained {
                    wakeup_digest: wakeup.to_string(),
                    cancellation_digest: cancellation.to_string(),
                },
                None => Ownership::Handoff,
            },
            fresh_approval_required: self.fresh_approval_required,
        }
    }
}

/// Runs every check in the contract's order; `build` sees the fields of a valid receipt.
fn check_with<R>(bytes: &[u8], build: impl FnOnce(Fields<'_>) -> R) -> Result<R, ReceiptError> {
    if bytes.len() > MAX_BYTES {
        return Err(ReceiptError::new(
            ErrorCode::TooLarge,
            "$",
            format!(
                "the receipt is {} bytes; at most {MAX_BYTES} are accepted",
                bytes.len()
            ),
        ));
    }
    let doc = json::parse(bytes).map_err(|e| match e {
        ParseError::Malformed { offset, message } => ReceiptError::new(
            ErrorCode::MalformedJson,
            "$",
            format!("not a JSON document: {message} at byte {offset}"),
        ),
        ParseError::DuplicateKey { path } => ReceiptError::new(
            ErrorCode::DuplicateField,
            path.clone(),
            format!("the field {path} appears more than once"),
        ),
    })?;
    let top = Object::new(&doc, "$", &TOP_FIELDS)?;

    top.number_exact("schema", "1", ErrorCode::UnsupportedVersion)?;
    top.string_exact("version", crate::VERSION, ErrorCode::UnsupportedVersion)?;
    top.string_exact("status", "deferred", ErrorCode::InvalidStatus)?;
    let reason_text = top.string("reason")?;
    let reason = Reason::parse(reason_text).ok_or_else(|| {
        ReceiptError::new(
            ErrorCode::InvalidReason,
            "$.reason",
            format!("$.reason must be \"rest-reserve\", \"graphql-reserve\" or \"provider-secondary-limit\", not {reason_text:?}"),
        )
    })?;
    let issued_at_ms = top.time("issued_at_ms")?;
    let resume_after_ms = top.time("resume_after_ms")?;
    let resume_by_ms = top.time("resume_by_ms")?;
    if resume_after_ms < issued_at_ms {
        return Err(ReceiptError::new(
            ErrorCode::WindowOrder,
            "$.resume_after_ms",
            "resume_after_ms is earlier than issued_at_ms",
        ));
    }
    if resume_by_ms < resume_after_ms {
        return Err(ReceiptError::new(
            ErrorCode::WindowOrder,
            "$.resume_by_ms",
            "resume_by_ms is earlier than resume_after_ms",
        ));
    }
    if resume_by_ms - issued_at_ms > MAX_WINDOW_MS {
        return Err(ReceiptError::new(
            ErrorCode::WindowTooLong,
            "$.resume_by_ms",
            "resume_by_ms is more than 24 hours (86400000 ms) after issued_at_ms",
        ));
    }

    let bindings = Object::new(top.get("bindings"), "$.bindings", &BINDING_FIELDS)?;
    let scope_digest = bindings.digest("scope_digest")?;
    let request_digest = bindings.digest("request_digest")?;
    let plan_digest = bindings.optional_digest("plan_digest")?;
    let retained = ownership(&Object::new(
        top.get("ownership"),
        "$.ownership",
        &OWNERSHIP_FIELDS,
    )?)?;
    let fresh_approval_required = top.boolean("fresh_approval_required")?;

    Ok(build(Fields {
        reason,
        issued_at_ms,
        resume_after_ms,
        resume_by_ms,
        scope_digest,
        request_digest,
        plan_digest,
        retained,
        fresh_approval_required,
    }))
}

/// The ownership object: `Some((wakeup, cancellation))` when retained, `None` for a handoff.
fn ownership<'a>(obj: &Object<'a>) -> Result<Option<(&'a str, &'a str)>, ReceiptError> {
    let disposition = obj.string("disposition")?;
    let mode = obj.string("mode")?;
    let mixed =
        |path: &str, message: String| ReceiptError::new(ErrorCode::InvalidOwnership, path, message);
    let retained = match disposition {
        "retained" => true,
        "handoff" => false,
        other => {
            return Err(mixed(
                "$.ownership.disposition",
                format!(
                    "$.ownership.disposition must be \"retained\" or \"handoff\", not {other:?}"
                ),
            ))
        }
    };
    let want_mode = if retained {
        "durable-host"
    } else {
        "governed-handoff"
    };
    if mode != want_mode {
        return Err(mixed(
            "$.ownership.mode",
            format!("$.ownership.mode must be {want_mode:?} (the {disposition} disposition), not {mode:?}"),
        ));
    }
    let wakeup = obj.optional_string("wakeup_digest")?;
    let cancellation = obj.optional_string("cancellation_digest")?;
    match (retained, wakeup, cancellation) {
        (true, Some(_), Some(_)) => Ok(Some((
            obj.digest("wakeup_digest")?,
            obj.digest("cancellation_digest")?,
        ))),
        (false, None, None) => Ok(None),
        (true, w, _) => {
            let field = if w.is_none() {
                "wakeup_digest"
            } else {
                "cancellation_digest"
            };
            Err(mixed(
                &format!("$.ownership.{field}"),
                format!(
                    "$.ownership.{field} must be a digest (the retained disposition), not null"
                ),
            ))
        }
        (false, w, _) => {
            let field = if w.is_some() {
                "wakeup_digest"
            } else {
                "cancellation_digest"
            };
            Err(mixed(
                &format!("$.ownership.{field}"),
                format!("$.ownership.{field} must be null (the handoff disposition), not a digest"),
            ))
        }
    }
}

/// An object whose member names were checked against the contract.
struct Object<'a> {
    members: &'a [(Cow<'a, str>, Json<'a>)],
    path: &'a str,
    fields: &'static [&'static str],
    /// For each contract field (by its index in `fields`), the index of its member.
    slot: [u8; MAX_FIELDS],
}

/// The most fields any object of the contract has (the receipt itself).
const MAX_FIELDS: usize = TOP_FIELDS.len();

impl<'a> Object<'a> {
    fn new(
        value: &'a Json<'a>,
        path: &'a str,
        fields: &'static [&'static str],
    ) -> Result<Object<'a>, ReceiptError> {
        let Json::Object(members) = value else {
            return Err(ReceiptError::new(
                ErrorCode::NotAnObject,
                path,
                format!("{path} must be an object, not {}", value.type_name()),
            ));
        };
        // Keys are unique (the reader refuses duplicates), so every member is a distinct field
        // and an object with more members than fields has an unknown one, found by this loop.
        let mut slot = [u8::MAX; MAX_FIELDS];
        for (index, (key, _)) in members.iter().enumerate() {
            let Some(field) = fields.iter().position(|f| *f == key.as_ref()) else {
                let at = child_path(path, key);
                return Err(ReceiptError::new(
                    ErrorCode::UnknownField,
                    at.clone(),
                    format!("{at} is not a field of the contract"),
                ));
            };
            slot[field] = u8::try_from(index).unwrap_or_else(|_| unreachable!("at most 10"));
        }
        if let Some(missing) = fields.iter().zip(slot).find(|(_, s)| *s == u8::MAX) {
            let at = child_path(path, missing.0);
            return Err(ReceiptError::new(
                ErrorCode::MissingField,
                at.clone(),
                format!("{at} is required"),
            ));
        }
        Ok(Object {
            members,
            path,
            fields,
            slot,
        })
    }

    #[inline(always)]
    fn get(&self, key: &str) -> &'a Json<'a> {
        let field = self
            .fields
            .iter()
            .position(|f| *f == key)
            .expect("a field of the contract");
        &self.members[usize::from(self.slot[field])].1
    }

    fn at(&self, key: &str) -> String {
        child_path(self.path, key)
    }

    fn wrong_type(&self, key: &str, want: &str) -> ReceiptError {
        let at = self.at(key);
        let got = self.get(key).type_name();
        ReceiptError::new(
            ErrorCode::WrongType,
            at.clone(),
            format!("{at} must be {want}, not {got}"),
        )
    }

    #[inline(always)]
    fn string(&self, key: &str) -> Result<&'a str, ReceiptError> {
        match self.get(key) {
            Json::String(s) => Ok(s),
            _ => Err(self.wrong_type(key, "a string")),
        }
    }

    #[inline(always)]
    fn optional_string(&self, key: &str) -> Result<Option<&'a str>, ReceiptError> {
        match self.get(key) {
            Json::String(s) => Ok(Some(s)),
            Json::Null => Ok(None),
            _ => Err(self.wrong_type(key, "a string or null")),
        }
    }

    fn boolean(&self, key: &str) -> Result<bool, ReceiptError> {
        match self.get(key) {
            Json::Bool(b) => Ok(*b),
            _ => Err(self.wrong_type(key, "a boolean")),
        }
    }

    fn string_exact(&self, key: &str, want: &str, code: ErrorCode) -> Result<(), ReceiptError> {
        let got = self.string(key)?;
        if got == want {
            return Ok(());
        }
        let at = self.at(key);
        Err(ReceiptError::new(
            code,
            at.clone(),
            format!("{at} must be {want:?}, not {got:?}"),
        ))
    }

    fn number_exact(&self, key: &str, want: &str, code: ErrorCode) -> Result<(), ReceiptError> {
        match self.get(key) {
            Json::Number(text) if *text == want => Ok(()),
            Json::Number(text) => {
                let at = self.at(key);
                let message = format!("{at} must be {want}, not {text}");
                Err(ReceiptError::new(code, at, message))
            }
            _ => Err(self.wrong_type(key, "a number")),
        }
    }

    /// A time: a non-negative integer written plainly (no sign, fraction or exponent), <= 2^53-1.
    #[inline(always)]
    fn time(&self, key: &str) -> Result<u64, ReceiptError> {
        let Json::Number(text) = self.get(key) else {
            return Err(self.wrong_type(key, "a number"));
        };
        // The path is built only for a refusal: a valid receipt allocates no paths.
        let invalid = || {
            let at = self.at(key);
            let message = format!("{at} must be an integer from 0 to 9007199254740991 (2^53-1) written without sign, fraction or exponent, not {text}");
            ReceiptError::new(ErrorCode::InvalidTime, at, message)
        };
        if text.starts_with('-') || text.contains(['.', 'e', 'E']) {
            return Err(invalid());
        }
        // 17 digits or more is certainly above 2^53-1 (16 digits); avoid overflow on huge input.
        let value = if text.len() > 16 {
            None
        } else {
            text.parse::<u64>().ok()
        };
        match value {
            Some(v) if v <= MAX_TIME_MS => Ok(v),
            _ => Err(invalid()),
        }
    }

    fn digest(&self, key: &str) -> Result<&'a str, ReceiptError> {
        let text = self.string(key)?;
        check_digest(text, || self.at(key))?;
        Ok(text)
    }

    fn optional_digest(&self, key: &str) -> Result<Option<&'a str>, ReceiptError> {
        let text = self.optional_string(key)?;
        if let Some(t) = text {
            check_digest(t, || self.at(key))?;
        }
        Ok(text)
    }
}

#[inline(always)]
fn check_digest(text: &str, at: impl FnOnce() -> String) -> Result<(), ReceiptError> {
    if text.len() == 64 && text.as_bytes().chunks_exact(8).all(lowercase_hex) {
        Ok(())
    } else {
        let at = at();
        Err(ReceiptError::new(
            ErrorCode::InvalidDigest,
            at.clone(),
            format!("{at} must be exactly 64 lowercase hex characters"),
        ))
    }
}

/// `true` when all eight bytes are `0`-`9` or `a`-`f`, tested at once: for ASCII bytes, adding
/// `0x80 - n` sets a byte's high bit exactly when it is at least `n`, without carrying into the
/// next byte.
#[inline(always)]
fn lowercase_hex(chunk: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let w = u64::from_le_bytes(chunk.try_into().unwrap_or_else(|_| unreachable!("8 bytes")));
    let at_least = |n: u8| w.wrapping_add(ONES * u64::from(0x80 - n)) & HIGH;
    let digit = at_least(b'0') & !at_least(b'9' + 1);
    let letter = at_least(b'a') & !at_least(b'f' + 1);
    w & HIGH == 0 && digit | letter == HIGH
}

#[cfg(test)]
mod tests {
    use super::lowercase_hex;

    #[test]
    fn lowercase_hex_agrees_with_a_byte_by_byte_test() {
        for filler in [b'0', b'9', b'a', b'f'] {
            for at in 0..8 {
                for byte in 0..=255u8 {
                    let mut chunk = [filler; 8];
                    chunk[at] = byte;
                    assert_eq!(
                        lowercase_hex(&chunk),
                        matches!(byte, b'0'..=b'9' | b'a'..=b'f'),
                        "{chunk:?}"
                    );
                }
            }
        }
    }
}
