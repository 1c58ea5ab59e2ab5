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
//! Unknown fields are refused at every level, with the code of the object they are in. The
//! types, their JSON and the checks are `deferral_protocol`'s, which the driver writes with;
//! this file gives a refusal its host error.

use crate::error::{HostError, HostErrorKind};
use crate::store::pools::{Cost, Observation};
use deferral_protocol::{Invalid, Part, RateState};
use serde_json::Value;

/// A protocol refusal as the host's error, with its code.
pub fn refused(invalid: Invalid) -> HostError {
    let kind = match invalid.part {
        Part::Cost => HostErrorKind::InvalidCost,
        Part::Rate => HostErrorKind::InvalidRateState,
        Part::Pool => HostErrorKind::InvalidPool,
        Part::FairnessKey => HostErrorKind::InvalidFairnessKey,
        Part::Priority => HostErrorKind::InvalidPriority,
        Part::Request => HostErrorKind::InvalidRequest,
    };
    HostError::new(kind, invalid.message)
}

/// A runner's windows as observations from `source`. A report is taken as read no later than
/// `now_ms` (the host's clock): a claimed read time in the future cannot move a window's reset
/// further than an hour from now.
pub fn observations(rate: &RateState, source: &str, now_ms: u64) -> Vec<Observation> {
    rate.windows
        .iter()
        .map(|(resource, window)| Observation {
            resource,
            window,
            observed_ms: rate.observed_ms.min(now_ms),
            source: source.to_string(),
            deferral_id: None,
        })
        .collect()
}

/// Reads `cost` (`invalid-cost`).
pub fn cost(value: &Value) -> Result<Cost, HostError> {
    Cost::read(value).map_err(refused)
}

/// Reads `rate` (`invalid-rate-state`).
pub fn rate(value: &Value) -> Result<RateState, HostError> {
    RateState::read(value).map_err(refused)
}

/// `invalid-cost` when `cost` is larger than a reported window's limit less its reserve: it
/// would never fit, in this window or any later one.
pub fn check_fits(cost: &Cost, rate: &RateState) -> Result<(), HostError> {
    cost.check_fits(rate).map_err(refused)
}

/// The optional `cost` and `rate` of a body, read and checked together.
pub fn cost_and_rate(
    cost_value: Option<&Value>,
    rate_value: Option<&Value>,
) -> Result<(Option<Cost>, Option<RateState>), HostError> {
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
    use crate::store::pools::Resource;
    use serde_json::json;

    fn code(result: Result<impl std::fmt::Debug, HostError>) -> String {
        result.unwrap_err().code
    }

    #[test]
    fn a_cost_is_three_optional_whole_numbers() {
        assert_eq!(
            cost(&json!({"rest": 10})).unwrap(),
            Cost::default().with(Resource::Rest, 10)
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
        assert_eq!((r.observed_ms, r.windows.iter().count()), (5, 1));
        assert_eq!(
            observations(&r, "s", 3)[0].observed_ms,
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
