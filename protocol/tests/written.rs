//! The protocol's bytes: what the types write is what the hand-written `format!` wire wrote
//! before them (kept here as the reference), and what they write reads back the same.

use deferral_protocol::{
    AdmissionAnswer, AdmissionRequest, Cost, RateState, ReleaseAnswer, ReleaseRequest, Resource,
    Window, Windows, MAX_FIGURE,
};
use serde_json::json;

/// The wire as core/src/pool.rs wrote it with `format!` before these types.
mod before {
    use super::{Cost, Resource, Window, Windows};

    pub fn cost(c: &Cost) -> String {
        format!(
            "{{\"rest\":{},\"graphql\":{},\"content\":{}}}",
            c.of(Resource::Rest),
            c.of(Resource::Graphql),
            c.content
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
        for (name, w) in [
            ("rest", ws.get(Resource::Rest)),
            ("graphql", ws.get(Resource::Graphql)),
        ] {
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
        Windows::of([(Resource::Rest, Some(a)), (Resource::Graphql, None)]),
        Windows::of([(Resource::Rest, None), (Resource::Graphql, Some(b))]),
        Windows::of([(Resource::Rest, Some(c)), (Resource::Graphql, Some(a))]),
    ]
}

fn costs() -> Vec<Cost> {
    vec![
        Cost::default(),
        Cost::default()
            .with(Resource::Rest, 3000)
            .with_content(3000),
        Cost::default()
            .with(Resource::Rest, MAX_FIGURE)
            .with(Resource::Graphql, u64::MAX)
            .with_content(7),
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
        cost: Cost::default()
            .with(Resource::Rest, 3000)
            .with_content(3000),
        rate: RateState {
            observed_ms: 1_796_177_984_115,
            windows: Windows::of([
                (
                    Resource::Rest,
                    Some(window(5000, 4990, 500, 1_796_180_984_107)),
                ),
                (
                    Resource::Graphql,
                    Some(window(5000, 4990, 500, 1_796_180_984_107)),
                ),
            ]),
        },
    };
    assert_eq!(
        serde_json::to_string(&body).unwrap(),
        r#"{"pool":"app-42","cost":{"rest":3000,"graphql":0,"content":3000},"rate":{"observed_ms":1796177984115,"rest":{"limit":5000,"remaining":4990,"reserve":500,"reset_ms":1796180984107},"graphql":{"limit":5000,"remaining":4990,"reserve":500,"reset_ms":1796180984107}}}"#
    );
}

#[test]
fn what_is_written_reads_back_the_same() {
    for c in costs()
        .into_iter()
        .filter(|c| c.of(Resource::Graphql) <= MAX_FIGURE)
    {
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Cost>(&text).unwrap(), c);
    }
    for ws in shapes().into_iter().skip(1).take(2) {
        // Figures within the bounds only: 2^53-1 and below.
        let mut ws = ws;
        *ws.slot(Resource::Graphql) = ws.get(Resource::Graphql).map(|w| Window {
            reset_ms: MAX_FIGURE,
            ..w
        });
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
        window: Windows::of([(Resource::Rest, Some(w)), (Resource::Graphql, None)]),
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
        window: Windows::of([(Resource::Rest, None), (Resource::Graphql, Some(w))]),
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
