//! One `deployment_protection_rule` request taken: recorded once as a deferral of its gate's
//! pool, whose launch is the approval ([`crate::launch::kinds::approval`]).
//!
//! Once, whoever brings it (a redelivery, GitHub asking again for the same job, a restart, a
//! second replica): the request's identity is noted in the store ([`crate::store::LoopStore::note_delivery`]
//! under `gate:<scope digest>`, after the record), and its receipt is the same for the same
//! request and gate (see [`super::receipt`]), so two replicas that race are told apart by the
//! receipt's unique digest. A request whose window already passed when it arrives (a
//! redelivery days later) is recorded and at once cancelled as expired, so that the one
//! rejection path answers it ([`super::settle`]).

use super::config::GateOptions;
use super::receipt;
use super::request::GateRequest;
use crate::error::HostError;
use crate::launch::kinds::approval;
use crate::lifecycle;
use crate::lifecycle::change::Effects;
use crate::lifecycle::insert::Insertion;
use crate::store::pools::PoolTag;
use crate::store::{CommitRef, RecordKeys, Store};
use deferral_core::lifecycle::Event;

/// What taking a request did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Taken {
    /// Recorded now as deferral `id`; `late` when its window had passed already (then it is
    /// cancelled as expired, and rejected).
    New { id: String, late: bool },
    /// Taken before (`id` when this delivery found its deferral).
    Already { id: Option<String> },
}

/// The note of a request's identity.
pub fn note_key(scope_digest: &str) -> String {
    format!("gate:{scope_digest}")
}

/// The event name such notes carry in the store.
pub const NOTE_EVENT: &str = "gate";

/// Takes `request` for `gate` at `now_ms`.
pub fn take(
    store: &dyn Store,
    gate: &GateOptions,
    request: &GateRequest,
    now_ms: u64,
) -> Result<Taken, HostError> {
    let scope = receipt::scope_digest(request)?;
    let key = note_key(&scope);
    // When the job began to wait, never later than now (a clock ahead of ours).
    let began = request.created_ms.map_or(now_ms, |c| c.min(now_ms));
    let late = began.saturating_add(gate.resume_by_ms) <= now_ms;
    let issued = if late { now_ms } else { began };
    let text = receipt::receipt(request, gate, issued)?.to_json();
    if store.delivery_noted(&key)? {
        // Its deferral, when this delivery makes the same receipt (the gate is unchanged).
        let id = match crate::store::github::receipt_digest(&text) {
            Some(digest) => store.find_by_receipt_digest(&digest)?,
            None => None,
        };
        return Ok(Taken::Already { id });
    }
    let keys = RecordKeys {
        pool: Some(PoolTag {
            pool: gate.pool.clone(),
            cost: Some(gate.cost),
            seen: Vec::new(),
            priority: gate.priority,
            fairness_key: Some(gate.fairness_key.clone().unwrap_or_else(|| {
                format!("{}/{}", gate.repo.to_ascii_lowercase(), gate.environment)
            })),
        }),
        ..RecordKeys::default()
    };
    let launch = approval::target(&request.repo, request.run_id, &request.environment);
    let recorded = lifecycle::insert::insert_once(
        store,
        text.as_bytes(),
        &launch,
        gate.max_reentries,
        keys,
        now_ms,
    )?;
    let deferral = match recorded {
        Insertion::New(rec) => rec.deferral,
        Insertion::Existing(d) => {
            store.note_delivery(&key, NOTE_EVENT, now_ms)?;
            return Ok(Taken::Already { id: Some(d.id) });
        }
    };
    store.note_delivery(&key, NOTE_EVENT, now_ms)?;
    if let (Some(face), Some(sha)) = (gate.commit_status, &request.sha) {
        store.put_commit(&CommitRef {
            deferral_id: deferral.id.clone(),
            repo: request.repo.clone(),
            sha: sha.clone(),
            context: format!("deferral/{}", request.environment),
            face,
        })?;
    }
    if late {
        let began_at = crate::clock::iso8601(began);
        let effects = Effects {
            detail: Some(format!(
                "the request came after its resume-by: the job began to wait at {began_at}"
            )),
            ..Effects::default()
        };
        lifecycle::change::apply(store, &deferral, Event::Expire, effects, now_ms)?;
    }
    Ok(Taken::New {
        id: deferral.id,
        late,
    })
}
