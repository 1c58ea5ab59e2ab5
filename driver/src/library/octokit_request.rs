//! What one Octokit request is, for the gate: its path (which names the bucket its answer
//! counts against), whether it is free (`GET /rate_limit`), and the one-request plan the core
//! costs before it is sent: a REST call by its method and route template, a GraphQL call by its
//! document and variables, whether Octokit's `graphql()` sent it or a caller wrote the body
//! (`request('POST /graphql', {data})` or `{query}`).

use super::obj;
use deferral_core::signals::{resource_for_path, GRAPHQL_RESOURCE};
use serde_json::{Map, Value};

/// The path of `url` (a route, or a whole URL), without query or fragment.
fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| {
        rest.find('/').map_or("/", |slash| &rest[slash..])
    });
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    }
}

/// The GraphQL request in `options`: `query`, `variables`, `operationName` given as options, or
/// in `data` (an object, or its JSON text).
fn graphql_body(options: &Value) -> Map<String, Value> {
    let data = match &options["data"] {
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    let field = |name: &str| {
        let given = &options[name];
        if given.is_null() {
            data[name].clone()
        } else {
            given.clone()
        }
    };
    let mut entry = Map::new();
    if let Value::String(query) = field("query") {
        entry.insert("query".into(), Value::String(query));
        if let variables @ Value::Object(_) = field("variables") {
            entry.insert("variables".into(), variables);
        }
        if let name @ Value::String(_) = field("operationName") {
            entry.insert("operation_name".into(), name);
        }
    } else {
        // A GraphQL call whose document the gate cannot see costs at least one point.
        entry.insert("points".into(), Value::from(1));
    }
    entry
}

/// `{options: {method, url, query?, variables?, operationName?, data?}}` ->
/// `{path, bucket, free, plan}`.
pub fn request(options: &Value) -> Value {
    let method = options["method"]
        .as_str()
        .unwrap_or("GET")
        .to_ascii_uppercase();
    let url = options["url"].as_str().unwrap_or("/");
    let path = path_of(url);
    let bucket = resource_for_path(&path);
    let free = method == "GET" && path.trim_end_matches('/').ends_with("/rate_limit");
    let plan = if method == "POST" && bucket == GRAPHQL_RESOURCE {
        obj(vec![(
            "graphql",
            Value::Array(vec![Value::Object(graphql_body(options))]),
        )])
    } else {
        // A template keeps its braces; an expanded URL is costed the same (one request).
        let route = if url.starts_with('/') {
            let bare: String = url
                .split('?')
                .next()
                .unwrap_or_default()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if bare.is_empty() {
                "/".to_string()
            } else {
                bare
            }
        } else {
            path.clone()
        };
        let entry = obj(vec![
            ("method", Value::from(method)),
            ("route", Value::from(route)),
        ]);
        obj(vec![("rest", Value::Array(vec![entry]))])
    };
    obj(vec![
        ("path", Value::from(path)),
        ("bucket", Value::from(bucket)),
        ("free", Value::Bool(free)),
        ("plan", plan),
    ])
}
