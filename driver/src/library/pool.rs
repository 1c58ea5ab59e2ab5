//! The library's side of one admission across runners: the serve-backed port's `admit` and
//! `release` (their requests checked before anything is sent, their answers as strictly as the
//! Action checks them), and what `deferral/octokit` sends and folds when it is given a port and
//! a pool. The rules are the core's `pool` and `port_answer`, shared with the Action and CLI.

use super::error::{Code, Form, Refusal};
use super::op::ops;
use super::{obj, shown, Answer};
use crate::port_answer;
use deferral_core::decision::ResourceFigures;
use deferral_core::plan::PlanCost;
use deferral_core::pool;
use deferral_core::signals::RateSnapshot;
use deferral_protocol::{
    AdmissionAnswer, AdmissionRequest, Cost, RateState, ReleaseRequest, Resource, Windows,
};
use serde::{Deserialize, Serialize};
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
    v.as_str()
        .filter(|p| deferral_protocol::PoolName::is_valid(p))
        .ok_or_else(|| {
            Refusal::new(
                Form::Port,
                Code::InvalidPool,
                &[("got", &serde_json::to_string(v).unwrap_or_default())],
            )
        })
}

const COST: &str = "a cost {rest, graphql, content} of whole numbers";
const RATE: &str = "a rate {observed_ms, rest?, graphql?} with at least one window, each {limit, remaining, reserve, reset_ms} of whole numbers";

/// The request's `rate`, read as the host reads it (refused here in the library's words).
fn rate(v: &Value) -> Result<RateState, Refusal> {
    RateState::read(v).map_err(|_| request(RATE))
}

/// `admit({pool, cost, rate})`: the body of `POST /v1/admissions`.
fn admit(v: &Value) -> Answer {
    let name = pool_name(&v["pool"])?;
    let cost = Cost::read(&v["cost"]).map_err(|_| request(COST))?;
    let body = AdmissionRequest {
        pool: name.to_string(),
        cost,
        rate: rate(&v["rate"])?,
    };
    Ok(obj(vec![("body", Value::from(text(&body)))]))
}

/// A protocol message's JSON text.
fn text(message: &impl Serialize) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

/// A protocol message as a JSON value (through its text: one serializer in the wasm module).
fn value(message: &impl Serialize) -> Value {
    serde_json::from_str(&text(message)).unwrap_or(Value::Null)
}

fn unusable(detail: port_answer::Unusable) -> Refusal {
    Refusal::new(Form::Port, Code::InvalidPortAnswer, &[("detail", detail)])
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
        AdmissionAnswer::Admitted {
            admission: id,
            expires_ms,
            window,
            ..
        } => {
            out.insert("admitted".into(), Value::Bool(true));
            out.insert("admission".into(), Value::from(id));
            out.insert("expiresMs".into(), Value::from(expires_ms));
            out.insert("window".into(), value(&window));
        }
        AdmissionAnswer::Refused { reason, window, .. } => {
            out.insert("admitted".into(), Value::Bool(false));
            out.insert("reason".into(), Value::from(reason));
            out.insert("window".into(), value(&window));
        }
    }
    Ok(obj(vec![("admission", Value::Object(out))]))
}

/// `release(admission, rate?)`: the id checked for a URL path, and the body (`{}` or `{"rate"}`).
fn release(v: &Value) -> Answer {
    let id = v["admission"].as_str().unwrap_or_default();
    port_answer::check_id(id).map_err(|_| request("an admission id: 1 to 64 of [A-Za-z0-9_-]"))?;
    let body = ReleaseRequest {
        rate: v
            .get("rate")
            .filter(|r| !r.is_null())
            .map(rate)
            .transpose()?,
    };
    Ok(obj(vec![("body", Value::from(text(&body)))]))
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
            .map(|f| pool::window_of(&f, offset))
    };
    let rate = RateState {
        observed_ms: v["now_ms"].as_u64().unwrap_or(0),
        windows: Windows::of(Resource::ALL.map(|r| (r, window(r.as_str())))),
    };
    obj(vec![
        ("cost", value(&pool::cost_of(plan.as_ref()))),
        ("rate", value(&rate)),
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
