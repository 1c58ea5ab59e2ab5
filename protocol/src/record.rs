//! Record: `POST /v1/deferrals` (and `deferral-host record`) and its answer. The receipt goes
//! both ways as JSON text, embedded verbatim: the host stores what it was given and answers the
//! receipt it issued in the contract's member order. Pool, cost, rate, priority, fairness key
//! and commit are host metadata beside the receipt, never fields of it.

use crate::fields::{request, Fields};
use crate::read::{Invalid, Part, Problem};
use crate::{Cost, FairnessKey, PoolName, Priority, RateState};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// The fields a record body may have, in the order they are written.
pub const RECORD_FIELDS: [&str; 9] = [
    "receipt",
    "launch",
    "max_reentries",
    "pool",
    "cost",
    "rate",
    "priority",
    "fairness_key",
    "commit",
];

/// What a caller records: a receipt and its launch target, and its place among others.
#[derive(Debug, Serialize)]
pub struct RecordRequest {
    /// The receipt's JSON text as given (checked by the host's receipt rules, not here), written
    /// into the body verbatim.
    #[serde(serialize_with = "verbatim")]
    pub receipt: String,
    pub launch: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_reentries: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<PoolName>,
    /// A refused runner's planned cost and the rate state it saw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness_key: Option<FairnessKey>,
    /// The commit whose status the host keeps for the deferral.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<Commit>,
}

/// A commit a deferral belongs to: `{"repo":"OWNER/NAME","sha":FULL_SHA,"context":"deferral/..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Commit {
    pub repo: String,
    /// 40 hex digits, lowercase once read.
    pub sha: String,
    pub context: String,
}

/// The longest status context (characters).
pub const MAX_CONTEXT: usize = 100;

impl Commit {
    /// `OWNER/NAME` of `[A-Za-z0-9-_.]`, at most 140 bytes.
    pub fn repo_ok(repo: &str) -> bool {
        repo.len() <= 140
            && repo
                .split_once('/')
                .is_some_and(|(o, n)| !o.is_empty() && !n.is_empty() && !n.contains('/'))
            && repo
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
    }

    /// 40 hex digits.
    pub fn sha_ok(sha: &str) -> bool {
        sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())
    }

    /// `deferral/` and more, at most [`MAX_CONTEXT`] characters, no control character.
    pub fn context_ok(context: &str) -> bool {
        context.starts_with("deferral/")
            && context.len() > "deferral/".len()
            && context.chars().count() <= MAX_CONTEXT
            && !context.chars().any(char::is_control)
    }

    /// `commit` as a request gives it (`invalid-request`).
    pub fn read(value: &Value) -> Result<Commit, Invalid> {
        const SHAPE: &str = "\"commit\" must be {\"repo\":\"OWNER/NAME\",\"sha\":FULL_SHA,\"context\":\"deferral/...\"}";
        let bad =
            |why: &str| Invalid::new(Part::Request, Problem::Malformed, format!("{SHAPE}{why}"));
        let Value::Object(fields) = value else {
            return Err(bad(""));
        };
        let text = |name: &str| fields.get(name).and_then(Value::as_str);
        let (Some(repo), Some(sha), Some(context), 3) =
            (text("repo"), text("sha"), text("context"), fields.len())
        else {
            return Err(bad(""));
        };
        if !Commit::repo_ok(repo) {
            return Err(bad(": repo is not OWNER/NAME"));
        }
        if !Commit::sha_ok(sha) {
            return Err(bad(": sha is not 40 hex digits"));
        }
        if !Commit::context_ok(context) {
            return Err(bad(&format!(
                ": context must start with deferral/ and be at most {MAX_CONTEXT} characters"
            )));
        }
        Ok(Commit {
            repo: repo.to_string(),
            sha: sha.to_ascii_lowercase(),
            context: context.to_string(),
        })
    }
}

impl RecordRequest {
    /// A request to record `receipt` (JSON text) with `launch`, nothing else given.
    pub fn new(receipt: &str, launch: &str) -> RecordRequest {
        RecordRequest {
            receipt: receipt.to_string(),
            launch: launch.to_string(),
            max_reentries: None,
            pool: None,
            cost: None,
            rate: None,
            priority: None,
            fairness_key: None,
            commit: None,
        }
    }

    /// Reads a record body: a JSON object of [`RECORD_FIELDS`], each checked by its rule with
    /// its code; a receipt given as a string holding one is taken as that text. A cost that
    /// never fits the rate given with it is `invalid-cost`.
    pub fn read(body: &[u8]) -> Result<RecordRequest, Invalid> {
        let fields = Fields::read(body, &RECORD_FIELDS)?;
        let value = |name: &str| fields.value(name);
        let receipt = fields.receipt("receipt")?.ok_or_else(|| {
            request("missing field \"receipt\" (the handoff receipt the gate emitted)".into())
        })?;
        let launch = fields.string("launch")?;
        let max_reentries = fields.number("max_reentries")?;
        let rate = value("rate").map(|v| RateState::read(&v)).transpose()?;
        let cost = value("cost").map(|v| Cost::read(&v)).transpose()?;
        if let (Some(c), Some(r)) = (&cost, &rate) {
            c.check_fits(r)?;
        }
        Ok(RecordRequest {
            receipt,
            launch,
            max_reentries,
            pool: value("pool").map(|v| PoolName::read(&v)).transpose()?,
            cost,
            rate,
            priority: value("priority").map(|v| Priority::read(&v)).transpose()?,
            fairness_key: value("fairness_key")
                .map(|v| FairnessKey::read(&v))
                .transpose()?,
            commit: value("commit").map(|v| Commit::read(&v)).transpose()?,
        })
    }
}

/// JSON text written as it is.
fn verbatim<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    let raw: &RawValue = serde_json::from_str(text).map_err(serde::ser::Error::custom)?;
    raw.serialize(serializer)
}

/// The answer to a record.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum RecordAnswer {
    /// A new deferral: its id, the receipt the host issued (JSON text, in the contract's
    /// order), the cancellation handle (given only this once) and, for a deferral recorded
    /// deferred, when its pool's forecast starts it.
    New {
        id: String,
        receipt: Box<RawValue>,
        cancellation_handle: String,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        forecast: Option<StartForecast>,
    },
    /// The receipt was recorded before, with the same launch target: that deferral, no handle.
    Existing {
        already_recorded: bool,
        id: String,
        state: String,
    },
}

/// The answer to a retry (`deferral-host retry`, `POST /v1/deferrals/{id}/retry`): the new
/// deferral, the one it retries, and the receipt issued for it (JSON text, in the contract's
/// order). Members in the order the wire has always had.
#[derive(Debug, Serialize)]
pub struct RetryAnswer<'a> {
    pub id: &'a str,
    pub launch: &'a str,
    pub max_reentries: u32,
    pub retry_of: &'a str,
    pub state: &'a str,
    #[serde(serialize_with = "verbatim")]
    pub receipt: &'a str,
}

/// When a deferral's pool is expected to start it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StartForecast {
    /// ISO 8601; `null` when the forecast cannot say.
    pub expected_start: Option<String>,
    pub expected_start_ms: Option<u64>,
    /// Whether it starts after its window ends.
    pub will_expire: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn a_request_is_written_in_the_wire_order_with_the_receipt_verbatim() {
        let mut r = RecordRequest::new("{ \"b\":1,\"a\":2 }", "exec:/bin/true");
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"receipt":{ "b":1,"a":2 },"launch":"exec:/bin/true"}"#
        );
        r.max_reentries = Some(3);
        r.priority = Some(Priority(-1));
        r.fairness_key = Some(FairnessKey::parse("team \"a\"").unwrap());
        r.pool = Some(PoolName::parse("p").unwrap());
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"receipt":{ "b":1,"a":2 },"launch":"exec:/bin/true","max_reentries":3,"pool":"p","priority":-1,"fairness_key":"team \"a\""}"#
        );
    }

    #[test]
    fn a_body_is_read_with_each_rules_code() {
        let ok = RecordRequest::read(
            br#"{"launch":"x","receipt":"{\"k\": 1}","priority":2,"fairness_key":"k","pool":"p"}"#,
        )
        .unwrap();
        assert_eq!(ok.receipt, "{\"k\": 1}");
        assert_eq!(
            (ok.priority, ok.pool.unwrap().as_str()),
            (Some(Priority(2)), "p")
        );
        for (body, code) in [
            (&b"[]"[..], "invalid-request"),
            (br#"{"launch":"x"}"#, "invalid-request"),
            (br#"{"receipt":{},"launch":1}"#, "invalid-request"),
            (
                br#"{"receipt":{},"launch":"x","extra":1}"#,
                "invalid-request",
            ),
            (
                br#"{"receipt":{},"launch":"x","max_reentries":-1}"#,
                "invalid-request",
            ),
            (
                br#"{"receipt":{},"launch":"x","pool":"a b"}"#,
                "invalid-pool",
            ),
            (
                br#"{"receipt":{},"launch":"x","fairness_key":""}"#,
                "invalid-fairness-key",
            ),
            (
                br#"{"receipt":{},"launch":"x","priority":1.5}"#,
                "invalid-priority",
            ),
            (
                br#"{"receipt":{},"launch":"x","cost":{"rest":-1}}"#,
                "invalid-cost",
            ),
            (
                br#"{"receipt":{},"launch":"x","rate":{}}"#,
                "invalid-rate-state",
            ),
            (
                br#"{"receipt":{},"launch":"x","commit":{"repo":"a/b"}}"#,
                "invalid-request",
            ),
        ] {
            let err = RecordRequest::read(body).unwrap_err();
            assert_eq!(err.code(), code, "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn the_answers_keep_their_member_order() {
        let new = RecordAnswer::New {
            id: "d1".into(),
            receipt: raw(r#"{"schema":1}"#),
            cancellation_handle: "h".into(),
            forecast: Some(StartForecast {
                expected_start: None,
                expected_start_ms: None,
                will_expire: true,
            }),
        };
        assert_eq!(
            serde_json::to_string(&new).unwrap(),
            r#"{"id":"d1","receipt":{"schema":1},"cancellation_handle":"h","expected_start":null,"expected_start_ms":null,"will_expire":true}"#
        );
        let existing = RecordAnswer::Existing {
            already_recorded: true,
            id: "d1".into(),
            state: "deferred".into(),
        };
        assert_eq!(
            serde_json::to_string(&existing).unwrap(),
            r#"{"already_recorded":true,"id":"d1","state":"deferred"}"#
        );
    }
}
