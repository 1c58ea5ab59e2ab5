//! The JSON shapes a runner sends about its plan and its rate state (`POST /v1/admissions`,
//! `POST /v1/admissions/{seq}/release`, and beside a receipt in `POST /v1/deferrals`):
//!
//! * `cost`: `{"rest","graphql","content"}`, each optional (missing: 0), a whole number not
//!   below 0, and not larger than any reported window's limit less its reserve
//!   (`invalid-cost`: such a plan never fits);
//! * `rate`: `{"observed_ms", "rest"?, "graphql"?}` with at least one window, each
//!   `{"limit","remaining","reserve","reset_ms"}`, whole numbers, remaining and reserve not
//!   above the limit (`invalid-rate-state`).
//!
//! Unknown fields are refused at every level, with the code of the object they are in.

use crate::error::{HostError, HostErrorKind};
use crate::store::pools::{Cost, Observation, Resource, MAX_FIGURE};
use serde_json::{Map, Value};

/// One window as a runner read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub resource: Resource,
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    pub reset_ms: u64,
}

/// A runner's rate state: when it read it and the windows it read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    pub observed_ms: u64,
    pub windows: Vec<Window>,
}

impl Rate {
    /// The windows as observations from `source`. A report is taken as read no later than
    /// `now_ms` (the host's clock): a claimed read time in the future cannot move a window's
    /// reset further than an hour from now.
    pub fn observations(&self, source: &str, now_ms: u64) -> Vec<Observation> {
        self.windows
            .iter()
            .map(|w| Observation {
                resource: w.resource,
                limit: w.limit,
                remaining: w.remaining,
                reserve: w.reserve,
                reset_ms: w.reset_ms,
                observed_ms: self.observed_ms.min(now_ms),
                source: source.to_string(),
                deferral_id: None,
            })
            .collect()
    }
}

fn object<'a>(
    value: &'a Value,
    what: &str,
    allowed: &[&str],
    code: HostErrorKind,
) -> Result<&'a Map<String, Value>, HostError> {
    let Value::Object(fields) = value else {
        return Err(HostError::new(
            code,
            format!("{what} must be a JSON object (got {})", shown(value)),
        ));
    };
    if let Some(unknown) = fields.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(HostError::new(
            code,
            format!(
                "{what} has an unknown field {unknown:?}; allowed: {}",
                allowed.join(", ")
            ),
        ));
    }
    Ok(fields)
}

/// A value as shown in a message: at most 40 characters of its JSON.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

fn whole(value: Option<&Value>, what: &str, code: HostErrorKind) -> Result<Option<u64>, HostError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n <= MAX_FIGURE => Ok(Some(n)),
            _ => Err(HostError::new(
                code,
                format!(
                    "{what} must be a whole number from 0 to 2^53-1, as the gate's (got {})",
                    shown(v)
                ),
            )),
        },
    }
}

fn required(value: Option<&Value>, what: &str, code: HostErrorKind) -> Result<u64, HostError> {
    whole(value, what, code)?.ok_or_else(|| HostError::new(code, format!("{what} is missing")))
}

/// Reads `cost` (`invalid-cost`).
pub fn cost(value: &Value) -> Result<Cost, HostError> {
    const CODE: HostErrorKind = HostErrorKind::InvalidCost;
    let fields = object(value, "cost", &["rest", "graphql", "content"], CODE)?;
    let of = |key: &str| -> Result<u64, HostError> {
        Ok(whole(fields.get(key), &format!("cost.{key}"), CODE)?.unwrap_or(0))
    };
    Ok(Cost {
        rest: of("rest")?,
        graphql: of("graphql")?,
        content: of("content")?,
    })
}

fn window(resource: Resource, value: &Value) -> Result<Window, HostError> {
    const CODE: HostErrorKind = HostErrorKind::InvalidRateState;
    let name = format!("rate.{}", resource.as_str());
    let fields = object(
        value,
        &name,
        &["limit", "remaining", "reserve", "reset_ms"],
        CODE,
    )?;
    let field = |key: &str| required(fields.get(key), &format!("{name}.{key}"), CODE);
    let w = Window {
        resource,
        limit: field("limit")?,
        remaining: field("remaining")?,
        reserve: field("reserve")?,
        reset_ms: field("reset_ms")?,
    };
    for (key, v) in [("remaining", w.remaining), ("reserve", w.reserve)] {
        if v > w.limit {
            return Err(HostError::new(
                CODE,
                format!("{name}.{key} {v} is above {name}.limit {}", w.limit),
            ));
        }
    }
    Ok(w)
}

/// Reads `rate` (`invalid-rate-state`).
pub fn rate(value: &Value) -> Result<Rate, HostError> {
    const CODE: HostErrorKind = HostErrorKind::InvalidRateState;
    let fields = object(value, "rate", &["observed_ms", "rest", "graphql"], CODE)?;
    let observed_ms = required(fields.get("observed_ms"), "rate.observed_ms", CODE)?;
    let mut windows = Vec::new();
    for r in Resource::ALL {
        match fields.get(r.as_str()) {
            None | Some(Value::Null) => {}
            Some(v) => windows.push(window(r, v)?),
        }
    }
    if windows.is_empty() {
        return Err(HostError::new(
            CODE,
            "rate has no window: give rate.rest or rate.graphql (or both)",
        ));
    }
    Ok(Rate {
        observed_ms,
        windows,
    })
}

/// `invalid-cost` when `cost` is larger than a reported window's limit less its reserve: it
/// would never fit, in this window or any later one.
pub fn check_fits(cost: &Cost, rate: &Rate) -> Result<(), HostError> {
    for w in &rate.windows {
        let most = w.limit.saturating_sub(w.reserve);
        let c = cost.of(w.resource);
        if c > most {
            let name = w.resource.as_str();
            return Err(HostError::new(
                HostErrorKind::InvalidCost,
                format!(
                    "cost.{name} {c} is larger than rate.{name}.limit {} less its reserve {}: it never fits a window",
                    w.limit, w.reserve
                ),
            ));
        }
    }
    Ok(())
}

/// The optional `cost` and `rate` of a body, read and checked together.
pub fn cost_and_rate(
    cost_value: Option<&Value>,
    rate_value: Option<&Value>,
) -> Result<(Option<Cost>, Option<Rate>), HostError> {
    let rate = rate_value.map(rate).transpose()?;
    let cost = cost_value.map(cost).transpose()?;
    if let (Some(c), Some(r)) = (&cost, &rate) {
        check_fits(c, r)?;
    }
    Ok((cost, rate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(result: Result<impl std::fmt::Debug, HostError>) -> String {
        result.unwrap_err().code
    }

    #[test]
    fn a_cost_is_three_optional_whole_numbers() {
        assert_eq!(
            cost(&json!({"rest": 10})).unwrap(),
            Cost {
                rest: 10,
                graphql: 0,
                content: 0
            }
        );
        for bad in [
            json!({"rest": -1}),
            json!({"rest": 1.5}),
            json!({"rest": "1"}),
            json!({"writes": 1}),
            json!([1]),
        ] {
            assert_eq!(code(cost(&bad)), "invalid-cost", "{bad}");
        }
    }

    #[test]
    fn a_rate_needs_a_time_and_a_whole_window() {
        let good = json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": 12, "reserve": 5, "reset_ms": 9}});
        let r = rate(&good).unwrap();
        assert_eq!((r.observed_ms, r.windows.len()), (5, 1));
        assert_eq!(
            r.observations("s", 3)[0].observed_ms,
            3,
            "never read after now"
        );
        for bad in [
            json!({"rest": {"limit": 45, "remaining": 12, "reserve": 5, "reset_ms": 9}}),
            json!({"observed_ms": 5}),
            json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": 12, "reserve": 5}}),
            json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": 46, "reserve": 5, "reset_ms": 9}}),
            json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": 1, "reserve": 46, "reset_ms": 9}}),
            json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": -1, "reserve": 5, "reset_ms": 9}}),
            json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": 1, "reserve": 5, "reset_ms": 9, "used": 1}}),
            json!({"observed_ms": 5, "core": {}}),
            json!({"observed_ms": -5, "rest": {"limit": 45, "remaining": 1, "reserve": 5, "reset_ms": 9}}),
        ] {
            assert_eq!(code(rate(&bad)), "invalid-rate-state", "{bad}");
        }
    }

    #[test]
    fn a_cost_larger_than_a_window_less_its_reserve_is_refused() {
        let r = json!({"observed_ms": 5, "rest": {"limit": 45, "remaining": 12, "reserve": 5, "reset_ms": 9}});
        assert!(cost_and_rate(Some(&json!({"rest": 40})), Some(&r)).is_ok());
        assert_eq!(
            code(cost_and_rate(Some(&json!({"rest": 41})), Some(&r))),
            "invalid-cost"
        );
    }
}
