//! `serve` given the same receipt by several clients at the same moment (so in one group commit,
//! or in batches one after the other) records it once: one 201 with the handle, the rest 200
//! naming the same deferral.

mod common;

use common::serve_client::Serve;
use common::{now, Host, HOUR};
use serde_json::{json, Value};
use std::sync::{Arc, Barrier};

const CLIENTS: usize = 8;

#[test]
fn eight_clients_posting_one_receipt_at_once_make_one_deferral() {
    let host = Host::new();
    let serve = Arc::new(Serve::start(&host, &[]));
    let receipt: Value =
        serde_json::from_str(&deferral_host_conformance::handoff(now(), 0, HOUR).to_json())
            .unwrap();
    let body =
        json!({"receipt": receipt, "launch": "workflow-dispatch:o/r/w.yml@main"}).to_string();
    let start = Arc::new(Barrier::new(CLIENTS));
    let answers: Vec<(u16, Value)> = (0..CLIENTS)
        .map(|_| {
            let (serve, body, start) = (serve.clone(), body.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                serve.post("/v1/deferrals", &body)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();

    let created: Vec<&Value> = answers
        .iter()
        .filter(|(s, _)| *s == 201)
        .map(|(_, b)| b)
        .collect();
    assert_eq!(created.len(), 1, "{answers:?}");
    assert!(created[0]["cancellation_handle"].is_string(), "{answers:?}");
    let id = &created[0]["id"];
    for (status, answer) in answers.iter().filter(|(s, _)| *s != 201) {
        assert_eq!(*status, 200, "{answers:?}");
        assert_eq!(&answer["id"], id, "{answers:?}");
        assert_eq!(answer["already_recorded"], true, "{answers:?}");
        assert!(answer.get("cancellation_handle").is_none(), "{answers:?}");
    }
    drop(serve);
    let listed = host.expect(0, &["status", "--json"], "");
    assert_eq!(listed["deferrals"].as_array().unwrap().len(), 1, "{listed}");
}
