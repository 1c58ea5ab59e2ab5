//! The checked walk every reader shares: objects, whole figures, and what was wrong.

use crate::MAX_FIGURE;
use serde_json::{Map, Value};
use std::fmt;

/// Which part of a message a wrong figure belongs to: its stable error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A plan's cost (`invalid-cost`).
    Cost,
    /// A rate state or window (`invalid-rate-state`).
    Rate,
    /// A pool's name (`invalid-pool`).
    Pool,
    /// A fairness key (`invalid-fairness-key`).
    FairnessKey,
    /// A priority (`invalid-priority`).
    Priority,
    /// A request's shape: its body, a missing or mistyped field (`invalid-request`).
    Request,
}

impl Part {
    pub fn code(self) -> &'static str {
        match self {
            Part::Cost => "invalid-cost",
            Part::Rate => "invalid-rate-state",
            Part::Pool => "invalid-pool",
            Part::FairnessKey => "invalid-fairness-key",
            Part::Priority => "invalid-priority",
            Part::Request => "invalid-request",
        }
    }
}

/// What was wrong, for a reader that words it its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    NotObject,
    UnknownField,
    Missing,
    /// Not a whole number from 0 to 2^53-1.
    NotWhole,
    /// A window's remaining or reserve above its limit.
    AboveLimit,
    /// A rate state without a window.
    NoWindow,
    /// A cost that never fits a window.
    NeverFits,
    /// Not a string where one must be.
    NotString,
    /// Not of the form its rule names (a pool name, a fairness key).
    Malformed,
}

/// Why a message was refused: the part (its code), the problem, and the words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub part: Part,
    pub problem: Problem,
    pub message: String,
}

impl Invalid {
    pub(crate) fn new(part: Part, problem: Problem, message: String) -> Invalid {
        Invalid {
            part,
            problem,
            message,
        }
    }

    /// The stable code of its part (`invalid-cost`, `invalid-pool`, ...).
    pub fn code(&self) -> &'static str {
        self.part.code()
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Invalid {}

/// How a reader treats `null` and quotes a bad figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// A request's body: `null` is absent, a bad value shown in at most 40 characters.
    Request,
    /// The CLI's line: `null` is a bad value, shown whole.
    Line,
}

/// A value as shown in a message: at most 40 characters of its JSON.
pub(crate) fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// `value` as an object; with `allowed`, one without other members.
pub(crate) fn object<'a>(
    value: &'a Value,
    what: &str,
    allowed: Option<&[&str]>,
    part: Part,
) -> Result<&'a Map<String, Value>, Invalid> {
    let Value::Object(fields) = value else {
        return Err(Invalid::new(
            part,
            Problem::NotObject,
            format!("{what} must be a JSON object (got {})", shown(value)),
        ));
    };
    if let Some(allowed) = allowed {
        if let Some(unknown) = fields.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(Invalid::new(
                part,
                Problem::UnknownField,
                format!(
                    "{what} has an unknown field {unknown:?}; allowed: {}",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(fields)
}

/// A whole figure from 0 to 2^53-1; `None` when absent (or `null` in a request).
pub(crate) fn whole(
    value: Option<&Value>,
    what: &str,
    part: Part,
    style: Style,
) -> Result<Option<u64>, Invalid> {
    let v = match (value, style) {
        (None, _) | (Some(Value::Null), Style::Request) => return Ok(None),
        (Some(v), _) => v,
    };
    match v.as_u64() {
        Some(n) if n <= MAX_FIGURE => Ok(Some(n)),
        _ => Err(Invalid::new(
            part,
            Problem::NotWhole,
            format!(
                "{what} must be a whole number from 0 to 2^53-1, as the gate's (got {})",
                match style {
                    Style::Request => shown(v),
                    Style::Line => v.to_string(),
                }
            ),
        )),
    }
}

/// A whole figure that must be there.
pub(crate) fn required(
    value: Option<&Value>,
    what: &str,
    part: Part,
    style: Style,
) -> Result<u64, Invalid> {
    whole(value, what, part, style)?
        .ok_or_else(|| Invalid::new(part, Problem::Missing, format!("{what} is missing")))
}
