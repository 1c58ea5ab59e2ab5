//! `deferral/octokit`'s decisions: the gate's base decision input from the plugin's options and
//! the runner's environment (the Action's defaults), the decision before each request, and
//! which answers are rate limits. The JS keeps only the state between requests.

use super::error::{Code, Form, Refusal};
use super::op::ops;
use super::Answer;
use super::{done, obj};
use crate::attempt::default_scope;
use deferral_core::decision::decide_json;
use deferral_core::ledger::ResourceEntry;
use deferral_core::signals::{RateWindow, REST_RESOURCE};
use deferral_protocol::Resource;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The plugin's option names and the policy fields they set (docs/decision.md).
const POLICY: [(&str, &str); 5] = [
    ("restReserve", "rest_reserve"),
    ("graphqlReserve", "graphql_reserve"),
    ("resumeBufferMs", "resume_buffer_ms"),
    ("resumeWindowMs", "resume_window_ms"),
    ("jitterMaxMs", "jitter_max_ms"),
];

/// The runner's variables the default scope reads ([`default_scope`]): the JS passes only these.
const ENV: [&str; 4] = [
    "GITHUB_API_URL",
    "GITHUB_REPOSITORY",
    "GITHUB_WORKFLOW_REF",
    "GITHUB_JOB",
];

ops! {
    /// The Octokit gate.
    Op {
        OctokitEnv => "octokit_env",
        OctokitWrap => "octokit_wrap",
        OctokitGate => "octokit_gate",
        OctokitRequest => "octokit_request",
        OctokitDecide => "octokit_decide",
        OctokitObserve => "octokit_observe",
        OctokitUnreadable => "octokit_unreadable",
        OctokitReport => "octokit_report",
    }
}

/// Answers one of this part's ops.
pub fn run(op: Op, v: &Value) -> Answer {
    match op {
        Op::OctokitEnv => Ok(obj(vec![("names", Value::from(ENV.to_vec()))])),
        Op::OctokitWrap => wrap(v),
        Op::OctokitReport => super::octokit_report::line(v),
        Op::OctokitGate => gate(v),
        Op::OctokitRequest => Ok(super::octokit_request::request(&v["options"])),
        Op::OctokitDecide => {
            let decision = gated(v);
            let go = Value::Bool(decision["status"] == "ready");
            let spends = spends(&decision, v["bucket"].as_str());
            Ok(obj(vec![
                ("decision", decision),
                ("go", go),
                ("spends", spends),
            ]))
        }
        Op::OctokitObserve => Ok(super::octokit_answer::observe(v)),
        Op::OctokitUnreadable => Ok(obj(vec![("decision", unreadable(&v["error"]))])),
    }
}

/// A rate state: unlimited (to read the options' shape), or nothing seen yet.
fn rate(unlimited: bool) -> Value {
    obj(vec![
        ("unlimited", Value::Bool(unlimited)),
        ("resources", Value::Object(Map::new())),
    ])
}

fn given(options: &Value, name: &str) -> Option<Value> {
    options.get(name).filter(|v| !v.is_null()).cloned()
}

/// The decision on `input`; with no rate state yet, none is known (every resource unseen). A
/// GraphQL document the estimator cannot cost is still one call of at least one point.
pub fn decide(input: &Value) -> Value {
    let mut input = input.clone();
    if input["rate"].is_null() {
        input["rate"] = rate(false);
    }
    let run = |input: &Value| {
        serde_json::from_str::<Value>(&decide_json(
            &serde_json::to_string(input).unwrap_or_default(),
        ))
        .unwrap_or(Value::Null)
    };
    let decision = run(&input);
    if decision["status"] == "error"
        && decision["code"] == "invalid-plan"
        && !input["plan"]["graphql"].is_null()
    {
        input["plan"] = obj(vec![(
            "graphql",
            Value::Array(vec![obj(vec![("points", Value::from(1))])]),
        )]);
        return run(&input);
    }
    decision
}

/// `{input, in_flight: {bucket: count}, bucket}`: the decision on `input` with what is in
/// flight counted against what is left (each request's cost is taken when it is admitted and
/// given back when its answer is recorded, so parallel requests cannot all pass the reserve on
/// the same figures), and for a request to another bucket than core and graphql (search,
/// code_search) that bucket's own window besides.
fn gated(v: &Value) -> Value {
    let mut input = v["input"].clone();
    if let Some(in_flight) = v["in_flight"].as_object() {
        for (name, count) in in_flight {
            let count = count.as_u64().unwrap_or(0);
            for holder in ["rate", "ledger"] {
                let at = format!("/{holder}/resources/{name}/remaining");
                if let Some(remaining) = input.pointer_mut(&at) {
                    let left = remaining.as_u64().unwrap_or(0).saturating_sub(count);
                    *remaining = Value::from(left);
                }
            }
        }
    }
    let decision = decide(&input);
    match v["bucket"].as_str() {
        Some(bucket) if decision["status"] == "ready" && Resource::of_bucket(bucket).is_none() => {
            own_bucket(&input, bucket).unwrap_or(decision)
        }
        _ => decision,
    }
}

/// What an admitted request takes from each bucket while it is in flight: the decision's cost
/// of its plan, and one of its own bucket (search, code_search) besides.
fn spends(decision: &Value, bucket: Option<&str>) -> Value {
    let mut out = serde_json::Map::new();
    for r in Resource::ALL {
        let cost = decision["plan"][r.as_str()].as_u64().unwrap_or(0);
        if cost > 0 {
            out.insert(r.bucket().to_string(), Value::from(cost));
        }
    }
    if let Some(bucket) = bucket.filter(|b| Resource::of_bucket(b).is_none()) {
        out.insert(bucket.to_string(), Value::from(1));
    }
    Value::Object(out)
}

/// A request to `bucket` (search, code_search) when that bucket has nothing left before its
/// reset: deferred to the reset, by the decision's own rules (buffer, jitter, window) with the
/// bucket in core's place and no reserve, reason `rest-reserve` (search is a REST bucket).
/// `None` while the bucket has room, has refilled, or was never seen.
fn own_bucket(input: &Value, bucket: &str) -> Option<Value> {
    let now = input["now_ms"].as_u64().unwrap_or(0);
    // The snapshot holds GitHub's windows; the ledger its own entries, which say when each
    // was observed (a window read from them would be refused for that field).
    let seen = RateWindow::deserialize(&input["rate"]["resources"][bucket])
        .ok()
        .map(|w| ResourceEntry::from_window(&w, now));
    let recorded = ResourceEntry::deserialize(&input["ledger"]["resources"][bucket]).ok();
    let merged = match (seen, recorded) {
        (Some(a), Some(b)) => a.merge(&b),
        (a, b) => a.or(b)?,
    };
    let offset = input["clock_offset_ms"]
        .as_i64()
        .or_else(|| input["ledger"]["clock"]["offset_ms"].as_i64())
        .unwrap_or(0);
    let server_now_ms = i128::from(now) + i128::from(offset);
    if merged.remaining > 0 || i128::from(merged.reset) * 1000 <= server_now_ms {
        return None;
    }
    let mut swapped = input.clone();
    swapped["rate"] = obj(vec![
        ("unlimited", Value::Bool(false)),
        (
            "resources",
            obj(vec![(REST_RESOURCE, merged.window().to_value())]),
        ),
    ]);
    if swapped["ledger"].is_object() {
        swapped["ledger"]["resources"] = Value::Object(Map::new());
    }
    if !swapped["policy"].is_object() {
        swapped["policy"] = Value::Object(Map::new());
    }
    swapped["policy"]["rest_reserve"] = Value::from(0);
    let mut decision = decide(&swapped);
    if decision["status"] != "deferred" {
        return None;
    }
    decision["rest"]["resource"] = Value::from(bucket);
    let message = format!(
        "{bucket} has nothing left until its reset at {} (epoch s); this request needs it",
        merged.reset
    );
    decision["diagnostics"] = Value::Array(vec![obj(vec![
        ("code", Value::from(format!("{bucket}-spent"))),
        ("message", Value::from(message)),
    ])]);
    Some(decision)
}

/// The gate of one Octokit instance: its base decision input, the work's plan, and the
/// receipt's bindings (the work's, whatever one request is being admitted). Options that
/// cannot make a decision are refused before any request, with the decision's code.
fn gate(v: &Value) -> Answer {
    let options = &v["options"];
    let mut policy = Map::new();
    for (option, field) in POLICY {
        if let Some(value) = given(options, option) {
            policy.insert(field.to_string(), value);
        }
    }
    let env = v["env"].as_object().cloned().unwrap_or_default();
    let base = obj(vec![
        ("policy", Value::Object(policy)),
        (
            "scope",
            given(options, "scope").unwrap_or_else(|| default_scope(&env)),
        ),
        ("request", given(options, "request").unwrap_or(Value::Null)),
        (
            "fresh_approval_required",
            given(options, "freshApprovalRequired").unwrap_or(Value::Bool(true)),
        ),
    ]);
    let plan = given(options, "plan").unwrap_or(Value::Null);
    let mut probe = base.clone();
    probe["rate"] = rate(true);
    probe["plan"] = plan.clone();
    probe["now_ms"] = v["now_ms"].clone();
    let shape = decide(&probe);
    if shape["status"] == "error" {
        let why: Vec<&str> = shape["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["message"].as_str())
            .collect();
        let mut refusal = Refusal::new(
            Form::Type,
            Code::InvalidOptions,
            &[("why", &why.join("; "))],
        );
        refusal.code = shape["code"].as_str().unwrap_or_default().to_string();
        return Err(refusal);
    }
    let pool = pool_option(options, &plan, v["port"].as_str().unwrap_or("none"))?;
    Ok(obj(vec![
        ("base", base),
        ("plan", plan),
        ("bindings", shape["bindings"].clone()),
        ("pool", pool.map_or(Value::Null, Value::from)),
    ]))
}

/// `port` (`none`, `usable` with admit and release methods, or `unusable`) and `pool` come
/// together, with a plan: the batch the pool admits before it proceeds.
fn pool_option<'a>(
    options: &'a Value,
    plan: &Value,
    port: &str,
) -> Result<Option<&'a str>, Refusal> {
    let why = |why: &str| Refusal::new(Form::Type, Code::InvalidOptions, &[("why", why)]);
    if port == "unusable" {
        return Err(why(
            "port needs admit and release methods, e.g. createServePort(...)",
        ));
    }
    match (
        options.get("pool").filter(|p| !p.is_null()),
        port == "usable",
    ) {
        (None, false) => Ok(None),
        (None, true) => Err(why("port needs pool: the pool whose quota the work shares")),
        (Some(_), false) => Err(why(
            "pool needs port: a durable port with admit and release, e.g. createServePort(...)",
        )),
        (Some(_), true) if plan.is_null() => Err(why(
            "pool needs plan: the batch the pool admits before the first request",
        )),
        (Some(name), true) => super::pool::pool_name(name).map(Some).map_err(|mut r| {
            r.form = Form::Type;
            r
        }),
    }
}

/// What `GET /rate_limit` answered and the core cannot read: no rate state, no decision, so
/// the plugin stops rather than send blind (the Action's `error`).
fn unreadable(error: &Value) -> Value {
    let message = format!(
        "GET /rate_limit answered what the core cannot read: {}",
        error["message"].as_str().unwrap_or_default()
    );
    let diagnostic = obj(vec![
        ("code", error["code"].clone()),
        ("message", Value::from(message)),
    ]);
    obj(vec![
        ("status", Value::from("error")),
        ("code", error["code"].clone()),
        ("diagnostics", Value::Array(vec![diagnostic])),
    ])
}

/// `wrapOctokit(octokit)`: an Octokit instance (with `hook` and `request`), gated once.
fn wrap(v: &Value) -> Answer {
    if v["octokit"].as_bool() != Some(true) {
        return Err(Refusal::new(Form::Type, Code::InvalidOctokit, &[]));
    }
    if v["wrapped"].as_bool() == Some(true) {
        return Err(Refusal::new(Form::Type, Code::AlreadyGated, &[]));
    }
    Ok(done())
}
