//! A deferral's place in its pool, as a caller gives it when it records at the durable port
//! (`POST /v1/deferrals`): a **priority** (a whole number, default 0; within a pool a higher one
//! is admitted first) and a **fairness key** (among equal priorities the host takes turns
//! between keys; default: the launch target's repository and workflow, or program). The Action
//! (`coordinator-priority`, `coordinator-fairness-key`), the CLI's gate and the JS library give
//! them; the rules are the protocol's ([`deferral_protocol::Priority`],
//! [`deferral_protocol::FairnessKey`]), the host's own, so what the host would refuse is refused
//! before anything is sent.
//!
//! Both are the host's metadata beside a receipt, never fields of it: they go in the record
//! request's body ([`deferral_protocol::RecordRequest`]), next to `receipt`. Priority 0 and no
//! key add nothing, so that body is byte for byte what it was before they existed.

use deferral_protocol::{FairnessKey, Priority};
use serde::Serialize;

/// The largest priority (in magnitude) the JS library takes: a JS number is exact only up to it.
pub const MAX_LIBRARY_PRIORITY: i64 = (1 << 53) - 1;

/// The members a record body adds for a place in the pool, in the body's order.
#[derive(Serialize)]
struct Place<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<Priority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fairness_key: Option<&'a FairnessKey>,
}

/// The members a record body adds for a place in the pool, as the text that follows the
/// body's other members: `,"priority":N` unless N is 0 and `,"fairness_key":KEY` when one is
/// given; empty for the defaults.
pub fn body_fields(priority: i64, key: Option<&FairnessKey>) -> String {
    let place = Place {
        priority: (priority != 0).then_some(Priority(priority)),
        fairness_key: key,
    };
    let object = serde_json::to_string(&place).unwrap_or_default();
    // `{...}` less its braces: the members alone, each after a comma.
    match object.get(1..object.len().saturating_sub(1)) {
        Some("") | None => String::new(),
        Some(members) => format!(",{members}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_add_nothing_to_the_body() {
        let key = |k: &str| FairnessKey::parse(k).unwrap();
        assert_eq!(body_fields(0, None), "");
        assert_eq!(body_fields(2, None), ",\"priority\":2");
        assert_eq!(
            body_fields(-1, Some(&key("a \"b\""))),
            ",\"priority\":-1,\"fairness_key\":\"a \\\"b\\\"\""
        );
        assert_eq!(body_fields(0, Some(&key("k"))), ",\"fairness_key\":\"k\"");
    }
}
