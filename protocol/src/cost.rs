//! What a plan asks of a pool: `{"rest","graphql","content"}` (each resource by its name, in
//! the order of [`Resource::ALL`], then `content`).

use crate::read::{object, whole, Invalid, Part, Problem, Style};
use crate::{PerResource, RateState, Resource};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The member a cost keeps beside its resources.
const CONTENT: &str = "content";

/// A planned cost: each resource's (REST requests, GraphQL points) and content-creating
/// requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// The cost in each resource's window.
    pub resources: PerResource<u64>,
    /// Content-creating requests.
    pub content: u64,
}

impl Cost {
    /// The cost in one resource's window.
    pub fn of(&self, resource: Resource) -> u64 {
        self.resources[resource]
    }

    /// This cost with `amount` in `resource`'s window.
    pub fn with(mut self, resource: Resource, amount: u64) -> Cost {
        self.resources[resource] = amount;
        self
    }

    /// This cost with `content` content-creating requests.
    pub fn with_content(mut self, content: u64) -> Cost {
        self.content = content;
        self
    }

    /// The two costs together, each figure at most `u64::MAX`.
    pub fn saturating_add(&self, other: &Cost) -> Cost {
        Cost {
            resources: self
                .resources
                .map(|r, c| c.saturating_add(other.resources[r])),
            content: self.content.saturating_add(other.content),
        }
    }

    /// The members a cost has, in the wire's order: each resource's name, then `content`.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Resource::ALL
            .into_iter()
            .map(Resource::as_str)
            .chain([CONTENT])
    }

    /// The figure of the member `name` (see [`Cost::names`]); `None` for another name.
    pub fn named(&self, name: &str) -> Option<u64> {
        match Resource::parse(name) {
            Some(r) => Some(self.of(r)),
            None => (name == CONTENT).then_some(self.content),
        }
    }

    /// This cost with `amount` under the member `name`; another name changes nothing.
    pub fn with_named(self, name: &str, amount: u64) -> Cost {
        match Resource::parse(name) {
            Some(r) => self.with(r, amount),
            None if name == CONTENT => Cost {
                content: amount,
                ..self
            },
            None => self,
        }
    }

    /// Reads `cost` as a request gives it (`invalid-cost`): each member optional (absent or
    /// `null`: 0), a whole number; any other member is refused.
    pub fn read(value: &Value) -> Result<Cost, Invalid> {
        const PART: Part = Part::Cost;
        let names: Vec<&str> = Cost::names().collect();
        let fields = object(value, "cost", Some(&names), PART)?;
        let of = |key: &str| -> Result<u64, Invalid> {
            Ok(whole(
                fields.get(key),
                &format!("cost.{key}"),
                PART,
                Style::Request,
            )?
            .unwrap_or(0))
        };
        let mut cost = Cost::default();
        for name in names {
            cost = cost.with_named(name, of(name)?);
        }
        Ok(cost)
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

impl Serialize for Cost {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Resource::COUNT + 1))?;
        for (r, c) in self.resources.iter() {
            map.serialize_entry(r.as_str(), c)?;
        }
        map.serialize_entry(CONTENT, &self.content)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Cost {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Cost, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Cost::read(&value).map_err(serde::de::Error::custom)
    }
}
