//! One admission across runners (`POST /v1/admissions`): a gate asks the host to admit its
//! plan's cost in its pool before it proceeds, with the rate state it just read.
//!
//! The report is merged into the pool as an observation (`WindowState::merge`: within one
//! window the lowest remaining wins, the limit never rises, a reset at most an hour away), then
//! the cost is decided by the rule tick admits by ([`Room::fits`], [`fits_a_window`]): per
//! resource, what the pool has left less the open admissions' cost less the reserve must hold
//! the cost; an open admission of unknown cost holds the window alone; a pool that holds (its
//! held deferrals wait for the next window) admits nothing until a later window is reported.
//! The decision is written with the compare-and-set on the pool's row, retried a bounded
//! number of times on a lost race, so runners and tickers together never admit more than fits.
//!
//! A runner admission counts against its window until it is released (`ops/release.rs`) or
//! until the window resets.

use crate::clock::iso8601;
use crate::error::{HostError, HostErrorKind};
use crate::pools::admission::{self, charge, fits_a_window, Room};
use crate::pools::update::{update, Try};
use crate::pools::PoolOptions;
use crate::store::pools::{
    Candidate, Cost, NewAdmission, Observation, PoolRow, PoolWrite, Resource, Window, MAX_WINDOW_MS,
};
use crate::store::Store;
use deferral_protocol::{AdmissionAnswer, Windows};
use serde_json::Value;

/// How many of a pool's due deferrals a runner's request looks at before its own cost.
const QUEUE_LOOK: usize = 256;

/// Where a runner's request stands behind the pool's due deferrals.
enum Ahead {
    /// Those that wait before it fit what is left; the runner is decided on the rest.
    Fits,
    /// A due deferral does not fit: it and this many in all wait for a later window, and the
    /// runner waits behind them.
    Blocked(usize),
}

/// `room` less the cost of the due deferrals that wait before a runner, in their order; a due
/// deferral that does not fit (or whose cost is unknown) stops the queue: nobody overtakes it.
fn after_the_queue(row: &PoolRow, mut room: Room, waiting: &[Candidate]) -> (Room, Ahead) {
    for (n, c) in waiting.iter().enumerate() {
        match c.cost.filter(|cost| fits_a_window(row, cost)) {
            Some(cost) if room.fits(&cost) => room.take(&cost),
            _ => return (room, Ahead::Blocked(waiting.len().max(n + 1))),
        }
    }
    (room, Ahead::Fits)
}

fn queue_refusal(row: &PoolRow, waiting: usize) -> String {
    let when = Resource::ALL
        .into_iter()
        .filter_map(|r| row.window(r).map(|w| w.reset_ms))
        .max()
        .map(|t| format!(" for the window after {}", iso8601(t)))
        .unwrap_or_default();
    format!(
        "pool {}: {waiting} deferral(s) recorded earlier wait{when}; a runner never goes before them",
        row.name
    )
}

/// The decision on one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// `secret`: given once, in the answer; a release must give it back.
    Admitted {
        seq: u64,
        expires_ms: u64,
        secret: String,
    },
    Refused {
        reason: String,
    },
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub pool: String,
    pub verdict: Verdict,
    /// Admitted: what is left for others after this admission. Refused: what is left for
    /// this caller (0 while the pool holds). GitHub's terms: `remaining` before the reserve is
    /// taken off.
    pub window: Windows,
}

impl Asked {
    /// The answer as the protocol has it.
    pub fn answer(&self) -> AdmissionAnswer {
        let pool = self.pool.clone();
        let window = self.window;
        match &self.verdict {
            Verdict::Admitted {
                seq,
                expires_ms,
                secret,
            } => AdmissionAnswer::Admitted {
                admission: format!("{seq}-{secret}"),
                pool,
                expires_ms: *expires_ms,
                window,
            },
            Verdict::Refused { reason } => AdmissionAnswer::Refused {
                pool,
                reason: reason.clone(),
                window,
            },
        }
    }

    /// The answer's JSON, members by name (as a JSON value has them).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.answer()).unwrap_or(Value::Null)
    }
}

/// Whether `next` knows a later window than `row` of some resource (the reset it held for
/// has passed: the hold no longer stands).
fn later_window(row: &PoolRow, next: &PoolRow) -> bool {
    Resource::ALL
        .into_iter()
        .any(|r| match (row.window(r), next.window(r)) {
            (None, Some(_)) => true,
            (Some(before), Some(after)) => after.reset_ms > before.reset_ms,
            _ => false,
        })
}

/// `row` after `seen`, and whether it still holds at `now_ms`: a runner's report lifts a
/// pool's hold only when it shows a later window (else the runner would overtake the held
/// deferrals that wait, earliest first, for that window).
fn learn(row: &PoolRow, seen: &[Observation], now_ms: u64, buffer_ms: u64) -> (PoolRow, bool) {
    let mut next = row.clone();
    next.roll(now_ms, buffer_ms);
    next.observe(seen);
    let holds = row.hold_until_ms.is_some_and(|t| t > now_ms) && !later_window(row, &next);
    if holds {
        next.hold_until_ms = row.hold_until_ms;
        next.hold_reason = row.hold_reason.clone();
    }
    (next, holds)
}

fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn unsigned(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// "the window that resets at ..." while it runs, else "the new window".
fn window_words(row: &PoolRow, resource: Resource, now_ms: u64, options: &PoolOptions) -> String {
    let buffer = u64::try_from(options.buffer.as_millis()).unwrap_or(u64::MAX);
    match row.window(resource) {
        Some(w) if now_ms < w.reset_ms.saturating_add(buffer) => {
            format!("the window that resets at {}", iso8601(w.reset_ms))
        }
        _ => "the new window".to_string(),
    }
}

fn in_flight_words(open: usize) -> String {
    if open == 0 {
        String::new()
    } else {
        format!(" ({open} admitted, not reported)")
    }
}

/// Why `cost` is refused, when it is. The rule is [`fits_a_window`] and [`Room::fits`]; this
/// only says which part of it failed.
fn refusal(
    row: &PoolRow,
    holds: bool,
    room: &Room,
    cost: &Cost,
    open: usize,
    now_ms: u64,
    options: &PoolOptions,
) -> Option<String> {
    let name = &row.name;
    if holds {
        let why = row
            .hold_reason
            .as_deref()
            .unwrap_or("its held deferrals wait");
        let why = why
            .strip_prefix(&format!("pool {name}: "))
            .unwrap_or(why)
            .to_string();
        let until = row.hold_until_ms.map(iso8601).unwrap_or_default();
        return Some(format!("pool {name} holds until {until}: {why}"));
    }
    if !fits_a_window(row, cost) {
        let (r, w) = Resource::ALL
            .into_iter()
            .filter_map(|r| row.window(r).map(|w| (r, w)))
            .find(|(r, w)| cost.of(*r) > w.limit.saturating_sub(w.reserve))?;
        return Some(format!(
            "pool {name}: {} {} never fit above the reserve {} in a whole window of {}",
            cost.of(r),
            r.units(),
            w.reserve,
            w.limit
        ));
    }
    if room.fits(cost) {
        return None;
    }
    if room.alone {
        let r = room.per_resource.first().map_or(Resource::ALL[0], |p| p.0);
        return Some(format!(
            "pool {name}: an admission of unknown cost holds {} alone until its attempt reports{}",
            window_words(row, r, now_ms, options),
            in_flight_words(open)
        ));
    }
    let (r, left) = room
        .per_resource
        .iter()
        .find(|(r, left)| signed(cost.of(*r)) > *left)?;
    let reserve = row.window(*r).map_or(0, |w| w.reserve);
    Some(format!(
        "pool {name}: {} {} do not fit above the reserve {reserve} in the {} left of {}{}",
        cost.of(*r),
        r.units(),
        unsigned(left.saturating_add(signed(reserve))),
        window_words(row, *r, now_ms, options),
        in_flight_words(open)
    ))
}

/// What is left per window: the room plus the reserve, less `taken` (this admission), 0 while
/// the pool holds.
fn left(row: &PoolRow, room: &Room, taken: Option<&Cost>, holds: bool) -> Windows {
    let mut out = Windows::default();
    for (r, room_left) in &room.per_resource {
        let Some(w) = row.window(*r) else { continue };
        let remaining = if holds {
            0
        } else {
            let spent = taken.map_or(0, |c| signed(c.of(*r)));
            unsigned(room_left.saturating_add(signed(w.reserve)) - spent).min(w.limit)
        };
        *out.slot(*r) = Some(Window {
            limit: w.limit,
            remaining,
            reserve: w.reserve_within_limit(),
            reset_ms: w.reset_ms,
        });
    }
    out
}

pub(crate) fn busy(subject: &str) -> HostError {
    HostError::new(
        HostErrorKind::PoolBusy,
        format!(
            "{subject} changed under each of {} attempts to write this request; ask again",
            crate::pools::update::TRIES
        ),
    )
}

/// Decides a runner's request for `cost` in `pool`, whose gate saw `seen` (already checked:
/// at least one window), and writes the decision and the observations.
pub fn ask(
    store: &dyn Store,
    pool: &str,
    cost: &Cost,
    seen: &[Observation],
    options: &PoolOptions,
    now_ms: &dyn Fn() -> u64,
) -> Result<Asked, HostError> {
    let ((reason, expires_ms, secret, next, room, holds), written) = update(
        store,
        || {
            let now = now_ms();
            let row = store.pool(pool)?.unwrap_or_else(|| PoolRow::empty(pool));
            let (open, settled) = admission::open_and_settled(store, pool, now)?;
            let (mut next, holds) = learn(&row, seen, now, admission::buffer_ms(options));
            charge(&mut next, &settled);
            let room = admission::room(&next, &open);
            // The pool's due deferrals go first: a runner is decided on what they leave.
            let waiting = store.pool_candidates(pool, now, &[], QUEUE_LOOK)?;
            let (room, ahead) = after_the_queue(&next, room, &waiting);
            let urgent = crate::pools::fair::urgent_room(&next, options);
            let reason = match ahead {
                Ahead::Blocked(n) => Some(queue_refusal(&next, n)),
                Ahead::Fits => refusal(&next, holds, &room, cost, open.len(), now, options)
                    .or_else(
                        // A runner's request is of priority 0: it never uses the urgent share.
                        || {
                            (!room.fits_keeping(cost, &urgent)).then(|| {
                                format!(
                                    "pool {pool}: the rest of the window is kept for priority > 0 \
                             (--pool-urgent-share); a runner's request is of priority 0"
                                )
                            })
                        },
                    ),
            };
            // It counts in the window of the resources it spends, until that window resets (an
            // hour at most when that reset is not known).
            let window = room.window_of(Some(cost));
            let window_reset_ms = window.unwrap_or(now);
            let expires_ms = window
                .filter(|t| *t > now)
                .unwrap_or(now.saturating_add(MAX_WINDOW_MS));
            let secret = crate::handle::new_handle()[..32].to_string();
            let admit = match reason {
                None => vec![NewAdmission {
                    secret_digest: Some(crate::handle::handle_digest(&secret)),
                    deferral_id: None,
                    attempt: 0,
                    cost: Some(*cost),
                    window_reset_ms,
                    expires_ms,
                }],
                Some(_) => Vec::new(),
            };
            let write = PoolWrite {
                admit,
                release: settled.iter().map(|a| a.seq).collect(),
                observations: seen.to_vec(),
                ..PoolWrite::replacing(&row, next.clone(), now)
            };
            Ok(Try::write(
                write,
                (reason, expires_ms, secret, next, room, holds),
            ))
        },
        || busy(&format!("pool {pool}")),
    )?;
    let written = written.ok_or_else(|| busy(&format!("pool {pool}")))?;
    let verdict = match (reason, written.admitted.first()) {
        (None, Some(seq)) => Verdict::Admitted {
            seq: *seq,
            expires_ms,
            secret,
        },
        (Some(reason), _) => Verdict::Refused { reason },
        (None, None) => {
            return Err(HostError::new(
                HostErrorKind::Backend,
                "the store wrote the admission without answering its seq",
            ))
        }
    };
    let taken = matches!(verdict, Verdict::Admitted { .. }).then_some(cost);
    Ok(Asked {
        pool: pool.to_string(),
        window: left(&next, &room, taken, holds),
        verdict,
    })
}
