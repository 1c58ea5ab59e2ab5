//! `deferral/octokit`'s decisions: the gate's base decision input from the plugin's options and
//! the runner's environment (the Action's defaults), the decision before each request, and
//! which answers are rate limits. The JS keeps only the state between requests.

use super::error::{Code, Form, Refusal};
use super::Answer;
use super::{done, obj};
use crate::attempt::default_scope;
use crate::decision::decide_json;
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

/// The answer kinds of `observe_response` that are a primary or secondary limit.
const LIMITS: [&str; 3] = ["primary-rest", "primary-graphql", "secondary"];

/// The ops of this file, or `None` for another file's op.
pub fn run(op: &str, v: &Value) -> Option<Answer> {
    Some(match op {
        "octokit_env" => Ok(obj(vec![("names", Value::from(ENV.to_vec()))])),
        "octokit_wrap" => wrap(v),
        "octokit_gate" => gate(v),
        "octokit_decide" => {
            let decision = decide(&v["input"]);
            let go = Value::Bool(decision["status"] == "ready");
            Ok(obj(vec![("decision", decision), ("go", go)]))
        }
        "octokit_limited" => Ok(obj(vec![(
            "limited",
            Value::Bool(v["kind"].as_str().is_some_and(|k| LIMITS.contains(&k))),
        )])),
        "octokit_unreadable" => Ok(obj(vec![("decision", unreadable(&v["error"]))])),
        _ => return None,
    })
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
    Ok(obj(vec![
        ("base", base),
        ("plan", plan),
        ("bindings", shape["bindings"].clone()),
    ]))
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
