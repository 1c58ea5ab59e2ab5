//! `record`: one deferral from a handoff receipt (or a gate's line), as `deferral-host record`
//! and `POST /v1/deferrals` both do it. Each entry reads and checks its own input first (the
//! receipt text, the launch target against its own rules, the pool tag); [`record`] records
//! it, and [`Recorded::answer`] is the answer both print.

use crate::error::{HostError, HostErrorKind};
use crate::lifecycle;
use crate::lifecycle::insert::Insertion;
use crate::store::{Deferral, RecordKeys, Store};
use deferral_core::lifecycle::State;
use serde_json::{json, Value};

/// What is recorded.
pub struct RecordRequest<'a> {
    /// The handoff receipt, or a gate or resume line holding it.
    pub text: &'a [u8],
    /// The launch target, parsed and allowed by the entry already.
    pub launch: &'a str,
    pub max_reentries: u32,
    pub keys: RecordKeys,
}

/// What [`record`] did.
pub enum Recorded {
    /// A new deferral; `forecast` its pool's forecast fields (see
    /// [`crate::pools::expect::record_fields`]).
    New {
        record: lifecycle::insert::Inserted,
        forecast: String,
    },
    /// The receipt was recorded already, with the same target: that deferral.
    Existing(Deferral),
}

/// Records the request; a receipt recorded before answers its deferral when the target is
/// the same, `launch-conflict` when it is not.
pub fn record(
    store: &dyn Store,
    request: RecordRequest<'_>,
    now_ms: &dyn Fn() -> u64,
) -> Result<Recorded, HostError> {
    let recording = lifecycle::insert::insert_once(
        store,
        request.text,
        request.launch,
        request.max_reentries,
        request.keys,
        now_ms(),
    )?;
    match recording {
        Insertion::New(record) => {
            let forecast = crate::pools::expect::record_fields(store, &record.deferral, now_ms())?;
            Ok(Recorded::New { record, forecast })
        }
        Insertion::Existing(d) => {
            check_same_launch(&d, request.launch)?;
            Ok(Recorded::Existing(d))
        }
    }
}

impl Recorded {
    pub fn deferral(&self) -> &Deferral {
        match self {
            Recorded::New { record, .. } => &record.deferral,
            Recorded::Existing(d) => d,
        }
    }

    /// Whether its pool's forecast starts it after its window ends.
    pub fn will_expire(&self) -> bool {
        matches!(self, Recorded::New { forecast, .. } if forecast.contains("\"will_expire\":true"))
    }

    /// `{"id","receipt","cancellation_handle"}` and the forecast fields for a new deferral,
    /// `{"already_recorded":true,"id","state"}` for one recorded before.
    pub fn answer(&self) -> String {
        match self {
            // Written by hand so the receipt keeps the contract's field order.
            Recorded::New { record, forecast } => format!(
                "{{\"id\":{},\"receipt\":{},\"cancellation_handle\":{}{forecast}}}",
                Value::String(record.deferral.id.clone()),
                record.receipt.to_json(),
                Value::String(record.cancellation_handle.clone())
            ),
            Recorded::Existing(d) => {
                json!({"id": d.id, "already_recorded": true, "state": d.state.as_str()}).to_string()
            }
        }
    }
}

/// A receipt recorded already answers its deferral (idempotent) only for the same launch
/// target; another target is `launch-conflict` (exit 2), which names the target kept and
/// the way to change it.
pub fn check_same_launch(existing: &Deferral, launch: &str) -> Result<(), HostError> {
    if existing.launch == launch {
        return Ok(());
    }
    let id = &existing.id;
    let how = if existing.state == State::Blocked {
        format!(
            "it ended blocked: `deferral-host retry {id} --handle HANDLE --launch {launch:?}` \
             starts it again with the new target"
        )
    } else {
        format!(
            "a deferral's target never changes; if it ends blocked, `deferral-host retry {id} \
             --handle HANDLE --launch {launch:?}` starts it again with the new target"
        )
    };
    Err(HostError::new(
        HostErrorKind::LaunchConflict,
        format!(
            "this receipt is recorded already as deferral {id} ({}) with the launch target {:?}, not {launch:?}; {how}",
            existing.state.as_str(),
            existing.launch
        ),
    ))
}
