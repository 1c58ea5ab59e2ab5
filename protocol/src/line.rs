//! The CLI's gate and resume line, the parts the host reads: `status`, `mode`, each checked
//! resource's figures (under its name, `rest`/`graphql`: `limit`, `remaining`, `reserve`, `plannedCost`, `reset`,
//! `ok`), the plan (`contentCreating`) and `deferredReceipt`, whose exact text is kept.
//!
//! The driver writes the figures and the plan with these types inside its whole line; the host
//! reads a line at `record` and at the end of an attempt.

use crate::read::{required, Invalid, Part, Problem, Style};
use crate::{Cost, PerResource, Resource};
use serde::ser::{SerializeMap, Serializer};
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

/// The plan's cost in the line: each resource's cost by its name, each resource's points of
/// the secondary limit (`secondaryRestPoints`, ...), `contentCreating`, `secondaryMinutes`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinePlan {
    pub cost: PerResource<u64>,
    pub secondary_points: PerResource<u64>,
    pub content_creating: u64,
    pub secondary_minutes: u64,
}

/// `secondaryRestPoints`: the member of a resource's secondary points.
fn secondary_points_name(resource: Resource) -> String {
    let name = resource.as_str();
    let mut chars = name.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase());
    format!(
        "secondary{}{}Points",
        first.unwrap_or_default(),
        chars.as_str()
    )
}

impl Serialize for LinePlan {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2 * Resource::COUNT + 2))?;
        for (r, c) in self.cost.iter() {
            map.serialize_entry(r.as_str(), c)?;
        }
        for (r, p) in self.secondary_points.iter() {
            map.serialize_entry(&secondary_points_name(r), p)?;
        }
        map.serialize_entry("contentCreating", &self.content_creating)?;
        map.serialize_entry("secondaryMinutes", &self.secondary_minutes)?;
        map.end()
    }
}

/// A gate or resume line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateLine {
    pub status: String,
    /// `gate` or `resume` (absent in a bare `deferredReceipt` object).
    pub mode: Option<String>,
    /// Each resource's figures (`null` or absent: none).
    pub per_resource: PerResource<Option<LineFigures>>,
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
        let mut per_resource = PerResource::default();
        for r in Resource::ALL {
            per_resource[r] = LineFigures::read(r, &value(r.as_str()))?;
        }
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
            per_resource,
            content,
            receipt: fields
                .get("deferredReceipt")
                .map(|raw| raw.get().to_string())
                .filter(|text| text != "null"),
        }))
    }

    /// The figures there are, in the wire's order.
    pub fn figures(&self) -> impl Iterator<Item = (Resource, &LineFigures)> + '_ {
        self.per_resource
            .iter()
            .filter_map(|(r, f)| f.as_ref().map(|f| (r, f)))
    }

    /// The planned cost per resource (a resource the line has no figures for costs 0).
    pub fn cost(&self) -> Cost {
        Cost {
            resources: self
                .per_resource
                .map(|_, f| f.map_or(0, |f| f.planned_cost)),
            content: self.content.unwrap_or(0),
        }
    }
}
