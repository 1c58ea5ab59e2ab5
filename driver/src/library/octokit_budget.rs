//! What an Octokit gate with a port and a pool may still send: the plan the pool admitted is
//! the most it spends. Each request's cost (the core's decision on it: REST requests, GraphQL
//! points, content-creating requests) is counted against the admitted cost before the request
//! is sent; one that would go beyond it is refused locally (`admission-spent`), and once the
//! admission is released nothing is sent at all (`admission-released`). With a pool, no request
//! goes out without an admission that covers it.

use super::error::{Code, Form, Refusal};
use super::{obj, shown, Answer};
use deferral_core::plan::PlanCost;
use deferral_core::pool;
use deferral_protocol::{Cost, Resource};
use serde::Deserialize;
use serde_json::Value;

fn cost_of(v: &Value) -> Cost {
    Cost::names().fold(Cost::default(), |c, name| {
        c.with_named(name, v[name].as_u64().unwrap_or(0))
    })
}

/// A cost as JSON, through its text (one serializer in the wasm module).
fn cost_value(c: &Cost) -> Value {
    serde_json::to_string(c)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

/// `{pool, admission, admitted: cost, spent: cost, decision}` -> `{spent}` (what the admission
/// has paid for, this request included), or the refusal.
pub fn spend(v: &Value) -> Answer {
    let pool = shown(&v["pool"]);
    if v["admission"].as_str().is_none() {
        return Err(Refusal::new(
            Form::Port,
            Code::AdmissionReleased,
            &[("pool", &pool)],
        ));
    }
    let admitted = cost_of(&v["admitted"]);
    let spent = cost_of(&v["spent"]);
    let plan = PlanCost::deserialize(&v["decision"]["plan"]).ok();
    let this = pool::cost_of(plan.as_ref());
    let after = spent.saturating_add(&this);
    let over = Resource::ALL
        .map(|r| (r.as_str(), after.of(r), admitted.of(r)))
        .into_iter()
        .chain([("content-creating", after.content, admitted.content)])
        .find(|(_, after, admitted)| after > admitted);
    if let Some((resource, _, admitted_n)) = over {
        return Err(Refusal::new(
            Form::Port,
            Code::AdmissionSpent,
            &[
                ("pool", &pool),
                ("what", &format!("{admitted_n} {resource}")),
            ],
        ));
    }
    Ok(obj(vec![("spent", cost_value(&after))]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decision(rest: u64) -> Value {
        json!({"plan": {"rest": rest, "graphql": 0, "secondary_rest_points": 5, "secondary_graphql_points": 0,
                        "content_creating": rest, "secondary_minutes": 1}})
    }

    #[test]
    fn spends_up_to_the_admitted_plan_then_refuses() {
        let admitted = json!({"rest": 3, "graphql": 0, "content": 3});
        let mut spent = json!({"rest": 0, "graphql": 0, "content": 0});
        for _ in 0..3 {
            let out = spend(
                &json!({"pool": "app-42", "admission": "17", "admitted": admitted,
                                    "spent": spent, "decision": decision(1)}),
            )
            .unwrap();
            spent = out["spent"].clone();
        }
        assert_eq!(spent, json!({"rest": 3, "graphql": 0, "content": 3}));
        let refused = spend(
            &json!({"pool": "app-42", "admission": "17", "admitted": admitted,
                                    "spent": spent, "decision": decision(1)}),
        )
        .unwrap_err();
        assert_eq!(refused.code, "admission-spent");
        assert_eq!(refused.status, 0);
        assert!(
            refused.message.contains("admitted 3 rest in pool app-42"),
            "{}",
            refused.message
        );
        let released = spend(
            &json!({"pool": "app-42", "admission": null, "admitted": admitted,
                                     "spent": spent, "decision": decision(0)}),
        )
        .unwrap_err();
        assert_eq!(released.code, "admission-released");
    }
}
