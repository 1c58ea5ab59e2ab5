//! `GET /rate_limit` with the host's own credentials: what is left of the quota those
//! credentials spend (GitHub does not count this call against the primary limit). The
//! answer's `resources.core` is the REST window and `resources.graphql` the GraphQL one, each
//! `{limit, used, remaining, reset}` with `reset` in epoch seconds; other buckets are ignored,
//! and either of the two may be missing. GitHub Enterprise Server with rate limiting off
//! answers 404 "Rate limiting is not enabled": unlimited.

use super::api::ApiError;
use super::client::GithubClient;
use crate::store::pools::Resource;
use serde_json::Value;

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

fn bucket(resources: &Value, name: &str, resource: Resource) -> Option<Stated> {
    let b = resources.get(name)?;
    let field = |key: &str| b.get(key).and_then(Value::as_u64);
    Some(Stated {
        resource,
        limit: field("limit")?,
        remaining: field("remaining")?.min(field("limit")?),
        reset_ms: field("reset")?.saturating_mul(1000),
    })
}

/// Reads the answer's windows (`Shape` when it has neither `core` nor `graphql`).
pub fn parse(body: &Value) -> Result<Vec<Stated>, ApiError> {
    let resources = body
        .get("resources")
        .ok_or_else(|| ApiError::Shape("GET /rate_limit answered without resources".into()))?;
    let windows: Vec<Stated> = [("core", Resource::Rest), ("graphql", Resource::Graphql)]
        .into_iter()
        .filter_map(|(name, r)| bucket(resources, name, r))
        .collect();
    if windows.is_empty() {
        return Err(ApiError::Shape(
            "GET /rate_limit answered without a core or graphql bucket of whole numbers".into(),
        ));
    }
    Ok(windows)
}

/// One `GET /rate_limit`, with the credentials for `repo` (a GitHub App's installation of that
/// repository; a token has one quota and needs none).
pub fn read(client: &GithubClient, repo: Option<&str>) -> Result<RateLimit, ApiError> {
    let reply = client.call("GET", "/rate_limit", repo, &[], None)?;
    if reply.status == 404 && reply.message().contains("Rate limiting is not enabled") {
        return Ok(RateLimit::Unlimited);
    }
    if !(200..300).contains(&reply.status) {
        return Err(ApiError::Status {
            status: reply.status,
            message: reply.message(),
        });
    }
    Ok(RateLimit::Windows(parse(&reply.json()?)?))
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
        for bad in [
            json!({}),
            json!({"resources": {}}),
            json!({"resources": {"core": {"limit": "5000"}}}),
        ] {
            assert!(matches!(parse(&bad), Err(ApiError::Shape(_))), "{bad}");
        }
    }
}
