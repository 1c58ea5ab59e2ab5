//! The record answer's bytes and the record body's refusals, pinned: `deferral-host record` and
//! `POST /v1/deferrals` answer the same text for a new deferral (the receipt embedded as the host
//! issued it, the forecast's fields after the handle) and for one recorded before, and refuse a
//! bad pool, fairness key or priority with the same code from either entry.

mod common;

use common::serve_client::Serve;
use common::{now, Host, HOUR};
use serde_json::Value;

/// The answer a new deferral gets: each member in this order, the receipt the host issued
/// (the handoff given, retained: its own digests) in the contract's order.
fn new_answer(answer: &str, handoff: &str) -> String {
    let v: Value = serde_json::from_str(answer).expect("a JSON answer");
    let owned = &v["receipt"]["ownership"];
    let receipt = handoff.replace(
        r#""disposition":"handoff","mode":"governed-handoff","wakeup_digest":null,"cancellation_digest":null"#,
        &format!(
            r#""disposition":"retained","mode":"durable-host","wakeup_digest":{},"cancellation_digest":{}"#,
            owned["wakeup_digest"], owned["cancellation_digest"]
        ),
    );
    format!(
        "{{\"id\":{},\"receipt\":{receipt},\"cancellation_handle\":{},\"expected_start\":{},\"expected_start_ms\":{},\"will_expire\":false}}",
        v["id"], v["cancellation_handle"], v["expected_start"], v["expected_start_ms"]
    )
}

/// The answer a receipt recorded before gets.
fn existing_answer(answer: &str) -> String {
    let v: Value = serde_json::from_str(answer).expect("a JSON answer");
    format!(
        "{{\"already_recorded\":true,\"id\":{},\"state\":\"deferred\"}}",
        v["id"]
    )
}

#[test]
fn the_cli_answers_the_pinned_text() {
    let host = Host::new();
    let receipt = deferral_host_conformance::handoff(now(), 60_000, HOUR).to_json();
    let args = ["record", "--launch", "exec:/bin/true", "--pool", "p", "-"];
    let first = host.run(&args, &receipt);
    assert!(first.status.success(), "{first:?}");
    let first = String::from_utf8(first.stdout).unwrap();
    let first = first.trim_end();
    assert_eq!(first, new_answer(first, &receipt));
    let v: Value = serde_json::from_str(first).unwrap();
    assert!(v["expected_start"].is_string(), "{first}");
    assert!(v["expected_start_ms"].as_u64().unwrap() >= now() + 50_000);
    let again = host.run(&args, &receipt);
    let again = String::from_utf8(again.stdout).unwrap();
    assert_eq!(again.trim_end(), existing_answer(&again));
    assert_eq!(
        serde_json::from_str::<Value>(&again).unwrap()["id"],
        v["id"]
    );
}

/// `serve` allowing the one target these tests launch, in its own store.
struct Server {
    host: Host,
    serve: Serve,
}

impl Server {
    fn start() -> Server {
        let host = Host::new();
        let serve = Serve::start(&host, &["exec:/bin/true"]);
        Server { host, serve }
    }

    /// POST /v1/deferrals: (status, body text).
    fn record(&self, body: &str) -> (u16, String) {
        self.serve.call_text("POST", "/v1/deferrals", body)
    }

    /// POST /v1/deferrals: (status, the error's code).
    fn code(&self, body: &str) -> (u16, String) {
        let (status, text) = self.record(body);
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        (
            status,
            v["error"]["code"].as_str().unwrap_or(&text).to_string(),
        )
    }
}

#[test]
fn serve_answers_the_pinned_text() {
    let server = Server::start();
    let receipt = deferral_host_conformance::handoff(now(), 60_000, HOUR).to_json();
    // Spacing and member order of the body do not matter; the answer's receipt is the host's.
    let body = format!(
        "{{ \"priority\": 3, \"fairness_key\": \"team a\", \"pool\": \"p\", \"launch\": \"exec:/bin/true\", \"receipt\": {receipt} }}"
    );
    let (status, first) = server.record(&body);
    assert_eq!(status, 201, "{first}");
    assert_eq!(first, format!("{}\n", new_answer(&first, &receipt)));
    let (status, again) = server.record(&body);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, format!("{}\n", existing_answer(&again)));
    // A receipt given as a string holding it records the same deferral.
    let as_string = format!(
        "{{\"receipt\":{},\"launch\":\"exec:/bin/true\",\"pool\":\"p\",\"priority\":3,\"fairness_key\":\"team a\"}}",
        Value::from(receipt.as_str())
    );
    let (status, third) = server.record(&as_string);
    assert_eq!((status, third), (200, again));
}

#[test]
fn a_bad_place_in_a_pool_has_one_code_from_either_entry() {
    let server = Server::start();
    let host = Host::new();
    let receipt = || deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let body = |extra: &str| {
        format!(
            "{{\"receipt\":{},\"launch\":\"exec:/bin/true\"{extra}}}",
            receipt()
        )
    };
    let cli = |flags: &[&str]| {
        let mut args = vec!["record", "--launch", "exec:/bin/true"];
        args.extend_from_slice(flags);
        args.push("-");
        let out = host.run(&args, &receipt());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (
            out.status.code(),
            v["error"]["code"].as_str().unwrap_or("").to_string(),
        )
    };
    for (extra, flags, code) in [
        (",\"pool\":\"a b\"", vec!["--pool", "a b"], "invalid-pool"),
        (",\"pool\":\"\"", vec!["--pool", ""], "invalid-pool"),
        (
            ",\"fairness_key\":\"a\\nb\"",
            vec!["--fairness-key", "a\nb"],
            "invalid-fairness-key",
        ),
        (
            ",\"fairness_key\":\"\"",
            vec!["--fairness-key", ""],
            "invalid-fairness-key",
        ),
    ] {
        assert_eq!(
            server.code(&body(extra)),
            (422, code.to_string()),
            "{extra}"
        );
        assert_eq!(cli(&flags), (Some(2), code.to_string()), "{flags:?}");
    }
    for (extra, code) in [
        (",\"priority\":1.5", "invalid-priority"),
        (",\"priority\":\"high\"", "invalid-priority"),
        (",\"pool\":7", "invalid-pool"),
        (",\"fairness_key\":[\"k\"]", "invalid-fairness-key"),
    ] {
        assert_eq!(
            server.code(&body(extra)),
            (422, code.to_string()),
            "{extra}"
        );
    }
    // Nothing refused was recorded, by either entry.
    for h in [&server.host, &host] {
        let listed = h.run(&["status", "--json"], "");
        let text = String::from_utf8(listed.stdout).unwrap();
        assert!(!text.contains("\"id\""), "{text}");
    }
}
