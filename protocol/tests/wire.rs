//! The protocol's bytes and readings: what the types write is what the hand-written `format!`
//! wire wrote before them (kept here as the reference), what they write reads back the same,
//! and bad input is refused with the code and the words the host has always given.

use deferral_protocol::{
    AdmissionAnswer, AdmissionRequest, Cost, GateLine, LineFigures, LinePlan, Part, Problem,
    RateState, ReleaseAnswer, ReleaseRequest, Resource, Window, Windows, MAX_FIGURE,
};
use serde_json::{json, Value};

/// The wire as core/src/pool.rs wrote it with `format!` before these types.
mod before {
    use super::{Cost, Window, Windows};

    pub fn cost(c: &Cost) -> String {
        format!(
            "{{\"rest\":{},\"graphql\":{},\"content\":{}}}",
            c.rest, c.graphql, c.content
        )
    }

    pub fn window(w: &Window) -> String {
        format!(
            "{{\"limit\":{},\"remaining\":{},\"reserve\":{},\"reset_ms\":{}}}",
            w.limit, w.remaining, w.reserve, w.reset_ms
        )
    }

    fn members(ws: &Windows) -> String {
        let mut out = String::new();
        for (name, w) in [("rest", ws.rest), ("graphql", ws.graphql)] {
            if let Some(w) = w {
                out.push_str(&format!(",\"{name}\":{}", window(&w)));
            }
        }
        out
    }

    pub fn windows(ws: &Windows) -> String {
        format!("{{{}}}", members(ws).trim_start_matches(','))
    }

    pub fn rate(observed_ms: u64, ws: &Windows) -> String {
        format!("{{\"observed_ms\":{observed_ms}{}}}", members(ws))
    }

    pub fn admission(pool: &str, c: &Cost, observed_ms: u64, ws: &Windows) -> String {
        format!(
            "{{\"pool\":\"{pool}\",\"cost\":{},\"rate\":{}}}",
            cost(c),
            rate(observed_ms, ws)
        )
    }
}

fn window(limit: u64, remaining: u64, reserve: u64, reset_ms: u64) -> Window {
    Window {
        limit,
        remaining,
        reserve,
        reset_ms,
    }
}

/// Windows of every shape, with figures at the edges (0, 2^53-1, u64::MAX as a gate computes
/// a reset it cannot place).
fn shapes() -> Vec<Windows> {
    let a = window(5000, 4990, 500, 1_796_180_984_107);
    let b = window(MAX_FIGURE, 0, MAX_FIGURE, u64::MAX);
    let c = window(0, 0, 0, 0);
    vec![
        Windows::default(),
        Windows {
            rest: Some(a),
            graphql: None,
        },
        Windows {
            rest: None,
            graphql: Some(b),
        },
        Windows {
            rest: Some(c),
            graphql: Some(a),
        },
    ]
}

fn costs() -> Vec<Cost> {
    vec![
        Cost::default(),
        Cost {
            rest: 3000,
            graphql: 0,
            content: 3000,
        },
        Cost {
            rest: MAX_FIGURE,
            graphql: u64::MAX,
            content: 7,
        },
    ]
}

#[test]
fn the_types_write_the_bytes_the_format_wire_wrote() {
    for c in costs() {
        assert_eq!(serde_json::to_string(&c).unwrap(), before::cost(&c));
    }
    for ws in shapes() {
        assert_eq!(serde_json::to_string(&ws).unwrap(), before::windows(&ws));
        for w in ws.iter().map(|(_, w)| w) {
            assert_eq!(serde_json::to_string(&w).unwrap(), before::window(&w));
        }
        for observed_ms in [0, 1_796_177_984_115, u64::MAX] {
            let rate = RateState {
                observed_ms,
                windows: ws,
            };
            assert_eq!(
                serde_json::to_string(&rate).unwrap(),
                before::rate(observed_ms, &ws)
            );
            for c in costs() {
                let body = AdmissionRequest {
                    pool: "app-42".into(),
                    cost: c,
                    rate,
                };
                assert_eq!(
                    serde_json::to_string(&body).unwrap(),
                    before::admission("app-42", &c, observed_ms, &ws)
                );
            }
        }
    }
}

#[test]
fn an_admission_body_of_the_shared_vectors_is_written_byte_for_byte() {
    // tests/vectors/library/cases.json, pool_admit of app-42.
    let body = AdmissionRequest {
        pool: "app-42".into(),
        cost: Cost {
            rest: 3000,
            graphql: 0,
            content: 3000,
        },
        rate: RateState {
            observed_ms: 1_796_177_984_115,
            windows: Windows {
                rest: Some(window(5000, 4990, 500, 1_796_180_984_107)),
                graphql: Some(window(5000, 4990, 500, 1_796_180_984_107)),
            },
        },
    };
    assert_eq!(
        serde_json::to_string(&body).unwrap(),
        r#"{"pool":"app-42","cost":{"rest":3000,"graphql":0,"content":3000},"rate":{"observed_ms":1796177984115,"rest":{"limit":5000,"remaining":4990,"reserve":500,"reset_ms":1796180984107},"graphql":{"limit":5000,"remaining":4990,"reserve":500,"reset_ms":1796180984107}}}"#
    );
}

#[test]
fn what_is_written_reads_back_the_same() {
    for c in costs().into_iter().filter(|c| c.graphql <= MAX_FIGURE) {
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Cost>(&text).unwrap(), c);
    }
    for ws in shapes().into_iter().skip(1).take(2) {
        // Figures within the bounds only: 2^53-1 and below.
        let ws = Windows {
            rest: ws.rest,
            graphql: ws.graphql.map(|w| Window {
                reset_ms: MAX_FIGURE,
                ..w
            }),
        };
        let rate = RateState {
            observed_ms: 5,
            windows: ws,
        };
        let text = serde_json::to_string(&rate).unwrap();
        assert_eq!(serde_json::from_str::<RateState>(&text).unwrap(), rate);
        let text = serde_json::to_string(&ws).unwrap();
        assert_eq!(serde_json::from_str::<Windows>(&text).unwrap(), ws);
    }
}

#[test]
fn releases_and_answers_are_written_as_the_host_answered_them() {
    assert_eq!(
        serde_json::to_string(&ReleaseRequest { rate: None }).unwrap(),
        "{}"
    );
    let rate = RateState {
        observed_ms: 9,
        windows: shapes()[1],
    };
    assert_eq!(
        serde_json::to_string(&ReleaseRequest { rate: Some(rate) }).unwrap(),
        format!("{{\"rate\":{}}}", before::rate(9, &rate.windows))
    );
    // The host answered through a JSON value: members by name.
    assert_eq!(
        serde_json::to_string(&ReleaseAnswer::Released).unwrap(),
        json!({"released": true}).to_string()
    );
    assert_eq!(
        serde_json::to_string(&ReleaseAnswer::Already).unwrap(),
        json!({"released": false, "already": true}).to_string()
    );
    let w = window(45, 30, 5, 1_800_000_000_000);
    let admitted = AdmissionAnswer::Admitted {
        admission: "7-abc".into(),
        pool: "p".into(),
        expires_ms: 11,
        window: Windows {
            rest: Some(w),
            graphql: None,
        },
    };
    let before = json!({"admitted": true, "admission": "7-abc", "pool": "p", "expires_ms": 11,
        "window": {"rest": {"limit": 45, "remaining": 30, "reserve": 5, "reset_ms": 1_800_000_000_000_u64}}});
    assert_eq!(
        serde_json::to_string(&admitted).unwrap(),
        before.to_string()
    );
    let refused = AdmissionAnswer::Refused {
        pool: "p".into(),
        reason: "no room".into(),
        window: Windows {
            rest: None,
            graphql: Some(w),
        },
    };
    let before = json!({"admitted": false, "pool": "p", "reason": "no room",
        "window": {"graphql": {"limit": 45, "remaining": 30, "reserve": 5, "reset_ms": 1_800_000_000_000_u64}}});
    assert_eq!(serde_json::to_string(&refused).unwrap(), before.to_string());
    for answer in [
        json!({"released": true}),
        json!({"released": true, "already": false}),
    ] {
        assert_eq!(
            ReleaseAnswer::read(answer.as_object().unwrap()),
            Some(ReleaseAnswer::Released)
        );
    }
    for answer in [json!({"released": false}), json!({"already": true})] {
        assert_eq!(ReleaseAnswer::read(answer.as_object().unwrap()), None);
    }
}

fn refused<T: std::fmt::Debug>(r: Result<T, deferral_protocol::Invalid>) -> (&'static str, String) {
    let e = r.unwrap_err();
    (e.code(), e.message)
}

#[test]
fn a_bad_cost_is_refused_with_its_code_and_words() {
    assert_eq!(
        Cost::read(&json!({"rest": 10, "graphql": null})).unwrap(),
        Cost {
            rest: 10,
            graphql: 0,
            content: 0
        }
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
        (r.observed_ms, r.windows.rest, r.windows.graphql),
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
    let c = Cost {
        rest: 41,
        graphql: 0,
        content: 0,
    };
    assert_eq!(
        refused(c.check_fits(&r)),
        ("invalid-cost", "cost.rest 41 is larger than rate.rest.limit 45 less its reserve 5: it never fits a window".into())
    );
    assert!(Cost { rest: 40, ..c }.check_fits(&r).is_ok());
}

#[test]
fn an_answer_window_leaves_unknown_members_unread() {
    let v = json!({"rest": {"limit": 45, "remaining": 1, "reserve": 5, "reset_ms": 9, "used": 44}, "search": {}});
    let ws = Windows::read_answer(&v).unwrap();
    assert_eq!((ws.rest, ws.graphql), (Some(window(45, 1, 5, 9)), None));
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
        Cost {
            rest: 10,
            graphql: 0,
            content: 2
        }
    );
    // The driver writes the figures and the plan with the same types, as the line has them.
    assert_eq!(
        serde_json::to_string(&f).unwrap(),
        r#"{"limit":45,"remaining":3,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":false}"#
    );
    let plan = LinePlan {
        rest: 10,
        content_creating: 2,
        secondary_minutes: 1,
        ..LinePlan::default()
    };
    assert_eq!(
        serde_json::to_string(&plan).unwrap(),
        r#"{"rest":10,"graphql":0,"secondaryRestPoints":0,"secondaryGraphqlPoints":0,"contentCreating":2,"secondaryMinutes":1}"#
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
