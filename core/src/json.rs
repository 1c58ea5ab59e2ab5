//! JSON helpers of the core: the strict reader and writers of the receipt crate, and the object
//! builder its hand-written `to_value`s share.

pub use deferral_receipt::json::*;

/// A `serde_json` object from `(name, value)` members, for the hand-written `to_value`s that keep
/// serde's struct serializer into `Value` out of the wasm build.
/// Inserted one by one: collecting would add a sort and a B-tree bulk build to the module.
pub fn object(members: Vec<(&str, serde_json::Value)>) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (name, value) in members {
        map.insert(name.to_string(), value);
    }
    serde_json::Value::Object(map)
}
