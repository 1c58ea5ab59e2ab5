//! The place in its pool a library caller gives a deferral it records at `deferral-host serve`
//! (`priority`, `fairnessKey`: options of `createServePort`, of the serve form of
//! `createResumableDeferralHost` and of its `retain`, and of the port client's `record`), checked
//! by the host's rules before anything is sent (the protocol's [`Priority`] and [`FairnessKey`],
//! within what a JS number holds exactly). The JS hands each value as `{kind, text}` (its
//! `typeof` and `String(value)`), so `NaN`, `Infinity` and `1.5` are seen as they are, not as
//! the `null` JSON would make of them.
//!
//! Both are the host's metadata beside a receipt, never fields of it: they go in the record
//! request's body ([`deferral_protocol::RecordRequest`]), next to `receipt`. Priority 0 and no
//! key add nothing, so that body is what it was before they existed.

use super::error::{Code, Form, Refusal};
use super::{obj, Answer};
use deferral_protocol::{FairnessKey, Priority};
use serde::Serialize;
use serde_json::Value;

/// The largest priority (in magnitude) the JS library takes: a JS number is exact only up to it.
pub const MAX_LIBRARY_PRIORITY: i64 = (1 << 53) - 1;

/// The members a record body adds for a place in the pool, in the body's order; none at the
/// defaults.
#[derive(Serialize)]
struct Place {
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<Priority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fairness_key: Option<FairnessKey>,
}

/// `{priority?, fairness_key?}` (each `{kind, text}`, or null when not given): answers
/// `{place}`, the members the record body adds (`{}` at the defaults).
pub fn record_order(v: &Value) -> Answer {
    let priority = match given(&v["priority"]) {
        None => 0,
        Some(("number", text)) => text
            .parse::<i64>()
            .ok()
            .filter(|p| p.abs() <= MAX_LIBRARY_PRIORITY)
            .ok_or_else(|| refused(Code::InvalidPriority, text))?,
        Some((_, text)) => return Err(refused(Code::InvalidPriority, &quoted(text))),
    };
    let key = match given(&v["fairness_key"]) {
        None => None,
        Some(("string", text)) => Some(
            FairnessKey::parse(text)
                .map_err(|_| refused(Code::InvalidFairnessKey, &quoted(text)))?,
        ),
        Some((_, text)) => return Err(refused(Code::InvalidFairnessKey, text)),
    };
    let place = Place {
        priority: (priority != 0).then_some(Priority(priority)),
        fairness_key: key,
    };
    Ok(obj(vec![(
        "place",
        serde_json::to_value(&place).unwrap_or_default(),
    )]))
}

/// A value's `(kind, text)`, `None` when it was not given.
fn given(v: &Value) -> Option<(&str, &str)> {
    if v.is_null() || v["kind"] == "undefined" {
        return None;
    }
    Some((
        v["kind"].as_str().unwrap_or_default(),
        v["text"].as_str().unwrap_or_default(),
    ))
}

/// Text as JSON shows it, at most 80 characters of it.
fn quoted(text: &str) -> String {
    Value::from(text.chars().take(80).collect::<String>()).to_string()
}

fn refused(code: Code, got: &str) -> Refusal {
    Refusal::new(Form::Port, code, &[("got", got)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The members the record body adds (the text of `place`), or the refusal.
    fn fields(v: Value) -> Result<String, String> {
        record_order(&v)
            .map(|a| a["place"].to_string())
            .map_err(|r| format!("{}: {}", r.code, r.message))
    }

    #[test]
    fn the_defaults_add_nothing_and_given_values_go_beside_the_receipt() {
        assert_eq!(fields(json!({})), Ok("{}".to_string()));
        let undefined = json!({"kind": "undefined", "text": "undefined"});
        assert_eq!(
            fields(json!({"priority": undefined, "fairness_key": undefined})),
            Ok("{}".to_string())
        );
        assert_eq!(
            fields(json!({"priority": {"kind": "number", "text": "0"}})),
            Ok("{}".to_string())
        );
        assert_eq!(
            fields(json!({"priority": {"kind": "number", "text": "-2"},
                "fairness_key": {"kind": "string", "text": "labeler"}})),
            Ok(r#"{"fairness_key":"labeler","priority":-2}"#.to_string())
        );
    }

    #[test]
    fn what_the_host_or_a_js_number_cannot_hold_is_refused() {
        for text in ["1.5", "NaN", "Infinity", "9007199254740992", "1e+21"] {
            let got = fields(json!({"priority": {"kind": "number", "text": text}}));
            assert_eq!(
                got,
                Err(format!("invalid-priority: priority must be a whole number from -9007199254740991 to 9007199254740991, not {text}")),
            );
        }
        let got = fields(json!({"priority": {"kind": "string", "text": "2"}}));
        assert!(got.unwrap_err().ends_with("not \"2\""));
        for (kind, text) in [("string", ""), ("string", "a\nb"), ("number", "42")] {
            let got = fields(json!({"fairness_key": {"kind": kind, "text": text}}));
            assert!(
                got.as_ref()
                    .unwrap_err()
                    .starts_with("invalid-fairness-key: a fairness key is 1 to 200 characters"),
                "{got:?}"
            );
        }
    }
}
