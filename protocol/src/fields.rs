//! A request body as its members' exact texts: the one reader every request type starts from,
//! so each refuses a body that is not an object, an unknown member, a missing one or one of the
//! wrong type with the same words (`invalid-request`).

use crate::read::{Invalid, Part, Problem};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;

/// A JSON object body: each member kept as its exact text (a receipt is stored as received).
#[derive(Debug)]
pub struct Fields(BTreeMap<String, Box<RawValue>>);

impl Fields {
    /// Reads `body`: a JSON object with no member but those `allowed`.
    pub fn read(body: &[u8], allowed: &[&str]) -> Result<Fields, Invalid> {
        let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(body)
            .map_err(|e| request(format!("the body is not a JSON object: {e}")))?;
        if let Some(unknown) = fields.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(request(format!(
                "unknown field {unknown:?}; allowed: {}",
                allowed.join(", ")
            )));
        }
        Ok(Fields(fields))
    }

    /// A member's value, when given.
    pub fn value(&self, name: &str) -> Option<Value> {
        self.0
            .get(name)
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// A string member that must be there.
    pub fn string(&self, name: &str) -> Result<String, Invalid> {
        self.optional_string(name)?
            .ok_or_else(|| request(format!("missing field {name:?}")))
    }

    /// A string member, `None` when not given.
    pub fn optional_string(&self, name: &str) -> Result<Option<String>, Invalid> {
        self.typed(name, "a string")
    }

    /// A whole-number member (0 to 2^32-1), `None` when not given.
    pub fn number(&self, name: &str) -> Result<Option<u32>, Invalid> {
        self.typed(name, "a whole number")
    }

    /// A member read as `T`, `None` when not given; `"{name}" must be {what}` when it is not one.
    fn typed<T: DeserializeOwned>(&self, name: &str, what: &str) -> Result<Option<T>, Invalid> {
        self.0
            .get(name)
            .map(|raw| {
                serde_json::from_str(raw.get())
                    .map_err(|_| request(format!("{name:?} must be {what}")))
            })
            .transpose()
    }

    /// A receipt member's JSON text: an object as it was written, or the text a string holds.
    pub fn receipt(&self, name: &str) -> Result<Option<String>, Invalid> {
        let Some(raw) = self.0.get(name) else {
            return Ok(None);
        };
        if raw.get().starts_with('"') {
            serde_json::from_str(raw.get())
                .map(Some)
                .map_err(|_| request(format!("{name:?} is not a JSON string")))
        } else {
            Ok(Some(raw.get().to_string()))
        }
    }
}

/// `invalid-request` with `message`.
pub(crate) fn request(message: String) -> Invalid {
    Invalid::new(Part::Request, Problem::Malformed, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receipt_is_kept_as_written_or_as_the_text_a_string_holds() {
        let fields = Fields::read(
            br#"{"receipt":{"b":1, "a":2},"launch":"x"}"#,
            &["receipt", "launch"],
        )
        .unwrap();
        assert_eq!(
            fields.receipt("receipt").unwrap().unwrap(),
            r#"{"b":1, "a":2}"#
        );
        let fields = Fields::read(br#"{"receipt":"{\"a\":1}"}"#, &["receipt"]).unwrap();
        assert_eq!(fields.receipt("receipt").unwrap().unwrap(), r#"{"a":1}"#);
        for body in [&br#"{"other":1}"#[..], b"[1]", b"{"] {
            assert_eq!(
                Fields::read(body, &["receipt"]).unwrap_err().code(),
                "invalid-request"
            );
        }
    }

    #[test]
    fn a_member_of_the_wrong_type_or_missing_is_named() {
        let fields = Fields::read(br#"{"a":1,"b":"x"}"#, &["a", "b", "c"]).unwrap();
        assert_eq!(
            fields.string("a").unwrap_err().message,
            "\"a\" must be a string"
        );
        assert_eq!(
            fields.string("c").unwrap_err().message,
            "missing field \"c\""
        );
        assert_eq!(
            fields.number("b").unwrap_err().message,
            "\"b\" must be a whole number"
        );
        assert_eq!(
            (
                fields.number("a").unwrap(),
                fields.optional_string("c").unwrap()
            ),
            (Some(1), None)
        );
    }
}
