//! The library's side of one admission across runners: the serve-backed port's `admit` and
//! `release` (their requests checked before anything is sent, their answers as strictly as the
//! Action checks them), and what `deferral/octokit` sends and folds when it is given a port and
//! a pool. The rules are the core's `pool` and `port_answer`, shared with the Action and CLI.

use super::error::{Code, Form, Refusal};
use super::op::ops;
use super::{obj, shown, Answer};
use crate::port_answer::{self, Admission};
use deferral_core::decision::ResourceFigures;
use deferral_core::plan::PlanCost;
use deferral_core::pool::{self, PoolCost, PoolWindow, PoolWindows};
use deferral_core::signals::RateSnapshot;
use serde::Deserialize;
use serde_json::{Map, Value};

ops! {
    /// One admission across runners.
    Op {
        PoolAdmit => "pool_admit",
        PoolAdmitted => "pool_admitted",
        PoolRelease => "pool_release",
        PoolReleased => "pool_released",
        OctokitAdmission => "octokit_admission",
        OctokitFold => "octokit_fold",
        OctokitDisagrees => "octokit_disagrees",
        OctokitSpend => "octokit_spend",
    }
}

/// Answers one of this part's ops.
pub fn run(op: Op, v: &Value) -> Answer {
    match op {
        Op::PoolAdmit => admit(v),
        Op::PoolAdmitted => admitted(v),
        Op::PoolRelease => release(v),
        Op::PoolReleased => released(&v["answer"]),
        Op::OctokitAdmission => Ok(admission_of(v)),
        Op::OctokitFold => fold(v),
        Op::OctokitSpend => super::octokit_budget::spend(v),
        Op::OctokitDisagrees => Err(Refusal::new(
            Form::Port,
            Code::CoordinatorFailed,
            &[("pool", &shown(&v["pool"]))],
        )),
    }
}

fn request(what: &str) -> Refusal {
    Refusal::new(Form::Port, Code::InvalidAdmissionRequest, &[("what", what)])
}

/// A pool name as the caller gave it.
pub(super) fn pool_name(v: &Value) -> Result<&str, Refusal> {
    v.as_str().filter(|p| pool::is_name(p)).ok_or_else(|| {
        Refusal::new(
            Form::Port,
            Code::InvalidPool,
            &[("got", &serde_json::to_string(v).unwrap_or_default())],
        )
    })
}

/// Whole numbers up to 2^53 - 1 of `names` in an object without other keys; absent is 0.
fn figures(v: &Value, names: &[&str], what: &str) -> Result<Vec<u64>, Refusal> {
    let Some(o) = v.as_object() else {
        return Err(request(what));
    };
    if o.keys().any(|k| !names.contains(&k.as_str())) {
        return Err(request(what));
    }
    names
        .iter()
        .map(|n| match o.get(*n) {
            None => Ok(0),
            Some(x) => x
                .as_u64()
                .filter(|x| *x < 1 << 53)
                .ok_or_else(|| request(what)),
        })
        .collect()
}

const COST: &str = "a cost {rest, graphql, content} of whole numbers";
const RATE: &str = "a rate {observed_ms, rest?, graphql?} with at least one window, each {limit, remaining, reserve, reset_ms} of whole numbers";

/// The request's `rate`, checked and written as the wire protocol has it.
fn rate(v: &Value) -> Result<String, Refusal> {
    let Some(o) = v.as_object() else {
        return Err(request(RATE));
    };
    if o.keys()
        .any(|k| !matches!(k.as_str(), "observed_ms" | "rest" | "graphql"))
    {
        return Err(request(RATE));
    }
    let observed = v
        .get("observed_ms")
        .and_then(Value::as_u64)
        .filter(|x| *x < 1 << 53)
        .ok_or_else(|| request(RATE))?;
    let mut windows = PoolWindows::default();
    for (name, slot) in [
        ("rest", &mut windows.rest),
        ("graphql", &mut windows.graphql),
    ] {
        let Some(w) = v.get(name).filter(|w| !w.is_null()) else {
            continue;
        };
        let f = figures(w, &["limit", "remaining", "reserve", "reset_ms"], RATE)?;
        *slot = Some(PoolWindow {
            limit: f[0],
            remaining: f[1],
            reserve: f[2],
            reset_ms: f[3],
        });
    }
    if windows.rest.is_none() && windows.graphql.is_none() {
        return Err(request(RATE));
    }
    Ok(pool::rate_json(observed, &windows))
}

/// `admit({pool, cost, rate})`: the body of `POST /v1/admissions`.
fn admit(v: &Value) -> Answer {
    let name = pool_name(&v["pool"])?;
    let c = figures(&v["cost"], &["rest", "graphql", "content"], COST)?;
    let cost = PoolCost {
        rest: c[0],
        graphql: c[1],
        content: c[2],
    };
    let mut quoted = String::new();
    deferral_core::json::write_json_string(&mut quoted, name);
    let body = format!(
        "{{\"pool\":{quoted},\"cost\":{},\"rate\":{}}}",
        cost.to_json(),
        rate(&v["rate"])?
    );
    Ok(obj(vec![("body", Value::from(body))]))
}

fn unusable(detail: port_answer::Unusable) -> Refusal {
    Refusal::new(Form::Port, Code::InvalidPortAnswer, &[("detail", detail)])
}

fn window_value(w: &PoolWindows) -> Value {
    serde_json::from_str(&w.to_json()).unwrap_or(Value::Null)
}

/// The port's answer to `admit`, checked: `{admitted, admission?, pool, expiresMs?, reason?, window}`.
fn admitted(v: &Value) -> Answer {
    let name = pool_name(&v["pool"])?;
    let answer = v["answer"]
        .as_object()
        .ok_or_else(|| unusable("an admission that is not a JSON object"))?;
    let checked = port_answer::check_admission(answer, name).map_err(unusable)?;
    let mut out = Map::new();
    out.insert("pool".into(), Value::from(name));
    match checked {
        Admission::Admitted {
            id,
            expires_ms,
            window,
        } => {
            out.insert("admitted".into(), Value::Bool(true));
            out.insert("admission".into(), Value::from(id));
            out.insert("expiresMs".into(), Value::from(expires_ms));
            out.insert("window".into(), window_value(&window));
        }
        Admission::Refused { reason, window } => {
            out.insert("admitted".into(), Value::Bool(false));
            out.insert("reason".into(), Value::from(reason));
            out.insert("window".into(), window_value(&window));
        }
    }
    Ok(obj(vec![("admission", Value::Object(out))]))
}

/// `release(admission, rate?)`: the id checked for a URL path, and the body (`{}` or `{"rate"}`).
fn release(v: &Value) -> Answer {
    let id = v["admission"].as_str().unwrap_or_default();
    port_answer::check_id(id).map_err(|_| request("an admission id: 1 to 64 of [A-Za-z0-9_-]"))?;
    let body = match v.get("rate").filter(|r| !r.is_null()) {
        None => "{}".to_string(),
        Some(r) => format!("{{\"rate\":{}}}", rate(r)?),
    };
    Ok(obj(vec![("body", Value::from(body))]))
}

fn released(answer: &Value) -> Answer {
    let answer = answer
        .as_object()
        .ok_or_else(|| unusable("a release answer that is not a JSON object"))?;
    let already = port_answer::check_release(answer).map_err(unusable)?;
    Ok(obj(vec![(
        "release",
        obj(vec![
            ("released", Value::Bool(!already)),
            ("already", Value::Bool(already)),
        ]),
    )]))
}

/// What the Octokit gate tells the port of a decision (its JSON): the plan's cost and the
/// windows it judged by, observed now.
fn admission_of(v: &Value) -> Value {
    let d = &v["decision"];
    let plan = PlanCost::deserialize(&d["plan"]).ok();
    let offset = d["clock_offset_ms"].as_i64().unwrap_or(0);
    let window = |name: &str| {
        ResourceFigures::deserialize(&d[name])
            .ok()
            .map(|f| PoolWindow::of(&f, offset))
    };
    let windows = PoolWindows {
        rest: window("rest"),
        graphql: window("graphql"),
    };
    let now = v["now_ms"].as_u64().unwrap_or(0);
    let text = |t: String| serde_json::from_str::<Value>(&t).unwrap_or(Value::Null);
    obj(vec![
        ("cost", text(PoolCost::of(plan.as_ref()).to_json())),
        ("rate", text(pool::rate_json(now, &windows))),
    ])
}

/// A refusal's window folded into the Octokit gate's snapshot (`null` before one was read).
fn fold(v: &Value) -> Answer {
    let mut snapshot = match &v["snapshot"] {
        Value::Null => RateSnapshot::default(),
        s => RateSnapshot::deserialize(s).unwrap_or_default(),
    };
    let windows = port_answer::pool_windows(&v["window"]).map_err(unusable)?;
    pool::fold(
        &mut snapshot,
        &windows,
        v["clock_offset_ms"].as_i64().unwrap_or(0),
        v["now_ms"].as_u64().unwrap_or(0),
    );
    Ok(obj(vec![("snapshot", snapshot.to_value())]))
}
