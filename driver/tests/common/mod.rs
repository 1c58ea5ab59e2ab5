//! What the driver's vector tests share.

use serde_json::Value;

/// `true` when every field of `expected` is in `actual` with the same value (recursively).
pub fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| contains(av, v))),
        _ => actual == expected,
    }
}
