//! A rate-limited resource's window as a pool believes it, and a report of one.

pub use deferral_protocol::{Cost, Resource, Window, MAX_FIGURE};

/// One rate state reported for a resource (a gate line, an attempt's last line, a run's
/// artifact): as reported, before the pool decides what to believe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub resource: Resource,
    /// The window as reported (its reset in epoch ms): the protocol's.
    pub window: Window,
    pub observed_ms: u64,
    /// What reported it: `record ID`, `attempt ID#N`, `watch run N`, ...
    pub source: String,
    /// The deferral it came with, if any.
    pub deferral_id: Option<String>,
}

/// What a pool believes about one resource's current window: a window ledger, not a snapshot.
///
/// A window is its limit, its reset, the lowest remaining any report of it gave, and what the
/// host's released admissions spent in it: what is left is the lower of the reports' remaining
/// and the limit less that spending ([`WindowState::left`]), so neither a stale report nor a
/// missing one makes the pool believe more than it has. Reports whose resets differ
/// by at most [`WindowState::tolerance`] are one window (GitHub rounds resets to the second and
/// every runner's clock differs). When the reset passes with no report of the next window, the
/// next window opens at once ([`WindowState::rolled`]): remaining = the limit, the reset not
/// known and assumed at most one window length away; what is admitted then is charged to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    /// This window's limit (the lowest any report of it gave).
    pub limit: u64,
    /// The lowest remaining any report of this window gave (the limit while none did).
    pub remaining: u64,
    /// What the host's own released admissions spent in this window (charged whether or not
    /// their report came, so a stale report cannot make it forget them).
    pub spent: u64,
    /// `spent` when the lowest report was taken: what was spent after it is not in it.
    pub spent_at_report: u64,
    /// The reserve kept for everyone: the largest any report gave (a runner's own reserve never
    /// lowers it).
    pub reserve: u64,
    /// When the window resets (epoch ms): reported, or assumed when `reset_known` is false.
    pub reset_ms: u64,
    /// False for a window the pool opened itself when the previous reset passed.
    pub reset_known: bool,
    /// The reset of the window before this one (0: none known): reports of a reset up to it
    /// are of an earlier window, and admissions made before it were charged there.
    pub opened_after_ms: u64,
    /// How long a window lasts, as learned from the resets of consecutive windows that passed
    /// ([`MAX_WINDOW_MS`] until one is seen; see `learn_length`). What the pool acts on is
    /// never shorter than [`MIN_WINDOW_MS`] ([`WindowState::assumed_length`]); the forecast
    /// reads this as learned.
    pub length_ms: u64,
    /// The limit believed for the next window: the non-zero limit of the report that opened
    /// this one (a later window's, or the first of a window the pool opened itself). A lower
    /// limit reported of this window, 0 included, is this window's evidence only; a raise is
    /// believed once a report of a later window gives it.
    pub next_limit: u64,
    pub observed_ms: u64,
    pub source: String,
}

/// GitHub's primary windows last an hour: a report of a reset further away than this after it
/// was read is believed only this far, and a window opened by the pool is assumed at most this
/// long until a report teaches a shorter length.
pub const MAX_WINDOW_MS: u64 = 3_600_000;

/// The shortest window a pool assumes, whatever the resets reported: GitHub's primary windows
/// last an hour and its secondary limits a minute, so a window the pool opens itself is assumed
/// to last at least this long, and two resets are one window when they differ by the tolerance
/// of a window this long (a burst of resets milliseconds apart teaches no window of
/// milliseconds).
pub const MIN_WINDOW_MS: u64 = 60_000;

/// Resets that differ by at most this are one window (GitHub gives resets in whole seconds;
/// runners subtract their own clock offsets). Never more than half a learned window length.
pub const RESET_TOLERANCE_MS: u64 = 2_000;

/// The reserve a window gets when the one the pool kept is not below its limit any more: the
/// gate's default, 10% of the limit (rounded up).
fn default_reserve(limit: u64) -> u64 {
    limit.div_ceil(10)
}

/// A report's figures as a pool may believe them: every figure bounded, and what was changed
/// said in plain words (kept in the window's `source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sane {
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    /// The window's end: `None` when the reported reset had already passed when it was read
    /// (by more than the tolerance): not a window end.
    pub reset_ms: Option<u64>,
    /// What was clamped (empty: nothing).
    pub clamped: Vec<String>,
}

impl Sane {
    /// `obs` bounded: figures at most [`MAX_FIGURE`]; remaining at most the limit; a reset more
    /// than [`MAX_WINDOW_MS`] after the read believed that far; a reset already past when read
    /// not taken as a window end. A reserve at or above the limit is left as reported: what it
    /// means depends on the window it is merged into ([`WindowState::merge`]).
    pub fn of(obs: &Observation) -> Sane {
        let w = &obs.window;
        let mut clamped = Vec::new();
        let limit = w.limit.min(MAX_FIGURE);
        let remaining = w.remaining.min(limit);
        if w.remaining > limit {
            clamped.push(format!(
                "remaining {} above the limit {limit}, taken as {limit}",
                w.remaining
            ));
        }
        let latest = obs.observed_ms.saturating_add(MAX_WINDOW_MS);
        let reset_ms = if w.reset_ms > latest {
            clamped.push(format!(
                "reset {} more than an hour ahead of the read, taken as {}",
                crate::clock::iso8601(w.reset_ms),
                crate::clock::iso8601(latest)
            ));
            Some(latest)
        } else if w.reset_ms.saturating_add(RESET_TOLERANCE_MS) < obs.observed_ms {
            clamped.push(format!(
                "reset {} already past when read",
                crate::clock::iso8601(w.reset_ms)
            ));
            None
        } else {
            Some(w.reset_ms)
        };
        Sane {
            limit,
            remaining,
            reserve: w.reserve.min(MAX_FIGURE),
            reset_ms,
            clamped,
        }
    }

    /// `source` with what was clamped, if anything.
    fn source(&self, source: &str) -> String {
        if self.clamped.is_empty() {
            source.to_string()
        } else {
            format!("{source} (clamped: {})", self.clamped.join("; "))
        }
    }
}

impl WindowState {
    /// The tolerance between two resets of one window.
    pub fn tolerance(&self) -> u64 {
        RESET_TOLERANCE_MS.min(self.assumed_length() / 2)
    }

    /// How long a window the pool opens itself is assumed to last: the learned length, never
    /// shorter than [`MIN_WINDOW_MS`].
    pub fn assumed_length(&self) -> u64 {
        self.length_ms.max(MIN_WINDOW_MS)
    }

    /// When a window the pool opened itself was opened (its assumed reset less the assumed
    /// length and the tolerance it was given).
    fn opened_at_ms(&self) -> u64 {
        self.reset_ms
            .saturating_sub(self.assumed_length())
            .saturating_sub(self.tolerance())
    }

    /// The ledger of a first report: the reported window (its figures bounded), nothing spent.
    /// A reset already past when read is no window end: the window's end is assumed, as for a
    /// window the pool opened itself.
    fn first(obs: &Observation, sane: &Sane) -> WindowState {
        let mut w = WindowState {
            limit: sane.limit,
            remaining: sane.remaining,
            spent: 0,
            spent_at_report: 0,
            reserve: 0,
            reset_ms: sane.reset_ms.unwrap_or_else(|| {
                obs.observed_ms
                    .saturating_add(MAX_WINDOW_MS)
                    .saturating_add(RESET_TOLERANCE_MS)
            }),
            reset_known: sane.reset_ms.is_some(),
            opened_after_ms: 0,
            length_ms: MAX_WINDOW_MS,
            next_limit: sane.limit,
            observed_ms: obs.observed_ms,
            source: String::new(),
        };
        let mut sane = sane.clone();
        w.take_reserve(0, &mut sane);
        w.source = sane.source(&obs.source);
        w
    }

    /// Takes a report's reserve into this window (whose limit the report has set or lowered):
    /// a reserve below the limit raises the one the pool keeps (a runner's own smaller reserve
    /// never lowers it); a reserve at or above the limit is this window's evidence only, as a
    /// limit of 0 is: the window holds (its limit taken as 0) and the reserve is not learned.
    /// A reserve the pool kept that is not below this window's limit is unlearned (the gate's
    /// default, 10% of the limit).
    fn take_reserve(&mut self, kept: u64, sane: &mut Sane) {
        let limit = self.limit;
        let kept = if kept < limit || limit == 0 {
            kept
        } else {
            default_reserve(limit)
        };
        if sane.reserve > 0 && limit > 0 && sane.reserve >= limit {
            sane.clamped.push(format!(
                "reserve {} at or above the limit {limit}: this window holds, the reserve is not learned",
                sane.reserve
            ));
            self.reserve = kept;
            self.limit = 0;
            self.remaining = 0;
        } else if sane.reserve < limit {
            self.reserve = kept.max(sane.reserve);
        } else {
            self.reserve = kept;
        }
    }

    /// The window after `obs`. A report of a later window (a reset more than the tolerance
    /// after this one's) replaces it; a report of this window (within the tolerance, or any
    /// reset after the previous window's while this one's is only assumed) lowers remaining and
    /// the limit, never raises them, and teaches an assumed window its reset; a report of an
    /// earlier window changes nothing. Figures are bounded first ([`Sane::of`]): a reset
    /// already past when read only lowers a known window it is of, and never opens, ends or
    /// measures one. A window length is learned only from a reset read after the reset before
    /// it passed (see `learn_length`).
    pub fn merge(current: Option<&WindowState>, obs: &Observation) -> WindowState {
        WindowState::merge_as(current, obs, false)
    }

    /// [`WindowState::merge`] of the host's own reading of GitHub (`GET /rate_limit` with the
    /// pool's credentials): a later reset it reads is the current window even while the one
    /// the pool knew has not reached its reset (what a runner reported was stale).
    pub fn merge_own(current: Option<&WindowState>, obs: &Observation) -> WindowState {
        WindowState::merge_as(current, obs, true)
    }

    fn merge_as(current: Option<&WindowState>, obs: &Observation, own: bool) -> WindowState {
        let mut sane = Sane::of(obs);
        let Some(cur) = current else {
            return WindowState::first(obs, &sane);
        };
        let tol = cur.tolerance();
        let limit = sane.limit;
        let next_limit = if limit > 0 { limit } else { cur.next_limit };
        let mut next = WindowState {
            observed_ms: cur.observed_ms.max(obs.observed_ms),
            ..cur.clone()
        };
        // A reset already past when read is a window end in one case only: a report read late
        // (a long job's line) of a window the pool opened itself, whose end it gives after the
        // moment the pool opened it. It ends that window (no length is learned from it); a
        // caller can end no window more often than the tolerance, and opens none.
        let late_end = sane.reset_ms.is_none()
            && !cur.reset_known
            && obs.window.reset_ms > cur.opened_at_ms().saturating_add(tol);
        if late_end {
            sane.clamped.clear();
            sane.clamped.extend((obs.window.remaining > limit).then(|| {
                format!(
                    "remaining {} above the limit {limit}, taken as {limit}",
                    obs.window.remaining
                )
            }));
        }
        let reset_ms = if late_end {
            Some(obs.window.reset_ms)
        } else {
            sane.reset_ms
        };
        let Some(reset_ms) = reset_ms else {
            // A reset already past when read: evidence about a known window it is of (it only
            // lowers), nothing about any other.
            if !(cur.reset_known && cur.reset_ms.abs_diff(obs.window.reset_ms) <= tol) {
                return cur.clone();
            }
            next.limit = cur.limit.min(limit);
            next.remaining = cur.remaining.min(sane.remaining).min(next.limit);
            if sane.remaining < cur.remaining {
                next.spent_at_report = cur.spent;
            }
            next.take_reserve(cur.reserve, &mut sane);
            next.source = sane.source(&obs.source);
            return next;
        };
        let stale = cur.opened_after_ms > 0 && reset_ms <= cur.opened_after_ms.saturating_add(tol);
        let same = !cur.reset_known || reset_ms.abs_diff(cur.reset_ms) <= tol;
        // A later reset read before this window ends cannot be the next window: two windows
        // claimed for one moment; believed as this one, at its reset (a report of a far reset
        // or a larger window raises nothing).
        let contradicts = !own
            && !same
            && cur.reset_known
            && reset_ms > cur.reset_ms
            && obs.observed_ms.saturating_add(tol) < cur.reset_ms;
        if stale {
            return cur.clone();
        }
        if same || contradicts {
            let remaining = sane.remaining;
            if remaining < cur.remaining {
                next.source = obs.source.clone();
                next.spent_at_report = cur.spent;
            }
            if cur.reset_known {
                next.limit = cur.limit.min(limit);
                next.remaining = cur.remaining.min(remaining).min(next.limit);
                // A lower limit reported of this window is this window's evidence only (as a
                // limit of 0 is): the next window opens with the limit it was opened with.
                if !contradicts {
                    next.reset_ms = cur.reset_ms.max(reset_ms);
                }
            } else {
                // The first report of a window the pool opened itself: its reset, limit and
                // remaining replace the assumption; what the host's admissions spent in it
                // still counts (see `left`).
                next.limit = limit;
                next.remaining = remaining;
                next.spent_at_report = cur.spent;
                next.next_limit = next_limit;
                next.reset_ms = reset_ms;
                next.reset_known = true;
                next.source = obs.source.clone();
                if cur.opened_after_ms > 0 && !late_end {
                    next.length_ms = learn_length(
                        cur.length_ms,
                        cur.opened_after_ms,
                        reset_ms,
                        obs.observed_ms,
                    );
                }
            }
        } else if reset_ms > cur.reset_ms {
            next.limit = limit;
            next.remaining = sane.remaining;
            next.spent = 0;
            next.spent_at_report = 0;
            next.reset_ms = reset_ms;
            next.reset_known = true;
            next.opened_after_ms = cur.reset_ms;
            next.length_ms = learn_length(cur.length_ms, cur.reset_ms, reset_ms, obs.observed_ms);
            next.next_limit = next_limit;
            next.source = obs.source.clone();
        } else {
            return cur.clone();
        }
        next.take_reserve(cur.reserve, &mut sane);
        if !sane.clamped.is_empty() {
            next.source = sane.source(&obs.source);
        }
        next
    }

    /// The next window, opened because this one's reset plus `buffer_ms` has passed at
    /// `now_ms` with no report of it: remaining = the limit believed for it (less what other
    /// programs spent of this window while the host spent in it too), the reset assumed one
    /// window length (and the tolerance) away, the reserve the pool keeps (unlearned when it is
    /// not below that limit). `None` while this window runs.
    pub fn rolled(&self, now_ms: u64, buffer_ms: u64) -> Option<WindowState> {
        if now_ms < self.reset_ms.saturating_add(buffer_ms) {
            return None;
        }
        let others = self.others();
        let reserve = if self.reserve < self.next_limit || self.next_limit == 0 {
            self.reserve
        } else {
            default_reserve(self.next_limit)
        };
        Some(WindowState {
            limit: self.next_limit,
            remaining: self.next_limit.saturating_sub(others),
            spent: 0,
            spent_at_report: 0,
            reserve,
            reset_ms: now_ms
                .saturating_add(self.assumed_length())
                .saturating_add(self.tolerance()),
            reset_known: false,
            opened_after_ms: self.reset_ms,
            length_ms: self.length_ms,
            next_limit: self.next_limit,
            observed_ms: self.observed_ms,
            source: "assumed: no report of this window yet".to_string(),
        })
    }

    /// What other programs spend of a window, as this one shows it: in a reported window the
    /// host spent in, the lowest report less what the host's own admissions had spent by then;
    /// in a window the pool opened itself, what it assumed from the window before. Assumed
    /// again in the next window until a report of it says otherwise (0 when nothing shows it:
    /// a window the host did not spend in may have been spent by the work before it).
    pub fn others(&self) -> u64 {
        if !self.reset_known {
            self.limit.saturating_sub(self.remaining)
        } else if self.spent > 0 {
            self.limit
                .saturating_sub(self.remaining)
                .saturating_sub(self.spent_at_report)
        } else {
            0
        }
    }

    /// Whether an admission made at `admitted_ms` counts in this window (it was made after the
    /// window before this one ended).
    pub fn holds_admission(&self, admitted_ms: u64) -> bool {
        admitted_ms >= self.opened_after_ms
    }

    /// What is left of the window: the lowest remaining reported less what the host's own
    /// admissions spent after that report, and never more than the limit less all they spent.
    pub fn left(&self) -> u64 {
        let since = self.spent.saturating_sub(self.spent_at_report);
        self.remaining
            .saturating_sub(since)
            .min(self.limit.saturating_sub(self.spent))
    }

    /// Charges `cost` (an admission made at `admitted_ms`, now released) to this window when it
    /// was made in it. A report the released run gives is merged after: it includes this cost.
    pub fn charge(&mut self, admitted_ms: u64, cost: u64) {
        if self.holds_admission(admitted_ms) {
            self.spent = self.spent.saturating_add(cost).min(MAX_FIGURE);
        }
    }

    /// The reserve as answered: never above the limit.
    pub fn reserve_within_limit(&self) -> u64 {
        self.reserve.min(self.limit)
    }
}

/// The window length after a window that ended at `previous_ms` was followed by one reported to
/// end at `reset_ms`, read at `observed_ms`. Evidence only when the previous window had passed
/// when the report was read (`observed_ms` is never later than the host's clock, so a runner
/// cannot claim time that has not passed) and the new reset lies ahead of the read; the gap is
/// then the length, at most [`MAX_WINDOW_MS`] (a gap over several windows is at most an hour;
/// it is more than the tolerance, or the two resets would be one window). The latest evidence
/// wins: a length learned short grows back when later windows are longer. What the pool acts
/// on is never shorter than [`MIN_WINDOW_MS`] ([`WindowState::assumed_length`]).
fn learn_length(length_ms: u64, previous_ms: u64, reset_ms: u64, observed_ms: u64) -> u64 {
    if observed_ms < previous_ms || reset_ms <= observed_ms {
        return length_ms;
    }
    (reset_ms - previous_ms).min(MAX_WINDOW_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(limit: u64, remaining: u64, reset_ms: u64, source: &str) -> Observation {
        Observation {
            resource: Resource::Rest,
            window: Window {
                limit,
                remaining,
                reserve: 5,
                reset_ms,
            },
            observed_ms: 1_000,
            source: source.into(),
            deferral_id: None,
        }
    }

    #[test]
    fn a_later_window_wins_within_one_window_the_lowest_and_a_raise_waits_for_the_next() {
        let first = WindowState::merge(None, &obs(45, 30, 10_000, "a"));
        assert_eq!(
            (first.limit, first.remaining, first.reset_ms),
            (45, 30, 10_000)
        );
        let lower = WindowState::merge(Some(&first), &obs(45, 20, 10_000, "b"));
        assert_eq!((lower.remaining, lower.source.as_str()), (20, "b"));
        let late = WindowState::merge(Some(&lower), &obs(45, 40, 10_000, "c"));
        assert_eq!(
            late.remaining, 20,
            "a late report of one window never raises it"
        );
        let older = WindowState::merge(Some(&lower), &obs(45, 45, 2_000, "d"));
        assert_eq!((older.remaining, older.reset_ms), (20, 10_000));
        let next = WindowState::merge(
            Some(&lower),
            &Observation {
                observed_ms: 10_500,
                ..obs(45, 44, 20_000, "e")
            },
        );
        assert_eq!((next.remaining, next.reset_ms), (44, 20_000));
        assert_eq!(next.length_ms, 10_000, "learned from consecutive resets");
        assert_eq!(
            next.assumed_length(),
            MIN_WINDOW_MS,
            "acted on: a minute at least"
        );
        let bigger = WindowState::merge(Some(&next), &obs(1_000, 999, 20_000, "f"));
        assert_eq!(
            (bigger.limit, bigger.remaining, bigger.next_limit),
            (45, 44, 45),
            "a larger limit reported of this window is not believed"
        );
        let far = WindowState::merge(Some(&bigger), &obs(1_000, 999, u64::MAX / 2, "g"));
        assert_eq!(
            (far.reset_ms, far.limit, far.remaining),
            (20_000, 45, 44),
            "a later reset read while this window runs is this window: nothing is raised"
        );
        let raised = WindowState::merge(
            Some(&bigger),
            &Observation {
                observed_ms: 21_000,
                ..obs(1_000, 999, 30_000, "h")
            },
        );
        assert_eq!(
            (raised.limit, raised.remaining, raised.reset_ms),
            (1_000, 999, 30_000),
            "a raise is believed from a later window on"
        );
        let capped = WindowState::merge(
            Some(&raised),
            &Observation {
                observed_ms: 31_000,
                ..obs(1_000, 3, u64::MAX / 2, "i")
            },
        );
        assert_eq!(
            capped.reset_ms,
            31_000 + MAX_WINDOW_MS,
            "a reset far away is believed an hour away"
        );
        let huge = WindowState::merge(None, &obs(u64::MAX, u64::MAX, 10_000, "h"));
        assert_eq!((huge.limit, huge.remaining), (MAX_FIGURE, MAX_FIGURE));
    }

    /// A gate reports the reset to the millisecond, a job in whole seconds, two runners 300 to
    /// 700 ms apart: one window, the lowest remaining.
    #[test]
    fn resets_rounded_or_jittered_apart_are_one_window() {
        let obs = |limit, remaining, reset_ms, source: &str| Observation {
            observed_ms: 1_700_000_290_000,
            ..obs(limit, remaining, reset_ms, source)
        };
        let admitted = WindowState::merge(None, &obs(45, 45, 1_700_000_295_283, "gate"));
        let job = WindowState::merge(Some(&admitted), &obs(45, 25, 1_700_000_295_000, "job"));
        assert_eq!((job.remaining, job.reset_ms), (25, 1_700_000_295_283));
        let jitter = WindowState::merge(Some(&job), &obs(45, 40, 1_700_000_295_700, "other"));
        assert_eq!(
            (jitter.remaining, jitter.reset_ms),
            (25, 1_700_000_295_700),
            "a reset 700 ms later is the same window: remaining is not raised"
        );
    }

    /// When the reset passes with no report, the next window opens with the limit and an
    /// assumed reset; a report of it teaches the reset and keeps the lowest remaining; a report
    /// of the window before is stale; a limit of 0 is one window's evidence only.
    #[test]
    fn a_passed_reset_opens_an_assumed_window_that_a_report_replaces() {
        let w = WindowState::merge(None, &obs(45, 0, 10_000, "gate"));
        assert_eq!(w.rolled(10_999, 1_000), None, "the buffer has not passed");
        let mut open = w.rolled(11_000, 1_000).expect("the next window opens");
        assert_eq!((open.remaining, open.reset_known), (45, false));
        assert_eq!(open.reset_ms, 11_000 + MAX_WINDOW_MS + RESET_TOLERANCE_MS);
        assert!(open.holds_admission(11_000) && !open.holds_admission(9_000));
        for _ in 0..4 {
            open.charge(11_000, 10); // four admissions of 10 released without a report
        }
        open.charge(9_000, 10); // made in the window before: not charged here
        assert_eq!(open.left(), 5);
        let stale = WindowState::merge(Some(&open), &obs(45, 45, 10_000, "late"));
        assert_eq!(stale, open, "a report of the passed window changes nothing");
        let known = WindowState::merge(
            Some(&open),
            &Observation {
                observed_ms: 11_500,
                ..obs(45, 30, 13_000, "job")
            },
        );
        assert_eq!(
            (
                known.left(),
                known.reset_ms,
                known.reset_known,
                known.length_ms
            ),
            (5, 13_000, true, 3_000)
        );
        let zero = WindowState::merge(Some(&known), &obs(0, 0, 13_000, "glitch"));
        assert_eq!((zero.limit, zero.remaining), (0, 0));
        let after = zero.rolled(14_000, 1_000).expect("the next window");
        assert_eq!(
            (after.limit, after.remaining),
            (45, 45),
            "a report of 0 does not poison the next window"
        );
        assert_eq!(
            after.reset_ms,
            14_000 + MIN_WINDOW_MS + RESET_TOLERANCE_MS,
            "the learned length, never less than a minute"
        );
    }

    /// Another program spent 60 of a window the host spent 120 in: the next window is assumed
    /// to lose the same 60 until its first report says what it has.
    #[test]
    fn what_other_programs_spent_is_assumed_again_in_the_next_window() {
        let mut w = WindowState::merge(None, &obs(200, 200, 10_000, "gate"));
        w.charge(1_000, 120);
        w = WindowState::merge(Some(&w), &obs(200, 20, 10_000, "job"));
        assert_eq!(w.left(), 20);
        let next = w.rolled(11_000, 1_000).expect("the next window");
        assert_eq!(next.left(), 140, "200 less the other program's 60");
        let told = WindowState::merge(
            Some(&next),
            &Observation {
                observed_ms: 11_500,
                ..obs(200, 200, 13_000, "job")
            },
        );
        assert_eq!(
            told.left(),
            200,
            "the first report of the window replaces the guess"
        );
        let idle = WindowState::merge(None, &obs(45, 0, 10_000, "gate"));
        assert_eq!(
            idle.rolled(11_000, 0).unwrap().left(),
            45,
            "a window the host did not spend in teaches nothing of others"
        );
    }

    fn at(
        observed_ms: u64,
        limit: u64,
        remaining: u64,
        reserve: u64,
        reset_ms: u64,
    ) -> Observation {
        Observation {
            observed_ms,
            window: Window {
                limit,
                remaining,
                reserve,
                reset_ms,
            },
            ..obs(0, 0, 0, "r")
        }
    }

    /// A length is learned only from a reset read after the one before it passed and lying
    /// ahead of the read, never below a minute, and the latest evidence wins: it grows back.
    #[test]
    fn a_window_length_is_learned_from_windows_that_passed_and_grows_back() {
        const H: u64 = MAX_WINDOW_MS;
        let w = WindowState::merge(None, &at(1_000_000, 45, 45, 5, 1_010_000));
        // Resets milliseconds apart, all already past when read: no window end, no length.
        let mut past = w.clone();
        for i in 0..20 {
            past = WindowState::merge(Some(&past), &at(2_000_000, 45, 45, 5, 1_010_000 + i * 7));
        }
        assert_eq!((past.reset_ms, past.length_ms), (1_010_000, H));
        // A later reset read after this window passed, 2.5 s after it: a minute at least.
        let short = WindowState::merge(Some(&w), &at(1_010_001, 45, 45, 5, 1_012_500));
        assert_eq!(
            (short.reset_ms, short.length_ms, short.assumed_length()),
            (1_012_500, 2_500, MIN_WINDOW_MS)
        );
        // Read before the window passed: no evidence of a length.
        let early = WindowState::merge_own(Some(&w), &at(1_005_000, 45, 45, 5, 1_020_000));
        assert_eq!((early.reset_ms, early.length_ms), (1_020_000, H));
        // A later window of 40 minutes, then one of 50: the length follows.
        let rolled = short.rolled(1_012_600, 0).unwrap();
        let forty = WindowState::merge(
            Some(&rolled),
            &at(1_012_700, 45, 40, 5, 1_012_500 + 2_400_000),
        );
        assert_eq!(forty.length_ms, 2_400_000, "grown back from a minute");
        let fifty = WindowState::merge(
            Some(&forty),
            &at(3_500_000, 45, 40, 5, 1_012_500 + 2_400_000 + 3_000_000),
        );
        assert_eq!(fifty.length_ms, 3_000_000);
    }

    /// A reserve at or above the limit holds its window (as a limit of 0 does) and is not
    /// learned; a reserve the pool kept that no longer fits below a window's limit is unlearned.
    #[test]
    fn a_reserve_at_or_above_the_limit_holds_one_window() {
        let w = WindowState::merge(None, &at(1_000, 45, 45, 5, 10_000));
        let held = WindowState::merge(Some(&w), &at(2_000, 45, 40, 45, 10_000));
        assert_eq!((held.limit, held.left(), held.reserve), (0, 0, 5));
        assert!(held.source.contains("clamped"), "{}", held.source);
        let next = held.rolled(11_000, 0).unwrap();
        assert_eq!((next.limit, next.left(), next.reserve), (45, 45, 5));
        let larger = WindowState::merge(Some(&w), &at(2_000, 5_000, 4_000, 500, 10_000));
        assert_eq!(
            (larger.limit, larger.reserve, larger.next_limit),
            (0, 5, 45)
        );
        // A reserve of 500 learned in windows of 5,000, then a window of 45: not closed for good.
        let big = WindowState::merge(None, &at(1_000, 5_000, 5_000, 500, 10_000));
        let small = WindowState::merge(Some(&big), &at(10_500, 45, 45, 5, 70_500));
        assert_eq!((small.limit, small.reserve), (45, 5));
        let mut lowered = big.clone();
        lowered.next_limit = 45;
        assert_eq!(lowered.rolled(11_000, 0).unwrap().reserve, 5, "10% of 45");
    }

    /// Absurd figures are bounded and said so.
    #[test]
    fn absurd_figures_are_clamped_and_said_so() {
        let sane = Sane::of(&at(1_000_000, 5_000, 9_000, 5, 5_000));
        assert_eq!((sane.remaining, sane.reset_ms), (5_000, None));
        assert_eq!(sane.clamped.len(), 2, "{:?}", sane.clamped);
        let far = Sane::of(&at(1_000_000, 5_000, 10, 5, u64::MAX / 2));
        assert_eq!(far.reset_ms, Some(1_000_000 + MAX_WINDOW_MS));
        let first = WindowState::merge(None, &at(1_000_000, 5_000, 9_000, 5, 5_000));
        assert_eq!(
            (first.remaining, first.reset_known),
            (5_000, false),
            "a past reset is no window end: the end is assumed"
        );
        assert_eq!(
            first.reset_ms,
            1_000_000 + MAX_WINDOW_MS + RESET_TOLERANCE_MS
        );
        assert!(first.source.contains("clamped"), "{}", first.source);
    }

    /// A long job's line read after its window ended ends the window the pool opened itself,
    /// when the end it gives is after the pool opened it; it teaches no length, and an end
    /// before the pool opened the window changes nothing.
    #[test]
    fn a_late_report_ends_the_window_the_pool_opened() {
        let w = WindowState::merge(None, &at(1_000, 45, 45, 5, 10_000));
        let open = w.rolled(11_000, 0).unwrap();
        let early = WindowState::merge(Some(&open), &at(80_000, 45, 30, 5, 12_000));
        assert_eq!(
            early, open,
            "an end before the pool opened it (and the tolerance)"
        );
        let late = WindowState::merge(Some(&open), &at(80_000, 45, 30, 5, 20_000));
        assert_eq!(
            (
                late.reset_ms,
                late.reset_known,
                late.length_ms,
                late.remaining
            ),
            (20_000, true, MAX_WINDOW_MS, 30)
        );
        assert!(!late.source.contains("clamped"), "{}", late.source);
        let again = WindowState::merge(Some(&late), &at(80_001, 45, 45, 5, 30_000));
        assert_eq!(
            again, late,
            "a known window is not ended again by a past reset"
        );
        assert!(late.rolled(80_002, 0).is_some(), "the next window opens");
    }
}
