//! Plan documents: parsing, refusals, and primary and secondary costs.

use deferral_core::plan::{Plan, PlanCost};
use serde_json::json;

fn cost(value: serde_json::Value) -> PlanCost {
    Plan::from_value(&value)
        .unwrap_or_else(|e| panic!("{e}"))
        .cost()
        .unwrap()
}

fn refusal(value: serde_json::Value) -> (String, String) {
    let err = Plan::from_value(&value).unwrap_err();
    (err.code().to_string(), err.path.clone())
}

#[test]
fn documented_example_costs_what_the_doc_says() {
    let doc = include_str!("../../docs/plan.md");
    let start = doc.find("```json\n").unwrap() + 8;
    let end = start + doc[start..].find("```").unwrap();
    let plan = Plan::from_json(&doc[start..end]).unwrap();
    assert_eq!(
        plan.cost().unwrap(),
        PlanCost {
            rest: 38,
            graphql: 6,
            secondary_rest_points: 150,
            secondary_graphql_points: 22,
            content_creating: 7,
            secondary_minutes: 1,
        }
    );
}

#[test]
fn empty_plans_cost_nothing() {
    assert_eq!(cost(json!({})), PlanCost::default());
    assert_eq!(
        cost(json!({"rest": [], "graphql": []})),
        PlanCost::default()
    );
}

#[test]
fn rest_costs_and_defaults() {
    let c = cost(json!({"rest": [
        {"method": "get", "route": "/user"},
        {"method": "HEAD", "route": "/x", "count": 2},
        {"method": "Options", "route": "/x"},
        {"method": "PATCH", "route": "/repos/{owner}/{repo}/issues/{n}", "count": 2},
        {"method": "PUT", "route": "/x", "content_creating": true},
        {"method": "DELETE", "route": "/x"},
        {"method": "POST", "route": "/repos/{owner}/{repo}/issues", "count": 3},
    ]}));
    assert_eq!(c.rest, 11);
    assert_eq!(c.secondary_rest_points, 4 + 5 * 7);
    assert_eq!(c.content_creating, 1 + 3);
    assert_eq!(c.graphql, 0);
    assert_eq!(c.secondary_minutes, 1);
}

#[test]
fn graphql_costs_from_documents_and_points() {
    let c = cost(json!({"graphql": [
        {"query": "query { viewer { login repositories(first: 100) { edges { node { id issues(first: 50) { edges { node { id labels(first: 60) { edges { node { id name } } } } } } } } } } }"},
        {"query": "mutation { addStar(input: {starrableId: \"x\"}) { clientMutationId } }", "count": 2},
        {"query": "query A { a(first: 1) { id } } query B($n: Int) { b(first: $n) { c(first: 100) { id } } }", "operation_name": "B", "variables": {"n": 100}},
        {"points": 12, "count": 3},
        {"points": 1, "mutation": true, "content_creating": false},
    ]}));
    assert_eq!(c.graphql, 51 + 2 + 1 + 36 + 1);
    assert_eq!(c.secondary_graphql_points, 1 + 2 * 5 + 1 + 3 + 5);
    assert_eq!(c.content_creating, 2);
    assert_eq!(c.rest, 0);
}

#[test]
fn secondary_minutes_is_the_ceiling_of_the_largest_ratio() {
    // 900 REST points exactly: one minute; 901: two.
    assert_eq!(
        cost(json!({"rest": [{"method": "GET", "route": "/x", "count": 900}]})).secondary_minutes,
        1
    );
    assert_eq!(
        cost(json!({"rest": [{"method": "GET", "route": "/x", "count": 901}]})).secondary_minutes,
        2
    );
    // 181 writes = 905 points: two minutes, though the content-creating ratio is 181/80 -> 3.
    let c = cost(json!({"rest": [{"method": "POST", "route": "/x", "count": 181}]}));
    assert_eq!(
        (
            c.secondary_rest_points,
            c.content_creating,
            c.secondary_minutes
        ),
        (905, 181, 3)
    );
    // GraphQL: 2,001 query points -> 2 minutes.
    assert_eq!(
        cost(json!({"graphql": [{"points": 1, "count": 2001}]})).secondary_minutes,
        2
    );
    assert_eq!(cost(json!({"graphql": [{"points": 1, "mutation": true, "count": 400, "content_creating": false}]})).secondary_minutes, 1);
}

#[test]
fn refusals_name_the_entry() {
    assert_eq!(
        refusal(json!({"rest": [], "extra": 1})),
        ("malformed-plan".into(), "$".into())
    );
    assert_eq!(
        refusal(json!({"rest": [{"method": "GET", "route": "/x", "cost": 1}]})).0,
        "malformed-plan"
    );
    assert_eq!(
        refusal(json!({"rest": [{"method": "GET"}]})).0,
        "malformed-plan"
    );
    assert_eq!(
        refusal(json!({"rest": [{"method": "GET", "route": "/x", "count": -1}]})).0,
        "malformed-plan"
    );
    assert_eq!(refusal(json!([])), ("malformed-plan".into(), "$".into()));
    assert_eq!(
        refusal(json!({"rest": [["GET", "/x", null, null]]})),
        ("malformed-plan".into(), "$.rest[0]".into())
    );
    assert_eq!(
        refusal(json!({"rest": [{"method": "FETCH", "route": "/x"}]})),
        ("invalid-method".into(), "$.rest[0].method".into())
    );
    assert_eq!(
        refusal(json!({"rest": [{"method": "GET", "route": "repos"}]})),
        ("invalid-route".into(), "$.rest[0].route".into())
    );
    assert_eq!(
        refusal(json!({"rest": [{"method": "GET", "route": "/a b"}]})).0,
        "invalid-route"
    );
    assert_eq!(
        refusal(
            json!({"rest": [{"method": "GET", "route": "/x"}, {"method": "GET", "route": "/x", "count": 0}]})
        ),
        ("invalid-count".into(), "$.rest[1].count".into())
    );
    assert_eq!(
        refusal(json!({"graphql": [{"points": 0}]})),
        ("invalid-points".into(), "$.graphql[0].points".into())
    );
    assert_eq!(
        refusal(json!({"graphql": [{}]})),
        ("invalid-graphql-entry".into(), "$.graphql[0]".into())
    );
    assert_eq!(
        refusal(json!({"graphql": [{"points": 1, "query": "{ a }"}]})).0,
        "invalid-graphql-entry"
    );
    assert_eq!(
        refusal(json!({"graphql": [{"query": "{ a }", "mutation": true}]})).0,
        "invalid-graphql-entry"
    );
    assert_eq!(
        refusal(json!({"graphql": [{"points": 3, "variables": {}}]})).0,
        "invalid-graphql-entry"
    );
    assert_eq!(
        refusal(json!({"graphql": [{"query": "{ a(first: 101) { id } }"}]})),
        ("argument-out-of-range".into(), "$.graphql[0].query".into())
    );
    assert_eq!(
        refusal(json!({"graphql": [{"query": "query($n: Int!) { a(first: $n) { id } }"}]})).0,
        "missing-variable"
    );
    let err =
        Plan::from_json("{\"rest\": [{\"method\": \"GET\", \"route\": \"/x\", \"count\": 0}]}")
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the count at $.rest[0].count must be at least 1"
    );
    let err = Plan::from_json("{\"rset\": []}").unwrap_err();
    assert!(err.to_string().contains("unknown field `rset`"), "{err}");
    assert_eq!(
        Plan::from_json("not json").unwrap_err().code(),
        "malformed-plan"
    );
}
