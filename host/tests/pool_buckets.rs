//! Rate-limit buckets are an open set (issue 26, item 4): a `GET /rate_limit` answer with every
//! bucket GitHub documents and one it may add later parses and the pool keeps working; a bucket
//! that vanishes from later answers never fails a pool; a window row a newer host wrote for a
//! bucket this host does not meter is kept through every write of the pool, shown, and never
//! read as another bucket's; the same for a reported observation of it. SQLite and PostgreSQL.

mod common;

use common::github::{epoch_s, Standin};
use common::github_cli::run_host;
use common::{now, Host, HOUR};
use serde_json::{json, Value};

/// Records a gate line due now in `pool`: 10 REST of a 5,000 window with `remaining` left.
fn record_line(host: &Host, pool: &str, remaining: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let reset_s = now() / 1000 + 600;
    let line = format!(
        r#"{{"status":"deferred","mode":"gate","rest":{{"limit":5000,"remaining":{remaining},"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0}},"deferredReceipt":{receipt}}}"#
    );
    let out = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "--pool", pool, "-"],
        &line,
    );
    out["id"].as_str().unwrap().to_string()
}

fn tick(host: &Host, standin: &Standin, extra: &[&str]) -> Value {
    let mut args = vec!["tick", "--http-timeout", "5s", "--pool-jitter", "0s"];
    args.extend_from_slice(extra);
    let (out, text) = run_host(host, standin, &args);
    assert!(out.status.success(), "{text}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `GET /rate_limit` in GitHub's documented shape with every bucket its docs list, plus one
/// it does not (yet) and a field no bucket has today.
fn every_bucket(core_remaining: u64) -> Value {
    let reset = epoch_s() + 1800;
    let bucket = |limit: u64, remaining: u64| json!({"limit": limit, "used": limit - remaining, "remaining": remaining, "reset": reset});
    let core = bucket(5000, core_remaining);
    json!({
        "resources": {
            "core": core,
            "search": bucket(30, 18),
            "graphql": bucket(5000, 4993),
            "integration_manifest": bucket(5000, 5000),
            "source_import": bucket(100, 100),
            "code_scanning_upload": bucket(500, 500),
            "code_scanning_autofix": bucket(10, 10),
            "actions_runner_registration": bucket(10000, 10000),
            "scim": bucket(15000, 15000),
            "dependency_snapshots": bucket(100, 100),
            "dependency_sbom": bucket(100, 100),
            "audit_log": bucket(1750, 1750),
            "audit_log_streaming": bucket(15, 15),
            "code_search": bucket(10, 10),
            "some_new_bucket": {"limit": 7, "used": 0, "remaining": 7, "reset": reset,
                                "resource_kind": "future"},
            "a_malformed_bucket": {"limit": "many"}
        },
        "rate": core
    })
}

fn pool<'a>(pools: &'a Value, name: &str) -> &'a Value {
    pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == name)
        .unwrap_or_else(|| panic!("pool {name} listed: {pools}"))
}

#[test]
fn every_documented_bucket_and_an_unknown_one_parse_and_a_vanished_one_fails_nothing() {
    let host = Host::new();
    let standin = Standin::start();
    standin.state.lock().unwrap().rate_limit_answer = Some((200, every_bucket(4321)));
    let first = record_line(&host, "user-octo", 12);
    let report = tick(&host, &standin, &["--rate-limit-pool", "user-octo"]);
    let learned = &report["rate_limit"];
    assert_eq!(learned["learned"], true, "{report}");
    assert_eq!(learned["rest"]["remaining"], 4321, "{report}");
    assert_eq!(learned["graphql"]["remaining"], 4993, "{report}");
    assert_eq!(report["launched"][0]["id"], first, "{report}");

    // GraphQL (and every other bucket) vanishes from the answers: the pool keeps its GraphQL
    // window, learns core, and admits.
    let reset = epoch_s() + 1800;
    standin.state.lock().unwrap().rate_limit_answer = Some((
        200,
        json!({"resources": {
            "core": {"limit": 5000, "used": 700, "remaining": 4300, "reset": reset},
            "some_new_bucket": {"limit": 7, "used": 1, "remaining": 6, "reset": reset}}}),
    ));
    let second = record_line(&host, "user-octo", 4300);
    let report = tick(&host, &standin, &["--rate-limit-pool", "user-octo"]);
    assert_eq!(report["rate_limit"]["learned"], true, "{report}");
    assert_eq!(report["launched"][0]["id"], second, "{report}");
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let p = pool(&pools, "user-octo");
    assert_eq!(p["rest"]["reported_remaining"], 4300, "{p}");
    assert_eq!(p["graphql"]["reported_remaining"], 4993, "{p}");

    // Only buckets this host does not meter: nothing learned, nothing fails, work still admitted.
    standin.state.lock().unwrap().rate_limit_answer = Some((
        200,
        json!({"resources": {"some_new_bucket": {"limit": 7, "used": 2, "remaining": 5, "reset": reset}}}),
    ));
    let third = record_line(&host, "user-octo", 4200);
    let report = tick(&host, &standin, &["--rate-limit-pool", "user-octo"]);
    assert_eq!(report["rate_limit"]["learned"], false, "{report}");
    assert_eq!(report["launched"][0]["id"], third, "{report}");
}

/// SQL straight to the store, below the host: what a newer host would have written.
enum Db {
    Lite(std::path::PathBuf),
    Pg(common::pg::TestSchema),
}

impl Db {
    fn batch(&self, sql: &str) {
        match self {
            Db::Lite(path) => rusqlite::Connection::open(path)
                .unwrap()
                .execute_batch(sql)
                .unwrap(),
            Db::Pg(schema) => schema.client().batch_execute(sql).unwrap(),
        }
    }

    fn count(&self, sql: &str) -> i64 {
        match self {
            Db::Lite(path) => rusqlite::Connection::open(path)
                .unwrap()
                .query_row(sql, [], |r| r.get(0))
                .unwrap(),
            Db::Pg(schema) => schema.client().query_one(sql, &[]).unwrap().get(0),
        }
    }
}

fn unmetered_rows_are_kept_shown_and_never_misread(host: &Host, db: &Db) {
    let first = record_line(host, "app-9", 4000);
    let reset_ms = (now() / 1000 + 900) * 1000;
    let t = now();
    db.batch(&format!(
        "INSERT INTO pool_windows (pool, resource, window_limit, remaining, spent, spent_at_report, \
         reserve, reset_ms, reset_known, opened_after_ms, length_ms, next_limit, observed_ms, source) \
         VALUES ('app-9', 'search', 30, 0, 0, 0, 0, {reset_ms}, 1, 0, 60000, 30, {t}, 'newer host'); \
         INSERT INTO pool_observations (pool, deferral_id, resource, reported_limit, remaining, \
         reserve, reset_ms, observed_ms, source) \
         VALUES ('app-9', '{first}', 'search', 30, 0, 0, {reset_ms}, {t}, 'newer host');"
    ));
    let show = host.expect(0, &["show", "--json", &first], "");
    let seen = show["observations"].as_array().unwrap();
    assert_eq!(
        seen.len(),
        1,
        "the search report is not read as a REST one: {show}"
    );
    assert_eq!(seen[0]["remaining"], 4000, "{show}");

    // A tick admits and launches (the pool's row is written): the search row stays.
    let report = host.tick(&["--pool-jitter", "0s"]);
    assert_eq!(report["launched"][0]["id"], first, "{report}");
    let second = record_line(host, "app-9", 3990);
    let report = host.tick(&["--pool-jitter", "0s"]);
    assert_eq!(report["launched"][0]["id"], second, "{report}");
    assert_eq!(
        db.count("SELECT COUNT(*) FROM pool_windows WHERE pool = 'app-9' AND resource = 'search'"),
        1,
        "a bucket this host does not meter keeps its row"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let p = pool(&pools, "app-9");
    assert_eq!(p["unmetered"]["search"]["limit"], 30, "{p}");
    assert_eq!(p["unmetered"]["search"]["source"], "newer host", "{p}");
    assert_eq!(p["rest"]["reported_remaining"], 3990, "{p}");
    let text = host.run(&["status", "--pools"], "");
    assert!(text.status.success());
}

#[test]
fn sqlite_a_window_row_of_an_unmetered_bucket_is_kept_and_shown() {
    let host = Host::new();
    let db = Db::Lite(host.db.clone());
    unmetered_rows_are_kept_shown_and_never_misread(&host, &db);
}

#[test]
fn postgres_a_window_row_of_an_unmetered_bucket_is_kept_and_shown() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url).init();
    let db = Db::Pg(schema);
    unmetered_rows_are_kept_shown_and_never_misread(&host, &db);
}
