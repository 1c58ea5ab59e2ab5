//! Deliveries that cannot be replayed into work, through the real `deferral-host serve` and the
//! GitHub stand-in on loopback. `X-GitHub-Delivery` is not covered by the signature: one
//! captured signed delivery sent again with fresh ids must answer as a redelivery and change
//! nothing (no stored row, no request to GitHub, no place in the worker's queue), so a genuine
//! delivery sent after a thousand of them still ends its deferral at once. A delivery of a run
//! that completed longer ago than GitHub redelivers is a replay too: ignored, not stored. A
//! delivery naming another repository with the run id of a dispatched attempt finishes nothing.

mod common;

use common::github::{epoch_s, iso, Script, Standin, FORK, FORK_ID, REPO, TARGET};
use common::github_cli::{receipt, tick};
use common::webhook::{within, HookServe};
use common::{Host, HOUR};
use serde_json::json;
use std::time::{Duration, Instant};

/// Rows of the store's delivery table, counted below the `Store` trait.
fn delivery_rows(host: &Host) -> i64 {
    let sql = "SELECT COUNT(*) FROM github_deliveries";
    if host.store.starts_with("sqlite:") {
        let conn = rusqlite::Connection::open(&host.db).unwrap();
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    } else {
        let mut client = postgres::Client::connect(&host.store, postgres::NoTls).unwrap();
        client.query_one(sql, &[]).unwrap().get(0)
    }
}

#[test]
fn a_signed_delivery_replayed_1000_times_with_fresh_ids_stores_nothing_asks_nothing_and_delays_nothing(
) {
    replayed(Host::new());
}

#[test]
fn postgres_a_signed_delivery_replayed_with_fresh_ids_stores_nothing_and_asks_nothing() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    replayed(Host::with_store(&schema.url).init());
}

fn replayed(host: Host) {
    let standin = Standin::start();
    // A deferral this host dispatched: the genuine delivery of its run comes last.
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    let run_id = standin.last_run_id();
    // A watched repository's run: each delivery the worker takes for it asks GitHub for the
    // run's artifacts, so a replay that got through would show at the stand-in.
    let serve = HookServe::start(
        &host,
        &standin,
        &["--watch", REPO, "--watch-launch", TARGET],
    );
    let (watched, _) = standin.scheduled_run_with_artifact(&receipt(HOUR / 2, 'd', 'e'), false);
    let captured = standin.completed_delivery(watched).to_string();
    let (status, answer) = serve.deliver_signed("workflow_run", "original", captured.as_bytes());
    assert_eq!((status, &answer["queued"]), (200, &json!(true)), "{answer}");
    let ingested = within(Duration::from_secs(5), || {
        serve
            .log_text()
            .contains("webhook original: run")
            .then_some(())
    });
    assert!(ingested.is_some(), "{}", serve.log_text());
    let rows = delivery_rows(&host);
    let asked = standin.seen().len();

    // The captured body, signed as GitHub signed it, sent again under 1,000 fresh ids, by 8
    // clients at once as a flood would come.
    let not_as_redelivery: Vec<String> = std::thread::scope(|scope| {
        let senders: Vec<_> = (0..8)
            .map(|client| {
                let (serve, captured) = (&serve, &captured);
                scope.spawn(move || {
                    let mut refused = Vec::new();
                    for n in (client..1000).step_by(8) {
                        let delivery = format!("replay-{n}");
                        let (status, answer) =
                            serve.deliver_signed("workflow_run", &delivery, captured.as_bytes());
                        if (status, &answer["already"]) != (200, &json!(true)) {
                            refused.push(format!("{delivery}: {status} {answer}"));
                        }
                    }
                    refused
                })
            })
            .collect();
        senders
            .into_iter()
            .flat_map(|s| s.join().unwrap())
            .collect()
    });
    let rows_after_replays = delivery_rows(&host);

    // The genuine delivery of the dispatched run, sent after them: the worker takes deliveries
    // in order, so once it has ended the deferral, any replay it took was handled before.
    let body = standin.completed_delivery(run_id).to_string();
    let sent = Instant::now();
    let (status, answer) = serve.deliver_signed("workflow_run", "genuine", body.as_bytes());
    assert_eq!((status, &answer["queued"]), (200, &json!(true)), "{answer}");
    let ended = within(Duration::from_secs(30), || {
        (host.status(&id)["state"] == "complete").then(Instant::now)
    });
    let delay = ended.map(|at| at - sent);
    let replay_requests: Vec<String> = standin.seen()[asked..]
        .iter()
        .map(|s| s.path.clone())
        .filter(|p| !p.contains(&format!("/runs/{run_id}/")))
        .collect();
    let summary = format!(
        "answered other than as a redelivery: {} (first: {:?}); rows added: {}; \
         GitHub requests for replays: {}; genuine delivery's effect after {delay:?}",
        not_as_redelivery.len(),
        not_as_redelivery.first(),
        rows_after_replays - rows,
        replay_requests.len(),
    );
    eprintln!("{summary}");
    assert!(
        not_as_redelivery.is_empty()
            && rows_after_replays == rows
            && replay_requests.is_empty()
            && delay.is_some_and(|d| d < Duration::from_secs(2)),
        "{summary}"
    );
    assert_eq!(delivery_rows(&host), rows + 1, "the genuine delivery's row");
}

#[test]
fn a_delivery_naming_another_repository_with_a_dispatched_run_id_finishes_nothing() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    let run_id = standin.last_run_id();
    let serve = HookServe::start(&host, &standin, &[]);
    let before = standin.seen().len();
    // The same run id, signed with the webhook's secret, but of another repository.
    let mut other = standin.completed_delivery(run_id);
    let elsewhere =
        json!({"id": FORK_ID, "full_name": FORK, "fork": false, "default_branch": "main"});
    other["repository"] = elsewhere.clone();
    other["workflow_run"]["repository"] = elsewhere.clone();
    other["workflow_run"]["head_repository"] = elsewhere;
    let (status, answer) =
        serve.deliver_signed("workflow_run", "elsewhere", other.to_string().as_bytes());
    assert_eq!(status, 200, "{answer}");
    let handled = within(Duration::from_secs(5), || {
        let log = serve.log_text();
        log.contains("webhook elsewhere: run").then_some(log)
    });
    assert!(handled.is_some(), "{}", serve.log_text());
    let asked: Vec<String> = standin.seen()[before..]
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert_eq!(
        (asked, host.status(&id)["attempt_status"].clone()),
        (Vec::<String>::new(), json!("dispatched")),
        "another repository's run is not this host's attempt: {}",
        handled.clone().unwrap_or_default()
    );
    let verdict = handled.unwrap_or_default();
    assert!(
        verdict.contains(&format!(
            "webhook elsewhere: run {run_id} of {FORK}: neither dispatched by this host nor watched"
        )),
        "{verdict}"
    );
    // Its own repository's delivery of the same run still ends it.
    let body = standin.completed_delivery(run_id).to_string();
    let (status, answer) = serve.deliver_signed("workflow_run", "own", body.as_bytes());
    assert_eq!(status, 200, "{answer}");
    let ended = within(Duration::from_secs(2), || {
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(ended.is_some(), "{}", serve.log_text());
}

#[test]
fn a_delivery_of_a_run_that_completed_longer_ago_than_github_redelivers_is_ignored_unstored() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    let run_id = standin.last_run_id();
    let serve = HookServe::start(
        &host,
        &standin,
        &["--watch", REPO, "--watch-launch", TARGET],
    );
    let before = (standin.seen().len(), delivery_rows(&host));
    // A watched run's delivery, captured when it came and replayed nine days later (after the
    // store may have pruned its key): its signed body says when the run completed.
    let (watched, _) = standin.scheduled_run_with_artifact(&receipt(HOUR / 2, 'd', 'e'), false);
    let mut old = standin.completed_delivery(watched);
    old["workflow_run"]["updated_at"] = json!(iso(epoch_s() - 9 * 86_400));
    let (status, answer) = serve.deliver_signed("workflow_run", "late", old.to_string().as_bytes());
    assert_eq!(status, 202, "{answer}");
    assert!(
        answer["ignored"]
            .as_str()
            .is_some_and(|why| why.contains("more than 8 days ago")),
        "{answer}"
    );
    // A run that completed a week ago may still be redelivered (GitHub Enterprise Server keeps
    // deliveries seven days): taken.
    let mut week = standin.completed_delivery(run_id);
    week["workflow_run"]["updated_at"] = json!(iso(epoch_s() - 7 * 86_400));
    let (status, answer) =
        serve.deliver_signed("workflow_run", "week", week.to_string().as_bytes());
    assert_eq!((status, &answer["queued"]), (200, &json!(true)), "{answer}");
    let ended = within(Duration::from_secs(2), || {
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(ended.is_some(), "{}", serve.log_text());
    let asked: Vec<String> = standin.seen()[before.0..]
        .iter()
        .map(|s| s.path.clone())
        .filter(|p| !p.contains(&format!("/runs/{run_id}/")))
        .collect();
    assert_eq!(
        asked,
        Vec::<String>::new(),
        "nothing asked for the late one"
    );
    assert_eq!(
        delivery_rows(&host),
        before.1 + 1,
        "the week-old one's row only"
    );
}
