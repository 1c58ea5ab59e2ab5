//! The plan document: what a unit of work intends to call, and what that costs against GitHub's
//! primary limits (REST requests, GraphQL points) and secondary limits (points per minute,
//! content-creating requests per minute). The format is documented in `docs/plan.md`.

use crate::graphql_cost::{estimate, CostError};
use deferral_protocol::Resource;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Secondary points GitHub allows per minute on REST endpoints.
pub const REST_POINTS_PER_MINUTE: u64 = 900;
/// Secondary points GitHub allows per minute on the GraphQL endpoint.
pub const GRAPHQL_POINTS_PER_MINUTE: u64 = 2_000;
/// Content-creating requests GitHub allows per minute.
pub const CONTENT_CREATING_PER_MINUTE: u64 = 80;

/// A plan: REST requests and GraphQL operations. Both lists may be empty or absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    #[serde(default)]
    pub rest: Vec<RestItem>,
    #[serde(default)]
    pub graphql: Vec<GraphqlItem>,
}

/// `count` requests of one REST route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestItem {
    /// `GET`, `HEAD`, `OPTIONS`, `POST`, `PATCH`, `PUT` or `DELETE` (any case).
    pub method: String,
    /// The route template, e.g. `/repos/{owner}/{repo}/issues`; must start with `/`.
    pub route: String,
    /// How many requests; at least 1, default 1.
    #[serde(default)]
    pub count: Option<u64>,
    /// Whether each request creates content (issues, comments, ...). Default: `true` for
    /// `POST`, `false` otherwise.
    #[serde(default)]
    pub content_creating: Option<bool>,
}

/// `count` GraphQL calls: either a document (costed by the estimator) or explicit points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphqlItem {
    /// The GraphQL document; excludes `points` and `mutation`.
    #[serde(default)]
    pub query: Option<String>,
    /// Variables for `query` (a JSON object).
    #[serde(default)]
    pub variables: Option<Value>,
    /// Which operation of `query` runs, when it holds several.
    #[serde(default)]
    pub operation_name: Option<String>,
    /// Primary points per call, given directly instead of a document (at least 1).
    #[serde(default)]
    pub points: Option<u64>,
    /// With `points`: whether the call is a mutation. Default `false`.
    #[serde(default)]
    pub mutation: Option<bool>,
    /// How many calls; at least 1, default 1.
    #[serde(default)]
    pub count: Option<u64>,
    /// Whether each call creates content. Default: `true` for mutations, `false` for queries.
    #[serde(default)]
    pub content_creating: Option<bool>,
}

/// What a plan costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanCost {
    /// Primary REST requests (1 each).
    pub rest: u64,
    /// Primary GraphQL points (estimated or given).
    pub graphql: u64,
    /// Secondary REST points: 1 per GET/HEAD/OPTIONS, 5 per write.
    pub secondary_rest_points: u64,
    /// Secondary GraphQL points: 1 per query, 5 per mutation.
    pub secondary_graphql_points: u64,
    /// Content-creating requests (REST and GraphQL together).
    pub content_creating: u64,
    /// Minutes of secondary budget the plan needs: the ceiling of the largest of
    /// REST points / 900, GraphQL points / 2,000 and content-creating requests / 80.
    pub secondary_minutes: u64,
}

impl PlanCost {
    /// The primary cost in `resource`'s window (the pools' cost of the plan).
    pub fn of(&self, resource: Resource) -> u64 {
        match resource {
            Resource::Rest => self.rest,
            Resource::Graphql => self.graphql,
        }
    }

    /// The points of the secondary limit that `resource`'s requests take.
    pub fn secondary_points(&self, resource: Resource) -> u64 {
        match resource {
            Resource::Rest => self.secondary_rest_points,
            Resource::Graphql => self.secondary_graphql_points,
        }
    }

    /// As JSON: the same value as `serde_json::to_value(self)`, written out so the wasm build does not carry
    /// serde's struct serializer into `Value` for this type (tests/to_value.rs checks they agree).
    pub fn to_value(&self) -> Value {
        crate::json::object(vec![
            ("rest", self.rest.into()),
            ("graphql", self.graphql.into()),
            ("secondary_rest_points", self.secondary_rest_points.into()),
            (
                "secondary_graphql_points",
                self.secondary_graphql_points.into(),
            ),
            ("content_creating", self.content_creating.into()),
            ("secondary_minutes", self.secondary_minutes.into()),
        ])
    }
}

/// What is wrong with a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanErrorKind {
    /// Not JSON, or not the documented shape (an unknown field, a wrong type, ...).
    Malformed(String),
    InvalidMethod,
    InvalidRoute,
    InvalidCount,
    InvalidPoints,
    /// A GraphQL entry with both or neither of `query` and `points`, or `mutation` with `query`.
    InvalidGraphqlEntry,
    /// The estimator refused the document.
    Estimate(CostError),
}

/// A refused plan, with the JSON path of the offending entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    pub kind: PlanErrorKind,
    pub path: String,
}

impl PlanError {
    fn new(kind: PlanErrorKind, path: impl Into<String>) -> Self {
        PlanError {
            kind,
            path: path.into(),
        }
    }

    /// Stable machine code; estimator failures keep the estimator's code.
    pub fn code(&self) -> &'static str {
        match &self.kind {
            PlanErrorKind::Malformed(_) => "malformed-plan",
            PlanErrorKind::InvalidMethod => "invalid-method",
            PlanErrorKind::InvalidRoute => "invalid-route",
            PlanErrorKind::InvalidCount => "invalid-count",
            PlanErrorKind::InvalidPoints => "invalid-points",
            PlanErrorKind::InvalidGraphqlEntry => "invalid-graphql-entry",
            PlanErrorKind::Estimate(error) => error.code(),
        }
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PlanErrorKind::Malformed(detail) => write!(f, "the plan is not a valid plan document: {detail}"),
            PlanErrorKind::InvalidMethod => {
                write!(f, "the method at {} is not one of get, head, options, post, patch, put, delete", self.path)
            }
            PlanErrorKind::InvalidRoute => write!(f, "the route at {} must start with / and hold no spaces", self.path),
            PlanErrorKind::InvalidCount => write!(f, "the count at {} must be at least 1", self.path),
            PlanErrorKind::InvalidPoints => write!(f, "the points at {} must be at least 1", self.path),
            PlanErrorKind::InvalidGraphqlEntry => write!(
                f,
                "the graphql entry at {} needs exactly one of query or points (mutation goes with points)",
                self.path
            ),
            PlanErrorKind::Estimate(error) => write!(f, "the graphql entry at {} cannot be costed: {error}", self.path),
        }
    }
}

impl std::error::Error for PlanError {}

const READ_METHODS: [&str; 3] = ["GET", "HEAD", "OPTIONS"];
const WRITE_METHODS: [&str; 4] = ["POST", "PATCH", "PUT", "DELETE"];

impl Plan {
    /// Reads a plan from JSON text.
    pub fn from_json(text: &str) -> Result<Plan, PlanError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PlanError::new(PlanErrorKind::Malformed(e.to_string()), "$"))?;
        Plan::from_value(&value)
    }

    /// Reads a plan from a JSON value and checks every entry (including that each GraphQL
    /// document can be costed), so a plan that parses can always be costed.
    pub fn from_value(value: &Value) -> Result<Plan, PlanError> {
        // serde would also accept a struct written as an array; the documented form is objects.
        let not_object = |path: String| {
            PlanError::new(PlanErrorKind::Malformed("expected an object".into()), path)
        };
        let Some(object) = value.as_object() else {
            return Err(not_object("$".into()));
        };
        for list in ["rest", "graphql"] {
            if let Some(Value::Array(items)) = object.get(list) {
                if let Some(i) = items.iter().position(|item| !item.is_object()) {
                    return Err(not_object(format!("$.{list}[{i}]")));
                }
            }
        }
        let plan: Plan = Plan::deserialize(value)
            .map_err(|e| PlanError::new(PlanErrorKind::Malformed(e.to_string()), "$"))?;
        plan.cost()?;
        Ok(plan)
    }

    /// What the plan costs.
    pub fn cost(&self) -> Result<PlanCost, PlanError> {
        let mut cost = PlanCost::default();
        for (i, item) in self.rest.iter().enumerate() {
            let path = format!("$.rest[{i}]");
            let method = item.method.to_ascii_uppercase();
            let write = if READ_METHODS.contains(&method.as_str()) {
                false
            } else if WRITE_METHODS.contains(&method.as_str()) {
                true
            } else {
                return Err(PlanError::new(
                    PlanErrorKind::InvalidMethod,
                    format!("{path}.method"),
                ));
            };
            if !item.route.starts_with('/')
                || item
                    .route
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control())
            {
                return Err(PlanError::new(
                    PlanErrorKind::InvalidRoute,
                    format!("{path}.route"),
                ));
            }
            let count = count_of(item.count, &path)?;
            cost.rest = cost.rest.saturating_add(count);
            let points = if write { 5 } else { 1 };
            cost.secondary_rest_points = cost
                .secondary_rest_points
                .saturating_add(count.saturating_mul(points));
            if item.content_creating.unwrap_or(method == "POST") {
                cost.content_creating = cost.content_creating.saturating_add(count);
            }
        }
        for (i, item) in self.graphql.iter().enumerate() {
            let path = format!("$.graphql[{i}]");
            let (points, mutation) = match (&item.query, item.points) {
                (Some(query), None) if item.mutation.is_none() => {
                    let estimate = estimate(
                        query,
                        item.variables.as_ref(),
                        item.operation_name.as_deref(),
                    )
                    .map_err(|e| {
                        PlanError::new(PlanErrorKind::Estimate(e), format!("{path}.query"))
                    })?;
                    (estimate.cost, estimate.mutation)
                }
                (None, Some(points))
                    if item.variables.is_none() && item.operation_name.is_none() =>
                {
                    if points == 0 {
                        return Err(PlanError::new(
                            PlanErrorKind::InvalidPoints,
                            format!("{path}.points"),
                        ));
                    }
                    (points, item.mutation.unwrap_or(false))
                }
                _ => return Err(PlanError::new(PlanErrorKind::InvalidGraphqlEntry, path)),
            };
            let count = count_of(item.count, &path)?;
            cost.graphql = cost.graphql.saturating_add(points.saturating_mul(count));
            let secondary = if mutation { 5 } else { 1 };
            cost.secondary_graphql_points = cost
                .secondary_graphql_points
                .saturating_add(count.saturating_mul(secondary));
            if item.content_creating.unwrap_or(mutation) {
                cost.content_creating = cost.content_creating.saturating_add(count);
            }
        }
        // ceil(max(a/x, b/y, c/z)) equals the max of the separate ceilings.
        cost.secondary_minutes = cost
            .secondary_rest_points
            .div_ceil(REST_POINTS_PER_MINUTE)
            .max(
                cost.secondary_graphql_points
                    .div_ceil(GRAPHQL_POINTS_PER_MINUTE),
            )
            .max(cost.content_creating.div_ceil(CONTENT_CREATING_PER_MINUTE));
        Ok(cost)
    }
}

fn count_of(count: Option<u64>, path: &str) -> Result<u64, PlanError> {
    match count {
        None => Ok(1),
        Some(0) => Err(PlanError::new(
            PlanErrorKind::InvalidCount,
            format!("{path}.count"),
        )),
        Some(n) => Ok(n),
    }
}
