//! What a plan asks of a pool: `{"rest","graphql","content"}`.

use crate::read::{object, whole, Invalid, Part, Problem, Style};
use crate::{RateState, Resource};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A planned cost: REST requests, GraphQL points, content-creating requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    pub rest: u64,
    pub graphql: u64,
    /// Content-creating requests.
    pub content: u64,
}

impl Cost {
    /// The cost in one resource's window.
    pub fn of(&self, resource: Resource) -> u64 {
        match resource {
            Resource::Rest => self.rest,
            Resource::Graphql => self.graphql,
        }
    }

    /// Reads `cost` as a request gives it (`invalid-cost`): each member optional (absent or
    /// `null`: 0), a whole number; any other member is refused.
    pub fn read(value: &Value) -> Result<Cost, Invalid> {
        const PART: Part = Part::Cost;
        let fields = object(value, "cost", Some(&["rest", "graphql", "content"]), PART)?;
        let of = |key: &str| -> Result<u64, Invalid> {
            Ok(whole(
                fields.get(key),
                &format!("cost.{key}"),
                PART,
                Style::Request,
            )?
            .unwrap_or(0))
        };
        Ok(Cost {
            rest: of("rest")?,
            graphql: of("graphql")?,
            content: of("content")?,
        })
    }

    /// `invalid-cost` when this cost is larger than a window of `rate` less its reserve: it
    /// would never fit, in that window or any later one.
    pub fn check_fits(&self, rate: &RateState) -> Result<(), Invalid> {
        for (r, w) in rate.windows.iter() {
            let most = w.limit.saturating_sub(w.reserve);
            let c = self.of(r);
            if c > most {
                let name = r.as_str();
                return Err(Invalid::new(
                    Part::Cost,
                    Problem::NeverFits,
                    format!(
                        "cost.{name} {c} is larger than rate.{name}.limit {} less its reserve {}: it never fits a window",
                        w.limit, w.reserve
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Cost {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Cost, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Cost::read(&value).map_err(serde::de::Error::custom)
    }
}
