//! `deferral-host prune` and `run --retention`, on SQLite and PostgreSQL: ended deferrals older
//! than the retention go with every row that names them, and nothing else does (a pending
//! deferral, a recent ended one, one whose retry still waits); the counts of `--dry-run` are
//! what the prune then removes; webhook delivery ids go after GitHub's redelivery window.
//!
//! Time passing is the one thing a test cannot wait for (30 days): the rows' own instants
//! (`created_ms`, `updated_ms`, `received_ms`) are moved back in the store instead, then the
//! real binary runs against it.

mod common;

use common::github::{Origin, Standin, REPO, REPO_ID};
use common::github_cli::{receipt, watch};
use common::pg::schema_or_skip;
use common::run::{stamping_target, stamps, wait_for, Run};
use common::webhook::HookServe;
use common::{Host, HOUR};
use serde_json::Value;
use std::time::Duration;

const DAY: u64 = 24 * HOUR;

/// Runs `sql` on the host's store, SQLite or PostgreSQL, below the binary.
fn execute(host: &Host, sql: &str) {
    if host.store.starts_with("sqlite:") {
        let conn = rusqlite::Connection::open(&host.db).unwrap();
        conn.execute_batch(sql).unwrap();
    } else {
        let mut client = postgres::Client::connect(&host.store, postgres::NoTls).unwrap();
        client.batch_execute(sql).unwrap();
    }
}

/// The first column of `sql`'s rows, as text.
fn column(host: &Host, sql: &str) -> Vec<String> {
    if host.store.starts_with("sqlite:") {
        let conn = rusqlite::Connection::open(&host.db).unwrap();
        let mut stmt = conn.prepare(sql).unwrap();
        let rows = stmt
            .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
            .unwrap();
        rows.map(|v| match v.unwrap() {
            rusqlite::types::Value::Text(t) => t,
            rusqlite::types::Value::Integer(n) => n.to_string(),
            other => format!("{other:?}"),
        })
        .collect()
    } else {
        let mut client = postgres::Client::connect(&host.store, postgres::NoTls).unwrap();
        client
            .query(sql, &[])
            .unwrap()
            .iter()
            .map(|r| {
                r.try_get::<_, String>(0)
                    .unwrap_or_else(|_| r.get::<_, i64>(0).to_string())
            })
            .collect()
    }
}

/// Moves deferral `id`'s creation and last change `days` back.
fn age(host: &Host, id: &str, days: u64) {
    let by = days * DAY;
    execute(
        host,
        &format!(
            "UPDATE deferrals SET created_ms = created_ms - {by}, updated_ms = updated_ms - {by} WHERE id = '{id}'"
        ),
    );
}

/// Every (table, column) of the store that names a deferral.
fn deferral_columns(host: &Host) -> Vec<(String, String)> {
    let named = [
        "deferral_id",
        "successor_id",
        "predecessor_id",
        "retry_id",
        "original_id",
    ];
    let pairs: Vec<String> = if host.store.starts_with("sqlite:") {
        column(
            host,
            "SELECT m.name || '.' || p.name FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table'",
        )
    } else {
        column(
            host,
            "SELECT table_name || '.' || column_name FROM information_schema.columns \
             WHERE table_schema = current_schema()",
        )
    };
    let mut found: Vec<(String, String)> = pairs
        .iter()
        .filter_map(|p| p.split_once('.'))
        .filter(|(_, c)| named.contains(c))
        .map(|(t, c)| (t.to_string(), c.to_string()))
        .collect();
    found.push(("deferrals".into(), "id".into()));
    found
}

/// Rows anywhere in the store that name one of `ids`.
fn rows_naming(host: &Host, ids: &[&str]) -> Vec<String> {
    let list = ids
        .iter()
        .map(|id| format!("'{id}'"))
        .collect::<Vec<_>>()
        .join(", ");
    deferral_columns(host)
        .iter()
        .flat_map(|(table, col)| {
            column(
                host,
                &format!("SELECT {col} FROM {table} WHERE {col} IN ({list})"),
            )
            .into_iter()
            .map(move |id| format!("{table}.{col} = {id}"))
        })
        .collect()
}

fn show(host: &Host, id: &str) -> Value {
    host.expect(0, &["show", "--json", id], "")
}

/// The number of receipts and events `show` gives for `id`.
fn evidence(host: &Host, id: &str) -> (u64, u64) {
    let shown = show(host, id);
    let n = |key: &str| shown[key].as_array().map_or(0, Vec::len) as u64;
    (n("receipts"), n("events"))
}

fn listed(host: &Host) -> Vec<String> {
    let mut ids: Vec<String> = host.expect(0, &["status", "--json"], "")["deferrals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

/// The scenario on one store: two old ended deferrals go, everything else stays.
fn prunes_what_is_old_and_ended_and_nothing_else(host: &Host) {
    // Cancelled by its handle.
    let (cancelled, handle) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    host.expect(0, &["cancel", &cancelled, "--handle", &handle], "");
    // Launched and complete; launched and blocked, then retried (the retry waits).
    let (complete, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    let (blocked, blocked_handle) = host.record("exec:/bin/false", 0, HOUR, &[]);
    host.tick(&[]);
    assert_eq!(host.status(&complete)["state"], "complete");
    assert_eq!(host.status(&blocked)["state"], "blocked");
    let retry = host.expect(0, &["retry", &blocked, "--handle", &blocked_handle], "")["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Waiting, and ended a moment ago.
    let (pending, _) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    let (recent, recent_handle) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    host.expect(0, &["cancel", &recent, "--handle", &recent_handle], "");
    for id in [&cancelled, &complete, &blocked, &retry, &pending] {
        age(host, id, 40);
    }
    let gone = [cancelled.as_str(), complete.as_str()];
    let (receipts, events) = gone.iter().fold((0, 0), |(r, e), id| {
        let (rs, es) = evidence(host, id);
        (r + rs, e + es)
    });
    assert!(
        receipts >= 2 && events >= 4,
        "{receipts} receipts, {events} events"
    );
    let before = listed(host);

    let counted = host.expect(
        0,
        &["prune", "--older-than", "30d", "--dry-run", "--json"],
        "",
    );
    assert_eq!(counted["dry_run"], true, "{counted}");
    assert_eq!(counted["deferrals"], 2, "{counted}");
    assert_eq!(counted["rows"]["receipts"], receipts, "{counted}");
    assert_eq!(counted["rows"]["events"], events, "{counted}");
    assert_eq!(listed(host), before, "a dry run removes nothing");
    assert_eq!(
        evidence(host, &cancelled).1 + evidence(host, &complete).1,
        events
    );

    let pruned = host.expect(0, &["prune", "--older-than", "30d", "--json"], "");
    assert_eq!(pruned["dry_run"], false, "{pruned}");
    assert_eq!(
        pruned["rows"], counted["rows"],
        "the dry run counted what went"
    );
    assert_eq!(pruned["deferrals"], 2, "{pruned}");

    for id in gone {
        let missing = host.expect(2, &["show", id], "");
        assert_eq!(missing["error"]["code"], "not-found", "{missing}");
    }
    assert_eq!(rows_naming(host, &gone), Vec::<String>::new());
    let mut kept = vec![
        blocked.clone(),
        retry.clone(),
        pending.clone(),
        recent.clone(),
    ];
    kept.sort();
    assert_eq!(listed(host), kept);
    for id in &kept {
        show(host, id);
    }
    assert_eq!(show(host, &retry)["deferral"]["retry_of"], blocked.as_str());
    host.expect(0, &["status"], "");
    host.expect(0, &["status", "--pools"], "");

    let again = host.expect(0, &["prune", "--older-than", "30d", "--json"], "");
    assert_eq!(again["deferrals"], 0, "{again}");
    // A shorter retention reaches the deferral ended a moment ago only once it is old enough.
    let none = host.expect(0, &["prune", "--older-than", "2d", "--json"], "");
    assert_eq!(none["deferrals"], 0, "{none}");
    age(host, &recent, 3);
    let text = host.run(&["prune", "--older-than", "2d"], "");
    let sentence = String::from_utf8_lossy(&text.stdout);
    assert!(
        sentence.starts_with("removed 1 ended deferrals"),
        "{sentence}"
    );
    assert_eq!(listed(host).len(), 3);
}

#[test]
fn prune_on_sqlite_removes_what_is_old_and_ended_and_nothing_else() {
    prunes_what_is_old_and_ended_and_nothing_else(&Host::new());
}

#[test]
fn prune_on_postgres_removes_what_is_old_and_ended_and_nothing_else() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    prunes_what_is_old_and_ended_and_nothing_else(&Host::with_store(&schema.url).init());
}

#[test]
fn a_retention_shorter_than_two_days_is_refused() {
    let host = Host::new();
    let (id, handle) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    host.expect(0, &["cancel", &id, "--handle", &handle], "");
    age(&host, &id, 1);
    let refused = host.expect(2, &["prune", "--older-than", "36h"], "");
    assert_eq!(refused["error"]["code"], "invalid-value", "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("2d"),
        "{refused}"
    );
    let refused = host.expect(2, &["run", "--retention", "1d"], "");
    assert_eq!(refused["error"]["code"], "invalid-value", "{refused}");
    let config = host.path("host.toml");
    std::fs::write(&config, "retention = \"1d\"\n").unwrap();
    let refused = host.expect(2, &["run", "--config", config.to_str().unwrap()], "");
    assert_eq!(refused["error"]["code"], "invalid-config", "{refused}");
    show(&host, &id);
}

/// Two deliveries noted through the webhook route (each under the key its signature covers:
/// event, action, repository, run and attempt); the one received 9 days ago goes.
fn delivery_ids_go_after_the_redelivery_window(host: &Host) {
    let standin = Standin::start();
    let serve = HookServe::start(host, &standin, &[]);
    let mut keys = Vec::new();
    for delivery in ["old-delivery", "new-delivery"] {
        let run = standin.completed_run(Origin::schedule(), delivery);
        let body = standin.completed_delivery(run).to_string();
        let (status, answer) = serve.deliver_signed("workflow_run", delivery, body.as_bytes());
        assert_eq!(status, 200, "{answer}\n{}", serve.log_text());
        keys.push(format!("workflow_run completed {REPO_ID} {run} 1"));
    }
    let (old, new) = (&keys[0], &keys[1]);
    let noted = "SELECT delivery_id FROM github_deliveries ORDER BY received_ms, delivery_id";
    assert_eq!(column(host, noted), [old.clone(), new.clone()]);
    let age_old = |days: u64| {
        execute(
            host,
            &format!(
                "UPDATE github_deliveries SET received_ms = received_ms - {} WHERE delivery_id = '{old}'",
                days * DAY
            ),
        )
    };
    age_old(7);
    let kept = host.expect(0, &["prune", "--json"], "");
    assert_eq!(kept["rows"]["github_deliveries"], 0, "7 days: kept\n{kept}");
    age_old(2);
    let counted = host.expect(0, &["prune", "--dry-run", "--json"], "");
    assert_eq!(counted["rows"]["github_deliveries"], 1, "{counted}");
    let pruned = host.expect(0, &["prune", "--json"], "");
    assert_eq!(pruned["rows"]["github_deliveries"], 1, "{pruned}");
    assert_eq!(column(host, noted), std::slice::from_ref(new));
}

#[test]
fn delivery_ids_go_after_the_redelivery_window_on_sqlite() {
    delivery_ids_go_after_the_redelivery_window(&Host::new());
}

#[test]
fn delivery_ids_go_after_the_redelivery_window_on_postgres() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    delivery_ids_go_after_the_redelivery_window(&Host::with_store(&schema.url).init());
}

/// `run` with `retention = "30d"` over 303 old ended deferrals: they go while a deferral recorded
/// through the port launches on time.
fn run_prunes_while_it_schedules(host: &Host) {
    let mut old = Vec::new();
    for _ in 0..3 {
        let (id, handle) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
        host.expect(0, &["cancel", &id, "--handle", &handle], "");
        old.push(id);
    }
    // Many more (a batch is 100), recorded below the binary and ended by hand: setup only.
    let store = host.open_any();
    for _ in 0..300 {
        let now = common::now();
        let receipt = deferral_host_conformance::distinct_handoff(now, HOUR, 2 * HOUR).to_json();
        deferral_host::lifecycle::insert::insert_new(
            &*store,
            receipt.as_bytes(),
            "exec:/bin/true",
            2,
            now,
        )
        .unwrap();
    }
    drop(store);
    execute(
        host,
        "UPDATE deferrals SET state = 'cancelled', cause = 'operator' WHERE state <> 'cancelled'",
    );
    execute(
        host,
        &format!(
            "UPDATE deferrals SET created_ms = created_ms - {by}, updated_ms = updated_ms - {by}",
            by = 40 * DAY
        ),
    );
    let before = host.expect(0, &["prune", "--dry-run", "--json"], "");
    assert_eq!(before["deferrals"], 303, "{before}");
    let file = host.path("stamps");
    let target = stamping_target(host, &file);
    // The setting as the configuration file's key.
    let config = host.path("host.toml");
    std::fs::write(&config, "retention = \"30d\"\n").unwrap();
    let config = config.display().to_string();
    let run = Run::start(
        host,
        "run",
        &["--allow-launch", &target, "--config", &config],
    );
    let recorded = run.record(&target, 500, HOUR);
    let id = recorded["id"].as_str().unwrap().to_string();
    let launched = wait_for(Duration::from_secs(10), || {
        stamps(&file).into_iter().find(|(s, _)| *s == id)
    });
    assert!(launched.is_some(), "not launched\n{}", run.log());
    let emptied = wait_for(Duration::from_secs(10), || {
        let left = host.expect(0, &["prune", "--dry-run", "--json"], "");
        (left["deferrals"] == 0).then_some(())
    });
    assert!(emptied.is_some(), "not pruned\n{}", run.log());
    for id in &old {
        host.expect(2, &["show", id], "");
    }
    assert_eq!(listed(host), vec![id]);
    let log = run.log();
    assert!(log.contains("removed 303 ended deferrals"), "{log}");
}

#[test]
fn run_with_a_retention_prunes_while_it_schedules_on_sqlite() {
    run_prunes_while_it_schedules(&Host::new());
}

#[test]
fn run_with_a_retention_prunes_while_it_schedules_on_postgres() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    run_prunes_while_it_schedules(&Host::with_store(&schema.url).init());
}

/// A deferral `watch` ingested, ended and pruned 40 days later, while its artifact is still
/// listed: the next `watch` does not download it again (its receipt's window closed long ago).
fn a_pruned_deferrals_artifact_is_not_downloaded_again(host: &Host) {
    let standin = Standin::start();
    let (_, artifact) = standin.scheduled_run_with_artifact(&receipt(0, 'd', 'e'), false);
    let args = [REPO, "--launch", "exec:/bin/true"];
    let first = watch(host, &standin, &args).json;
    let id = first["ingested"][0]["id"].as_str().unwrap().to_string();
    let downloads = || {
        standin
            .seen()
            .iter()
            .filter(|s| s.path.ends_with("/zip"))
            .count()
    };
    assert_eq!(downloads(), 1);
    execute(
        host,
        &format!("UPDATE deferrals SET state = 'cancelled', cause = 'operator' WHERE id = '{id}'"),
    );
    age(host, &id, 40);
    standin.uploaded_ago(artifact, 40 * DAY / 1000);
    let pruned = host.expect(0, &["prune", "--json"], "");
    assert_eq!(pruned["deferrals"], 1, "{pruned}");
    let again = watch(host, &standin, &args).json;
    assert_eq!(again["skipped"][0]["reason"], "window-closed", "{again}");
    assert_eq!(again["ingested"], serde_json::json!([]), "{again}");
    assert_eq!(downloads(), 1, "not downloaded again");
    assert_eq!(listed(host), Vec::<String>::new());
}

#[test]
fn a_pruned_deferrals_artifact_is_not_downloaded_again_on_sqlite() {
    a_pruned_deferrals_artifact_is_not_downloaded_again(&Host::new());
}

#[test]
fn a_pruned_deferrals_artifact_is_not_downloaded_again_on_postgres() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    a_pruned_deferrals_artifact_is_not_downloaded_again(&Host::with_store(&schema.url).init());
}
