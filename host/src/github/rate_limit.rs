//! `GET /rate_limit` with the host's own credentials: what is left of the quota those
//! credentials spend (GitHub does not count this call against the primary limit). The
//! answer's `resources.core` is the REST window and `resources.graphql` the GraphQL one, each
//! `{limit, used, remaining, reset}` with `reset` in epoch seconds; other buckets are read
//! as an open set and not used, and either of the two may be missing. The top-level `rate`
//! (gone in API version 2026-03-10) is never read. GitHub Enterprise Server with rate limiting off
//! (404 "Rate limiting is not enabled") or for an exempt user (200 "No rate limit for white
//! listed users") is unlimited, by the gate's rule (`deferral_core::signals::is_unlimited_answer`).

use super::api::ApiError;
use super::client::GithubClient;
use crate::store::pools::{bucket, Resource};
use deferral_core::signals::{is_unlimited_answer, parse_rate_limit_body};

/// One window as GitHub states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stated {
    pub resource: Resource,
    pub limit: u64,
    pub remaining: u64,
    pub reset_ms: u64,
}

/// What `GET /rate_limit` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RateLimit {
    /// The server enforces no primary limit.
    Unlimited,
    Windows(Vec<Stated>),
}

/// Reads the answer's windows of the resources a pool meters, by the gate's rules
/// ([`parse_rate_limit_body`], written once in the core): `resources` only (API version
/// 2026-03-10 has no top-level `rate`; under 2022-11-28 it repeats `resources.core`), buckets
/// GitHub adds or drops read as an open set, `core` and `graphql` well formed when present.
/// `Shape` when there is no `resources` object or a metered bucket is malformed; an answer
/// without either bucket gives no windows (a pool then learns nothing, and nothing fails).
pub fn parse(body: &str) -> Result<Vec<Stated>, ApiError> {
    let snapshot = parse_rate_limit_body(body).map_err(|e| {
        ApiError::Shape(match e.path.as_str() {
            "$" => "GET /rate_limit answered a body that is not JSON".into(),
            "$.resources" => "GET /rate_limit answered without resources".into(),
            path => format!("GET /rate_limit answered {path} that is not a window"),
        })
    })?;
    Ok(Resource::ALL
        .into_iter()
        .filter_map(|resource| {
            snapshot.resources.get(bucket(resource)).map(|w| Stated {
                resource,
                limit: w.limit,
                remaining: w.remaining,
                reset_ms: w.reset.saturating_mul(1000),
            })
        })
        .collect())
}

/// One `GET /rate_limit`, with the credentials for `repo` (a GitHub App's installation of that
/// repository; a token has one quota and needs none).
pub fn read(client: &GithubClient, repo: Option<&str>) -> Result<RateLimit, ApiError> {
    let reply = client.call("GET", "/rate_limit", repo, &[], None)?;
    // The gate's rule, written once in the core: a 404 or 200 without `resources` whose message
    // is one of GitHub Enterprise Server's phrases for "no limit here".
    if is_unlimited_answer(reply.status, &String::from_utf8_lossy(&reply.body)) {
        return Ok(RateLimit::Unlimited);
    }
    if !(200..300).contains(&reply.status) {
        return Err(ApiError::Status {
            status: reply.status,
            message: reply.message(),
        });
    }
    Ok(RateLimit::Windows(parse(&String::from_utf8_lossy(
        &reply.body,
    ))?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_core_and_graphql_and_ignores_the_rest() {
        let body = json!({"resources": {
            "core": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1_700_000_000},
            "search": {"limit": 30, "used": 0, "remaining": 30, "reset": 1_700_000_000},
            "graphql": {"limit": 5000, "used": 10, "remaining": 4990, "reset": 1_700_000_100},
            "new_bucket": {"limit": 1}},
            "rate": {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1_700_000_000}});
        let parse = |v: &serde_json::Value| parse(&v.to_string());
        assert_eq!(
            parse(&body).unwrap(),
            vec![
                Stated {
                    resource: Resource::Rest,
                    limit: 5000,
                    remaining: 4999,
                    reset_ms: 1_700_000_000_000
                },
                Stated {
                    resource: Resource::Graphql,
                    limit: 5000,
                    remaining: 4990,
                    reset_ms: 1_700_000_100_000
                }
            ]
        );
        let only_core =
            json!({"resources": {"core": {"limit": 60, "used": 0, "remaining": 60, "reset": 5}}});
        assert_eq!(parse(&only_core).unwrap().len(), 1);
        // 2026-03-10: no top-level rate; the same windows from resources.
        let mut new_shape = body.clone();
        new_shape.as_object_mut().unwrap().remove("rate");
        assert_eq!(parse(&new_shape).unwrap(), parse(&body).unwrap());
        // Buckets come and go: a vanished one, or a malformed one not metered, fails nothing.
        for gone in [
            json!({"resources": {}}),
            json!({"resources": {"search": {"limit": 30, "used": 0, "remaining": 30, "reset": 5}}}),
            json!({"resources": {"new_bucket": {"limit": 1}}}),
        ] {
            assert_eq!(parse(&gone).unwrap(), vec![], "{gone}");
        }
        // As the gate reads it: a metered bucket that is not a window is a bad answer.
        for bad in [
            json!({}),
            json!({"rate": {"limit": 5000}}),
            json!({"resources": []}),
            json!({"resources": {"core": {"limit": "5000"}}}),
        ] {
            assert!(matches!(parse(&bad), Err(ApiError::Shape(_))), "{bad}");
        }
    }
}
