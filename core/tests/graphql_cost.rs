//! The GraphQL cost estimator against GitHub's documented examples and its bounds.

use deferral_core::graphql_cost::{estimate, Estimate};
use serde_json::json;

const DOCUMENTED: &str = "query { viewer { login repositories(first: 100) { edges { node { id issues(first: 50) { edges { node { id labels(first: 60) { edges { node { id name } } } } } } } } } } }";

fn ok(document: &str) -> Estimate {
    estimate(document, None, None).unwrap_or_else(|e| panic!("{e}"))
}

fn code(document: &str, variables: Option<serde_json::Value>) -> String {
    estimate(document, variables.as_ref(), None)
        .unwrap_err()
        .code()
        .to_string()
}

#[test]
fn documented_example_costs_51() {
    assert_eq!(
        ok(DOCUMENTED),
        Estimate {
            cost: 51,
            requests: 5_101,
            nodes: 305_100,
            mutation: false
        }
    );
}

#[test]
fn documented_node_examples() {
    // GitHub's "simple query": 50 + 50 x 10 = 550 nodes.
    let simple = "query { viewer { repositories(first: 50) { edges { repository:node { name issues(first: 10) { totalCount edges { node { title bodyHTML } } } } } } } }";
    assert_eq!(
        ok(simple),
        Estimate {
            cost: 1,
            requests: 51,
            nodes: 550,
            mutation: false
        }
    );
    // GitHub's "complex query": 22,060 nodes.
    let complex = "query { viewer { repositories(first: 50) { edges { repository:node { name pullRequests(first: 20) { edges { pullRequest:node { title comments(first: 10) { edges { comment:node { bodyHTML } } } } } } issues(first: 20) { totalCount edges { issue:node { title bodyHTML comments(first: 10) { edges { comment:node { bodyHTML } } } } } } } } } followers(first: 10) { edges { follower:node { login } } } } }";
    let estimate = ok(complex);
    assert_eq!(estimate.nodes, 22_060);
    // 1 repositories + 50 pullRequests + 1,000 PR comments + 50 issues + 1,000 issue comments + 1 followers.
    assert_eq!(estimate.requests, 2_102);
    assert_eq!(estimate.cost, 21);
}

#[test]
fn minimum_and_rounding() {
    assert_eq!(
        ok("{ viewer { login } }"),
        Estimate {
            cost: 1,
            requests: 0,
            nodes: 0,
            mutation: false
        }
    );
    // 1 + 100 + 49 = 150 requests: 1.5 rounds half up to 2.
    let doc = "{ a(first: 100) { b(first: 1) { c(first: 1) { x } } } d(first: 49) { y } e(first: 1) { z } f(last: 1) { w } }";
    // a: 1, b: 100, c: 100, d: 1, e: 1, f: 1 = 204 requests -> 2 points.
    assert_eq!(ok(doc).requests, 204);
    assert_eq!(ok(doc).cost, 2);
    let half = "{ a(first: 100) { b(first: 1) { x } } c(first: 1) { y } d(first: 1) { y } e(first: 1) { y } f(first: 1) { y } g(first: 1) { y } h(first: 1) { y } i(first: 1) { y } j(first: 1) { y } k(first: 1) { y } l(first: 1) { y } m(first: 1) { y } n(first: 1) { y } o(first: 1) { y } p(first: 1) { y } q(first: 1) { y } r(first: 1) { y } s(first: 1) { y } t(first: 1) { y } u(first: 1) { y } v(first: 1) { y } w(first: 1) { y } xx(first: 1) { y } yy(first: 1) { y } zz(first: 1) { y } aa(first: 1) { y } bb(first: 1) { y } cc(first: 1) { y } dd(first: 1) { y } ee(first: 1) { y } ff(first: 1) { y } gg(first: 1) { y } hh(first: 1) { y } ii(first: 1) { y } jj(first: 1) { y } kk(first: 1) { y } ll(first: 1) { y } mm(first: 1) { y } nn(first: 1) { y } oo(first: 1) { y } pp(first: 1) { y } qq(first: 1) { y } rr(first: 1) { y } ss(first: 1) { y } tt(first: 1) { y } uu(first: 1) { y } vv(first: 1) { y } ww(first: 1) { y } x3(first: 1) { y } }";
    // 1 + 100 + 48 single connections = 149 -> 1; one more makes 150 -> 2.
    assert_eq!(ok(half).requests, 149);
    assert_eq!(ok(half).cost, 1);
    let more = half.replacen(
        "x3(first: 1) { y }",
        "x3(first: 1) { y } x4(first: 1) { y }",
        1,
    );
    assert_eq!(ok(&more).requests, 150);
    assert_eq!(ok(&more).cost, 2);
}

#[test]
fn variables_defaults_and_last() {
    let doc = "query Q($n: Int!, $m: Int = 50) { viewer { repositories(first: $n) { nodes { issues(last: $m) { nodes { id } } } } } }";
    let e = estimate(doc, Some(&json!({"n": 100})), None).unwrap();
    assert_eq!((e.requests, e.nodes, e.cost), (101, 5_100, 1));
    let e = estimate(doc, Some(&json!({"n": 10, "m": 100})), Some("Q")).unwrap();
    assert_eq!((e.requests, e.nodes), (11, 1_010));
    assert_eq!(code(doc, None), "missing-variable");
    assert_eq!(code(doc, Some(json!({"n": 0}))), "argument-out-of-range");
    assert_eq!(code(doc, Some(json!({"n": 101}))), "argument-out-of-range");
    assert_eq!(code(doc, Some(json!({"n": "10"}))), "invalid-argument");
    assert_eq!(code(doc, Some(json!({"n": 10.5}))), "invalid-argument");
    assert_eq!(code(doc, Some(json!([1]))), "invalid-variables");
    // Both first and last: the larger one counts.
    let both =
        ok("{ a(first: 10, last: 30) { id } b(first: null, last: 5) { c(first: 2) { id } } }");
    assert_eq!((both.requests, both.nodes), (1 + 1 + 5, 30 + 5 + 10));
}

#[test]
fn bounds_errors() {
    assert_eq!(
        code("{ a(first: 0) { id } }", None),
        "argument-out-of-range"
    );
    assert_eq!(
        code("{ a(last: 101) { id } }", None),
        "argument-out-of-range"
    );
    assert_eq!(
        code("{ a(first: -1) { id } }", None),
        "argument-out-of-range"
    );
    assert_eq!(
        code("{ a(first: 99999999999999999999999) { id } }", None),
        "argument-out-of-range"
    );
    assert_eq!(code("{ a(first: 1.0) { id } }", None), "invalid-argument");
    assert_eq!(
        code("{ a(first: \"10\") { id } }", None),
        "invalid-argument"
    );
    assert!(ok("{ a(first: 1) { id } b(last: 100) { id } }").nodes == 101);
    // 100 x 100 x 50 = 500,000 leaf nodes plus 10,100 above them: over the limit.
    let over = "{ a(first: 100) { b(first: 100) { c(first: 50) { id } } } }";
    let err = estimate(over, None, None).unwrap_err();
    assert_eq!(err.code(), "too-many-nodes");
    assert!(err.to_string().contains("510100"));
    // Exactly 500,000 is allowed: 100 x 100 x 49 + 100 x 100 + 100 = 500,100 is not, but
    // 50 x 100 x 99 + 50 x 100 + 50 = 500,050 is not either; 40 x 100 x 100 + 4,000 + 40 = 404,040 is.
    assert_eq!(
        ok("{ a(first: 40) { b(first: 100) { c(first: 100) { id } } } }").nodes,
        404_040
    );
}

#[test]
fn fragments_inline_fragments_and_spreads_multiply() {
    let doc = r#"
        query Labels {
          repository(owner: "o", name: "r") {
            ...Issues
            pullRequests(first: 10) { nodes { ... on PullRequest { ...LabelsOf } } }
          }
        }
        fragment Issues on Repository {
          issues(first: 20, states: [OPEN], orderBy: {field: CREATED_AT, direction: DESC}) {
            nodes { ...LabelsOf }
          }
        }
        fragment LabelsOf on Labelable { labels(first: 30) { nodes { name } } }
    "#;
    let e = ok(doc);
    // issues 1 + labels 20; pullRequests 1 + labels 10.
    assert_eq!(e.requests, 32);
    assert_eq!(e.nodes, 20 + 20 * 30 + 10 + 10 * 30);
    assert_eq!(e.cost, 1);
}

#[test]
fn fragment_errors() {
    assert_eq!(code("{ ...Missing }", None), "unknown-fragment");
    assert_eq!(
        code(
            "{ ...A } fragment A on X { ...B } fragment B on X { ...A }",
            None
        ),
        "fragment-cycle"
    );
    assert_eq!(
        code(
            "{ ...A } fragment A on X { id } fragment A on X { id }",
            None
        ),
        "duplicate-fragment"
    );
}

#[test]
fn operations_selection() {
    let two = "query A { a(first: 10) { id } } query B { b(first: 10) { c(first: 10) { id } } }";
    assert_eq!(code(two, None), "operation-name-required");
    assert_eq!(estimate(two, None, Some("B")).unwrap().requests, 11);
    assert_eq!(
        estimate(two, None, Some("C")).unwrap_err().code(),
        "unknown-operation"
    );
    assert_eq!(code("fragment A on X { id }", None), "no-operation");
    assert_eq!(
        code("subscription { x { id } }", None),
        "unsupported-operation"
    );
}

#[test]
fn mutations_cost_one_and_are_marked() {
    let doc = r#"mutation AddLabel($id: ID!) {
      addLabelsToLabelable(input: {labelableId: $id, labelIds: ["L1"]}) { clientMutationId }
    }"#;
    assert_eq!(
        ok(doc),
        Estimate {
            cost: 1,
            requests: 0,
            nodes: 0,
            mutation: true
        }
    );
}

#[test]
fn lexical_details() {
    let doc = "\u{feff}# leading comment\nquery($q: String = \"\"\"a \\\"\"\" block\"\"\", $x: [Int!]! = [1, 2]) @cached {\n  search(query: \"esc \\\" \\u00e9 \\n\", type: ISSUE, first: 5) @include(if: true) {\n    # a comment inside\n    nodes { ... on Issue { title } ... @skip(if: false) { id } }\n  }\n  rateLimit(dryRun: true) { cost }\n}";
    let e = ok(doc);
    assert_eq!((e.requests, e.nodes), (1, 5));
}

#[test]
fn syntax_errors() {
    for bad in [
        "",
        "{",
        "{ }",
        "{ a(first: 10 }",
        "{ a(first: 01) { id } }",
        "{ a(first: 1x) }",
        "{ a(b: \"unterminated) }",
        "{ a(b: \"\"\"never closed) }",
        "{ a(b: \"bad \\q escape\") }",
        "{ a . b }",
        "{ a(first: $n) }   query",
        "type Query { a: Int }",
        "{ a(): b }",
        "{ a % }",
    ] {
        let err = estimate(bad, None, None).unwrap_err();
        assert_eq!(err.code(), "syntax-error", "{bad:?} gave {err}");
        assert!(err.to_string().starts_with("graphql syntax error at byte"));
    }
}

#[test]
fn hostile_documents_are_bounded() {
    let deep = format!("{}{}", "{ a ".repeat(200), "}".repeat(200));
    assert_eq!(code(&deep, None), "too-deep");
    let deep_value = format!("{{ a(x: {}1{}) }}", "[".repeat(200), "]".repeat(200));
    assert_eq!(code(&deep_value, None), "too-deep");
    // A chain of fragments that each spread the next twice is costed once per fragment.
    let mut doc = String::from("{ ...F0 }");
    for i in 0..60 {
        doc.push_str(&format!(
            " fragment F{i} on X {{ ...F{} ...F{} }}",
            i + 1,
            i + 1
        ));
    }
    doc.push_str(" fragment F60 on X { c(first: 1) { id } }");
    let err = estimate(&doc, None, None).unwrap_err();
    assert_eq!(err.code(), "too-many-nodes");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Arbitrary text never panics the parser: it is either costed or refused with a code.
        #[test]
        fn arbitrary_text_never_panics(text in "[{}()\\[\\]:$@!.=,#\"a-z0-9 \\n\\\\é-]{0,80}") {
            match estimate(&text, None, None) {
                Ok(e) => prop_assert!(e.cost >= 1),
                Err(e) => prop_assert!(!e.code().is_empty()),
            }
        }

        /// A chain of connections costs what the formula says.
        #[test]
        fn chains_follow_the_formula(sizes in proptest::collection::vec(1u64..=100, 1..4)) {
            let mut doc = String::from("{ ");
            for (i, n) in sizes.iter().enumerate() {
                doc.push_str(&format!("c{i}(first: {n}) {{ id "));
            }
            doc.push_str(&"} ".repeat(sizes.len()));
            doc.push('}');
            let mut requests = 0u64;
            let mut nodes = 0u64;
            let mut product = 1u64;
            for n in &sizes {
                requests += product;
                product *= n;
                nodes += product;
            }
            match estimate(&doc, None, None) {
                Ok(e) => {
                    prop_assert_eq!((e.requests, e.nodes), (requests, nodes));
                    prop_assert_eq!(e.cost, ((requests + 50) / 100).max(1));
                }
                Err(e) => {
                    prop_assert_eq!(e.code(), "too-many-nodes");
                    prop_assert!(nodes > 500_000);
                }
            }
        }
    }
}

#[test]
fn exactly_the_node_limit_is_allowed_one_more_is_not() {
    // 50 + 50*99 + 50*99*100 = 500,000 nodes: GitHub's limit, which a query may reach.
    let at_limit = ok("query { a(first: 50) { nodes { b(first: 99) { nodes { c(first: 100) { nodes { id } } } } } } }");
    assert_eq!(at_limit.nodes, 500_000);
    // 51 + 51*99 + 51*99*100 = 510,000: over it.
    assert_eq!(
        code("query { a(first: 51) { nodes { b(first: 99) { nodes { c(first: 100) { nodes { id } } } } } } }", None),
        "too-many-nodes"
    );
}

#[test]
fn a_page_size_past_any_integer_type_is_out_of_range() {
    // 2^64 - 1 reads as an unsigned number only; it is a page size out of range, not a bad type.
    let doc = "query($n: Int) { a(first: $n) { nodes { id } } }";
    assert_eq!(
        code(doc, Some(json!({"n": u64::MAX}))),
        code(doc, Some(json!({"n": 101})))
    );
}

/// The lexer's and parser's edges (the misses of cargo mutants, docs/testing.md): every value a
/// GraphQL argument can hold is read, and a malformed one is refused, never costed.
#[test]
fn every_kind_of_argument_value_is_read_and_malformed_ones_are_refused() {
    let with = |value: &str| format!("query {{ viewer {{ login(x: {value}) }} }}");
    for value in [
        "0",
        "-0",
        "12",
        "-12",
        "1.5",
        "-1.5",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "1.5e3",
        "0.25",
        r#""a\\b""#,
        r#""a\/b""#,
        r#""a\bb""#,
        r#""a\fb""#,
        r#""a\nb""#,
        r#""a\rb""#,
        r#""a\tb""#,
        r#""a\"b""#,
        r#""\u00e9""#,
        r#""""block""""#,
        r#""""a \""" b""""#,
        "true",
        "false",
        "null",
        "ENUM",
        "[1, [2, [3]]]",
        "{a: {b: [true, false]}}",
        "$v",
    ] {
        let document = if value == "$v" {
            "query($v: Int) { viewer { login(x: $v) } }".to_string()
        } else {
            with(value)
        };
        assert_eq!(ok(&document).cost, 1, "{value}");
    }
    for value in [
        "01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "1.5.3",
        "1x",
        "1.5x",
        "0x1",
        r#""a\qb""#,
        r#""open"#,
        r#""""open"#,
        "[1, 2",
        "{a: 1",
    ] {
        assert!(
            estimate(&with(value), None, None).is_err(),
            "{value} was read"
        );
    }
    // A document may start with a byte-order mark, and with a fragment before its operation.
    assert_eq!(ok("\u{feff}query { viewer { login } }").cost, 1);
    assert_eq!(
        ok("fragment F on User { login } query { viewer { ...F } }").cost,
        1
    );
    // A variable inside a constant (a default value) is refused; a wrong punctuator is refused.
    assert!(estimate("query($v: Int = $w) { viewer { login } }", None, None).is_err());
    assert!(estimate("query { viewer { login(x: 1] } }", None, None).is_err());
}
