//! The JS library's decisions, natively: every code has one template, and each op answers the
//! refusal or the result the library throws or returns (tests/node/*: the same through wasm).

use deferral_driver::library::{answer, error::Code};
use serde_json::{json, Value};
use std::collections::HashSet;

fn ask(input: Value) -> Value {
    serde_json::from_str(&answer(&input.to_string())).unwrap()
}

fn code(input: Value) -> String {
    let out = ask(input);
    assert_eq!(out["ok"], false, "{out}");
    out["error"]["props"]["code"].as_str().unwrap().to_string()
}

const NOW: u64 = 1_800_000_000_000;

fn receipt(retained: bool) -> String {
    let ownership = if retained {
        json!({"disposition":"retained","mode":"durable-host","wakeup_digest":"d".repeat(64),"cancellation_digest":"e".repeat(64)})
    } else {
        json!({"disposition":"handoff","mode":"governed-handoff","wakeup_digest":null,"cancellation_digest":null})
    };
    json!({"schema":1,"version":"deferred-receipt-v1","status":"deferred","reason":"rest-reserve",
        "issued_at_ms":NOW,"resume_after_ms":NOW + 100,"resume_by_ms":NOW + 1000,
        "bindings":{"scope_digest":"a".repeat(64),"request_digest":"b".repeat(64),"plan_digest":null},
        "ownership":ownership,"fresh_approval_required":true})
    .to_string()
}

#[test]
fn every_code_is_unique_and_has_one_template() {
    let names: HashSet<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(names.len(), Code::ALL.len());
    for c in Code::ALL {
        let braces = c.template().matches('{').count();
        let filled = c.message(&[
            ("wait", "1"),
            ("got", "x"),
            ("missing", "x"),
            ("attempt", "1"),
            ("current", "2"),
            ("what", "x"),
            ("origin", "x"),
            ("why", "x"),
            ("status", "500"),
            ("key", "x"),
            ("id", "x"),
            ("op", "x"),
            ("detail", "x"),
            ("pool", "x"),
        ]);
        assert!(
            !filled.contains('{'),
            "{} keeps a placeholder: {filled}",
            c.as_str()
        );
        assert!(
            braces <= 2 && c.template().chars().next().unwrap().is_lowercase(),
            "{}",
            c.as_str()
        );
    }
    assert_eq!(code(json!({"op": "no-such-op"})), "unknown-op");
}

#[test]
fn handoff_defaults_to_upstreams_window_and_reason() {
    let input = json!({"text": json!({"resource":"rest","issuedAtMs":NOW,"scopeDigest":"a".repeat(64),"requestDigest":"b".repeat(64),"planDigest":null,"freshApprovalRequired":false}).to_string(), "dropped": []});
    let out = ask(json!({"op": "handoff", "input": input}));
    let r: Value = serde_json::from_str(out["receipt"].as_str().unwrap()).unwrap();
    assert_eq!(
        (
            r["reason"].as_str(),
            r["resume_after_ms"].as_u64(),
            r["resume_by_ms"].as_u64()
        ),
        (
            Some("rest-reserve"),
            Some(NOW + 60_000),
            Some(NOW + 900_000)
        )
    );
    let dropped = json!({"text": json!({"resource":"graphql","issuedAtMs":NOW,"scopeDigest":"a".repeat(64),"requestDigest":"b".repeat(64),"freshApprovalRequired":true}).to_string(), "dropped": [["planDigest", "undefined"]]});
    let out = ask(json!({"op": "handoff", "input": dropped}));
    assert_eq!(
        out["error"]["props"],
        json!({"code": "wrong-type", "path": "$.bindings.plan_digest", "detail": "$.bindings.plan_digest must be a JSON value, not undefined"})
    );
    assert_eq!(out["error"]["message"], "invalid deferred receipt");
}

#[test]
fn upstream_host_checks_in_order() {
    let (handoff, retained) = (receipt(false), receipt(true));
    assert_eq!(
        code(json!({"op": "retain", "receipt": retained, "now": NOW})),
        "already-retained"
    );
    assert_eq!(
        code(json!({"op": "retain", "receipt": handoff, "now": NOW + 1001})),
        "expired"
    );
    assert_eq!(
        code(json!({"op": "retain", "receipt": handoff, "now": 1.5})),
        "invalid-now"
    );
    assert_eq!(
        ask(json!({"op": "retain", "receipt": handoff, "now": NOW}))["ok"],
        true,
        "retained before it is due"
    );
    assert_eq!(
        code(json!({"op": "resume", "receipt": handoff, "now": NOW + 100, "fresh": "function"})),
        "not-retained"
    );
    assert_eq!(
        code(json!({"op": "resume", "receipt": retained, "now": NOW + 99, "fresh": "function"})),
        "not-yet-due"
    );
    assert_eq!(
        code(json!({"op": "resume", "receipt": retained, "now": NOW + 100, "fresh": "string"})),
        "invalid-fresh-process"
    );
    for (state, run) in [
        ("resumable", true),
        ("deferred", false),
        ("expired", false),
        ("cancelled", false),
        ("complete", false),
        ("ready", false),
        ("other", false),
    ] {
        assert_eq!(
            ask(json!({"op": "may_run", "state": state}))["run"],
            run,
            "{state}"
        );
    }
    let other = receipt(false).replace(&"a".repeat(64), &"9".repeat(64));
    let out =
        ask(json!({"op": "outcome", "previous": retained, "status": "deferred", "next": other}));
    assert_eq!(
        out["result"],
        json!({"status": "blocked", "code": "binding-mismatch", "field": "scope_digest"})
    );
    assert_eq!(
        code(json!({"op": "outcome", "previous": retained, "status": "done"})),
        "invalid-outcome"
    );
    assert_eq!(
        code(
            json!({"op": "host_form", "methods": {"schedule": true, "state": true}, "second": "undefined"})
        ),
        "invalid-durable-port"
    );
    assert_eq!(
        ask(json!({"op": "host_form", "methods": {}, "second": "undefined"}))["durable"],
        false
    );
}

#[test]
fn serve_client_and_port_refusals() {
    let (handoff, retained) = (receipt(false), receipt(true));
    assert_eq!(
        code(json!({"op": "port_client", "token": true})),
        "invalid-port"
    );
    assert_eq!(
        code(json!({"op": "port_client", "url": "ftp://x", "token": true})),
        "invalid-port"
    );
    assert_eq!(
        ask(json!({"op": "port_client", "url": "HTTP://127.0.0.1:1", "token": true}))["timeout_ms"],
        15_000
    );
    assert_eq!(
        code(json!({"op": "client_retain", "receipt": retained, "launch": "exec:/bin/true"})),
        "already-retained"
    );
    assert_eq!(
        code(json!({"op": "client_retain", "receipt": handoff, "launch": ""})),
        "invalid-launch"
    );
    assert_eq!(
        code(json!({"op": "client_outcome", "outcome": "deferred"})),
        "missing-receipt"
    );
    assert_eq!(
        code(json!({"op": "client_cancel", "deferral": {"state": "complete"}})),
        "illegal-transition"
    );
    assert_eq!(
        code(json!({"op": "client_claim", "attempt": 1, "current": 2})),
        "stale-attempt"
    );
    assert_eq!(
        ask(json!({"op": "port_state", "state": "cancelled", "cause": "expired"}))["state"],
        "expired"
    );
    assert_eq!(
        ask(json!({"op": "port_state", "state": "ready"}))["state"],
        "deferred"
    );
    let sent = ask(json!({"op": "schedule", "receipt": handoff}));
    let out =
        ask(json!({"op": "scheduled", "digest": sent["digest"], "id": "dok", "receipt": retained}));
    assert_eq!(out["handles"]["wakeupDigest"], "d".repeat(64), "{out}");
    assert_eq!(
        code(
            json!({"op": "scheduled", "digest": "0".repeat(64), "id": "dok", "receipt": retained})
        ),
        "unexpected-receipt"
    );
    // A port's made-up id, handle or state: the Action's check, refused before use.
    for bad in [
        json!({"op": "scheduled", "digest": sent["digest"], "id": "..", "receipt": retained}),
        json!({"op": "scheduled", "digest": sent["digest"], "id": "dok", "receipt": retained, "cancellation_handle": "../x"}),
        json!({"op": "port_deferral", "id": "..", "state": "deferred"}),
        json!({"op": "port_deferral", "id": "dok", "state": "mine"}),
        json!({"op": "port_deferral", "id": ""}),
    ] {
        assert_eq!(code(bad.clone()), "invalid-port-answer", "{bad}");
    }
    assert!(ask(json!({"op": "port_deferral", "id": "dok", "state": "resumable"}))["ok"] == true);
    assert_eq!(
        code(json!({"op": "store_key", "key": "../x"})),
        "invalid-key"
    );
}

#[test]
fn octokit_gate_takes_the_actions_defaults_and_refuses_bad_options() {
    let out = ask(
        json!({"op": "octokit_gate", "options": {"restReserve": 50}, "env": {"GITHUB_REPOSITORY": "octo/app"}, "now_ms": NOW}),
    );
    assert_eq!(out["base"]["policy"], json!({"rest_reserve": 50}));
    assert_eq!(out["base"]["scope"]["api"], "https://api.github.com");
    assert_eq!(out["base"]["scope"]["repository"], "octo/app");
    assert_eq!(out["base"]["fresh_approval_required"], true);
    assert!(out["bindings"]["scope_digest"].is_string(), "{out}");
    let bad = ask(
        json!({"op": "octokit_gate", "options": {"restReserve": "lots"}, "env": {}, "now_ms": NOW}),
    );
    assert_eq!(bad["error"]["props"]["code"], "invalid-input", "{bad}");
    assert!(bad["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("invalid deferral options: "));
    // A raw GraphQL body is costed in points; a search request names its bucket.
    let costly = "query { viewer { repositories(first: 100) { nodes { issues(first: 50) { nodes { labels(first: 60) { nodes { name } } } } } } } }";
    for options in [
        json!({"method": "POST", "url": "/graphql", "data": {"query": costly}}),
        json!({"method": "POST", "url": "/graphql", "data": json!({"query": costly}).to_string()}),
        json!({"method": "POST", "url": "https://ghe.example/api/graphql", "query": costly}),
    ] {
        let known = ask(json!({"op": "octokit_request", "options": options}));
        assert_eq!(known["bucket"], "graphql", "{known}");
        assert_eq!(known["plan"]["graphql"][0]["query"], costly, "{known}");
    }
    let search = ask(
        json!({"op": "octokit_request", "options": {"method": "GET", "url": "/search/issues?q=x"}}),
    );
    assert_eq!(
        (search["bucket"].as_str(), search["free"].as_bool()),
        (Some("search"), Some(false))
    );
    assert_eq!(
        ask(json!({"op": "octokit_request", "options": {"url": "/rate_limit"}}))["free"],
        true
    );
    // What is in flight counts against what is left.
    let reset = NOW / 1000 + 600;
    let input = json!({"policy": {"rest_reserve": 500}, "scope": "s", "now_ms": NOW,
        "rate": {"unlimited": false, "resources": {"core": {"limit": 5000, "remaining": 505, "reset": reset}}},
        "plan": {"rest": [{"method": "POST", "route": "/x"}]}});
    let go = |n: u64| {
        ask(json!({"op": "octokit_decide", "input": input, "in_flight": {"core": n}}))["go"].clone()
    };
    assert_eq!((go(4), go(5)), (json!(true), json!(false)));
    // A primary limit answer without x-ratelimit-limit spends its bucket over the snapshot.
    let snapshot = json!({"unlimited": false, "resources": {"core": {"limit": 5000, "remaining": 4000, "used": 1000, "reset": reset}}});
    let seen = ask(
        json!({"op": "octokit_observe", "snapshot": snapshot, "path": "/user", "status": 403,
        "headers": {"x-ratelimit-remaining": "0", "x-ratelimit-resource": "core", "x-ratelimit-reset": (reset - 300).to_string()},
        "body": "{\"message\":\"API rate limit exceeded for user ID 1.\"}", "now_ms": NOW}),
    );
    assert_eq!(
        (seen["limited"].as_bool(), seen["bucket"].as_str()),
        (Some(true), Some("core")),
        "{seen}"
    );
    assert_eq!(
        seen["snapshot"]["resources"]["core"]["remaining"], 0,
        "{seen}"
    );
    assert_eq!(
        seen["ledger"]["resources"]["core"]["reset"],
        reset - 300,
        "{seen}"
    );
    let permissions = ask(
        json!({"op": "octokit_observe", "snapshot": snapshot, "path": "/user", "status": 403,
        "headers": {"x-ratelimit-remaining": "3999", "x-ratelimit-resource": "core"}, "body": "{\"message\":\"Resource not accessible by integration\"}", "now_ms": NOW}),
    );
    assert_eq!(permissions["limited"], false, "{permissions}");
    assert_eq!(
        code(json!({"op": "octokit_wrap", "octokit": true, "wrapped": true})),
        "already-gated"
    );
}

#[test]
fn library_codes_mean_one_thing_across_the_core() {
    use deferral_core::receipt::ErrorCode;
    use deferral_driver::attempt::AttemptError;
    let library: HashSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    let receipt: HashSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert!(library.is_disjoint(&receipt));
    // Shared with the attempt only where the refusal is the same one (`coordinator-failed`: a
    // pool that refused a plan its own window leaves room for, in the Octokit gate and the Action).
    let shared: HashSet<&str> = AttemptError::CODES
        .into_iter()
        .filter(|c| library.contains(c))
        .collect();
    assert!(
        shared.is_subset(&HashSet::from([
            "not-yet-due",
            "expired",
            "invalid-launch",
            "coordinator-failed"
        ])),
        "{shared:?}"
    );
}

/// A search bucket the answers' headers emptied (the ledger) is honoured before the next search
/// request, whether or not a `/rate_limit` snapshot was read first: the ledger's entries carry
/// `observed_at_ms`, which the snapshot's windows do not.
#[test]
fn a_search_bucket_the_ledger_saw_spent_defers_the_next_search_request() {
    let reset = NOW / 1000 + 600;
    let entry = |remaining: u64| json!({"limit": 30, "remaining": remaining, "used": 30 - remaining, "reset": reset, "observed_at_ms": NOW - 1000});
    let ledger = json!({"version": "deferral-ledger-v1", "clock": null, "secondary": null,
        "resources": {"core": {"limit": 5000, "remaining": 4000, "used": 1000, "reset": reset, "observed_at_ms": NOW - 1000},
                      "search": entry(0)}});
    let decide = |rate: Value| {
        let input = json!({"policy": {}, "scope": "s", "now_ms": NOW, "rate": rate, "ledger": ledger,
            "plan": {"rest": [{"method": "GET", "route": "/search/issues"}]}});
        ask(json!({"op": "octokit_decide", "input": input, "in_flight": {}, "bucket": "search"}))
    };
    // No snapshot read: only the ledger knows the search bucket.
    let alone = decide(Value::Null);
    // A snapshot from before the requests that emptied it (30 left then).
    let stale = decide(
        json!({"unlimited": false, "resources": {"search": {"limit": 30, "remaining": 30, "used": 0, "reset": reset}}}),
    );
    for answer in [alone, stale] {
        assert_eq!(answer["go"], false, "{answer}");
        assert_eq!(answer["decision"]["status"], "deferred", "{answer}");
        assert_eq!(answer["decision"]["rest"]["resource"], "search", "{answer}");
    }
}

#[test]
fn every_op_is_listed_once_and_the_js_asks_only_listed_ops() {
    let names = deferral_driver::library::names();
    let unique: HashSet<&str> = names.iter().copied().collect();
    assert_eq!(
        unique.len(),
        names.len(),
        "an op is listed twice: {names:?}"
    );
    for name in &names {
        let op = deferral_driver::library::Op::parse(name).unwrap();
        // Each op is answered by its own part: never `unknown-op`.
        let out = ask(json!({ "op": name }));
        assert_ne!(
            out["error"]["props"]["code"], "unknown-op",
            "{name} ({op:?}): {out}"
        );
    }
    // Every op the shipped library really asked for (the library vectors are the Node suite's
    // crossings, harvested: tests/vectors/library/README.md) is one of them.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vectors/library/cases.json"
    );
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let asked: HashSet<&str> = vectors["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["input"]["op"].as_str())
        .collect();
    assert!(asked.len() >= 40, "{asked:?}");
    for name in &asked {
        assert!(
            unique.contains(name),
            "the library asked for {name}, which no part answers"
        );
    }
}
