//! Costs as rows keyed by resource name (issue 26, item 4): a deferral's and an admission's
//! planned cost are rows of `deferral_costs` and `admission_costs`, not a column per resource;
//! they survive record -> tick -> show; a row of a name this host does not read (a newer
//! host's) is kept and changes nothing; a store migrated from the schema before keeps every
//! deferral's and admission's cost, and an unknown cost stays unknown. SQLite and PostgreSQL.

mod common;

use common::{now, Host, HOUR};
use deferral_host_conformance::UNDO_COST_ROWS_MIGRATION;
use serde_json::{json, Value};

/// Records a gate line due now in pool `costly`: 10 REST, 4 GraphQL points, 2 content-creating.
fn record_costly(host: &Host) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let reset_s = now() / 1000 + 600;
    let line = format!(
        r#"{{"status":"deferred","mode":"gate","rest":{{"limit":5000,"remaining":4000,"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":{{"limit":5000,"remaining":4000,"reserve":5,"plannedCost":4,"reset":{reset_s},"ok":true}},"plan":{{"rest":10,"graphql":4,"contentCreating":2}},"deferredReceipt":{receipt}}}"#
    );
    let out = host.expect(
        0,
        &[
            "record",
            "--launch",
            "exec:/bin/true",
            "--pool",
            "costly",
            "-",
        ],
        &line,
    );
    out["id"].as_str().unwrap().to_string()
}

/// A bare receipt (no line, so no cost), due in an hour, in the same pool.
fn record_bare(host: &Host) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), HOUR, 2 * HOUR).to_json();
    let out = host.expect(
        0,
        &[
            "record",
            "--launch",
            "exec:/bin/true",
            "--pool",
            "costly",
            "-",
        ],
        &receipt,
    );
    out["id"].as_str().unwrap().to_string()
}

fn cost_of(host: &Host, id: &str) -> Value {
    host.expect(0, &["show", "--json", id], "")["deferral"]["cost"].clone()
}

/// SQL straight to the store, below the host.
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

    /// `(owner, resource, amount)` rows of a query, as text.
    fn rows(&self, sql: &str) -> Vec<(String, String, i64)> {
        match self {
            Db::Lite(path) => {
                let conn = rusqlite::Connection::open(path).unwrap();
                let mut stmt = conn.prepare(sql).unwrap();
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .unwrap()
                    .collect::<Result<Vec<_>, _>>()
                    .unwrap()
            }
            Db::Pg(schema) => schema
                .client()
                .query(sql, &[])
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect(),
        }
    }

    /// Sets the store's schema version.
    fn set_version(&self, version: i64) {
        match self {
            Db::Lite(_) => self.batch(&format!("PRAGMA user_version = {version};")),
            Db::Pg(_) => self.batch(&format!(
                "UPDATE deferral_schema_version SET version = {version};"
            )),
        }
    }
}

const COSTLY: fn() -> Value = || json!({"rest": 10, "graphql": 4, "content_creating": 2});

fn costs_are_rows_through_record_tick_and_show(host: &Host, db: &Db) {
    let id = record_costly(host);
    let bare = record_bare(host);
    // A newer host's resource beside ours: kept, never read as one of ours.
    db.batch(&format!(
        "INSERT INTO deferral_costs (deferral_id, resource, amount) VALUES ('{id}', 'search', 3);"
    ));
    assert_eq!(
        cost_of(host, &id),
        COSTLY(),
        "record keeps the cost by name"
    );
    assert_eq!(cost_of(host, &bare), Value::Null, "a bare receipt: unknown");
    let report = host.tick(&["--pool-jitter", "0s"]);
    assert_eq!(report["launched"][0]["id"], id, "{report}");
    assert_eq!(cost_of(host, &id), COSTLY(), "after the tick");
    let mut rows = db.rows(&format!(
        "SELECT deferral_id, resource, amount FROM deferral_costs WHERE deferral_id = '{id}' ORDER BY resource"
    ));
    rows.sort();
    let named: Vec<(&str, i64)> = rows.iter().map(|r| (r.1.as_str(), r.2)).collect();
    assert_eq!(
        named,
        [("content", 2), ("graphql", 4), ("rest", 10), ("search", 3)]
    );
    let admitted = db.rows(
        "SELECT CAST(admission_seq AS TEXT), resource, amount FROM admission_costs ORDER BY resource",
    );
    let named: Vec<(&str, i64)> = admitted.iter().map(|r| (r.1.as_str(), r.2)).collect();
    assert_eq!(
        named,
        [("content", 2), ("graphql", 4), ("rest", 10)],
        "the admission's cost is rows too"
    );
}

#[test]
fn sqlite_costs_are_rows_through_record_tick_and_show() {
    let host = Host::new();
    let db = Db::Lite(host.db.clone());
    costs_are_rows_through_record_tick_and_show(&host, &db);
}

#[test]
fn postgres_costs_are_rows_through_record_tick_and_show() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url).init();
    costs_are_rows_through_record_tick_and_show(&host, &Db::Pg(schema));
}

/// A store as the host before the cost rows left it: costs in the `*_cost` columns (a `NULL`
/// beside others, as a row edited by hand, is 0), then opened by this host.
fn a_migrated_store_keeps_every_cost(host: &Host, db: &Db, version: i64) {
    let id = record_costly(host);
    let bare = record_bare(host);
    let odd = record_costly(host);
    let report = host.tick(&["--pool-jitter", "0s"]);
    assert_eq!(report["launched"].as_array().unwrap().len(), 2, "{report}");
    db.batch(&format!(
        "{UNDO_COST_ROWS_MIGRATION} \
         UPDATE deferrals SET rest_cost = 10, graphql_cost = 4, content_cost = 2 WHERE id = '{id}'; \
         UPDATE deferrals SET rest_cost = 7, graphql_cost = NULL, content_cost = NULL WHERE id = '{odd}'; \
         UPDATE admissions SET rest_cost = 10, graphql_cost = 4, content_cost = 2 WHERE deferral_id = '{id}'; \
         UPDATE admissions SET rest_cost = 7, graphql_cost = NULL, content_cost = NULL WHERE deferral_id = '{odd}';"
    ));
    // Before the cost rows' migration and the retention's after it (which runs again unchanged).
    db.set_version(version - 2);
    // Any command opens (and migrates) the store.
    assert_eq!(cost_of(host, &id), COSTLY());
    assert_eq!(
        cost_of(host, &odd),
        json!({"rest": 7, "graphql": 0, "content_creating": 0})
    );
    assert_eq!(cost_of(host, &bare), Value::Null, "unknown stays unknown");
    let mut admitted = db.rows(
        "SELECT a.deferral_id, c.resource, c.amount FROM admission_costs c \
         JOIN admissions a ON a.seq = c.admission_seq",
    );
    admitted.sort();
    let mut want = vec![
        (id.clone(), "content".to_string(), 2),
        (id.clone(), "graphql".to_string(), 4),
        (id.clone(), "rest".to_string(), 10),
        (odd.clone(), "content".to_string(), 0),
        (odd.clone(), "graphql".to_string(), 0),
        (odd.clone(), "rest".to_string(), 7),
    ];
    want.sort();
    assert_eq!(admitted, want, "every admission keeps its cost");
}

#[test]
fn sqlite_a_store_from_before_the_cost_rows_keeps_every_cost() {
    let host = Host::new();
    let db = Db::Lite(host.db.clone());
    a_migrated_store_keeps_every_cost(&host, &db, deferral_host::store::sqlite::SCHEMA_VERSION);
}

#[test]
fn postgres_a_store_from_before_the_cost_rows_keeps_every_cost() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url).init();
    a_migrated_store_keeps_every_cost(
        &host,
        &Db::Pg(schema),
        deferral_host::store::postgres::SCHEMA_VERSION,
    );
}
