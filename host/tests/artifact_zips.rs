//! A `deferred-receipt` artifact is a zip of exactly one entry, of any kind: a zip holding the
//! receipt and an entry the reader cannot open (flagged encrypted, an unknown compression
//! method) or a directory is refused as `artifact-unreadable`, by `watch` and by `tick`.

mod common;

use common::github::{Origin, Script, Standin, REPO, TARGET};
use common::github_cli::{receipt, same_bindings, tick, watch};
use common::{Host, HOUR};
use std::io::Write;

/// A zip of `entries` (stored, not compressed); a name ending in `/` is a directory.
fn zip_with(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, text) in entries {
        if let Some(dir) = name.strip_suffix('/') {
            zip.add_directory(dir, options).unwrap();
        } else {
            zip.start_file(*name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
    }
    zip.finish().unwrap();
    out.into_inner()
}

/// Sets the general-purpose flags or the compression method of the second entry, in its
/// local header and in the central directory.
fn patch_second(mut zip: Vec<u8>, flags: Option<u16>, method: Option<u16>) -> Vec<u8> {
    for (signature, flags_at, method_at) in [(b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)] {
        let at = zip
            .windows(4)
            .enumerate()
            .filter(|(_, w)| w == signature)
            .map(|(i, _)| i)
            .nth(1)
            .expect("a second entry");
        if let Some(flags) = flags {
            zip[at + flags_at..at + flags_at + 2].copy_from_slice(&flags.to_le_bytes());
        }
        if let Some(method) = method {
            zip[at + method_at..at + method_at + 2].copy_from_slice(&method.to_le_bytes());
        }
    }
    zip
}

/// The receipt and one more entry the reader cannot take: three ways.
fn two_entry_zips(text: impl Fn(usize) -> String) -> Vec<(&'static str, Vec<u8>)> {
    let pair = |n| zip_with(&[("receipt.json", &text(n)), ("extra.bin", "hidden")]);
    vec![
        ("encrypted", patch_second(pair(0), Some(1), None)),
        ("unknown method", patch_second(pair(1), None, Some(77))),
        (
            "directory",
            zip_with(&[("receipt.json", &text(2)), ("more/", "")]),
        ),
    ]
}

#[test]
fn watch_refuses_a_zip_with_an_entry_besides_the_receipt() {
    let standin = Standin::start();
    let host = Host::new();
    let mut artifacts = Vec::new();
    let distinct = |n: usize| receipt(0, 'd', char::from(b'0' + n as u8));
    for (kind, zip) in two_entry_zips(distinct) {
        let (_, artifact) = standin.run_with_artifact(Origin::schedule(), zip, false);
        artifacts.push((kind, artifact));
    }
    let report = watch(&host, &standin, &[REPO, "--launch", TARGET]).json;
    assert!(
        report["ingested"].as_array().unwrap().is_empty(),
        "{report}"
    );
    for (kind, artifact) in artifacts {
        let skipped = report["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["artifact_id"] == artifact)
            .unwrap_or_else(|| panic!("{kind}: {report}"));
        assert_eq!(skipped["reason"], "artifact-unreadable", "{kind}: {report}");
        assert!(
            skipped["message"].as_str().unwrap().contains("2 entries"),
            "{kind}: {report}"
        );
    }
    let all = host.expect(0, &["status", "--json"], "")["deferrals"].clone();
    assert!(all.as_array().unwrap().is_empty(), "nothing recorded");
}

#[test]
fn tick_blocks_an_attempt_whose_artifact_holds_an_entry_besides_the_receipt() {
    let standin = Standin::start();
    let host = Host::new();
    let mut ids = Vec::new();
    for (kind, zip) in two_entry_zips(|_| same_bindings()) {
        let (id, _) = host.record(TARGET, 0, HOUR, &[]);
        standin.script(Script {
            artifact_zip: Some(zip),
            ..Script::default()
        });
        ids.push((kind, id));
    }
    tick(&host, &standin);
    let second = tick(&host, &standin);
    for (kind, id) in ids {
        let status = host.status(&id);
        assert_eq!(
            (status["state"].as_str(), status["cause"].as_str()),
            (Some("blocked"), Some("artifact-unreadable")),
            "{kind}: {status}\n{}",
            second.output
        );
    }
}
