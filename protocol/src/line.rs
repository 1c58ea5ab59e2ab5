//! The CLI's gate and resume line, the parts the host reads: `status`, `mode`, each checked
//! resource's figures (`rest`/`graphql`: `limit`, `remaining`, `reserve`, `plannedCost`, `reset`,
//! `ok`), the plan (`contentCreating`) and `deferredReceipt`, whose exact text is kept.
//!
//! The driver writes the figures and the plan with these types inside its whole line; the host
//! reads a line at `record` and at the end of an attempt.

use crate::read::{required, Invalid, Part, Problem, Style};
use crate::{Cost, Resource};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;

/// One resource's figures in the line. `reset` is GitHub's, in epoch seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineFigures {
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    pub planned_cost: u64,
    pub reset: u64,
    pub ok: bool,
}

impl LineFigures {
    /// Reads one resource's figures (`null`: none). The rate figures are `invalid-rate-state`,
    /// `plannedCost` is `invalid-cost` and may not exceed the whole window; `ok` is read as
    /// given (false when absent: the host does not judge by it).
    pub fn read(resource: Resource, value: &Value) -> Result<Option<LineFigures>, Invalid> {
        if value.is_null() {
            return Ok(None);
        }
        let name = resource.as_str();
        let figure = |key: &str, part: Part| {
            required(value.get(key), &format!("{name}.{key}"), part, Style::Line)
        };
        let f = LineFigures {
            limit: figure("limit", Part::Rate)?,
            remaining: figure("remaining", Part::Rate)?,
            reserve: figure("reserve", Part::Rate)?,
            reset: figure("reset", Part::Rate)?,
            planned_cost: figure("plannedCost", Part::Cost)?,
            ok: value.get("ok").and_then(Value::as_bool).unwrap_or(false),
        };
        if f.planned_cost > f.limit {
            return Err(Invalid::new(
                Part::Cost,
                Problem::NeverFits,
                format!(
                    "{name}.plannedCost {} is larger than the whole window ({name}.limit {}): it can never fit",
                    f.planned_cost, f.limit
                ),
            ));
        }
        Ok(Some(f))
    }
}

/// The plan's cost in the line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinePlan {
    pub rest: u64,
    pub graphql: u64,
    pub secondary_rest_points: u64,
    pub secondary_graphql_points: u64,
    pub content_creating: u64,
    pub secondary_minutes: u64,
}

/// A gate or resume line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateLine {
    pub status: String,
    /// `gate` or `resume` (absent in a bare `deferredReceipt` object).
    pub mode: Option<String>,
    pub rest: Option<LineFigures>,
    pub graphql: Option<LineFigures>,
    /// The plan's content-creating requests, when the line carries them.
    pub content: Option<u64>,
    /// `deferredReceipt`'s exact text, when there is one.
    pub receipt: Option<String>,
}

impl GateLine {
    /// Parses a text as a gate or resume line: `Ok(None)` when it is not one (not a JSON
    /// object, or one with neither `deferredReceipt` nor `status` and `mode`: a bare receipt or
    /// something else). Bad figures are [`Invalid`].
    pub fn parse(text: &str) -> Result<Option<GateLine>, Invalid> {
        let Ok(fields) = serde_json::from_str::<HashMap<String, Box<RawValue>>>(text.trim()) else {
            return Ok(None);
        };
        let is_line = fields.contains_key("deferredReceipt")
            || (fields.contains_key("status") && fields.contains_key("mode"));
        if !is_line {
            return Ok(None);
        }
        let value = |key: &str| -> Value {
            fields
                .get(key)
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or(Value::Null)
        };
        let text_of = |key: &str| value(key).as_str().map(str::to_string);
        // In the order the host has always checked them: the figures, then the plan.
        let rest = LineFigures::read(Resource::Rest, &value("rest"))?;
        let graphql = LineFigures::read(Resource::Graphql, &value("graphql"))?;
        let plan = value("plan");
        let content = match plan.get("contentCreating") {
            None | Some(Value::Null) => None,
            Some(v) => Some(required(
                Some(v),
                "plan.contentCreating",
                Part::Cost,
                Style::Line,
            )?),
        };
        Ok(Some(GateLine {
            status: text_of("status").unwrap_or_default(),
            mode: text_of("mode"),
            rest,
            graphql,
            content,
            receipt: fields
                .get("deferredReceipt")
                .map(|raw| raw.get().to_string())
                .filter(|text| text != "null"),
        }))
    }

    /// The figures there are, in the wire's order.
    pub fn figures(&self) -> impl Iterator<Item = (Resource, &LineFigures)> + '_ {
        [
            (Resource::Rest, &self.rest),
            (Resource::Graphql, &self.graphql),
        ]
        .into_iter()
        .filter_map(|(r, f)| f.as_ref().map(|f| (r, f)))
    }

    /// The planned cost per resource (a resource the line has no figures for costs 0).
    pub fn cost(&self) -> Cost {
        let of = |f: &Option<LineFigures>| f.map_or(0, |f| f.planned_cost);
        Cost {
            rest: of(&self.rest),
            graphql: of(&self.graphql),
            content: self.content.unwrap_or(0),
        }
    }
}
