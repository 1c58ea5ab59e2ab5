//! The gate's policy: reserves (an integer or a percentage of the limit), the resume buffer, the
//! resume window and the jitter bound, with their defaults and the normalised form that the
//! request digest binds.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Value};
use std::fmt;

/// Default resume buffer after a reset: 60 s.
pub const DEFAULT_BUFFER_MS: u64 = 60_000;
/// Default span from `resume_after_ms` to `resume_by_ms`: 6 h.
pub const DEFAULT_WINDOW_MS: u64 = 21_600_000;
/// Default upper bound of the deterministic jitter: 30 s.
pub const DEFAULT_JITTER_MAX_MS: u64 = 30_000;
/// Largest buffer, window or jitter accepted: a receipt spans at most 24 h anyway.
pub const MAX_POLICY_MS: u64 = 86_400_000;

/// How much of a resource to keep untouched: a count, or a percentage of the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserve {
    Absolute(u64),
    /// Hundredths of a percent: `10%` is 1,000, `12.5%` is 1,250.
    Percent {
        basis_points: u32,
    },
}

impl Default for Reserve {
    fn default() -> Self {
        Reserve::Percent {
            basis_points: 1_000,
        }
    }
}

impl Reserve {
    /// The reserve in units of the resource. Percentages round up: keeping one unit too many
    /// in reserve is harmless, one too few is not.
    pub fn of(&self, limit: u64) -> u64 {
        match *self {
            Reserve::Absolute(n) => n,
            Reserve::Percent { basis_points } => {
                let scaled = u128::from(limit) * u128::from(basis_points);
                u64::try_from(scaled.div_ceil(10_000)).unwrap_or(u64::MAX)
            }
        }
    }

    /// Reads `500`, `"500"`, `"10%"` or `"12.5%"` (at most two decimals, 0..100%).
    pub fn parse(text: &str) -> Option<Reserve> {
        let text = text.trim();
        if let Some(number) = text.strip_suffix('%') {
            let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
            let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
            if whole.is_empty()
                || whole.len() > 3
                || fraction.len() > 2
                || !all_digits(whole)
                || !all_digits(fraction)
            {
                return None;
            }
            if number.contains('.') && fraction.is_empty() {
                return None;
            }
            let whole: u32 = whole.parse().ok()?;
            let fraction: u32 = format!("{fraction:0<2}").parse().ok()?;
            let basis_points = whole * 100 + fraction;
            (basis_points <= 10_000).then_some(Reserve::Percent { basis_points })
        } else if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            text.parse().ok().map(Reserve::Absolute)
        } else {
            None
        }
    }

    /// The normalised JSON form: a number for counts, `"N%"` (no trailing zeros) for percentages.
    pub fn to_value(&self) -> Value {
        match *self {
            Reserve::Absolute(n) => json!(n),
            Reserve::Percent { .. } => Value::String(self.to_string()),
        }
    }
}

impl fmt::Display for Reserve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reserve::Absolute(n) => write!(f, "{n}"),
            Reserve::Percent { basis_points } => {
                let (whole, fraction) = (basis_points / 100, basis_points % 100);
                match fraction {
                    0 => write!(f, "{whole}%"),
                    f10 if f10 % 10 == 0 => write!(f, "{whole}.{}%", f10 / 10),
                    _ => write!(f, "{whole}.{fraction:02}%"),
                }
            }
        }
    }
}

impl Serialize for Reserve {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Reserve {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let invalid = || {
            de::Error::custom(
                "a reserve must be a non-negative integer or a percentage like \"10%\"",
            )
        };
        match Value::deserialize(deserializer)? {
            Value::Number(n) => n.as_u64().map(Reserve::Absolute).ok_or_else(invalid),
            Value::String(text) => Reserve::parse(&text).ok_or_else(invalid),
            _ => Err(invalid()),
        }
    }
}

/// The gate's policy; every field has a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    pub rest_reserve: Reserve,
    pub graphql_reserve: Reserve,
    /// Added after the binding reset (or hold end) before a fresh attempt may start.
    pub resume_buffer_ms: u64,
    /// `resume_by_ms = min(issued + 24 h, resume_after_ms + resume_window_ms)`.
    pub resume_window_ms: u64,
    /// Jitter is `0..=jitter_max_ms`, taken from the request digest.
    pub jitter_max_ms: u64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            rest_reserve: Reserve::default(),
            graphql_reserve: Reserve::default(),
            resume_buffer_ms: DEFAULT_BUFFER_MS,
            resume_window_ms: DEFAULT_WINDOW_MS,
            jitter_max_ms: DEFAULT_JITTER_MAX_MS,
        }
    }
}

impl Policy {
    /// The policy as the request digest binds it: reserves, buffer and window (not the jitter
    /// bound, which only spreads wake-ups and does not change what the work may do).
    pub fn normalised(&self) -> Value {
        json!({
            "rest_reserve": self.rest_reserve.to_value(),
            "graphql_reserve": self.graphql_reserve.to_value(),
            "resume_buffer_ms": self.resume_buffer_ms,
            "resume_window_ms": self.resume_window_ms,
        })
    }

    /// `Err(field)` naming the first out-of-range field: times at most 24 h, a window of at
    /// least 1 ms.
    pub fn check(&self) -> Result<(), &'static str> {
        if self.resume_buffer_ms > MAX_POLICY_MS {
            return Err("resume_buffer_ms");
        }
        if self.resume_window_ms == 0 || self.resume_window_ms > MAX_POLICY_MS {
            return Err("resume_window_ms");
        }
        if self.jitter_max_ms > MAX_POLICY_MS {
            return Err("jitter_max_ms");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserves_are_plain_counts_or_percentages() {
        let pct = |bp| Some(Reserve::Percent { basis_points: bp });
        for (text, want) in [
            (" 500 ", Some(Reserve::Absolute(500))),
            ("10%", pct(1000)),
            ("12.5%", pct(1250)),
            ("0.05%", pct(5)),
            ("100%", pct(10_000)),
            ("100.01%", None),
            ("0100%", None),
            ("5.%", None),
            (".5%", None),
            ("5.125%", None),
            ("+5%", None),
            ("+500", None),
            ("-1", None),
            ("", None),
            ("%", None),
        ] {
            assert_eq!(Reserve::parse(text), want, "{text:?}");
        }
    }

    #[test]
    fn policy_times_may_reach_24_hours_but_not_pass_it() {
        let at = |buffer, window, jitter| Policy {
            resume_buffer_ms: buffer,
            resume_window_ms: window,
            jitter_max_ms: jitter,
            ..Policy::default()
        };
        assert_eq!(
            at(MAX_POLICY_MS, MAX_POLICY_MS, MAX_POLICY_MS).check(),
            Ok(())
        );
        assert_eq!(at(MAX_POLICY_MS + 1, 1, 0).check(), Err("resume_buffer_ms"));
        assert_eq!(at(0, 0, 0).check(), Err("resume_window_ms"));
        assert_eq!(at(0, MAX_POLICY_MS + 1, 0).check(), Err("resume_window_ms"));
        assert_eq!(at(0, 1, MAX_POLICY_MS + 1).check(), Err("jitter_max_ms"));
    }
}
