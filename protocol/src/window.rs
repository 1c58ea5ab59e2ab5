//! A resource's window (`{"limit","remaining","reserve","reset_ms"}`), the windows of the
//! checked resources (`{"rest"?,"graphql"?}`), and a runner's rate state: when it read them and
//! what it read (`{"observed_ms","rest"?,"graphql"?}`).

use crate::read::{object, required, Invalid, Part, Problem, Style};
use crate::{PerResource, Resource};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// One resource's window as a gate saw it or a pool states it: the reset in host milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    pub reset_ms: u64,
}

const WINDOW_FIELDS: [&str; 4] = ["limit", "remaining", "reserve", "reset_ms"];

impl Window {
    /// Reads the window named `name` (`rate.rest`, ...): four whole figures, remaining and
    /// reserve not above the limit. `strict` refuses members it does not know (a request);
    /// otherwise they are left unread (an answer from a newer host).
    pub fn read(value: &Value, name: &str, strict: bool) -> Result<Window, Invalid> {
        const PART: Part = Part::Rate;
        let allowed = strict.then_some(&WINDOW_FIELDS[..]);
        let fields = object(value, name, allowed, PART)?;
        let field = |key: &str| {
            required(
                fields.get(key),
                &format!("{name}.{key}"),
                PART,
                Style::Request,
            )
        };
        let w = Window {
            limit: field("limit")?,
            remaining: field("remaining")?,
            reserve: field("reserve")?,
            reset_ms: field("reset_ms")?,
        };
        for (key, v) in [("remaining", w.remaining), ("reserve", w.reserve)] {
            if v > w.limit {
                return Err(Invalid::new(
                    PART,
                    Problem::AboveLimit,
                    format!("{name}.{key} {v} is above {name}.limit {}", w.limit),
                ));
            }
        }
        Ok(w)
    }
}

/// The windows of the checked resources, each optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Windows(pub PerResource<Option<Window>>);

impl Windows {
    pub fn get(&self, resource: Resource) -> Option<Window> {
        self.0[resource]
    }

    pub fn slot(&mut self, resource: Resource) -> &mut Option<Window> {
        &mut self.0[resource]
    }

    /// The windows of `pairs` (a resource given twice: the last).
    pub fn of(pairs: impl IntoIterator<Item = (Resource, Option<Window>)>) -> Windows {
        let mut out = Windows::default();
        for (r, w) in pairs {
            *out.slot(r) = w;
        }
        out
    }

    /// These windows with `window` as `resource`'s.
    pub fn with(mut self, resource: Resource, window: Window) -> Windows {
        self.0[resource] = Some(window);
        self
    }

    /// The windows there are, in the wire's order.
    pub fn iter(&self) -> impl Iterator<Item = (Resource, Window)> + '_ {
        Resource::ALL
            .into_iter()
            .filter_map(|r| self.get(r).map(|w| (r, w)))
    }

    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The members `"rest":{...},"graphql":{...}` of the windows there are.
    fn entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        for (r, w) in self.iter() {
            map.serialize_entry(r.as_str(), &w)?;
        }
        Ok(())
    }

    /// Reads `rest` and `graphql` of `fields` under `prefix` (`rate.rest`, `window.graphql`):
    /// absent or `null` is no window.
    fn read_members(
        fields: &serde_json::Map<String, Value>,
        prefix: &str,
        strict: bool,
    ) -> Result<Windows, Invalid> {
        let mut out = Windows::default();
        for r in Resource::ALL {
            match fields.get(r.as_str()) {
                None | Some(Value::Null) => {}
                Some(v) => {
                    let name = format!("{prefix}.{}", r.as_str());
                    *out.slot(r) = Some(Window::read(v, &name, strict)?);
                }
            }
        }
        Ok(out)
    }

    /// A pool's windows as a port answers them (`window` of an admission answer): members it
    /// does not know are left unread; either window may be absent.
    pub fn read_answer(value: &Value) -> Result<Windows, Invalid> {
        let fields = object(value, "window", None, Part::Rate)?;
        Windows::read_members(fields, "window", false)
    }
}

impl Serialize for Windows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.entries(&mut map)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Windows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Windows, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Windows::read_answer(&value).map_err(serde::de::Error::custom)
    }
}

/// A runner's rate state: when it read `GET /rate_limit` (host clock) and the windows its
/// decision judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateState {
    pub observed_ms: u64,
    pub windows: Windows,
}

impl RateState {
    /// Reads `rate` as a request gives it (`invalid-rate-state`): `observed_ms` and at least
    /// one window; any other member is refused.
    pub fn read(value: &Value) -> Result<RateState, Invalid> {
        const PART: Part = Part::Rate;
        let allowed: Vec<&str> = ["observed_ms"]
            .into_iter()
            .chain(Resource::ALL.map(Resource::as_str))
            .collect();
        let fields = object(value, "rate", Some(&allowed), PART)?;
        let observed_ms = required(
            fields.get("observed_ms"),
            "rate.observed_ms",
            PART,
            Style::Request,
        )?;
        let windows = Windows::read_members(fields, "rate", true)?;
        if windows.is_empty() {
            return Err(Invalid::new(PART, Problem::NoWindow, no_window()));
        }
        Ok(RateState {
            observed_ms,
            windows,
        })
    }
}

/// `rate has no window: give rate.rest or rate.graphql (or both)`.
fn no_window() -> String {
    let names: Vec<String> = Resource::ALL
        .iter()
        .map(|r| format!("rate.{}", r.as_str()))
        .collect();
    let all = if names.len() == 2 { "both" } else { "more" };
    format!("rate has no window: give {} (or {all})", names.join(" or "))
}

impl Serialize for RateState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("observed_ms", &self.observed_ms)?;
        self.windows.entries(&mut map)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for RateState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RateState, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RateState::read(&value).map_err(serde::de::Error::custom)
    }
}
