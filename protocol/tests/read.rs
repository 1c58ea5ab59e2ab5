//! The protocol's readings: bad input is refused with the code and the words the host has
//! always given; an answer's unknown members are left unread; a line gives its figures, cost and
//! receipt as written.

use deferral_protocol::{
    Cost, GateLine, Invalid, LineFigures, LinePlan, Part, Problem, RateState, Resource, Window,
    Windows,
};
use serde_json::{json, Value};

fn window(limit: u64, remaining: u64, reserve: u64, reset_ms: u64) -> Window {
    Window {
        limit,
        remaining,
        reserve,
        reset_ms,
    }
}

fn refused<T: std::fmt::Debug>(r: Result<T, Invalid>) -> (&'static str, String) {
    let e = r.unwrap_err();
    (e.code(), e.message)
}

#[test]
fn a_bad_cost_is_refused_with_its_code_and_words() {
    assert_eq!(
        Cost::read(&json!({"rest": 10, "graphql": null})).unwrap(),
        Cost::default().with(Resource::Rest, 10)
    );
    let cases = [
        (json!({"rest": -1}), "cost.rest must be a whole number from 0 to 2^53-1, as the gate's (got -1)"),
        (json!({"rest": 1.5}), "cost.rest must be a whole number from 0 to 2^53-1, as the gate's (got 1.5)"),
        (json!({"rest": 9_007_199_254_740_992_u64}), "cost.rest must be a whole number from 0 to 2^53-1, as the gate's (got 9007199254740992)"),
        (json!({"content": "1"}), "cost.content must be a whole number from 0 to 2^53-1, as the gate's (got \"1\")"),
        (json!({"writes": 1}), "cost has an unknown field \"writes\"; allowed: rest, graphql, content"),
        (json!([1]), "cost must be a JSON object (got [1])"),
    ];
    for (bad, words) in cases {
        assert_eq!(
            refused(Cost::read(&bad)),
            ("invalid-cost", words.to_string()),
            "{bad}"
        );
    }
    // Numbers are read from their text: 2^64 and 1e3 are not whole figures, nor rounded.
    for text in [r#"{"rest":18446744073709551616}"#, r#"{"rest":1e3}"#] {
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            Cost::read(&v).unwrap_err().problem,
            Problem::NotWhole,
            "{text}"
        );
    }
    // A long value is shown in at most 40 characters.
    let long = json!({"rest": "x".repeat(100)});
    assert!(refused(Cost::read(&long))
        .1
        .ends_with("\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...)"));
}

#[test]
fn a_bad_rate_is_refused_with_its_code_and_words() {
    let w = |extra: Value| {
        let mut v = json!({"limit": 45, "remaining": 12, "reserve": 5, "reset_ms": 9});
        for (k, x) in extra.as_object().unwrap() {
            if x.is_null() {
                v.as_object_mut().unwrap().remove(k);
            } else {
                v[k] = x.clone();
            }
        }
        v
    };
    let good = json!({"observed_ms": 5, "rest": w(json!({})), "graphql": null});
    let r = RateState::read(&good).unwrap();
    assert_eq!(
        (
            r.observed_ms,
            r.windows.get(Resource::Rest),
            r.windows.get(Resource::Graphql)
        ),
        (5, Some(window(45, 12, 5, 9)), None)
    );
    let cases = [
        (json!({"rest": w(json!({}))}), "rate.observed_ms is missing"),
        (
            json!({"observed_ms": 5}),
            "rate has no window: give rate.rest or rate.graphql (or both)",
        ),
        (
            json!({"observed_ms": 5, "rest": w(json!({"reserve": null}))}),
            "rate.rest.reserve is missing",
        ),
        (
            json!({"observed_ms": 5, "rest": w(json!({"remaining": 46}))}),
            "rate.rest.remaining 46 is above rate.rest.limit 45",
        ),
        (
            json!({"observed_ms": 5, "graphql": w(json!({"reserve": 46}))}),
            "rate.graphql.reserve 46 is above rate.graphql.limit 45",
        ),
        (
            json!({"observed_ms": 5, "rest": w(json!({"used": 1}))}),
            "rate.rest has an unknown field \"used\"; allowed: limit, remaining, reserve, reset_ms",
        ),
        (
            json!({"observed_ms": 5, "core": {}}),
            "rate has an unknown field \"core\"; allowed: observed_ms, rest, graphql",
        ),
        (
            json!({"observed_ms": -5, "rest": w(json!({}))}),
            "rate.observed_ms must be a whole number from 0 to 2^53-1, as the gate's (got -5)",
        ),
        (
            json!({"observed_ms": 5, "rest": 3}),
            "rate.rest must be a JSON object (got 3)",
        ),
    ];
    for (bad, words) in cases {
        assert_eq!(
            refused(RateState::read(&bad)),
            ("invalid-rate-state", words.to_string()),
            "{bad}"
        );
    }
    let c = Cost::default().with(Resource::Rest, 41);
    assert_eq!(
        refused(c.check_fits(&r)),
        ("invalid-cost", "cost.rest 41 is larger than rate.rest.limit 45 less its reserve 5: it never fits a window".into())
    );
    assert!(c.with(Resource::Rest, 40).check_fits(&r).is_ok());
}

#[test]
fn an_answer_window_leaves_unknown_members_unread() {
    let v = json!({"rest": {"limit": 45, "remaining": 1, "reserve": 5, "reset_ms": 9, "used": 44}, "search": {}});
    let ws = Windows::read_answer(&v).unwrap();
    assert_eq!(
        (ws.get(Resource::Rest), ws.get(Resource::Graphql)),
        (Some(window(45, 1, 5, 9)), None)
    );
    let bad = Windows::read_answer(
        &json!({"rest": {"limit": 45, "remaining": 46, "reserve": 5, "reset_ms": 9}}),
    );
    assert_eq!(bad.unwrap_err().problem, Problem::AboveLimit);
    let bad = Windows::read_answer(&json!({"graphql": "x"}));
    assert_eq!(bad.unwrap_err().problem, Problem::NotObject);
}

const LINE: &str = r#"{"status":"deferred","mode":"gate","rest":{"limit":45,"remaining":3,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":false},"graphql":null,"plan":{"rest":10,"graphql":0,"contentCreating":2},"deferredReceipt":{"b":1, "a":2}}"#;

#[test]
fn a_line_gives_its_figures_cost_and_receipt_byte_for_byte() {
    let line = GateLine::parse(LINE).unwrap().unwrap();
    assert_eq!(
        (line.status.as_str(), line.mode.as_deref()),
        ("deferred", Some("gate"))
    );
    assert_eq!(line.receipt.as_deref(), Some(r#"{"b":1, "a":2}"#));
    let f = LineFigures {
        limit: 45,
        remaining: 3,
        reserve: 5,
        planned_cost: 10,
        reset: 1_800_000_000,
        ok: false,
    };
    assert_eq!(
        line.figures().collect::<Vec<_>>(),
        vec![(Resource::Rest, &f)]
    );
    assert_eq!(
        line.cost(),
        Cost::default().with(Resource::Rest, 10).with_content(2)
    );
    // The driver writes the figures and the plan with the same types, as the line has them.
    assert_eq!(
        serde_json::to_string(&f).unwrap(),
        r#"{"limit":45,"remaining":3,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":false}"#
    );
    let mut plan = LinePlan {
        content_creating: 2,
        secondary_minutes: 1,
        ..LinePlan::default()
    };
    plan.cost[Resource::Rest] = 10;
    assert_eq!(
        serde_json::to_string(&plan).unwrap(),
        r#"{"rest":10,"graphql":0,"secondaryRestPoints":0,"secondaryGraphqlPoints":0,"contentCreating":2,"secondaryMinutes":1}"#
    );
    plan.secondary_points[Resource::Rest] = 3;
    plan.secondary_points[Resource::Graphql] = 4;
    assert_eq!(
        serde_json::to_string(&plan).unwrap(),
        r#"{"rest":10,"graphql":0,"secondaryRestPoints":3,"secondaryGraphqlPoints":4,"contentCreating":2,"secondaryMinutes":1}"#
    );
    // Not a line: a bare receipt, text, an array.
    for text in [
        r#"{"schema":1,"version":"deferred-receipt-v1"}"#,
        "done",
        "[1]",
    ] {
        assert_eq!(GateLine::parse(text).unwrap(), None, "{text}");
    }
}

#[test]
fn a_line_with_bad_figures_is_refused_with_the_code_of_the_figure() {
    let code = |text: String| {
        let e = GateLine::parse(&text).unwrap_err();
        (e.part, e.message)
    };
    assert_eq!(
        code(LINE.replace("\"plannedCost\":10", "\"plannedCost\":-1")),
        (
            Part::Cost,
            "rest.plannedCost must be a whole number from 0 to 2^53-1, as the gate's (got -1)"
                .into()
        )
    );
    assert_eq!(
        code(LINE.replace("\"plannedCost\":10", "\"plannedCost\":46")),
        (
            Part::Cost,
            "rest.plannedCost 46 is larger than the whole window (rest.limit 45): it can never fit"
                .into()
        )
    );
    assert_eq!(
        code(LINE.replace("\"remaining\":3", "\"remaining\":\"3\"")),
        (
            Part::Rate,
            "rest.remaining must be a whole number from 0 to 2^53-1, as the gate's (got \"3\")"
                .into()
        )
    );
    assert_eq!(
        code(LINE.replace("\"remaining\":3", "\"remaining\":null")),
        (
            Part::Rate,
            "rest.remaining must be a whole number from 0 to 2^53-1, as the gate's (got null)"
                .into()
        )
    );
    assert_eq!(
        code(LINE.replace(",\"reset\":1800000000", "")),
        (Part::Rate, "rest.reset is missing".into())
    );
    assert_eq!(
        code(LINE.replace("\"contentCreating\":2", "\"contentCreating\":-2")),
        (
            Part::Cost,
            "plan.contentCreating must be a whole number from 0 to 2^53-1, as the gate's (got -2)"
                .into()
        )
    );
}
