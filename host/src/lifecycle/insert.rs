//! A handoff receipt entered as a new deferral, once: the same receipt (by its digest) or the
//! same artifact answers the deferral that has it, whichever entry brings it (`record`,
//! `serve`, `watch`, a followed run, a successor), even when two entries race.

use super::change::{window_of, KIND_RETAINED, KIND_SUBMITTED};
use crate::error::{HostError, HostErrorKind};
use crate::handle::{handle_digest, new_deferral_id, new_handle};
use crate::store::{Deferral, NewDeferral, NewReceipt, RecordKeys, Store, StoreError};
use deferral_core::lifecycle::{transition, Event, Position};
use deferral_core::receipt::{validate, Receipt};

/// A new deferral, with the retained receipt and the raw cancellation handle it was given.
#[derive(Debug, Clone)]
pub struct Inserted {
    pub deferral: Deferral,
    pub receipt: Receipt,
    /// The raw cancellation handle: shown once, never stored.
    pub cancellation_handle: String,
}

/// What `insert_once` did: recorded a new deferral, or found the receipt (or artifact)
/// recorded already.
#[derive(Debug, Clone)]
pub enum Insertion {
    New(Inserted),
    Existing(Deferral),
}

/// Validates a handoff receipt and records it as a new deferral owned by this host; a
/// receipt or artifact recorded already is an error (`already-recorded`). Entries that answer
/// the existing deferral instead use [`insert_once`].
pub fn insert_new(
    store: &dyn Store,
    text: &[u8],
    launch: &str,
    max_reentries: u32,
    now_ms: u64,
) -> Result<Inserted, HostError> {
    match insert_once(
        store,
        text,
        launch,
        max_reentries,
        RecordKeys::default(),
        now_ms,
    )? {
        Insertion::New(recorded) => Ok(recorded),
        Insertion::Existing(d) => Err(HostError::new(
            HostErrorKind::AlreadyRecorded,
            format!("this receipt is recorded already as deferral {}", d.id),
        )),
    }
}

/// The deferral that holds a receipt with this digest (`None`: the text is not JSON) or this
/// artifact, if any.
pub fn find_recorded(
    store: &dyn Store,
    digest: Option<&str>,
    keys: &RecordKeys,
) -> Result<Option<Deferral>, HostError> {
    let by_digest = match digest {
        Some(digest) => store.find_by_receipt_digest(digest)?,
        None => None,
    };
    let by_artifact = match (&by_digest, &keys.artifact) {
        (None, Some(artifact)) => store.find_by_artifact(artifact.artifact_id)?,
        _ => None,
    };
    match by_digest.or(by_artifact) {
        // Retried: the receipt's deferral now is the latest retry (see `store::retry`).
        Some(id) => Ok(store.get(&crate::store::retry::latest_retry(store, id)?)?),
        None => Ok(None),
    }
}

/// A handoff receipt read for recording: its text as submitted (a gate or resume line's
/// `deferredReceipt`), checked by the contract once, and the keys with the cost and rate state
/// a line brings beside it. Reading needs no store: invalid input is refused before one is
/// opened.
pub struct Submitted {
    text: String,
    receipt: Receipt,
    keys: RecordKeys,
}

impl Submitted {
    /// Reads `bytes` (a receipt, or a gate or resume line holding one): the contract's codes, a
    /// retained receipt (`already-retained`) and a closed window (`expired`) refused.
    pub fn read(bytes: &[u8], keys: RecordKeys, now_ms: u64) -> Result<Submitted, HostError> {
        // A gate or resume line: its deferredReceipt, with its cost and rate state beside it.
        let (text, keys) = crate::pools::line::with_line(bytes, keys, now_ms)?;
        let receipt = validate(&text)?;
        let text = String::from_utf8(text).map_err(|_| {
            HostError::new(HostErrorKind::MalformedJson, "the receipt is not UTF-8")
        })?;
        if receipt.is_retained() {
            return Err(HostError::new(
                HostErrorKind::AlreadyRetained,
                "the receipt is already retained by a durable host; record the handoff receipt the gate emitted",
            ));
        }
        // A closed window is refused even when the receipt was recorded before: nothing to wake.
        if receipt.resume_by_ms < now_ms {
            return Err(HostError::new(
                HostErrorKind::Expired,
                "the receipt's resume_by_ms has passed; nothing to wake",
            ));
        }
        Ok(Submitted {
            text,
            receipt,
            keys,
        })
    }
}

/// Records a handoff receipt once: the same receipt (by its digest) or the same artifact
/// answers the deferral that has it, whichever entry (`record`, `serve`, `watch`, a followed
/// run) brings it, even when two entries race.
///
/// `launch` is stored as given: each entry parses it first with the launcher kinds it knows
/// (`crate::launch::Launchers::parse`, refusing `invalid-launch`), and `tick` parses it again
/// when it is due, blocking a target no kind parses (`invalid-launch`, never run).
pub fn insert_once(
    store: &dyn Store,
    text: &[u8],
    launch: &str,
    max_reentries: u32,
    keys: RecordKeys,
    now_ms: u64,
) -> Result<Insertion, HostError> {
    let submitted = Submitted::read(text, keys, now_ms)?;
    insert_submitted(store, submitted, launch, max_reentries, now_ms)
}

/// [`insert_once`] of a receipt read already.
pub fn insert_submitted(
    store: &dyn Store,
    submitted: Submitted,
    launch: &str,
    max_reentries: u32,
    now_ms: u64,
) -> Result<Insertion, HostError> {
    let Submitted {
        text: submitted,
        receipt,
        keys,
    } = submitted;
    // The submitted receipt's digest is read once: for this look-up and for the store's index.
    let submitted = NewReceipt::new(KIND_SUBMITTED, submitted);
    if let Some(existing) = find_recorded(store, submitted.digest.as_deref(), &keys)? {
        return Ok(Insertion::Existing(existing));
    }
    let step = transition(Position::new(max_reentries), Event::Record)?;
    // The record-time wake-up handle is never shown: each launch gets a fresh one (see claim).
    let cancellation_handle = new_handle();
    let cancellation_digest = handle_digest(&cancellation_handle);
    let wakeup_digest = handle_digest(&new_handle());
    let retained = receipt.retain(&wakeup_digest, &cancellation_digest)?;
    let new = NewDeferral {
        id: new_deferral_id(),
        state: step.to.state,
        reentries: step.to.reentries,
        max_reentries,
        cause: step.cause.as_str().to_string(),
        launch: launch.to_string(),
        window: window_of(&retained),
        wakeup_digest,
        cancellation_digest,
        receipts: vec![
            submitted.clone(),
            NewReceipt::new(KIND_RETAINED, retained.to_json()),
        ],
        at_ms: now_ms,
        keys: keys.clone(),
    };
    let deferral = match store.insert(&new) {
        Ok(deferral) => deferral,
        // Another entry recorded the same receipt or artifact between our look-up and insert.
        Err(StoreError::Duplicate(id)) => {
            return match find_recorded(store, submitted.digest.as_deref(), &keys)? {
                Some(existing) => Ok(Insertion::Existing(existing)),
                None => Err(StoreError::Duplicate(id).into()),
            }
        }
        Err(err) => return Err(err.into()),
    };
    Ok(Insertion::New(Inserted {
        deferral,
        receipt: retained,
        cancellation_handle,
    }))
}
