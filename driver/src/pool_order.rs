//! A deferral's place in its pool, as a caller gives it when it records at the durable port
//! (`POST /v1/deferrals`): a **priority** (a whole number, default 0; within a pool a higher one
//! is admitted first) and a **fairness key** (among equal priorities the host takes turns
//! between keys; default: the launch target's repository and workflow, or program). The Action
//! (`coordinator-priority`, `coordinator-fairness-key`), the CLI's gate and the JS library give
//! them; the bounds are the host's (`host/src/store/pools/keys.rs`, `serve`'s record route), so
//! what the host would refuse is refused before anything is sent.
//!
//! Both are the host's metadata beside a receipt, never fields of it: they go in the record
//! request's body, next to `receipt`. Priority 0 and no key add nothing, so that body is byte
//! for byte what it was before they existed.

use serde_json::Value;

/// The longest fairness key the host keeps (characters).
pub const MAX_KEY_CHARS: usize = 200;

/// The largest priority (in magnitude) the JS library takes: a JS number is exact only up to it.
pub const MAX_LIBRARY_PRIORITY: i64 = (1 << 53) - 1;

/// Whether `key` may be given as a fairness key: 1 to [`MAX_KEY_CHARS`] characters, no control
/// character (the host's rule).
pub fn key_ok(key: &str) -> bool {
    let n = key.chars().count();
    (1..=MAX_KEY_CHARS).contains(&n) && !key.chars().any(char::is_control)
}

/// The priority of an input's text: a whole number the host takes (any `i64`), `None` when
/// it is not one (`2.5`, `1e3`, `high`, beyond the range).
pub fn parse_priority(text: &str) -> Option<i64> {
    text.trim().parse().ok()
}

/// The fields a record body adds for a place in the pool: `,"priority":N` unless N is 0 and
/// `,"fairness_key":KEY` when one is given; empty for the defaults.
pub fn body_fields(priority: i64, key: Option<&str>) -> String {
    let mut out = String::new();
    if priority != 0 {
        out.push_str(&format!(",\"priority\":{priority}"));
    }
    if let Some(key) = key {
        out.push_str(",\"fairness_key\":");
        out.push_str(&Value::from(key).to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_priority_is_a_whole_number_of_the_hosts_range() {
        for (text, want) in [
            ("2", Some(2)),
            (" -3 ", Some(-3)),
            ("+4", Some(4)),
            ("0", Some(0)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775808", None),
            ("2.5", None),
            ("1e3", None),
            ("high", None),
            ("", None),
        ] {
            assert_eq!(parse_priority(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_key_is_1_to_200_characters_without_control_characters() {
        assert!(key_ok("labeler") && key_ok(&"é".repeat(MAX_KEY_CHARS)));
        assert!(!key_ok("") && !key_ok("a\nb") && !key_ok("a\u{7}b"));
        assert!(!key_ok(&"k".repeat(MAX_KEY_CHARS + 1)));
    }

    #[test]
    fn the_defaults_add_nothing_to_the_body() {
        assert_eq!(body_fields(0, None), "");
        assert_eq!(body_fields(2, None), ",\"priority\":2");
        assert_eq!(
            body_fields(-1, Some("a \"b\"")),
            ",\"priority\":-1,\"fairness_key\":\"a \\\"b\\\"\""
        );
        assert_eq!(body_fields(0, Some("k")), ",\"fairness_key\":\"k\"");
    }
}
