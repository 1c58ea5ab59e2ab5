//! Provider signals: fixtures follow the shapes in GitHub's REST and GraphQL rate-limit docs.

use deferral_core::signals::time::{format_iso8601, parse_http_date, parse_iso8601};
use deferral_core::signals::{
    classify, parse_graphql_rate_limit, parse_headers, parse_rate_limit_body,
    parse_rate_limit_response, Classification, RateWindow,
};
use serde_json::json;

/// The documented `GET /rate_limit` example shape, plus a bucket nobody has heard of.
const RATE_LIMIT_BODY: &str = r#"{
  "resources": {
    "core": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1691591363},
    "search": {"limit": 30, "used": 12, "remaining": 18, "reset": 1691591091},
    "graphql": {"limit": 5000, "used": 7, "remaining": 4993, "reset": 1691593228},
    "integration_manifest": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1691594631},
    "source_import": {"limit": 100, "used": 1, "remaining": 99, "reset": 1691591091},
    "code_scanning_upload": {"limit": 500, "used": 1, "remaining": 499, "reset": 1691594631},
    "actions_runner_registration": {"limit": 10000, "used": 0, "remaining": 10000, "reset": 1691594631},
    "scim": {"limit": 15000, "used": 0, "remaining": 15000, "reset": 1691594631},
    "dependency_snapshots": {"limit": 100, "used": 0, "remaining": 100, "reset": 1691591091},
    "code_search": {"limit": 10, "used": 0, "remaining": 10, "reset": 1691591091},
    "brand_new_bucket": {"limit": 7, "used": 0, "remaining": 7, "reset": 1691591091}
  },
  "rate": {"limit": 1, "used": 1, "remaining": 0, "reset": 1}
}"#;

#[test]
fn rate_limit_body_reads_every_bucket_and_ignores_rate() {
    let snapshot = parse_rate_limit_body(RATE_LIMIT_BODY).unwrap();
    assert!(!snapshot.unlimited);
    assert_eq!(snapshot.resources.len(), 11);
    assert_eq!(
        snapshot.resources["core"],
        RateWindow {
            limit: 5000,
            remaining: 4999,
            used: Some(1),
            reset: 1691591363
        }
    );
    assert_eq!(snapshot.resources["graphql"].remaining, 4993);
    assert_eq!(snapshot.resources["code_search"].limit, 10);
    assert_eq!(snapshot.resources["dependency_snapshots"].limit, 100);
    assert_eq!(snapshot.resources["brand_new_bucket"].limit, 7);
    // The deprecated top-level `rate` must not leak in as a bucket or override core.
    assert!(!snapshot.resources.contains_key("rate"));
}

#[test]
fn rate_limit_body_without_graphql_or_used() {
    let snapshot = parse_rate_limit_body(
        r#"{"resources":{"core":{"limit":60,"remaining":59,"reset":1700000000}}}"#,
    )
    .unwrap();
    assert!(!snapshot.resources.contains_key("graphql"));
    assert_eq!(snapshot.resources["core"].used, None);
}

#[test]
fn rate_limit_body_errors() {
    let err = parse_rate_limit_body("not json").unwrap_err();
    assert_eq!(err.code(), "malformed-json");
    let err = parse_rate_limit_body(r#"{"rate":{"limit":1,"remaining":1,"reset":1}}"#).unwrap_err();
    assert_eq!(
        (err.code(), err.path.as_str()),
        ("unexpected-shape", "$.resources")
    );
    let err =
        parse_rate_limit_body(r#"{"resources":{"core":{"limit":5000,"remaining":-1,"reset":1}}}"#)
            .unwrap_err();
    assert_eq!(
        (err.code(), err.path.as_str()),
        ("invalid-number", "$.resources.core.remaining")
    );
    let err = parse_rate_limit_body(
        r#"{"resources":{"graphql":{"limit":5000,"remaining":1.5,"reset":1}}}"#,
    )
    .unwrap_err();
    assert_eq!(err.code(), "invalid-number");
    let err =
        parse_rate_limit_body(r#"{"resources":{"core":{"limit":5000,"reset":1}}}"#).unwrap_err();
    assert_eq!(
        (err.code(), err.path.as_str()),
        ("unexpected-shape", "$.resources.core.remaining")
    );
    assert!(err.to_string().starts_with("the rate signal does not have"));
    // A reshaped unknown bucket is skipped, not fatal.
    let ok = parse_rate_limit_body(
        r#"{"resources":{"core":{"limit":1,"remaining":1,"reset":1},"odd":{"quota":"lots"}}}"#,
    )
    .unwrap();
    assert_eq!(ok.resources.len(), 1);
}

#[test]
fn rate_limit_disabled_on_enterprise_server_is_unlimited() {
    let snapshot = parse_rate_limit_response(
        404,
        r#"{"message":"Rate limiting is not enabled.","documentation_url":"https://docs.github.com/enterprise-server/rest"}"#,
    )
    .unwrap();
    assert!(snapshot.unlimited);
    assert!(parse_rate_limit_response(404, r#"{"message":"Not Found"}"#).is_err());
    assert!(parse_rate_limit_response(401, r#"{"message":"Bad credentials"}"#).is_err());
    assert_eq!(
        parse_rate_limit_response(200, RATE_LIMIT_BODY)
            .unwrap()
            .resources
            .len(),
        11
    );
}

#[test]
fn headers_case_insensitive_with_date_and_retry_after() {
    let headers = [
        ("X-RateLimit-Limit", "5000"),
        ("x-ratelimit-remaining", "4987"),
        ("X-RATELIMIT-USED", "13"),
        ("x-ratelimit-reset", "1691591363"),
        ("X-RateLimit-Resource", "core"),
        ("Retry-After", "30"),
        ("Date", "Wed, 09 Aug 2023 14:09:23 GMT"),
    ];
    let obs = parse_headers(&headers);
    assert_eq!(obs.limit, Some(5000));
    assert_eq!(obs.remaining, Some(4987));
    assert_eq!(obs.used, Some(13));
    assert_eq!(obs.reset, Some(1691591363));
    assert_eq!(obs.retry_after_s, Some(30));
    assert_eq!(obs.date_ms, Some(1_691_590_163_000));
    let (resource, window) = obs.window().unwrap();
    assert_eq!(resource, "core");
    assert_eq!(
        window,
        RateWindow {
            limit: 5000,
            remaining: 4987,
            used: Some(13),
            reset: 1691591363
        }
    );
    // Server clock 2.5 s ahead of the local clock.
    assert_eq!(obs.clock_offset_ms(1_691_590_160_500), Some(2_500));
    assert_eq!(obs.clock_offset_ms(1_691_590_165_000), Some(-2_000));
}

#[test]
fn headers_missing_or_garbled_are_absent() {
    let obs = parse_headers(&[
        ("x-ratelimit-remaining", "lots"),
        ("date", "yesterday"),
        ("retry-after", "-5"),
    ]);
    assert_eq!(obs.remaining, None);
    assert_eq!(obs.date_ms, None);
    assert_eq!(obs.retry_after_s, None);
    assert!(obs.window().is_none());
    assert_eq!(obs.clock_offset_ms(0), None);
    let none: [(&str, &str); 0] = [];
    assert_eq!(parse_headers(&none), Default::default());
    // Without x-ratelimit-resource (and no request path to name it) the bucket is unknown: a
    // search answer must not be recorded as core.
    let obs = parse_headers(&[
        ("x-ratelimit-limit", "60"),
        ("x-ratelimit-remaining", "0"),
        ("x-ratelimit-reset", "9"),
    ]);
    assert!(obs.window().is_none());
    let named = deferral_core::signals::classify_at(
        Some("/repos/o/r"),
        200,
        &[
            ("x-ratelimit-limit", "60"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "9"),
        ],
        "{}",
    );
    assert_eq!(named.headers.window().unwrap().0, "core");
}

#[test]
fn retry_after_as_http_date_counts_from_server_date() {
    let obs = parse_headers(&[
        ("date", "Wed, 09 Aug 2023 14:09:23 GMT"),
        ("retry-after", "Wed, 09 Aug 2023 14:10:23 GMT"),
    ]);
    assert_eq!(obs.retry_after_s, Some(60));
}

#[test]
fn http_date_forms() {
    let want = Some(784_111_777_000);
    assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), want);
    assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), want);
    assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), want);
    assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(
        parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT"),
        Some(1_835_481_599_000)
    );
    assert_eq!(
        parse_http_date("Mon, 29 Feb 2027 00:00:00 GMT"),
        None,
        "2027 is not a leap year"
    );
    assert_eq!(parse_http_date("Sun, 06 Nov 1994 24:00:00 GMT"), None);
    assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"), None);
    assert_eq!(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"), None);
    assert_eq!(parse_http_date(""), None);
}

#[test]
fn iso8601_forms() {
    assert_eq!(
        parse_iso8601("2026-11-30T05:00:00Z"),
        Some(1_796_014_800_000)
    );
    assert_eq!(
        parse_iso8601("2026-11-30T06:00:00+01:00"),
        Some(1_796_014_800_000)
    );
    assert_eq!(
        parse_iso8601("2026-11-30T04:30:00-00:30"),
        Some(1_796_014_800_000)
    );
    assert_eq!(
        parse_iso8601("2026-11-30T05:00:00.250Z"),
        Some(1_796_014_800_250)
    );
    assert_eq!(
        parse_iso8601("2026-11-30T05:00:00"),
        None,
        "a zone is required"
    );
    assert_eq!(parse_iso8601("2026-13-30T05:00:00Z"), None);
    assert_eq!(parse_iso8601("2026-11-30T05:00:0éZ"), None);
    assert_eq!(format_iso8601(1_796_014_800_000), "2026-11-30T05:00:00Z");
}

#[test]
fn graphql_rate_limit_object_in_all_reset_forms() {
    let iso = json!({"cost": 1, "limit": 5000, "nodeCount": 100, "remaining": 4999,
                     "resetAt": "2026-11-30T05:00:00Z", "used": 1});
    let parsed = parse_graphql_rate_limit(&iso).unwrap();
    assert_eq!(parsed.reset, 1_796_014_800);
    assert_eq!(parsed.cost, Some(1));
    assert_eq!(parsed.node_count, Some(100));
    assert_eq!(
        parsed.window(),
        RateWindow {
            limit: 5000,
            remaining: 4999,
            used: Some(1),
            reset: 1_796_014_800
        }
    );

    let epoch =
        json!({"data": {"rateLimit": {"limit": 1000, "remaining": 10, "resetAt": 1_796_014_800}}});
    let parsed = parse_graphql_rate_limit(&epoch).unwrap();
    assert_eq!(
        (parsed.limit, parsed.remaining, parsed.reset),
        (1000, 10, 1_796_014_800)
    );
    assert_eq!(parsed.cost, None);

    let text = json!({"limit": 1000, "remaining": 10, "resetAt": "1796014800"});
    assert_eq!(
        parse_graphql_rate_limit(&text).unwrap().reset,
        1_796_014_800
    );

    let err = parse_graphql_rate_limit(&json!({"limit": 1000, "remaining": 10, "resetAt": "soon"}))
        .unwrap_err();
    assert_eq!(
        (err.code(), err.path.as_str()),
        ("invalid-time", "$.resetAt")
    );
    let err =
        parse_graphql_rate_limit(&json!({"data": {"rateLimit": {"limit": 1000, "resetAt": 1}}}))
            .unwrap_err();
    assert_eq!(
        (err.code(), err.path.as_str()),
        ("unexpected-shape", "$.data.rateLimit.remaining")
    );
    assert_eq!(
        parse_graphql_rate_limit(&json!([])).unwrap_err().code(),
        "unexpected-shape"
    );
}

fn kind(status: u16, headers: &[(&str, &str)], body: &str) -> Classification {
    classify(status, headers, body).kind
}

#[test]
fn classify_primary_rest() {
    let headers = [
        ("x-ratelimit-remaining", "0"),
        ("x-ratelimit-reset", "1691591363"),
        ("x-ratelimit-resource", "core"),
    ];
    let body = r#"{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}"#;
    let classified = classify(403, &headers, body);
    assert_eq!(classified.kind, Classification::PrimaryRest);
    assert_eq!(classified.headers.reset, Some(1691591363));
    assert_eq!(kind(429, &headers, body), Classification::PrimaryRest);
    // Search is a REST bucket too.
    assert_eq!(
        kind(
            403,
            &[
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-resource", "search")
            ],
            "{}"
        ),
        Classification::PrimaryRest
    );
    // The message alone identifies a primary limit when headers were stripped.
    assert_eq!(kind(403, &[], body), Classification::PrimaryRest);
}

#[test]
fn classify_primary_graphql() {
    let headers = [
        ("x-ratelimit-remaining", "0"),
        ("x-ratelimit-resource", "graphql"),
    ];
    assert_eq!(kind(403, &headers, "{}"), Classification::PrimaryGraphql);
    let body = r#"{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}"#;
    // HTTP 200 with remaining above zero: the query cost more than what was left.
    assert_eq!(
        kind(200, &[("x-ratelimit-remaining", "3")], body),
        Classification::PrimaryGraphql
    );
    let other = r#"{"errors":[{"type":"NOT_FOUND","message":"Could not resolve"}],"data":null}"#;
    assert_eq!(kind(200, &[], other), Classification::NotRateLimited);
}

#[test]
fn classify_secondary() {
    let wording = r#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}"#;
    assert_eq!(
        kind(403, &[("x-ratelimit-remaining", "4000")], wording),
        Classification::Secondary
    );
    assert_eq!(kind(429, &[], wording), Classification::Secondary);
    // Explicit wording wins even when the primary counter reads zero.
    assert_eq!(
        kind(403, &[("x-ratelimit-remaining", "0")], wording),
        Classification::Secondary
    );
    let abuse = r#"{"message":"You have triggered an abuse detection mechanism. Please wait a few minutes before you try again."}"#;
    assert_eq!(kind(403, &[], abuse), Classification::Secondary);
    let content = r#"{"message":"You were temporarily blocked from content creation. Please try again later."}"#;
    assert_eq!(kind(403, &[], content), Classification::Secondary);
    assert_eq!(
        kind(403, &[], "You have exceeded a Secondary Rate Limit"),
        Classification::Secondary
    );
    let retry = classify(429, &[("Retry-After", "120")], r#"{"message":"slow down"}"#);
    assert_eq!(retry.kind, Classification::Secondary);
    assert_eq!(retry.headers.retry_after_s, Some(120));
    // Wording only counts on a 403 or 429.
    assert_eq!(kind(200, &[], wording), Classification::NotRateLimited);
}

#[test]
fn classify_unlimited_and_not_rate_limited() {
    assert_eq!(
        kind(404, &[], r#"{"message":"Rate limiting is not enabled."}"#),
        Classification::Unlimited
    );
    assert_eq!(
        kind(404, &[], r#"{"message":"Not Found"}"#),
        Classification::NotRateLimited
    );
    assert_eq!(
        kind(
            403,
            &[("x-ratelimit-remaining", "12")],
            r#"{"message":"Resource not accessible by integration"}"#
        ),
        Classification::NotRateLimited
    );
    assert_eq!(
        kind(200, &[("x-ratelimit-remaining", "0")], "[]"),
        Classification::NotRateLimited
    );
    assert_eq!(kind(500, &[], ""), Classification::NotRateLimited);
    assert_eq!(Classification::NotRateLimited.as_str(), "not-rate-limited");
    assert_eq!(
        serde_json::to_value(Classification::PrimaryGraphql).unwrap(),
        json!("primary-graphql")
    );
}

#[test]
fn graphql_rate_limit_is_known_by_type_code_or_wording_alone() {
    let alone = [
        r#"{"errors":[{"type":"RATE_LIMIT","message":"x"}]}"#,
        r#"{"errors":[{"type":"RATE_LIMITED","message":"x"}]}"#,
        r#"{"errors":[{"type":"OTHER","code":"graphql_rate_limit","message":"x"}]}"#,
        r#"{"errors":[{"message":"API rate limit already exceeded for user ID 1."}]}"#,
        r#"{"errors":[{"message":"API rate limit exceeded for installation ID 2."}]}"#,
    ];
    for body in alone {
        assert_eq!(
            kind(200, &[], body),
            Classification::PrimaryGraphql,
            "{body}"
        );
    }
    let unrelated = r#"{"errors":[{"type":"FORBIDDEN","code":"forbidden","message":"no"}]}"#;
    assert_eq!(kind(200, &[], unrelated), Classification::NotRateLimited);
}

#[test]
fn header_numbers_are_plain_digits_only() {
    // Rust's integer parser would take "+12"; a rate header with a sign is not GitHub's and is
    // ignored, like any other malformed number (a cargo-mutants finding).
    for value in ["+12", "-1", "1e3", "0x10", ""] {
        let h = parse_headers(&[("x-ratelimit-remaining", value)]);
        assert_eq!(h.remaining, None, "{value:?}");
    }
    assert_eq!(
        parse_headers(&[("x-ratelimit-remaining", " 12 ")]).remaining,
        Some(12)
    );
}
