//! Estimates what a GraphQL call costs against GitHub's primary limit, with GitHub's documented
//! formula: add up the requests needed to fill every connection (a field with `first` or
//! `last`), assuming each returns as many items as it asks for, divide by 100, round to the
//! nearest whole number (halves up), and charge at least 1 point.
//!
//! Nested connections multiply: `repositories(first: 100) { issues(first: 50) { labels(first:
//! 60) } }` needs 1 request for the repositories, 100 for their issues and 100 x 50 = 5,000 for
//! the labels: 5,101 requests, 51 points. The innermost `first` does not multiply requests, but
//! it does count towards nodes: 100 + 5,000 + 300,000 = 305,100 nodes (limit 500,000).
//!
//! Mutations: GitHub documents the formula for queries and charges most mutations 1 point. This
//! estimator applies the same formula to a mutation's selection (so a mutation that selects no
//! connection costs 1, and one that selects connections is never underestimated) and marks it as
//! a mutation, which is what the secondary limit charges 5 points for.
//!
//! `@skip` and `@include` are ignored, so the estimate is an upper bound when they are used.

mod error;
mod lexer;
pub mod parse;

pub use error::{CostError, CostErrorKind};

use parse::{parse_document, Document, Literal, OperationKind, Selection};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Largest `first`/`last` GitHub accepts.
pub const MAX_PAGE: u64 = 100;
/// Most nodes one call may request.
pub const MAX_NODES: u64 = 500_000;

/// The estimated cost of one GraphQL call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Estimate {
    /// Primary-limit points: `max(1, round(requests / 100))`.
    pub cost: u64,
    /// Requests needed to fill every connection.
    pub requests: u64,
    /// Nodes the call can return (at most 500,000).
    pub nodes: u64,
    /// `true` for a mutation (5 secondary points instead of 1).
    pub mutation: bool,
}

impl Estimate {
    /// As JSON: the same value as `serde_json::to_value(self)`, written out so the wasm build does not carry
    /// serde's struct serializer into `Value` for this type (tests/to_value.rs checks they agree).
    pub fn to_value(&self) -> Value {
        crate::json::object(vec![
            ("cost", self.cost.into()),
            ("requests", self.requests.into()),
            ("nodes", self.nodes.into()),
            ("mutation", self.mutation.into()),
        ])
    }
}

/// Estimates one call: `document` (GraphQL text), `variables` (a JSON object, or null/absent),
/// `operation_name` (needed when the document holds several operations).
pub fn estimate(
    document: &str,
    variables: Option<&Value>,
    operation_name: Option<&str>,
) -> Result<Estimate, CostError> {
    let variables = match variables {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(_) => return Err(CostError::new(CostErrorKind::InvalidVariables)),
    };
    let parsed = parse_document(document)?;
    let operation = match operation_name {
        Some(name) => parsed
            .operations
            .iter()
            .find(|op| op.name.as_deref() == Some(name))
            .ok_or_else(|| {
                CostError::new(CostErrorKind::UnknownOperation {
                    name: name.to_string(),
                })
            })?,
        None => match parsed.operations.as_slice() {
            [] => return Err(CostError::new(CostErrorKind::NoOperation)),
            [only] => only,
            _ => return Err(CostError::new(CostErrorKind::OperationNameRequired)),
        },
    };
    if operation.kind == OperationKind::Subscription {
        return Err(CostError::new(CostErrorKind::UnsupportedOperation));
    }
    let mut walker = Walker {
        document: &parsed,
        variables,
        defaults: &operation.defaults,
        fragments: BTreeMap::new(),
    };
    let total = walker.selections(&operation.selections)?;
    if total.nodes > MAX_NODES {
        return Err(CostError::new(CostErrorKind::TooManyNodes {
            nodes: total.nodes,
        }));
    }
    // Round half up, as GitHub's "rounded to the nearest whole number", then the 1-point floor.
    let cost = (total.requests.saturating_add(50) / 100).max(1);
    Ok(Estimate {
        cost,
        requests: total.requests,
        nodes: total.nodes,
        mutation: operation.kind == OperationKind::Mutation,
    })
}

/// Requests and nodes of a selection evaluated once; a parent connection of size n multiplies
/// both by n. Linearity is what lets a fragment be costed once however often it is spread.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    requests: u64,
    nodes: u64,
}

impl Tally {
    fn add(self, other: Tally) -> Tally {
        Tally {
            requests: self.requests.saturating_add(other.requests),
            nodes: self.nodes.saturating_add(other.nodes),
        }
    }
}

struct Walker<'a> {
    document: &'a Document,
    variables: Option<&'a serde_json::Map<String, Value>>,
    defaults: &'a BTreeMap<String, Literal>,
    /// Tallies of fragments already costed (so repeated spreads cost no extra work), and `None`
    /// for those being expanded right now (a cycle). One map, not a map and a set: the wasm
    /// build then holds one B-tree instance fewer and no B-tree removal code.
    fragments: BTreeMap<&'a str, Option<Tally>>,
}

impl<'a> Walker<'a> {
    fn selections(&mut self, selections: &'a [Selection]) -> Result<Tally, CostError> {
        let mut total = Tally::default();
        for selection in selections {
            let tally = match selection {
                Selection::Field(field) => {
                    let inner = self.selections(&field.selections)?;
                    match self.page_size(&field.name, &field.arguments)? {
                        // A connection: one request for itself, and its inner selection once per item.
                        Some(n) => Tally {
                            requests: n.saturating_mul(inner.requests).saturating_add(1),
                            nodes: n.saturating_mul(inner.nodes).saturating_add(n),
                        },
                        None => inner,
                    }
                }
                Selection::InlineFragment(inner) => self.selections(inner)?,
                Selection::FragmentSpread(name) => self.fragment(name)?,
            };
            total = total.add(tally);
        }
        Ok(total)
    }

    fn fragment(&mut self, name: &'a str) -> Result<Tally, CostError> {
        match self.fragments.get(name) {
            Some(Some(tally)) => return Ok(*tally),
            Some(None) => {
                return Err(CostError::new(CostErrorKind::FragmentCycle {
                    name: name.to_string(),
                }))
            }
            None => {}
        }
        let Some(selections) = self.document.fragments.get(name) else {
            return Err(CostError::new(CostErrorKind::UnknownFragment {
                name: name.to_string(),
            }));
        };
        self.fragments.insert(name, None);
        let tally = self.selections(selections)?;
        self.fragments.insert(name, Some(tally));
        Ok(tally)
    }

    /// The largest of `first` and `last` (each must be 1..=100), or `None` when the field has
    /// neither (or both are null): then it is not a connection.
    fn page_size(
        &self,
        field: &str,
        arguments: &[(String, Literal)],
    ) -> Result<Option<u64>, CostError> {
        let mut size = None;
        for (argument, literal) in arguments
            .iter()
            .filter(|(name, _)| name == "first" || name == "last")
        {
            let invalid = || {
                CostError::new(CostErrorKind::InvalidArgument {
                    field: field.to_string(),
                    argument: argument.clone(),
                })
            };
            let out_of_range = |value: String| {
                CostError::new(CostErrorKind::ArgumentOutOfRange {
                    field: field.to_string(),
                    argument: argument.clone(),
                    value,
                })
            };
            let value: Option<i128> = match self.resolve(literal)? {
                Resolved::Null => None,
                Resolved::Int(text) => Some(text.parse().map_err(|_| out_of_range(text.clone()))?),
                Resolved::Json(Value::Null) => None,
                Resolved::Json(Value::Number(n)) => match (n.as_i64(), n.as_u64()) {
                    (Some(v), _) => Some(i128::from(v)),
                    (None, Some(v)) => Some(i128::from(v)),
                    _ => return Err(invalid()),
                },
                Resolved::Json(_) | Resolved::Other => return Err(invalid()),
            };
            if let Some(v) = value {
                if !(1..=i128::from(MAX_PAGE)).contains(&v) {
                    return Err(out_of_range(v.to_string()));
                }
                size = size.max(Some(v as u64));
            }
        }
        Ok(size)
    }

    fn resolve(&self, literal: &'a Literal) -> Result<Resolved<'a>, CostError> {
        Ok(match literal {
            Literal::Int(text) => Resolved::Int(text),
            Literal::Null => Resolved::Null,
            Literal::Variable(name) => {
                if let Some(value) = self.variables.and_then(|vars| vars.get(name)) {
                    Resolved::Json(value.clone())
                } else if let Some(default) = self.defaults.get(name) {
                    self.resolve(default)?
                } else {
                    return Err(CostError::new(CostErrorKind::MissingVariable {
                        name: name.clone(),
                    }));
                }
            }
            _ => Resolved::Other,
        })
    }
}

enum Resolved<'a> {
    Int(&'a String),
    Null,
    Json(Value),
    Other,
}
