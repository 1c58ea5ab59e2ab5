//! The launcher seam (`launch::Launcher`): a kind written only here, `noop:`, is parsed,
//! checked at the door, recorded, launched, recovered and left out while not ready, through
//! the same code as `exec:` and `workflow-dispatch:`, with no SQL of its own; and the
//! migration that added the store's `launch_kind` column filled it from the stored text. On
//! SQLite and on PostgreSQL (see `common::pg`).

mod common;

use common::pg::schema_or_skip;
use deferral_host::error::{HostError, HostErrorKind};
use deferral_host::launch::kind::invalid;
use deferral_host::launch::{
    Attempt, LaunchPass, LaunchPolicy, Launched, Launcher, Launchers, Target,
};
use deferral_host::lifecycle;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::store::{
    launch_kind, AttemptStatus, IntegrityCheck, PostgresStore, SqliteStore, Store,
};
use deferral_host::tick::{self, TickOptions};
use deferral_host_conformance::distinct_handoff;
use serde_json::{json, Value};
use std::time::Duration;

const HOUR: u64 = 3_600_000;

/// `noop:WORDS`: launches nothing; the attempt completes at once, its detail the words.
struct Noop;

impl Launcher for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

    fn form(&self) -> &'static str {
        "noop:WORDS"
    }

    fn parse(&self, text: &str, rest: &str) -> Result<Vec<String>, HostError> {
        if rest.is_empty() {
            return Err(invalid(text, "says nothing: use noop:WORDS"));
        }
        Ok(vec![rest.to_string()])
    }

    fn check_installed(&self, target: &Target) -> Result<(), HostError> {
        match target.parts()[0].as_str() {
            "missing" => Err(HostError::new(
                HostErrorKind::LaunchNotFound,
                "no such noop",
            )),
            _ => Ok(()),
        }
    }

    fn launch(&self, target: &Target, attempt: &Attempt<'_>) -> Launched {
        attempt.record_outcome(Outcome::Complete {
            detail: Some(format!("noop said {}", target.parts()[0])),
        })
    }
}

/// `parked:ANYTHING`: never ready, so its deferrals stay due and are reported skipped.
struct Parked;

impl Launcher for Parked {
    fn name(&self) -> &'static str {
        "parked"
    }

    fn form(&self) -> &'static str {
        "parked:ANYTHING"
    }

    fn parse(&self, _text: &str, rest: &str) -> Result<Vec<String>, HostError> {
        Ok(vec![rest.to_string()])
    }

    fn not_ready(&self, _pass: &LaunchPass<'_>) -> Option<String> {
        Some("parked: not today".into())
    }

    fn launch(&self, _target: &Target, _attempt: &Attempt<'_>) -> Launched {
        panic!("a parked target is never launched")
    }
}

static NOOP: Noop = Noop;
static PARKED: Parked = Parked;

fn launchers() -> Launchers {
    Launchers::builtin().with(&NOOP).with(&PARKED)
}

fn options(launchers: Launchers) -> TickOptions {
    TickOptions {
        lease_timeout: Duration::from_secs(60),
        limit: 100,
        http_timeout: Duration::from_secs(1),
        ..TickOptions::new(launchers)
    }
}

fn now() -> u64 {
    deferral_host::clock::now_ms()
}

fn record(store: &dyn Store, launch: &str) -> String {
    let t = now();
    let receipt = distinct_handoff(t, 0, HOUR).to_json();
    // Parsed first, as every entry does (the store takes the text as given).
    launchers().parse(launch).unwrap();
    lifecycle::insert::insert_new(store, receipt.as_bytes(), launch, 2, t)
        .unwrap()
        .deferral
        .id
}

/// The entry of `id` in the list `list` of the report as JSON.
fn entry(report: &tick::TickReport, list: &str, id: &str) -> Value {
    let json = report.to_json();
    let list = json[list].as_array().unwrap();
    list.iter()
        .find(|e| e["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} in {list:?}"))
}

fn sqlite() -> (tempfile::TempDir, Box<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("host.db"), IntegrityCheck::Full).unwrap();
    (dir, Box::new(store))
}

fn a_kind_of_a_test_records_launches_and_waits_while_not_ready(store: &dyn Store) {
    let done = record(store, "noop:hello");
    let parked = record(store, "parked:later");
    let report = tick::tick(store, &options(launchers()), now).unwrap();
    let launched = entry(&report, "launched", &done);
    assert_eq!(
        (&launched["state"], &launched["detail"]),
        (&json!("complete"), &json!("noop said hello")),
        "{launched}"
    );
    assert_eq!(report.launched.len(), 1, "{:?}", report.launched);
    assert_eq!(
        entry(&report, "skipped", &parked)["why"],
        "parked: not today",
        "a kind that is not ready is left out by the store and reported"
    );
    let waiting = store.get(&parked).unwrap().unwrap();
    assert_eq!(
        (waiting.state.as_str(), waiting.reentries),
        ("deferred", 0),
        "no re-entry spent"
    );
    // A ticker that does not know the kind refuses it, as any target no kind parses.
    let report = tick::tick(store, &options(Launchers::builtin()), now).unwrap();
    let refused = entry(&report, "launched", &parked);
    assert_eq!(
        (&refused["state"], &refused["cause"]),
        (&json!("blocked"), &json!("invalid-launch")),
        "{refused}"
    );
    assert!(
        refused["detail"].as_str().unwrap().contains(
            "is not a launch target: use exec:/ABSOLUTE/PROGRAM [ARGS] or \
             workflow-dispatch:OWNER/REPO/WORKFLOW@REF"
        ),
        "{refused}"
    );
}

fn a_stale_lease_of_a_test_kind_is_recovered_and_launched_again(store: &dyn Store) {
    let id = record(store, "noop:again");
    let d = store.get(&id).unwrap().unwrap();
    let t = now();
    // A ticker claimed it and stopped: its lease ended a moment ago.
    lifecycle::claim::claim(store, &d, "gone", t - 1, AttemptStatus::Launching, t - 10).unwrap();
    let report = tick::tick(store, &options(launchers()), now).unwrap();
    assert_eq!(
        report.recovered[0].id(),
        id,
        "recovered: {:?}",
        report.recovered
    );
    let launched = entry(&report, "launched", &id);
    assert_eq!(
        (&launched["state"], &launched["attempt"]),
        (&json!("complete"), &json!(2)),
        "{launched}"
    );
}

#[test]
fn sqlite_a_kind_of_a_test_records_launches_and_waits_while_not_ready() {
    let (_dir, store) = sqlite();
    a_kind_of_a_test_records_launches_and_waits_while_not_ready(&*store);
}

#[test]
fn postgres_a_kind_of_a_test_records_launches_and_waits_while_not_ready() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    a_kind_of_a_test_records_launches_and_waits_while_not_ready(&store);
}

#[test]
fn sqlite_a_stale_lease_of_a_test_kind_is_recovered_and_launched_again() {
    let (_dir, store) = sqlite();
    a_stale_lease_of_a_test_kind_is_recovered_and_launched_again(&*store);
}

#[test]
fn postgres_a_stale_lease_of_a_test_kind_is_recovered_and_launched_again() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    a_stale_lease_of_a_test_kind_is_recovered_and_launched_again(&store);
}

#[test]
fn a_kind_of_a_test_is_parsed_and_checked_at_the_door_like_the_others() {
    let launchers = launchers();
    let target = launchers.parse("noop:hello world").unwrap();
    assert_eq!(
        (target.kind().name(), target.parts()),
        ("noop", &["hello world".to_string()][..])
    );
    assert_eq!(
        launchers.parse("noop:").unwrap_err().message,
        "launch target \"noop:\" says nothing: use noop:WORDS"
    );
    assert_eq!(
        launchers.parse("ssh:x").unwrap_err().message,
        "launch target \"ssh:x\" is not a launch target: use exec:/ABSOLUTE/PROGRAM [ARGS] or \
         workflow-dispatch:OWNER/REPO/WORKFLOW@REF or environment-gate:OWNER/REPO/RUN_ID/ENVIRONMENT \
         or noop:WORDS or parked:ANYTHING"
    );
    assert_eq!(
        Launchers::builtin().parse("noop:x").unwrap_err().code,
        "invalid-launch",
        "the program itself has no noop kind"
    );
    assert_eq!(
        launchers
            .parse("noop:missing")
            .unwrap()
            .check_installed()
            .unwrap_err()
            .code,
        "launch-not-found"
    );
    let policy =
        LaunchPolicy::parse(&launchers, &["noop:".into(), "exec:/bin/true".into()]).unwrap();
    assert_eq!(
        policy.check("noop:anything").unwrap().text(),
        "noop:anything"
    );
    let refused = policy.check("parked:x").unwrap_err();
    assert_eq!(refused.code, "launch-not-allowed");
    assert!(
        refused
            .message
            .ends_with("permits: any noop: target; exec:/bin/true with any arguments"),
        "{}",
        refused.message
    );
    assert_eq!(
        policy.check("noop:").unwrap_err().code,
        "invalid-launch",
        "an allowed kind is still parsed"
    );
    assert!(
        LaunchPolicy::by_default(&launchers)
            .check("noop:x")
            .is_err(),
        "a kind is not allowed by default unless it says so"
    );
}

/// A target is its kind and what the kind parsed, not its text; what a failing assertion prints
/// of a target or of the kinds names both.
#[test]
fn targets_are_the_same_by_kind_and_parts_and_print_both() {
    let launchers = launchers();
    let parse = |text: &str| launchers.parse(text).unwrap();
    assert_eq!(parse("noop:a"), parse("noop:a"));
    assert_ne!(parse("noop:a"), parse("noop:b"), "other parts");
    assert_ne!(
        parse("noop:a"),
        parse("parked:a"),
        "same parts, another kind"
    );
    assert_ne!(parse("exec:/bin/echo a"), parse("exec:/bin/echo a b"));
    assert_eq!(
        format!("{:?}", parse("noop:hello world")),
        r#"Target { kind: "noop", parts: ["hello world"] }"#
    );
    assert_eq!(
        format!("{launchers:?}"),
        r#"["exec", "workflow-dispatch", "environment-gate", "noop", "parked"]"#
    );
}

/// A tick whose kinds follow nothing (none has runs to follow) has no follow step in its report.
#[test]
fn kinds_that_follow_nothing_leave_the_follow_step_out() {
    let (_dir, store) = sqlite();
    record(&*store, "noop:once");
    record(&*store, "exec:/bin/true");
    let report = tick::tick(&*store, &options(launchers()), now).unwrap();
    assert_eq!(report.launched.len(), 2, "{:?}", report.launched);
    assert!(report.follow.is_none(), "{:?}", report.follow);
}

/// Stored texts as an older version may have left them, for the migration's back-fill.
const STORED: [&str; 7] = [
    "exec:/bin/true",
    "workflow-dispatch:o/r/w.yml@main",
    "exec:echo ran >> 'x'",
    "noop:a:b",
    "/bin/sh -c x",
    ":x",
    "ünï:x",
];

fn record_raw(store: &dyn Store) {
    let t = now();
    for launch in STORED {
        let receipt = distinct_handoff(t, 0, HOUR).to_json();
        lifecycle::insert::insert_new(store, receipt.as_bytes(), launch, 2, t).unwrap();
    }
}

fn assert_filled(rows: Vec<(String, String)>) {
    assert_eq!(rows.len(), STORED.len());
    for (launch, kind) in rows {
        assert_eq!(kind, launch_kind(&launch), "the kind of {launch:?}");
    }
}

#[test]
fn sqlite_the_migration_fills_the_launch_kind_from_the_stored_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("host.db");
    let store = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    record_raw(&store);
    let version = deferral_host::store::sqlite::SCHEMA_VERSION;
    store
        .connection()
        .execute_batch(&format!(
            "{}PRAGMA user_version = {}",
            deferral_host_conformance::UNDO_LAUNCH_KIND_MIGRATION,
            version - deferral_host_conformance::MIGRATIONS_FROM_LAUNCH_KIND
        ))
        .unwrap();
    drop(store);
    let store = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    let rows = store
        .connection()
        .prepare("SELECT launch, launch_kind FROM deferrals")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_filled(rows);
    let now_version: i64 = store
        .connection()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(now_version, version);
}

#[test]
fn postgres_the_migration_fills_the_launch_kind_from_the_stored_text() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    record_raw(&store);
    drop(store);
    let version = deferral_host::store::postgres::SCHEMA_VERSION;
    let mut client = schema.client();
    client
        .batch_execute(&format!(
            "{}UPDATE deferral_schema_version SET version = {}",
            deferral_host_conformance::UNDO_LAUNCH_KIND_MIGRATION,
            version - deferral_host_conformance::MIGRATIONS_FROM_LAUNCH_KIND
        ))
        .unwrap();
    drop(PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap());
    let rows = client
        .query("SELECT launch, launch_kind FROM deferrals", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_filled(rows);
    let now_version: i64 = client
        .query_one("SELECT version FROM deferral_schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(now_version, version);
}
