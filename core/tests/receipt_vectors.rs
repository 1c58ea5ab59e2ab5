//! Runs every shared receipt vector (tests/vectors/receipts) through the native validator.

use deferral_core::receipt::{check, validate, ErrorCode};
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/receipts")
}

fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(vectors_dir().join("cases.json")).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn every_vector_gets_its_verdict_code_and_path() {
    let cases = cases();
    assert!(cases.len() > 50, "the vector set is unexpectedly small");
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let bytes = std::fs::read(vectors_dir().join(file)).unwrap();
        let got = validate(&bytes);
        assert_eq!(
            check(&bytes),
            got.clone().map(|_| ()),
            "{file}: check and validate agree"
        );
        if case["valid"].as_bool().unwrap() {
            let receipt = got.unwrap_or_else(|e| panic!("{file}: expected valid, got {e}"));
            // A valid receipt written back validates to the same receipt.
            assert_eq!(
                validate(receipt.to_json().as_bytes()).unwrap(),
                receipt,
                "{file}"
            );
        } else {
            let err = got
                .err()
                .unwrap_or_else(|| panic!("{file}: expected {}, got valid", case["code"]));
            assert_eq!(err.code(), case["code"].as_str().unwrap(), "{file}: {err}");
            assert_eq!(err.path, case["path"].as_str().unwrap(), "{file}: {err}");
            assert_eq!(
                err.message,
                case["message"].as_str().unwrap_or_default(),
                "{file}: the exact message"
            );
            assert!(
                err.code.fits(&err.message),
                "{file}: {:?} does not fit the template {:?}",
                err.message,
                err.code.template()
            );
        }
    }
}

/// `DEFERRAL_WRITE_VECTORS=1 cargo test -p deferral-core --test receipt_vectors write_messages`
/// records each refusal's exact message in cases.json (check the diff by hand).
#[test]
fn write_messages() {
    if std::env::var_os("DEFERRAL_WRITE_VECTORS").is_none() {
        return;
    }
    let mut cases = cases();
    for case in &mut cases {
        let bytes = std::fs::read(vectors_dir().join(case["file"].as_str().unwrap())).unwrap();
        if let Err(e) = validate(&bytes) {
            case["message"] = Value::String(e.message);
        }
    }
    // Keys come out sorted; generate.py's order is kept if the messages are merged back by hand
    // (the CI only checks the values).
    let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
    std::fs::write(vectors_dir().join("cases.json"), text).unwrap();
}

#[test]
fn templates_are_one_per_code_and_checked() {
    assert!(ErrorCode::InvalidDigest.fits("$.x must be exactly 64 lowercase hex characters"));
    assert!(!ErrorCode::InvalidDigest.fits("$.x must be 64 hex characters"));
    assert!(ErrorCode::UnknownField.fits("$.mode is not a field of the contract"));
    assert!(ErrorCode::UnknownField.fits("$.mode is not a field of the contract: a hint"));
    assert!(!ErrorCode::MissingField.fits("$.x is required, really"));
    for code in ErrorCode::ALL {
        assert!(!code.template().is_empty());
    }
}

#[test]
fn every_error_code_is_reached_by_some_vector() {
    let seen: HashSet<String> = cases()
        .iter()
        .filter_map(|c| c["code"].as_str().map(str::to_string))
        .collect();
    for code in ErrorCode::ALL {
        assert!(seen.contains(code.as_str()), "no vector produces {code}");
    }
}

#[test]
fn interop_vector_is_written_back_byte_for_byte() {
    let bytes = std::fs::read(vectors_dir().join("valid/interop-retained.json")).unwrap();
    let receipt = validate(&bytes).unwrap();
    assert!(receipt.is_retained());
    assert_eq!(receipt.resume_after_ms - receipt.issued_at_ms, 600_000);
    assert_eq!(receipt.resume_by_ms - receipt.issued_at_ms, 3_600_000);
    // The generator writes compact JSON in contract order, which is exactly our canonical form.
    assert_eq!(receipt.to_json().as_bytes(), &bytes[..]);
}
