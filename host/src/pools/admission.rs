//! Admission: which due deferrals of a pool may launch in this window.
//!
//! The rule, per pool, at each tick:
//! * a pool that never learned a window (only bare receipts, attempts that print no gate line)
//!   is unmetered: every due deferral is admitted, as before pools;
//! * otherwise, per resource the pool knows, the room is what is left of the window (the whole
//!   limit once the reset plus the buffer has passed) less the reserve, less the cost of every
//!   admission not yet released nor expired; due deferrals are offered in the fair order of
//!   [`super::fair`] (higher priority first; among one priority the fairness keys take turns,
//!   earliest first within a key) and admitted while their planned cost fits; one that does
//!   not fit ends its own key's turns for the pass (nothing of its key overtakes it), not the
//!   other keys': a smaller job of another key may use what is left. Priority 0 never uses the
//!   pool's urgent share, and a held pool decides again when work of priority > 0 is due;
//! * a deferral of unknown cost (a bare receipt) is admitted only alone: when nothing else of
//!   the pool is admitted and unreported and something is left above the reserve; it then holds
//!   the whole window until its attempt reports (which teaches its cost and the window);
//! * the others are held: nothing is written to them (not claimed, no re-entry counted); the
//!   pool's row says why and until when (the window's reset plus buffer and a jitter).
//!
//! The decision is written with one compare-and-set on the pool's row ([`crate::store::PoolStore::write_pool`]):
//! two tickers that read the same version never both admit; the loser reads again and decides
//! on top of the winner's admissions. A runner's request for its gate's plan
//! (`POST /v1/admissions`, see `ops::admit`) is decided by the same [`Room::fits`] and
//! written with the same compare-and-set.

use super::PoolOptions;
use crate::clock::iso8601;
use crate::error::{HostError, HostErrorKind};
use crate::pools::update::{update, Try};
use crate::store::pools::{Admission, Candidate, Cost, NewAdmission, PoolRow, PoolWrite, Resource};
use crate::store::Store;
use deferral_core::lifecycle::State;

/// What is left for new admissions in a pool, per resource it meters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    /// `(resource, room above the reserve after open admissions)`; may be negative.
    pub per_resource: Vec<(Resource, i64)>,
    /// Per resource mid-window, its reset: a cost waits only for the resets of the resources it
    /// spends (a REST-only job never waits for GraphQL's window).
    pub resets: Vec<(Resource, u64)>,
    /// An admission of unknown cost is open: it holds the window alone.
    pub alone: bool,
    /// The cost admitted and not yet reported, per resource.
    pub in_flight: Cost,
}

impl Room {
    pub fn fits(&self, cost: &Cost) -> bool {
        !self.alone
            && self
                .per_resource
                .iter()
                .all(|(r, room)| i64::try_from(cost.of(*r)).unwrap_or(i64::MAX) <= *room)
    }

    /// [`Room::fits`] leaving `kept` untouched per resource (the urgent share, for a job of
    /// priority 0).
    pub fn fits_keeping(&self, cost: &Cost, kept: &[(Resource, i64)]) -> bool {
        !self.alone
            && self.per_resource.iter().all(|(r, room)| {
                let keep = kept.iter().find(|(k, _)| k == r).map_or(0, |k| k.1);
                i64::try_from(cost.of(*r)).unwrap_or(i64::MAX) <= room.saturating_sub(keep)
            })
    }

    pub fn take(&mut self, cost: &Cost) {
        for (r, room) in &mut self.per_resource {
            *room = room.saturating_sub(i64::try_from(cost.of(*r)).unwrap_or(i64::MAX));
        }
    }

    pub fn any_left(&self) -> bool {
        !self.alone && self.per_resource.iter().all(|(_, room)| *room > 0)
    }

    /// The latest reset among `resources` that are mid-window.
    fn latest_reset(&self, resources: impl Fn(Resource) -> bool) -> Option<u64> {
        self.resets
            .iter()
            .filter(|(r, _)| resources(*r))
            .map(|(_, t)| *t)
            .max()
    }

    /// The window an admission of `cost` counts in: the latest reset of the resources it
    /// spends (of every resource when its cost is unknown).
    pub fn window_of(&self, cost: Option<&Cost>) -> Option<u64> {
        self.latest_reset(|r| cost.is_none_or(|c| c.of(r) > 0))
    }

    /// When `cost`, held, may fit: the latest reset of the resources it does not fit (room
    /// left at all, for an unknown cost); the window it counts in when none binds (it waits
    /// for admissions to report).
    pub fn binding_reset(&self, cost: Option<&Cost>) -> Option<u64> {
        let binds = |r: Resource| {
            let room = self
                .per_resource
                .iter()
                .find(|(x, _)| *x == r)
                .map_or(i64::MAX, |(_, room)| *room);
            match cost {
                Some(c) => i64::try_from(c.of(r)).unwrap_or(i64::MAX) > room,
                None => room <= 0,
            }
        };
        self.latest_reset(binds).or_else(|| self.window_of(cost))
    }
}

/// Whether the pool meters anything (it learned at least one window).
pub fn metered(pool: &PoolRow) -> bool {
    !pool.windows.is_empty()
}

/// The room of `pool` with `open` admissions. The pool has been rolled to `now` (see
/// [`PoolRow::roll`]): every window it holds is the current one, its reset known or assumed.
pub fn room(pool: &PoolRow, open: &[Admission]) -> Room {
    let mut per_resource = Vec::new();
    let mut resets = Vec::new();
    let mut in_flight = Cost::default();
    for a in open {
        if let Some(c) = &a.cost {
            in_flight = in_flight.saturating_add(c);
        }
    }
    for r in Resource::ALL {
        let Some(w) = pool.window(r) else { continue };
        resets.push((r, w.reset_ms));
        let signed = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        per_resource.push((
            r,
            signed(w.left())
                .saturating_sub(signed(w.reserve))
                .saturating_sub(signed(in_flight.of(r))),
        ));
    }
    Room {
        per_resource,
        resets,
        alone: open.iter().any(|a| a.cost.is_none()),
        in_flight,
    }
}

/// The buffer of `options` in milliseconds.
pub fn buffer_ms(options: &PoolOptions) -> u64 {
    u64::try_from(options.buffer.as_millis()).unwrap_or(u64::MAX)
}

/// Whether `cost` fits a whole window of the pool above its reserve.
pub fn fits_a_window(pool: &PoolRow, cost: &Cost) -> bool {
    Resource::ALL.into_iter().all(|r| {
        pool.window(r)
            .is_none_or(|w| cost.of(r) <= w.limit.max(w.next_limit).saturating_sub(w.reserve))
    })
}

/// What admission decided for one pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub admit: Vec<Candidate>,
    /// For each of `admit`, the reset of the window it counts in (`now` when unknown).
    pub admit_windows: Vec<u64>,
    pub held: Vec<Candidate>,
    /// Why the held are held (`None` when none is).
    pub reason: Option<String>,
    /// Nothing more is admitted before this (`None`: decide again at the next tick).
    pub hold_until_ms: Option<u64>,
    pub metered: bool,
}

/// Decides admission for `candidates` (earliest first, then by id; at most the tick's limit).
/// `examined_all` is false when the candidates were cut at the limit (more are due).
pub fn decide(
    pool: &PoolRow,
    open: &[Admission],
    candidates: Vec<Candidate>,
    examined_all: bool,
    now_ms: u64,
    options: &PoolOptions,
    jitter_ms: u64,
) -> Decision {
    if !metered(pool) {
        return Decision {
            admit_windows: vec![now_ms; candidates.len()],
            admit: candidates,
            held: Vec::new(),
            reason: None,
            hold_until_ms: None,
            metered: false,
        };
    }
    let mut room = room(pool, open);
    let urgent = super::fair::urgent_room(pool, options);
    let total = candidates.len();
    let mut admit_windows = Vec::new();
    let mut bindings = Vec::new();
    let mut admitted_any = false;
    let weight = |key: &str| options.fair.weight(&pool.name, key);
    let (admit, held) = super::fair::turns(candidates, &weight, &mut |c| {
        // A cost no whole window holds above the reserve is admitted as an unknown one is.
        let cost = c.cost.filter(|cost| fits_a_window(pool, cost));
        let kept: &[(Resource, i64)] = if c.priority > 0 { &[] } else { &urgent };
        let ok = match &cost {
            Some(cost) => room.fits_keeping(cost, kept),
            None => !admitted_any && open.is_empty() && room.any_left(),
        };
        if !ok {
            bindings.push(room.binding_reset(cost.as_ref()));
            return false;
        }
        admit_windows.push(room.window_of(cost.as_ref()).unwrap_or(now_ms));
        match &cost {
            Some(cost) => room.take(cost),
            None => room.alone = true,
        }
        admitted_any = true;
        true
    });
    // The earliest any held job may fit (none known: decide again at the next tick).
    let binding = if bindings.iter().any(Option::is_none) {
        None
    } else {
        bindings.iter().flatten().min().copied()
    };
    if held.is_empty() {
        return Decision {
            admit,
            admit_windows,
            held,
            reason: None,
            hold_until_ms: None,
            metered: true,
        };
    }
    let buffer = u64::try_from(options.buffer.as_millis()).unwrap_or(u64::MAX);
    let of = if examined_all {
        format!("{total}")
    } else {
        format!("at least {total}")
    };
    let (reason, hold_until_ms) = match binding {
        Some(reset) => (
            format!(
                "pool {}: {} of {of} fit the window that resets at {}",
                pool.name,
                admit.len(),
                iso8601(reset)
            ),
            Some(reset.saturating_add(buffer).saturating_add(jitter_ms)),
        ),
        // A new window whose reset is not known yet: what is admitted and unreported fills it;
        // decide again as soon as a report comes (every tick).
        None => (
            format!(
                "pool {}: {} of {of} fit the new window ({} admitted and not yet reported)",
                pool.name,
                admit.len(),
                open.len() + admit.len()
            ),
            None,
        ),
    };
    Decision {
        admit,
        admit_windows,
        held,
        reason: Some(reason),
        hold_until_ms,
        metered: true,
    }
}

/// Whether an open admission still belongs to a live attempt: its deferral waits for the claim
/// the admission is for, or runs that attempt. Anything else (reported, recovered, cancelled)
/// is settled: released, its cost taken off what the window has left (a report that taught the
/// window releases its admission itself, see `observe`).
fn is_live(store: &dyn Store, a: &Admission) -> Result<bool, HostError> {
    let Some(id) = &a.deferral_id else {
        return Ok(true);
    };
    Ok(match store.get(id)? {
        Some(d) => match d.state {
            State::Deferred => d.reentries + 1 == a.attempt,
            State::Resumable => d.reentries == a.attempt,
            _ => false,
        },
        None => false,
    })
}

/// The open admissions of `pool` at `now_ms`, split into those that still count (`.0`) and
/// those whose attempt is over and that are to be released (`.1`, see `is_live`). An admission
/// a runner asked for (`POST /v1/admissions`) counts until it is released or expires.
pub fn open_and_settled(
    store: &dyn Store,
    pool: &str,
    now_ms: u64,
) -> Result<(Vec<Admission>, Vec<Admission>), HostError> {
    let mut open = Vec::new();
    let mut settled = Vec::new();
    for a in store.open_admissions(pool, now_ms)? {
        if is_live(store, &a)? {
            open.push(a);
        } else {
            settled.push(a);
        }
    }
    Ok((open, settled))
}

/// Takes released admissions' costs off the window they were admitted in (an attempt that
/// ended without saying what it saw is taken to have spent its planned cost). `row` has been
/// rolled: an admission made before its current window opened was charged to a window that is
/// over, and changes nothing now.
pub fn charge(row: &mut PoolRow, settled: &[Admission]) {
    for a in settled {
        let Some(cost) = &a.cost else { continue };
        for r in Resource::ALL {
            if let Some(w) = row.window_mut(r) {
                w.charge(a.admitted_ms, cost.of(r));
            }
        }
    }
}

/// One pool's admission pass, written (or, with `dry_run`, only decided).
#[derive(Debug, Clone)]
pub struct AdmissionPass {
    pub pool: String,
    pub decision: Decision,
    /// The admissions written, in the order of `decision.admit`.
    pub admissions: Vec<Admission>,
}

/// How long an admission of a launch counts at least (the launch's lease).
pub struct Admit<'a> {
    pub options: &'a PoolOptions,
    pub lease_ms: u64,
    /// Launcher kinds that cannot launch in this pass: their due deferrals are not candidates.
    pub skip_kinds: &'a [&'a str],
    pub limit: usize,
    pub dry_run: bool,
    /// Write the decision only when it admits nothing: the hold as a pass leaves it (see
    /// [`super::hold`]), never an admission nobody launches.
    pub hold_only: bool,
}

/// This host's jitter for `pool`: the same on every read and every pass (so the tick's report,
/// `--dry-run`, `status` and the page give one end for a hold), different from host to host
/// (so several hosts sharing a quota do not all start at once). FNV-1a of the host's name and
/// the pool's, below `options.jitter` plus one millisecond.
pub fn jitter_ms(pool: &str, options: &PoolOptions) -> u64 {
    let bound = u64::try_from(options.jitter.as_millis())
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in host.trim().bytes().chain([0]).chain(pool.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash % bound
}

/// Admits due deferrals of `pool_name`: reads the row, settles admissions whose attempt is
/// over, decides, and writes the decision with the compare-and-set (read and decided again
/// when another ticker wrote first).
pub fn admit(
    store: &dyn Store,
    pool_name: &str,
    how: &Admit,
    now_ms: &dyn Fn() -> u64,
) -> Result<AdmissionPass, HostError> {
    let jitter = jitter_ms(pool_name, how.options);
    let (mut pass, written) = update(
        store,
        || {
            let now = now_ms();
            let row = store
                .pool(pool_name)?
                .unwrap_or_else(|| PoolRow::empty(pool_name));
            let (open, settled) = open_and_settled(store, pool_name, now)?;
            let candidates = store.pool_candidates(pool_name, now, how.skip_kinds, how.limit)?;
            let examined_all = candidates.len() < how.limit;
            let mut next = row.clone();
            let rolled = next.roll(now, buffer_ms(how.options));
            charge(&mut next, &settled);
            // A held pool decides again for work of priority > 0 (the urgent share is for it).
            let urgent = candidates.iter().any(|c| c.priority > 0);
            let held_until =
                row.hold_until_ms.is_some_and(|t| t > now) && settled.is_empty() && !rolled;
            // Held until the window's reset plus buffer and jitter: nothing is admitted before,
            // unless a report changes the pool (which lifts the hold), or work of priority > 0 is
            // due (it may use the urgent share): then the pool decides again, and stays held as it
            // was when that admits nothing.
            let holding_decision = |held: Vec<Candidate>| Decision {
                admit: Vec::new(),
                admit_windows: Vec::new(),
                held,
                reason: row.hold_reason.clone(),
                hold_until_ms: row.hold_until_ms,
                metered: true,
            };
            let (decision, holding) = if held_until && !urgent {
                (holding_decision(candidates), true)
            } else {
                let d = decide(
                    &next,
                    &open,
                    candidates,
                    examined_all,
                    now,
                    how.options,
                    jitter,
                );
                if held_until && d.admit.is_empty() {
                    (holding_decision(d.held), true)
                } else {
                    (d, false)
                }
            };
            if how.dry_run || holding || (how.hold_only && !decision.admit.is_empty()) {
                return Ok(Try::Done(AdmissionPass {
                    pool: pool_name.to_string(),
                    decision,
                    admissions: Vec::new(),
                }));
            }
            if !decision.metered && settled.is_empty() && !rolled {
                // Unmetered: nothing to count, nothing written (as before pools).
                return Ok(Try::Done(AdmissionPass {
                    pool: pool_name.to_string(),
                    decision,
                    admissions: Vec::new(),
                }));
            }
            let unchanged = decision.admit.is_empty()
                && settled.is_empty()
                && !rolled
                && decision.reason == row.hold_reason
                && decision.hold_until_ms == row.hold_until_ms;
            if unchanged {
                return Ok(Try::Done(AdmissionPass {
                    pool: pool_name.to_string(),
                    decision,
                    admissions: Vec::new(),
                }));
            }
            next.hold_until_ms = decision.hold_until_ms;
            next.hold_reason = decision.reason.clone();
            let admit: Vec<NewAdmission> = decision
                .admit
                .iter()
                .zip(&decision.admit_windows)
                .map(|(c, &window)| NewAdmission {
                    deferral_id: Some(c.id.clone()),
                    attempt: c.attempt,
                    cost: c.cost,
                    window_reset_ms: window,
                    expires_ms: window.max(now.saturating_add(how.lease_ms)),
                    secret_digest: None,
                })
                .collect();
            let write = PoolWrite {
                admit,
                release: settled.iter().map(|a| a.seq).collect(),
                ..PoolWrite::replacing(&row, next, now)
            };
            // Beaten by another writer, `update` reads its admissions and decides again.
            Ok(Try::write(
                write,
                AdmissionPass {
                    pool: pool_name.to_string(),
                    decision,
                    admissions: Vec::new(),
                },
            ))
        },
        || {
            HostError::new(
                HostErrorKind::PoolBusy,
                format!("pool {pool_name} changed under every admission attempt of this tick"),
            )
        },
    )?;
    if written.is_some() {
        // The admissions written, as the store keeps them.
        let now = now_ms();
        for c in &pass.decision.admit {
            if let Some(a) = store.admission_of(&c.id, c.attempt, now)? {
                pass.admissions.push(a);
            }
        }
    }
    Ok(pass)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::pools::WindowState;
    use std::time::Duration;

    fn window(limit: u64, remaining: u64, reserve: u64, reset_ms: u64) -> WindowState {
        WindowState {
            limit,
            remaining,
            reserve,
            reset_ms,
            spent: 0,
            spent_at_report: 0,
            reset_known: true,
            opened_after_ms: 0,
            length_ms: crate::store::pools::MAX_WINDOW_MS,
            next_limit: limit,
            observed_ms: 0,
            source: "test".into(),
        }
    }

    fn job(id: &str, rest: u64) -> Candidate {
        Candidate {
            id: id.into(),
            resume_after_ms: 0,
            attempt: 1,
            cost: Some(
                Cost::default()
                    .with(Resource::Rest, rest)
                    .with_content(rest),
            ),
            priority: 0,
            key: "k".into(),
            tenant: "k".into(),
            resume_by_ms: u64::MAX,
        }
    }

    fn options() -> PoolOptions {
        PoolOptions {
            buffer: Duration::from_millis(500),
            jitter: Duration::ZERO,
            fair: Default::default(),
        }
    }

    /// A REST-only backlog is held until REST's reset, not until the later reset of a GraphQL
    /// window it spends nothing of, and its admissions count in REST's window.
    #[test]
    fn the_hold_and_the_admissions_follow_the_resource_that_binds() {
        let mut pool = PoolRow::empty("app-42");
        pool.windows
            .insert(Resource::Rest, window(45, 25, 5, 6_000));
        pool.windows
            .insert(Resource::Graphql, window(5000, 5000, 500, 3_600_000));
        let jobs = vec![job("a", 10), job("b", 10), job("c", 10)];
        let d = decide(&pool, &[], jobs, true, 1_000, &options(), 0);
        assert_eq!(d.admit.len(), 2);
        assert_eq!(d.held.len(), 1);
        assert_eq!(d.hold_until_ms, Some(6_500), "REST's reset plus the buffer");
        assert!(
            d.reason.as_deref().unwrap().contains("1970-01-01T00:00:06"),
            "{:?}",
            d.reason
        );
        assert_eq!(d.admit_windows, vec![6_000, 6_000]);
    }

    /// A job that spends both resources counts until the later of their resets.
    #[test]
    fn a_job_of_both_resources_counts_until_the_later_reset() {
        let mut pool = PoolRow::empty("app-42");
        pool.windows
            .insert(Resource::Rest, window(45, 45, 5, 6_000));
        pool.windows
            .insert(Resource::Graphql, window(100, 100, 10, 9_000));
        let mut both = job("a", 10);
        if let Some(c) = &mut both.cost {
            c.resources[Resource::Graphql] = 50;
        }
        let held = {
            let mut j = job("b", 10);
            if let Some(c) = &mut j.cost {
                c.resources[Resource::Graphql] = 50;
            }
            j
        };
        let d = decide(&pool, &[], vec![both, held], true, 1_000, &options(), 0);
        assert_eq!(d.admit_windows, vec![9_000]);
        assert_eq!(d.hold_until_ms, Some(9_500), "GraphQL binds the second job");
    }
}
