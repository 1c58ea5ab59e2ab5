//! One admission across runners: `POST /v1/admissions` `{"pool","cost","rate"}` and its answer,
//! `POST /v1/admissions/{admission}/release` `{"rate"?}` and its answer.

use crate::{Cost, RateState, Windows};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};

/// The admission request's body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AdmissionRequest {
    pub pool: String,
    pub cost: Cost,
    pub rate: RateState,
}

/// A release's body: `{}`, or `{"rate"}` with what the run saw after its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReleaseRequest {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateState>,
}

/// A port's answer to an admission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdmissionAnswer {
    /// The plan's cost is admitted: the work may proceed. `window`: what is left for others.
    Admitted {
        admission: String,
        pool: String,
        expires_ms: u64,
        window: Windows,
    },
    /// The pool has no room for it: why, and what is left for this caller.
    Refused {
        pool: String,
        reason: String,
        window: Windows,
    },
}

impl AdmissionAnswer {
    pub fn pool(&self) -> &str {
        match self {
            AdmissionAnswer::Admitted { pool, .. } | AdmissionAnswer::Refused { pool, .. } => pool,
        }
    }

    pub fn window(&self) -> &Windows {
        match self {
            AdmissionAnswer::Admitted { window, .. } | AdmissionAnswer::Refused { window, .. } => {
                window
            }
        }
    }
}

/// Members in the order the host has always answered them (by name).
impl Serialize for AdmissionAnswer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            AdmissionAnswer::Admitted {
                admission,
                pool,
                expires_ms,
                window,
            } => {
                map.serialize_entry("admission", admission)?;
                map.serialize_entry("admitted", &true)?;
                map.serialize_entry("expires_ms", expires_ms)?;
                map.serialize_entry("pool", pool)?;
                map.serialize_entry("window", window)?;
            }
            AdmissionAnswer::Refused {
                pool,
                reason,
                window,
            } => {
                map.serialize_entry("admitted", &false)?;
                map.serialize_entry("pool", pool)?;
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("window", window)?;
            }
        }
        map.end()
    }
}

/// A port's answer to a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseAnswer {
    /// `{"released":true}`.
    Released,
    /// `{"already":true,"released":false}`: released before; this one changed nothing.
    Already,
}

impl ReleaseAnswer {
    /// `released` true (with `already` absent or false), or `released` false with `already`
    /// true; anything else is not a release answer.
    pub fn read(answer: &Map<String, Value>) -> Option<ReleaseAnswer> {
        match (
            answer.get("released").and_then(Value::as_bool),
            answer.get("already").and_then(Value::as_bool),
        ) {
            (Some(true), None | Some(false)) => Some(ReleaseAnswer::Released),
            (Some(false), Some(true)) => Some(ReleaseAnswer::Already),
            _ => None,
        }
    }
}

impl Serialize for ReleaseAnswer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if *self == ReleaseAnswer::Already {
            map.serialize_entry("already", &true)?;
        }
        map.serialize_entry("released", &(*self == ReleaseAnswer::Released))?;
        map.end()
    }
}
