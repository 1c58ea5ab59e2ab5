//! A runner's admission ends (`POST /v1/admissions/{seq}/release`): with the rate state the run
//! saw after its work, which the pool learns, or without, when its cost is taken as spent in its
//! window. Beside it, the host's own `GET /rate_limit` reading taught to a pool (`tick
//! --rate-limit-pool`). Both write the pool's row with the same bounded compare-and-set as an
//! admission (`ops/admit.rs`).

use super::admit::busy;
use crate::error::{HostError, HostErrorKind};
use crate::pools::admission::charge;
use crate::pools::update::{update, Try};
use crate::store::pools::{Observation, PoolRow, PoolWrite};
use crate::store::Store;

/// What a release did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Released {
    Released,
    /// Released before (a second release changes nothing).
    Already,
}

/// Releases runner admission `seq`: the pool learns `seen` (what the run saw after its work),
/// or, without it, the admission's cost is taken off its window as spent. Idempotent.
pub fn release(
    store: &dyn Store,
    seq: u64,
    secret: &str,
    seen: &[Observation],
    now_ms: &dyn Fn() -> u64,
) -> Result<Released, HostError> {
    let (released, _) = update(
        store,
        || {
            let now = now_ms();
            let a = store
                .admission(seq)?
                .filter(|a| a.deferral_id.is_none())
                .ok_or_else(|| {
                    HostError::new(
                        HostErrorKind::NotFound,
                        format!("no runner admission {seq} (POST /v1/admissions answers one)"),
                    )
                })?;
            let held = a
                .secret_digest
                .as_deref()
                .is_none_or(|digest| crate::handle::handle_matches(secret, digest));
            if !held {
                return Err(HostError::new(
                    HostErrorKind::WrongHandle,
                    format!(
                    "admission {seq} is released only with the whole admission its request was \
                     answered with (SEQ-SECRET)"
                ),
                ));
            }
            if a.released_ms.is_some() {
                return Ok(Try::Done(Released::Already));
            }
            let row = store
                .pool(&a.pool)?
                .unwrap_or_else(|| PoolRow::empty(&a.pool));
            let mut next = row.clone();
            next.roll(now, 0);
            // Its cost is spent in its window whether or not the run says what it saw after; what
            // it saw lowers what is left when it is lower (see `WindowState::left`).
            charge(&mut next, std::slice::from_ref(&a));
            next.observe(seen);
            // Capacity may differ now: admission decides again.
            next.hold_until_ms = None;
            next.hold_reason = None;
            let write = PoolWrite {
                release: vec![seq],
                observations: seen.to_vec(),
                ..PoolWrite::replacing(&row, next, now)
            };
            Ok(Try::write(write, Released::Released))
        },
        || busy(&format!("the pool of admission {seq}")),
    )?;
    Ok(released)
}

/// Teaches `pool` what `seen` says (the host's own `GET /rate_limit`): merged as the host's own
/// reading ([`crate::store::pools::WindowState::merge_own`]).
pub fn observe(
    store: &dyn Store,
    pool: &str,
    seen: &[Observation],
    now_ms: &dyn Fn() -> u64,
) -> Result<PoolRow, HostError> {
    let ((), written) = update(
        store,
        || {
            let now = now_ms();
            let row = store.pool(pool)?.unwrap_or_else(|| PoolRow::empty(pool));
            let mut next = row.clone();
            next.roll(now, 0);
            next.observe_own(seen);
            let write = PoolWrite {
                observations: seen.to_vec(),
                ..PoolWrite::replacing(&row, next, now)
            };
            Ok(Try::write(write, ()))
        },
        || busy(&format!("pool {pool}")),
    )?;
    written
        .map(|w| w.row)
        .ok_or_else(|| busy(&format!("pool {pool}")))
}
