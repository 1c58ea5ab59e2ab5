//! `record`: one deferral from a handoff receipt (or a gate's line), as `deferral-host record`
//! and `POST /v1/deferrals` both do it. An entry reads its input into a
//! [`deferral_protocol::RecordRequest`] (the pool, fairness key and priority already checked by
//! the protocol's rules) and says which launch targets it allows; [`check`] does every other
//! check before the store is touched, [`record`] records, and [`Recorded::answer`] is the typed
//! answer both print.

use crate::error::{HostError, HostErrorKind};
use crate::launch::{LaunchPolicy, Launchers};
use crate::lifecycle;
use crate::lifecycle::insert::{Insertion, Submitted};
use crate::store::pools::PoolTag;
use crate::store::{Deferral, RecordKeys, Store};
use deferral_core::lifecycle::State;
use deferral_protocol::{Commit, RecordAnswer, RecordRequest, StartForecast};
use serde_json::value::RawValue;

/// The launch targets an entry lets a caller name.
pub enum Allowed<'a> {
    /// Every built-in kind (the operator's own command line).
    Any(&'a Launchers),
    /// The kinds and targets the operator allowed (`serve --allow-launch`).
    Policy(&'a LaunchPolicy),
}

/// Where a record comes from: what it may launch, and what the entry adds.
pub struct Entry<'a> {
    pub allowed: Allowed<'a>,
    /// Whether a target's program must be installed here (off with `--no-check`).
    pub check_programs: bool,
    /// `record --artifact`: the artifact the receipt came in.
    pub artifact_name: Option<String>,
}

/// A request that passed every check, ready to record.
pub struct Checked {
    submitted: Submitted,
    launch: String,
    max_reentries: u32,
    commit: Option<Commit>,
}

/// What [`record`] did.
pub enum Recorded {
    /// A new deferral, with when its pool's forecast starts it (for one recorded deferred).
    New {
        record: Box<lifecycle::insert::Inserted>,
        forecast: Option<StartForecast>,
    },
    /// The receipt was recorded already, with the same target: that deferral.
    Existing(Box<Deferral>),
}

/// Checks a request without the store: the launch target against what the entry allows, the
/// receipt (or the gate line holding it), the target's program installed. Invalid input stores nothing.
pub fn check(request: RecordRequest, entry: Entry<'_>, now_ms: u64) -> Result<Checked, HostError> {
    // The target first: a caller naming one the operator did not allow learns nothing more.
    let target = match entry.allowed {
        Allowed::Any(launchers) => launchers.parse(&request.launch)?,
        Allowed::Policy(policy) => policy.check(&request.launch)?,
    };
    // The pool's name, key and priority were checked by the protocol's rules when read.
    let tag = PoolTag {
        pool: request.pool.map(|p| p.as_str().to_string()),
        cost: request.cost,
        seen: request.rate.map_or_else(Vec::new, |r| {
            crate::pools::wire::observations(&r, "record", now_ms)
        }),
        priority: request.priority.map(|p| p.0),
        fairness_key: request.fairness_key.map(|k| k.as_str().to_string()),
    };
    let keys = RecordKeys {
        artifact_name: entry.artifact_name,
        pool: Some(tag),
        ..RecordKeys::default()
    };
    // The receipt (or the line holding it) read and checked once, here.
    let submitted = Submitted::read(request.receipt.as_bytes(), keys, now_ms)?;
    if entry.check_programs {
        target.check_installed()?;
    }
    Ok(Checked {
        submitted,
        launch: request.launch,
        max_reentries: request
            .max_reentries
            .unwrap_or(deferral_core::lifecycle::DEFAULT_MAX_REENTRIES),
        commit: request.commit,
    })
}

/// Records a checked request; a receipt recorded before answers its deferral when the target
/// is the same, `launch-conflict` when it is not. A commit given is kept once: a record sent
/// again does not move an existing deferral's commit.
pub fn record(
    store: &dyn Store,
    checked: Checked,
    now_ms: &dyn Fn() -> u64,
) -> Result<Recorded, HostError> {
    let insertion = lifecycle::insert::insert_submitted(
        store,
        checked.submitted,
        &checked.launch,
        checked.max_reentries,
        now_ms(),
    )?;
    let recorded = match insertion {
        Insertion::New(record) => {
            let forecast = crate::pools::expect::start_forecast(store, &record.deferral, now_ms())?;
            Recorded::New {
                record: Box::new(record),
                forecast,
            }
        }
        Insertion::Existing(d) => {
            check_same_launch(&d, &checked.launch)?;
            Recorded::Existing(Box::new(d))
        }
    };
    if let Some(commit) = checked.commit {
        store.put_commit(&crate::ops::commit_status::commit_ref(
            commit,
            &recorded.deferral().id,
        ))?;
    }
    Ok(recorded)
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
        matches!(self, Recorded::New { forecast: Some(f), .. } if f.will_expire)
    }

    /// The answer both entries print.
    pub fn answer(&self) -> Result<RecordAnswer, HostError> {
        Ok(match self {
            Recorded::New { record, forecast } => RecordAnswer::New {
                id: record.deferral.id.clone(),
                receipt: RawValue::from_string(record.receipt.to_json()).map_err(|e| {
                    HostError::new(HostErrorKind::Backend, format!("the issued receipt: {e}"))
                })?,
                cancellation_handle: record.cancellation_handle.clone(),
                forecast: forecast.clone(),
            },
            Recorded::Existing(d) => RecordAnswer::Existing {
                already_recorded: true,
                id: d.id.clone(),
                state: d.state.as_str().to_string(),
            },
        })
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
