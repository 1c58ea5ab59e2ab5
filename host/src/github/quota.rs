//! How much GitHub quota the host may still spend in this pass.
//!
//! Every answer's headers and body go through the core's reading of provider signals
//! (`deferral_core::signals::classify`): when the REST bucket's `x-ratelimit-remaining` is at or
//! below the reserve (the same `Reserve` the gate uses, `10%` by default), or a primary or
//! secondary limit is reported, the host makes no more calls for this pass. The work not done
//! stays as it is for the next pass. Never a retry loop, never a sleep.

use super::transport::CallError;
use deferral_core::decision::Reserve;
use deferral_core::signals::{classify, Classification};

#[derive(Debug, Clone)]
pub struct Quota {
    reserve: Reserve,
    /// Why calls stopped, once they have.
    stopped: Option<String>,
    /// The last `x-ratelimit-remaining` / `-limit` seen.
    pub remaining: Option<u64>,
    pub limit: Option<u64>,
}

impl Quota {
    pub fn new(reserve: Reserve) -> Quota {
        Quota {
            reserve,
            stopped: None,
            remaining: None,
            limit: None,
        }
    }

    /// `Err(QuotaStop)` once the host must stop calling GitHub for this pass.
    pub fn check(&self) -> Result<(), CallError> {
        match &self.stopped {
            Some(why) => Err(CallError::QuotaStop(why.clone())),
            None => Ok(()),
        }
    }

    /// Calls may be made again (a new pass of `run`).
    pub fn new_pass(&mut self) {
        self.stopped = None;
    }

    /// Why calls stopped, if they did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// Reads one answer's rate signals.
    pub fn observe(&mut self, status: u16, headers: &[(String, String)], body: &[u8]) {
        let text = String::from_utf8_lossy(body);
        let classified = classify(status, headers, &text);
        let seen = &classified.headers;
        if let (Some(remaining), Some(limit)) = (seen.remaining, seen.limit) {
            let is_rest = seen.resource.as_deref().is_none_or(|r| r == "core");
            if is_rest {
                self.remaining = Some(remaining);
                self.limit = Some(limit);
                let reserve = self.reserve.of(limit);
                if remaining <= reserve && self.stopped.is_none() {
                    self.stopped = Some(format!(
                        "reserve reached: x-ratelimit-remaining {remaining} of {limit}, reserve {reserve}"
                    ));
                }
            }
        }
        let why = match classified.kind {
            Classification::Secondary => Some(format!(
                "secondary rate limit in force{}",
                seen.retry_after_s
                    .map(|s| format!(" (retry-after {s}s)"))
                    .unwrap_or_default()
            )),
            Classification::PrimaryRest | Classification::PrimaryGraphql => {
                Some("primary rate limit exhausted".to_string())
            }
            Classification::Unlimited | Classification::NotRateLimited => None,
        };
        if let Some(why) = why {
            self.stopped = Some(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(remaining: u64) -> Vec<(String, String)> {
        vec![
            ("x-ratelimit-limit".into(), "5000".into()),
            ("x-ratelimit-remaining".into(), remaining.to_string()),
            ("x-ratelimit-reset".into(), "1700000000".into()),
            ("x-ratelimit-resource".into(), "core".into()),
        ]
    }

    #[test]
    fn stops_at_the_reserve() {
        let mut quota = Quota::new(Reserve::Absolute(100));
        quota.observe(200, &headers(101), b"{}");
        assert!(quota.check().is_ok());
        quota.observe(200, &headers(100), b"{}");
        assert!(
            matches!(quota.check(), Err(CallError::QuotaStop(why)) if why.contains("reserve 100"))
        );
    }

    #[test]
    fn stops_on_a_secondary_limit() {
        let mut quota = Quota::new(Reserve::default());
        let mut h = headers(4000);
        h.push(("retry-after".into(), "60".into()));
        quota.observe(
            403,
            &h,
            br#"{"message":"You have exceeded a secondary rate limit"}"#,
        );
        assert!(
            matches!(quota.check(), Err(CallError::QuotaStop(why)) if why.contains("secondary"))
        );
    }
}
