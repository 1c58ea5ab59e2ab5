//! Every code the host answers is a `HostErrorKind`, listed once in `HostErrorKind::ALL`, unique,
//! with the exit code docs/host-commands.md gives it, and named in that doc's "Exit codes"
//! table. The exhaustive match below stops compiling when a kind is added without being walked
//! here.

use deferral_host::error::{HostError, HostErrorKind};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The exit code each kind is documented with, written out again on purpose.
fn documented_exit(kind: HostErrorKind) -> u8 {
    match kind {
        HostErrorKind::Backend => 1,
        HostErrorKind::ListenFailed => 1,
        HostErrorKind::RuntimeFailed => 1,
        HostErrorKind::SignalFailed => 1,
        HostErrorKind::UnwritableMetricsFile => 1,
        HostErrorKind::UnwritableOutput => 1,
        HostErrorKind::Duplicate => 1,
        HostErrorKind::StoreCorrupt => 1,
        HostErrorKind::ForeignStore => 1,
        HostErrorKind::UnsafeStore => 1,
        HostErrorKind::StoreReplaced => 1,
        HostErrorKind::SchemaTooNew => 1,
        HostErrorKind::StoreError => 1,
        HostErrorKind::AlreadyRetained => 2,
        HostErrorKind::Expired => 2,
        HostErrorKind::GateNotDeferred => 2,
        HostErrorKind::GithubAppKeyExposed => 2,
        HostErrorKind::GithubAppKeyNotAFile => 2,
        HostErrorKind::GithubAppKeyTooLarge => 2,
        HostErrorKind::InvalidConfig => 2,
        HostErrorKind::InvalidCost => 2,
        HostErrorKind::InvalidDigest => 2,
        HostErrorKind::InvalidGithub => 2,
        HostErrorKind::InvalidLaunch => 2,
        HostErrorKind::InvalidPool => 2,
        HostErrorKind::InvalidFairnessKey => 2,
        HostErrorKind::InvalidPriority => 2,
        HostErrorKind::InvalidRateState => 2,
        HostErrorKind::InvalidRepo => 2,
        HostErrorKind::InvalidRequest => 2,
        HostErrorKind::LaunchConflict => 2,
        HostErrorKind::LaunchNotExecutable => 2,
        HostErrorKind::LaunchNotFound => 2,
        HostErrorKind::MalformedJson => 2,
        HostErrorKind::MissingReceipt => 2,
        HostErrorKind::NoGithubCredentials => 2,
        HostErrorKind::NoStore => 2,
        HostErrorKind::UnsupportedStore => 2,
        HostErrorKind::NoToken => 2,
        HostErrorKind::NotFound => 2,
        HostErrorKind::RecordAnswer => 2,
        HostErrorKind::RetryExpired => 2,
        HostErrorKind::UnreadableInput => 2,
        HostErrorKind::BindingMismatch => 2,
        HostErrorKind::StoreNotFound => 2,
        HostErrorKind::MissingArgument => 2,
        HostErrorKind::UnknownFlag => 2,
        HostErrorKind::UnknownCommand => 2,
        HostErrorKind::InvalidValue => 2,
        HostErrorKind::ConflictingArguments => 2,
        HostErrorKind::Usage => 2,
        HostErrorKind::GithubAppKeyUnusable => 3,
        HostErrorKind::GithubError => 4,
        HostErrorKind::GithubUnreachable => 4,
        HostErrorKind::GithubQuota => 4,
        HostErrorKind::GithubAnswer => 4,
        HostErrorKind::AlreadyRecorded => 5,
        HostErrorKind::AlreadyRetried => 5,
        HostErrorKind::Conflict => 5,
        HostErrorKind::IllegalTransition => 5,
        HostErrorKind::LaunchNotAllowed => 5,
        HostErrorKind::LaunchStillRunning => 5,
        HostErrorKind::LeaseExpired => 5,
        HostErrorKind::NotBlocked => 5,
        HostErrorKind::NotDispatchUnknown => 5,
        HostErrorKind::NotDispatching => 5,
        HostErrorKind::NotResumable => 5,
        HostErrorKind::PoolBusy => 5,
        HostErrorKind::StaleAttempt => 5,
        HostErrorKind::WrongHandle => 5,
    }
}

#[test]
fn every_kind_is_listed_once_with_a_unique_code() {
    let kinds: HashSet<HostErrorKind> = HostErrorKind::ALL.iter().copied().collect();
    assert_eq!(
        kinds.len(),
        HostErrorKind::ALL.len(),
        "a kind is listed twice in ALL"
    );
    let codes: HashSet<&str> = HostErrorKind::ALL.iter().map(|k| k.code()).collect();
    assert_eq!(
        codes.len(),
        HostErrorKind::ALL.len(),
        "two kinds share a code"
    );
    for kind in HostErrorKind::ALL {
        let code = kind.code();
        assert!(
            !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{code:?} is not kebab-case"
        );
        assert_eq!(HostErrorKind::from_code(code), Some(*kind));
    }
    // The exhaustive match names as many kinds as ALL holds.
    let arms = include_str!("error_codes.rs")
        .lines()
        .filter(|l| l.trim_start().starts_with("HostErrorKind::") && l.contains(" => "))
        .count();
    assert_eq!(arms, HostErrorKind::ALL.len(), "a kind is missing from ALL");
}

#[test]
fn each_kind_has_its_documented_exit_code() {
    for kind in HostErrorKind::ALL {
        assert_eq!(kind.exit_code(), documented_exit(*kind), "{}", kind.code());
        let err = HostError::new(*kind, "why");
        assert_eq!(
            (err.code.as_str(), err.exit_code),
            (kind.code(), kind.exit_code())
        );
        assert_eq!(err.kind(), Some(*kind));
    }
}

/// The codes named (in backquotes) in each row of docs/host-commands.md's "Exit codes" table;
/// the usage codes in the paragraph under it count as exit 2.
fn documented_codes() -> BTreeMap<u8, BTreeSet<String>> {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/host-commands.md"
    ))
    .expect("docs/host-commands.md");
    let start = doc.find("### Exit codes").expect("an Exit codes section");
    let section = &doc[start..];
    let section = &section[..section[4..].find("\n### ").map_or(section.len(), |i| i + 4)];
    let quoted = |text: &str| -> BTreeSet<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
            .map(str::to_string)
            .collect()
    };
    let mut rows: BTreeMap<u8, BTreeSet<String>> = BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if let [_, exit, meaning, _] = cells.as_slice() {
            if let Ok(exit) = exit.parse::<u8>() {
                rows.entry(exit).or_default().extend(quoted(meaning));
            }
        }
    }
    let usage = section
        .find("Usage errors too")
        .expect("the usage codes paragraph");
    let usage = &section[usage..];
    let usage = &usage[..usage.find("```").unwrap_or(usage.len())];
    rows.entry(2).or_default().extend(quoted(usage));
    rows
}

#[test]
fn docs_host_commands_md_lists_every_code_in_its_exit_row() {
    let rows = documented_codes();
    assert!(
        rows.len() >= 5,
        "the Exit codes table was not read: {rows:?}"
    );
    let missing: Vec<String> = HostErrorKind::ALL
        .iter()
        .filter(|k| {
            !rows
                .get(&k.exit_code())
                .is_some_and(|r| r.contains(k.code()))
        })
        .map(|k| format!("{} (exit {})", k.code(), k.exit_code()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/host-commands.md \"Exit codes\" does not list: {}",
        missing.join(", ")
    );
}
