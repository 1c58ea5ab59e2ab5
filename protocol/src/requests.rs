//! The small requests on a deferral (`POST /v1/deferrals/{id}/cancel`, `/claim`, `/outcome`,
//! `/retry`) and the admission's (`POST /v1/admissions`, its release), each read once from its
//! body with the codes the wire has always had, and written by the callers that send them.

use crate::fields::{request, Fields};
use crate::read::{Invalid, Part, Problem};
use crate::{AdmissionRequest, Cost, PoolName, RateState, ReleaseRequest};
use serde::Serialize;

/// `{"handle"}`: a deferral cancelled with its cancellation handle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CancelRequest {
    pub handle: String,
}

/// `{"wakeup_handle"}`: a launched process proving its attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimRequest {
    pub wakeup_handle: String,
}

/// What an attempt ended as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    Complete,
    Blocked,
    Deferred,
}

/// `{"attempt","outcome","handle","receipt"?}`: an attempt's outcome, with the new handoff
/// receipt when it deferred again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutcomeRequest {
    pub attempt: u32,
    pub outcome: OutcomeKind,
    pub handle: String,
    /// The receipt's JSON text as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<String>,
}

/// `{"handle","launch"?,"max_reentries"?}`: a blocked deferral started again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetryRequest {
    pub handle: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_reentries: Option<u32>,
}

impl CancelRequest {
    pub fn read(body: &[u8]) -> Result<CancelRequest, Invalid> {
        let fields = Fields::read(body, &["handle"])?;
        Ok(CancelRequest {
            handle: fields.string("handle")?,
        })
    }
}

impl ClaimRequest {
    pub fn read(body: &[u8]) -> Result<ClaimRequest, Invalid> {
        let fields = Fields::read(body, &["wakeup_handle"])?;
        Ok(ClaimRequest {
            wakeup_handle: fields.string("wakeup_handle")?,
        })
    }
}

impl OutcomeKind {
    pub fn parse(text: &str) -> Option<OutcomeKind> {
        match text {
            "complete" => Some(OutcomeKind::Complete),
            "blocked" => Some(OutcomeKind::Blocked),
            "deferred" => Some(OutcomeKind::Deferred),
            _ => None,
        }
    }
}

impl OutcomeRequest {
    pub fn read(body: &[u8]) -> Result<OutcomeRequest, Invalid> {
        let fields = Fields::read(body, &["attempt", "outcome", "handle", "receipt"])?;
        let attempt = fields
            .number("attempt")?
            .ok_or_else(|| request("missing field \"attempt\"".into()))?;
        let outcome = fields.string("outcome")?;
        let outcome = OutcomeKind::parse(&outcome).ok_or_else(|| {
            request(format!(
                "outcome {outcome:?} is not complete, blocked or deferred"
            ))
        })?;
        Ok(OutcomeRequest {
            attempt,
            outcome,
            handle: fields.string("handle")?,
            receipt: fields.receipt("receipt")?,
        })
    }
}

impl RetryRequest {
    pub fn read(body: &[u8]) -> Result<RetryRequest, Invalid> {
        let fields = Fields::read(body, &["handle", "launch", "max_reentries"])?;
        Ok(RetryRequest {
            handle: fields.string("handle")?,
            launch: fields.optional_string("launch")?,
            max_reentries: fields.number("max_reentries")?,
        })
    }
}

impl AdmissionRequest {
    /// Reads `{"pool","cost","rate"}`: the pool named by its rule (`invalid-pool`), the cost
    /// (`invalid-cost`) and rate (`invalid-rate-state`) each required, the cost one that fits.
    pub fn read(body: &[u8]) -> Result<AdmissionRequest, Invalid> {
        let fields = Fields::read(body, &["pool", "cost", "rate"])?;
        let missing =
            |part: Part, message: &str| Invalid::new(part, Problem::Missing, message.to_string());
        let pool = match fields.value("pool") {
            Some(serde_json::Value::String(name)) => PoolName::parse(&name)?,
            Some(other) => {
                return Err(Invalid::new(
                    Part::Pool,
                    Problem::NotString,
                    format!("\"pool\" must be a string naming the pool (got {other})"),
                ))
            }
            None => {
                return Err(missing(
                    Part::Pool,
                    "missing field \"pool\" (the quota pool to admit in)",
                ))
            }
        };
        let cost = fields.value("cost").ok_or_else(|| {
            missing(
                Part::Cost,
                "missing field \"cost\" (the plan's {\"rest\",\"graphql\",\"content\"})",
            )
        })?;
        let rate = fields.value("rate").ok_or_else(|| {
            missing(
                Part::Rate,
                "missing field \"rate\" (what the gate just read: {\"observed_ms\",\"rest\"?,\"graphql\"?})",
            )
        })?;
        let rate = RateState::read(&rate)?;
        let cost = Cost::read(&cost)?;
        cost.check_fits(&rate)?;
        Ok(AdmissionRequest {
            pool: pool.as_str().to_string(),
            cost,
            rate,
        })
    }
}

impl ReleaseRequest {
    /// Reads a release's body: empty (or only white space), `{}`, or `{"rate"}`.
    pub fn read(body: &[u8]) -> Result<ReleaseRequest, Invalid> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(ReleaseRequest { rate: None });
        }
        let fields = Fields::read(body, &["rate"])?;
        Ok(ReleaseRequest {
            rate: fields
                .value("rate")
                .map(|rate| RateState::read(&rate))
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_reads_its_members_and_refuses_others() {
        assert_eq!(
            CancelRequest::read(br#"{"handle":"h"}"#).unwrap().handle,
            "h"
        );
        assert_eq!(
            ClaimRequest::read(br#"{"wakeup_handle":"w"}"#)
                .unwrap()
                .wakeup_handle,
            "w"
        );
        let outcome = OutcomeRequest::read(
            br#"{"attempt":1,"outcome":"deferred","handle":"h","receipt":{"a": 1}}"#,
        )
        .unwrap();
        assert_eq!(
            (outcome.attempt, outcome.outcome, outcome.receipt.as_deref()),
            (1, OutcomeKind::Deferred, Some(r#"{"a": 1}"#))
        );
        let retry = RetryRequest::read(br#"{"handle":"h","max_reentries":3}"#).unwrap();
        assert_eq!((retry.launch, retry.max_reentries), (None, Some(3)));
        assert_eq!(
            ReleaseRequest::read(b" \n").unwrap(),
            ReleaseRequest { rate: None }
        );
        for (result, code) in [
            (CancelRequest::read(b"{}").map(drop), "invalid-request"),
            (
                ClaimRequest::read(br#"{"handle":"h"}"#).map(drop),
                "invalid-request",
            ),
            (
                OutcomeRequest::read(br#"{"attempt":1,"outcome":"done","handle":"h"}"#).map(drop),
                "invalid-request",
            ),
            (
                RetryRequest::read(br#"{"handle":"h","launch":1}"#).map(drop),
                "invalid-request",
            ),
            (
                AdmissionRequest::read(br#"{"cost":{},"rate":{}}"#).map(drop),
                "invalid-pool",
            ),
            (
                AdmissionRequest::read(br#"{"pool":"a b","cost":{},"rate":{}}"#).map(drop),
                "invalid-pool",
            ),
            (
                AdmissionRequest::read(br#"{"pool":"p","rate":{}}"#).map(drop),
                "invalid-cost",
            ),
            (
                AdmissionRequest::read(br#"{"pool":"p","cost":{}}"#).map(drop),
                "invalid-rate-state",
            ),
            (
                ReleaseRequest::read(br#"{"rate":1}"#).map(drop),
                "invalid-rate-state",
            ),
        ] {
            assert_eq!(result.unwrap_err().code(), code);
        }
    }
}
