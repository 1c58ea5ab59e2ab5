//! SHA-256 bindings over canonical JSON.
//!
//! `digest(value)` is the lowercase hex SHA-256 of the RFC 8785 form of `value`, so anyone can
//! recompute a receipt's bindings with any JCS library and any SHA-256.

use crate::jcs::{canonicalize, JcsError};
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

/// Lowercase hex SHA-256 of the canonical JSON of `value` (which must have a canonical form).
pub fn digest(value: &Value) -> Result<String, JcsError> {
    Ok(sha256_hex(canonicalize(value)?.as_bytes()))
}

/// Lowercase hex SHA-256 of raw bytes (used for handles, which are not JSON).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// Reads a user-supplied input (scope, request) as JSON when it parses, else as a JSON string.
pub fn input_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// The scope binding: `digest(scope)`.
pub fn scope_digest(scope: &Value) -> Result<String, JcsError> {
    digest(scope)
}

/// The request binding: the scope digest, the normalised policy and the request (or null).
pub fn request_digest(
    scope_digest: &str,
    policy: &Value,
    request: Option<&Value>,
) -> Result<String, JcsError> {
    digest(&json!({
        "scope_digest": scope_digest,
        "policy": policy,
        "request": request.cloned().unwrap_or(Value::Null),
    }))
}

/// The plan binding: `digest(plan)`, or `None` without a plan.
pub fn plan_digest(plan: Option<&Value>) -> Result<Option<String>, JcsError> {
    plan.map(digest).transpose()
}

/// Compares two strings in time that depends only on their lengths, for handle digests.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_sha256_of_canonical_text() {
        // sha256("{\"a\":1,\"b\":[true,null]}") computed independently with sha256sum.
        let value = json!({"b": [true, null], "a": 1});
        assert_eq!(canonicalize(&value).unwrap(), "{\"a\":1,\"b\":[true,null]}");
        assert_eq!(
            digest(&value).unwrap(),
            sha256_hex(b"{\"a\":1,\"b\":[true,null]}")
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn input_falls_back_to_string() {
        assert_eq!(input_value("{\"x\":1}"), json!({"x": 1}));
        assert_eq!(input_value("nightly labels"), json!("nightly labels"));
    }

    #[test]
    fn constant_time_eq_works() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "ab"));
        // Two differences whose XORs cancel ("a"^"b" twice) must still differ.
        assert!(!constant_time_eq("ab", "ba"));
    }
}
