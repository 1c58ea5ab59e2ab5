//! A dispatched attempt's run is kept as GitHub names it: `run_url` the API URL, `html_url` the
//! page, in the store, the tick report and `status --json`; a store written before keeps its
//! page under `html_url`. A run that `GET /runs/{id}` answers with `status: null` waits.

mod common;

use common::github::{Origin, Script, Standin, DEFAULT_BRANCH, REPO, TARGET, WORKFLOW};
use common::github_cli::tick;
use common::{Host, HOUR};

fn page(run_id: u64) -> String {
    format!("https://github.example/{REPO}/actions/runs/{run_id}")
}

#[test]
fn the_tick_report_and_status_carry_run_url_and_html_url_as_github_names_them() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let (found, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        polls_in_progress: 5,
        ..Script::default()
    });
    standin.script(Script {
        answer_204: true,
        polls_in_progress: 5,
        ..Script::default()
    });
    let first = tick(&host, &standin);
    let launched = first.json["launched"].as_array().unwrap();
    let entry = launched.iter().find(|l| l["id"] == id.as_str()).unwrap();
    let status = host.status(&id);
    let run_id = status["run_id"].as_u64().expect("the run id");
    let api = format!("{}/repos/{REPO}/actions/runs/{run_id}", standin.api);
    assert_eq!(
        (entry["run_url"].as_str(), entry["html_url"].as_str()),
        (Some(api.as_str()), Some(page(run_id).as_str())),
        "{}",
        first.output
    );
    assert_eq!(
        (status["run_url"].as_str(), status["html_url"].as_str()),
        (Some(api.as_str()), Some(page(run_id).as_str())),
        "{status}"
    );
    // The run found by its title (204): its `url` and `html_url`.
    tick(&host, &standin);
    let status = host.status(&found);
    let run_id = status["run_id"].as_u64().expect("found by title");
    assert_eq!(
        (status["run_url"].as_str(), status["html_url"].as_str()),
        (
            Some(format!("{}/repos/{REPO}/actions/runs/{run_id}", standin.api).as_str()),
            Some(page(run_id).as_str())
        ),
        "{status}"
    );
}

#[test]
fn a_run_answered_with_status_null_waits() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        status_null: true,
        ..Script::default()
    });
    tick(&host, &standin);
    // A full first page of other completed runs: the host's run is asked for alone.
    for n in 0..100 {
        standin.completed_run(
            Origin {
                event: "workflow_dispatch",
                path: format!(".github/workflows/{WORKFLOW}"),
                head_branch: DEFAULT_BRANCH.into(),
                fork: false,
            },
            &format!("Resume other #{n}"),
        );
    }
    let run_id = host.status(&id)["run_id"].as_u64().unwrap();
    let second = tick(&host, &standin);
    assert!(
        second.json["errors"].as_array().is_none_or(Vec::is_empty),
        "{}",
        second.output
    );
    assert_eq!(
        second.json["waiting"][0]["run_id"], run_id,
        "{}",
        second.output
    );
    assert!(standin
        .seen()
        .iter()
        .any(|s| s.path == format!("/repos/{REPO}/actions/runs/{run_id}")));
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    for run in standin.state.lock().unwrap().runs.iter_mut() {
        run.status_null = false;
    }
    tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete");
}

/// Takes a store back to schema version 3, before `run_url` was kept (as an older host left it).
fn to_the_previous_schema(host: &Host) {
    if host.store.starts_with("postgres") {
        let mut client = postgres::Client::connect(&host.store, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!(
                "{}DROP TABLE retries; ALTER TABLE runs DROP COLUMN run_url; \
                 UPDATE deferral_schema_version SET version = 3",
                deferral_host_conformance::UNDO_POOLS_MIGRATION
            ))
            .unwrap();
        return;
    }
    // Version 3: the GitHub loop's tables, before migration 4 added `run_url`.
    let conn = rusqlite::Connection::open(&host.db).unwrap();
    conn.execute_batch(&format!(
        "{}{}DROP TABLE retries; ALTER TABLE runs DROP COLUMN run_url; PRAGMA user_version = 3",
        deferral_host_conformance::UNDO_SQLITE_COUNTS_MIGRATION,
        deferral_host_conformance::UNDO_POOLS_MIGRATION
    ))
    .unwrap();
}

fn migrates(host: Host) {
    let standin = Standin::start();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        polls_in_progress: 5,
        ..Script::default()
    });
    tick(&host, &standin);
    let run_id = host.status(&id)["run_id"].as_u64().unwrap();
    to_the_previous_schema(&host);
    let status = host.status(&id);
    assert_eq!(
        (
            status["run_id"].as_u64(),
            status["html_url"].as_str(),
            status["run_url"].as_str()
        ),
        (Some(run_id), Some(page(run_id).as_str()), None),
        "the page stays the page; the API URL was never kept: {status}"
    );
}

#[test]
fn a_store_from_before_run_url_keeps_its_page_as_html_url() {
    migrates(Host::new());
}

#[test]
fn postgres_a_store_from_before_run_url_keeps_its_page_as_html_url() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    migrates(Host::with_store(&schema.url).init());
}
