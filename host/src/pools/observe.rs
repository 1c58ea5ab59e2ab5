//! What a pool learns when an attempt ends: the attempt's last JSON line (the CLI's `resume` or
//! `gate` line carries `rest`/`graphql` with the state it read and its plan's cost) updates the
//! pool's window, teaches the deferral's cost, and releases the attempt's admission, in one
//! compare-and-set on the pool's row.
//!
//! A line whose `status` is `ready` went ahead: it read the state before its plan ran, so the
//! plan's cost is taken off what it saw, and its planned cost is charged to the window it was
//! admitted in. Any other line (deferred again, blocked) spent nothing. An attempt that prints
//! no such line is taken to have spent its planned cost in the window it was admitted in (the
//! window the pool opened at the reset, when no report had shown it yet).

use super::admission::charge;
use super::line::{last_gate_line, GateLine};
use crate::error::{HostError, HostErrorKind};
use crate::pools::update::{update, Try};
use crate::store::pools::{PoolRow, PoolWrite};
use crate::store::Store;

/// Learns from an attempt of `deferral_id` that ended with `stdout`. Never fails the launch:
/// the outcome is recorded whatever the pool learns.
pub fn attempt_ended(
    store: &dyn Store,
    deferral_id: &str,
    attempt: u32,
    stdout: &str,
    now_ms: u64,
) {
    let line = last_gate_line(stdout);
    let source = format!("attempt {deferral_id}#{attempt}");
    if let Err(err) = learn(store, deferral_id, attempt, line.as_ref(), &source, now_ms) {
        eprintln!("deferral-host tick: pool not updated from {source}: {err}");
    }
}

/// Updates the pool of `deferral_id` from `line` (if any) and releases the attempt's admission.
pub fn learn(
    store: &dyn Store,
    deferral_id: &str,
    attempt: u32,
    line: Option<&GateLine>,
    source: &str,
    now_ms: u64,
) -> Result<(), HostError> {
    let Some((pool, _)) = store.pool_of(deferral_id)? else {
        return Ok(());
    };
    if let Some(line) = line {
        if line.figures().next().is_some() {
            store.set_cost(deferral_id, &line.cost())?;
        }
    }
    let observations: Vec<_> = line
        .map(|l| {
            super::line::observations(l, now_ms, source, l.status == "ready")
                .into_iter()
                .map(|mut o| {
                    o.deferral_id = Some(deferral_id.to_string());
                    o
                })
                .collect()
        })
        .unwrap_or_default();
    update(
        store,
        || {
            let admission = store.admission_of(deferral_id, attempt, now_ms)?;
            if admission.is_none() && observations.is_empty() {
                return Ok(Try::Done(()));
            }
            let row = store.pool(&pool)?.unwrap_or_else(|| PoolRow::empty(&pool));
            let mut next = row.clone();
            next.roll(now_ms, 0);
            // The attempt's planned cost is spent in the window it was admitted in, unless its line
            // says it did not go ahead (deferred again, blocked); a report lowers what is left
            // further when it says less.
            if line.is_none_or(|l| l.status == "ready") {
                charge(&mut next, admission.as_slice());
            }
            next.observe(&observations);
            // Capacity may differ now: decide again at the next tick.
            next.hold_until_ms = None;
            next.hold_reason = None;
            let write = PoolWrite {
                release: admission.iter().map(|a| a.seq).collect(),
                observations: observations.clone(),
                ..PoolWrite::replacing(&row, next, now_ms)
            };
            Ok(Try::write(write, ()))
        },
        || {
            HostError::new(
                HostErrorKind::PoolBusy,
                format!("pool {pool} changed under every update from {source}"),
            )
        },
    )?;
    Ok(())
}

/// A followed run's artifact: when it holds a gate or resume line (not a bare receipt), the
/// pool of `deferral` learns from it and the line's `deferredReceipt` is the new receipt; any
/// other text is given back as it is (the caller validates it).
pub fn from_artifact(
    store: &dyn Store,
    deferral: &crate::store::Deferral,
    artifact_id: u64,
    text: String,
) -> String {
    let Ok(Some(line)) = super::line::parse(&text) else {
        return text;
    };
    let Some(receipt) = line.receipt.clone() else {
        return text;
    };
    let source = format!("run artifact {artifact_id}");
    let now = crate::clock::now_ms();
    if let Err(err) = learn(
        store,
        &deferral.id,
        deferral.reentries,
        Some(&line),
        &source,
        now,
    ) {
        eprintln!("deferral-host tick: pool not updated from {source}: {err}");
    }
    receipt
}
