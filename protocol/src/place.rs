//! A deferral's place among others, as a caller names it beside a receipt (never in it): its
//! pool, its fairness key and its priority. The rules and codes are here once; the gates, the
//! library (through the wasm module) and the host check with them.

use crate::read::{shown, Invalid, Part, Problem};
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// The longest pool name (bytes of `[A-Za-z0-9._-]`).
pub const MAX_POOL_NAME: usize = 64;
/// The longest fairness key (characters).
pub const MAX_KEY_CHARS: usize = 200;

/// A pool's name: 1 to [`MAX_POOL_NAME`] of `[A-Za-z0-9._-]` (`invalid-pool`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct PoolName(String);

/// Among deferrals of one priority in one pool, whose turn it is: 1 to [`MAX_KEY_CHARS`]
/// characters, no control character (`invalid-fairness-key`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct FairnessKey(String);

/// Within a pool a higher priority is admitted first; any `i64`, 0 when not given
/// (`invalid-priority`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Priority(pub i64);

impl PoolName {
    /// Whether `name` is a pool name.
    pub fn is_valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_POOL_NAME
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    }

    pub fn parse(name: &str) -> Result<PoolName, Invalid> {
        if PoolName::is_valid(name) {
            Ok(PoolName(name.to_string()))
        } else {
            Err(Invalid::new(
                Part::Pool,
                Problem::Malformed,
                format!(
                    "pool name {:?} is not 1 to {MAX_POOL_NAME} of A-Z a-z 0-9 . _ -",
                    clipped(name)
                ),
            ))
        }
    }

    /// `pool` as a request gives it: a string that is a pool name.
    pub fn read(value: &Value) -> Result<PoolName, Invalid> {
        match value {
            Value::String(name) => PoolName::parse(name),
            other => Err(not_string(Part::Pool, "pool", other)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FairnessKey {
    /// Whether `key` is a fairness key.
    pub fn is_valid(key: &str) -> bool {
        let n = key.chars().count();
        (1..=MAX_KEY_CHARS).contains(&n) && !key.chars().any(char::is_control)
    }

    pub fn parse(key: &str) -> Result<FairnessKey, Invalid> {
        if FairnessKey::is_valid(key) {
            Ok(FairnessKey(key.to_string()))
        } else {
            Err(Invalid::new(
                Part::FairnessKey,
                Problem::Malformed,
                format!(
                    "fairness key {:?} is not 1 to {MAX_KEY_CHARS} characters without control characters",
                    clipped(key)
                ),
            ))
        }
    }

    /// `fairness_key` as a request gives it: a string that is a fairness key.
    pub fn read(value: &Value) -> Result<FairnessKey, Invalid> {
        match value {
            Value::String(key) => FairnessKey::parse(key),
            other => Err(not_string(Part::FairnessKey, "fairness_key", other)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Priority {
    /// A priority's text (a flag, an Action input): a whole number of `i64`'s range, spaces
    /// around it allowed; `2.5`, `1e3` and `high` are refused.
    pub fn parse(text: &str) -> Result<Priority, Invalid> {
        text.trim().parse().map(Priority).map_err(|_| {
            Invalid::new(
                Part::Priority,
                Problem::NotWhole,
                format!("priority {:?} is not a whole number", clipped(text)),
            )
        })
    }

    /// `priority` as a request gives it: a JSON whole number of `i64`'s range.
    pub fn read(value: &Value) -> Result<Priority, Invalid> {
        value.as_i64().map(Priority).ok_or_else(|| {
            Invalid::new(
                Part::Priority,
                Problem::NotWhole,
                format!("\"priority\" must be a whole number (got {})", shown(value)),
            )
        })
    }
}

impl fmt::Display for PoolName {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for FairnessKey {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// At most 80 characters of a caller's text, for a message.
fn clipped(text: &str) -> String {
    text.chars().take(80).collect()
}

fn not_string(part: Part, name: &str, value: &Value) -> Invalid {
    Invalid::new(
        part,
        Problem::NotString,
        format!("{name:?} must be a string (got {})", shown(value)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pool_name_is_1_to_64_of_a_small_alphabet() {
        for good in ["default", "app-123", "a.b_c", &"p".repeat(64)] {
            assert_eq!(PoolName::parse(good).unwrap().as_str(), good);
        }
        for bad in ["", "a b", "é", "a/b", &"p".repeat(65)] {
            let err = PoolName::parse(bad).unwrap_err();
            assert_eq!(
                (err.code(), err.problem),
                ("invalid-pool", Problem::Malformed)
            );
        }
        assert_eq!(
            PoolName::read(&json!(7)).unwrap_err().code(),
            "invalid-pool"
        );
    }

    #[test]
    fn a_key_is_1_to_200_characters_without_control_characters() {
        assert!(FairnessKey::is_valid("labeler") && FairnessKey::is_valid(&"é".repeat(200)));
        for bad in ["", "a\nb", "a\u{7}b", &"k".repeat(201)] {
            let err = FairnessKey::parse(bad).unwrap_err();
            assert_eq!(err.code(), "invalid-fairness-key", "{bad:?}");
        }
        let err = FairnessKey::read(&json!(["k"])).unwrap_err();
        assert_eq!(
            (err.code(), err.problem),
            ("invalid-fairness-key", Problem::NotString)
        );
    }

    #[test]
    fn a_priority_is_a_whole_number_of_i64() {
        for (text, want) in [
            ("2", 2),
            (" -3 ", -3),
            ("+4", 4),
            ("9223372036854775807", i64::MAX),
        ] {
            assert_eq!(Priority::parse(text).unwrap(), Priority(want), "{text:?}");
        }
        for bad in ["9223372036854775808", "2.5", "1e3", "high", ""] {
            assert_eq!(Priority::parse(bad).unwrap_err().code(), "invalid-priority");
        }
        assert_eq!(Priority::read(&json!(-5)).unwrap(), Priority(-5));
        for bad in [json!(1.5), json!("3"), json!(null)] {
            assert_eq!(Priority::read(&bad).unwrap_err().code(), "invalid-priority");
        }
    }
}
