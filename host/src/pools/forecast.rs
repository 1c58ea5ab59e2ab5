//! The forecast: when each held deferral of a pool is expected to start, and when the pool's
//! backlog drains (DESIGN section 10, "Fair pools and a forecast").
//!
//! A pure function of what the pool knows: it plays admission window by window with the rule
//! `admission::decide` uses ([`super::fair::turns`], the room above the reserve, the urgent
//! share, an unknown cost alone in its window). The first window is what is left now (less
//! what is admitted and not reported); each later window opens at the reset plus the buffer
//! and this host's jitter (when a hold ends), one learned window length (`length_ms`) after
//! the one before, with the limit believed for
//! it, less what other programs spent of the current window (assumed again, as the ledger's
//! own next window assumes it), the rest for the backlog (what is admitted now is taken as
//! reported by then). Jobs not
//! yet due join the first window that opens after they are due. A deferral that fits now is
//! expected at its due time (passed: the next tick starts it).
//!
//! How far to trust it: it knows only the host's own work. Another program spending the same
//! quota, a report of a lower limit, attempts that defer again, retries and new records all
//! move it; it is recomputed on every read.

use super::admission::{buffer_ms, fits_a_window, jitter_ms, metered, room, Room};
use super::fair::urgent_room;
use super::turns::{Offer, Queue};
use super::PoolOptions;
use crate::store::pools::{Admission, Candidate, Cost, PoolRow, Resource};
use deferral_protocol::PerResource;
use std::collections::{BTreeMap, HashMap};

/// A forecast looks at most this far ahead (a start later is unknown).
pub const HORIZON_MS: u64 = 30 * 24 * 3_600_000;

/// One held deferral's expected start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub id: String,
    /// `None`: not within [`HORIZON_MS`], or never.
    pub start_ms: Option<u64>,
    /// Expected to start after its window ends, or never: it will expire unless the pool
    /// changes.
    pub will_expire: bool,
    /// Its priority and fairness key, as admission reads them.
    pub priority: i64,
    pub key: String,
}

/// A pool's forecast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forecast {
    /// In the order of the backlog given.
    pub expected: Vec<Expected>,
    /// When the last held deferral is expected to start (`None`: nothing held, or a start
    /// not within the horizon).
    pub drain_ms: Option<u64>,
    /// Each id's place in `expected`.
    index: HashMap<String, usize>,
}

impl Forecast {
    pub fn of(&self, id: &str) -> Option<&Expected> {
        self.index.get(id).map(|&i| &self.expected[i])
    }
}

/// When a resource's next window opens, how much of it the backlog may use, and its length.
struct Refill {
    resource: Resource,
    at_ms: u64,
    full: i64,
    length_ms: u64,
}

impl Refill {
    /// Each metered resource's next window for the backlog: opening at its reset plus `opens`,
    /// with the limit believed for it less what other programs spend and the reserve.
    fn of(row: &PoolRow, opens: u64) -> Vec<Refill> {
        Resource::ALL
            .into_iter()
            .filter_map(|r| {
                let w = row.window(r)?;
                Some(Refill {
                    resource: r,
                    at_ms: w.reset_ms.saturating_add(opens),
                    full: i64::try_from(
                        w.next_limit
                            .saturating_sub(w.others())
                            .saturating_sub(w.reserve),
                    )
                    .unwrap_or(i64::MAX),
                    length_ms: w.length_ms.max(1),
                })
            })
            .collect()
    }

    /// Moves to the first window opening after `t` (at once, however many windows that skips).
    fn pass(&mut self, t: u64) {
        if self.at_ms <= t {
            let windows = (t - self.at_ms) / self.length_ms + 1;
            self.at_ms = self
                .at_ms
                .saturating_add(windows.saturating_mul(self.length_ms));
        }
    }
}

/// What a candidate must leave of a window: nothing for priority > 0, else the urgent share.
fn kept_for<'a>(c: &Candidate, urgent: &'a [(Resource, i64)]) -> &'a [(Resource, i64)] {
    if c.priority > 0 {
        &[]
    } else {
        urgent
    }
}

/// The deferrals of `backlog` that no whole later window can hold (a cost above it, or what
/// must be kept for priority > 0): they never start.
fn never_fitting(
    backlog: &[Candidate],
    refills: &[Refill],
    cost_of: &dyn Fn(&Candidate) -> Option<Cost>,
    urgent: &[(Resource, i64)],
) -> HashMap<String, bool> {
    let whole = Room {
        per_resource: refills.iter().map(|r| (r.resource, r.full)).collect(),
        resets: Vec::new(),
        alone: false,
        in_flight: Cost::default(),
    };
    backlog
        .iter()
        .filter(|c| match cost_of(c) {
            Some(cost) => !whole.fits_keeping(&cost, kept_for(c, urgent)),
            None => !whole.any_left(),
        })
        .map(|c| (c.id.clone(), true))
        .collect()
}

/// The next window that opens with more than `room` has left, while jobs wait: any, after a
/// pass that `changed` the room (an admission, or one still open from before) or while an
/// unknown cost holds it alone; else only a resource whose room is not already full.
fn next_refill(refills: &[Refill], room: &Room, changed: bool) -> Option<u64> {
    let gives_more = |r: &Refill| {
        changed
            || room.alone
            || room
                .per_resource
                .iter()
                .any(|(x, left)| *x == r.resource && *left != r.full)
    };
    refills
        .iter()
        .filter(|r| gives_more(r))
        .map(|r| r.at_ms)
        .min()
}

/// Opens each window due by `t`: its resource's room is full again, and an unknown cost no
/// longer holds the room alone. Whether any opened.
fn refill_at(refills: &mut [Refill], room: &mut Room, t: u64) -> bool {
    let mut opened = false;
    for refill in refills.iter_mut().filter(|r| r.at_ms <= t) {
        refill.pass(t);
        if let Some(slot) = room
            .per_resource
            .iter_mut()
            .find(|(r, _)| *r == refill.resource)
        {
            slot.1 = refill.full;
        }
        room.alone = false;
        opened = true;
    }
    opened
}

/// The least cost per resource among the jobs not started, per class (priority > 0, and the
/// rest), and how many have an unknown cost: once a window's room fits none of it, nothing
/// offered in it can start (the pass ends there).
#[derive(Default)]
struct Least {
    urgent: PerResource<BTreeMap<u64, usize>>,
    other: PerResource<BTreeMap<u64, usize>>,
    unknown: usize,
}

impl Least {
    fn change(&mut self, priority: i64, cost: Option<&Cost>, add: bool) {
        let Some(cost) = cost else {
            self.unknown = if add {
                self.unknown + 1
            } else {
                self.unknown.saturating_sub(1)
            };
            return;
        };
        let maps = if priority > 0 {
            &mut self.urgent
        } else {
            &mut self.other
        };
        for r in Resource::ALL {
            let map = &mut maps[r];
            let v = cost.of(r);
            if add {
                *map.entry(v).or_default() += 1;
            } else if let Some(n) = map.get_mut(&v) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&v);
                }
            }
        }
    }

    fn least(maps: &PerResource<BTreeMap<u64, usize>>) -> Option<Cost> {
        let mut cost = Cost::default();
        for (r, map) in maps.iter() {
            cost.resources[r] = *map.keys().next()?;
        }
        Some(cost)
    }
}

/// Forecasts `backlog` (the pool's deferred work not admitted yet, due or not) in `pool` with
/// `open` admissions, at `now_ms`.
///
/// Its work is bounded by the backlog, not by the time it covers: windows in which nothing can
/// change (nothing due waits, or what waits cannot fit more than the last window let it) are
/// skipped arithmetically to the next one in which something can; the queue of [`Queue`] keeps
/// the fair order across windows, and a window's pass ends as soon as nothing left could fit.
pub fn forecast(
    pool: &PoolRow,
    open: &[Admission],
    backlog: Vec<Candidate>,
    now_ms: u64,
    options: &PoolOptions,
) -> Forecast {
    let order: Vec<(String, u64, i64, String)> = backlog
        .iter()
        .map(|c| (c.id.clone(), c.resume_by_ms, c.priority, c.key.clone()))
        .collect();
    let mut starts: HashMap<String, u64> = HashMap::new();
    let buffer = buffer_ms(options);
    let mut row = pool.clone();
    row.roll(now_ms, buffer);
    let horizon = now_ms.saturating_add(HORIZON_MS);
    if !metered(&row) {
        starts.extend(backlog.iter().map(|c| (c.id.clone(), c.resume_after_ms)));
        return forecast_from(order, &starts, &HashMap::new(), horizon);
    }
    let mut room = room(&row, open);
    let urgent = urgent_room(&row, options);
    // A window opens for this host at its reset plus the buffer and this host's jitter for the
    // pool, as a hold ends (`admission::jitter_ms`): the forecast and the hold say one time.
    let opens = buffer.saturating_add(jitter_ms(&pool.name, options));
    let mut refills = Refill::of(&row, opens);
    let cost_of = |c: &Candidate| c.cost.filter(|cost| fits_a_window(&row, cost));
    let kept_of = |c: &Candidate| kept_for(c, &urgent);
    let mut never = never_fitting(&backlog, &refills, &cost_of, &urgent);
    let mut least = Least::default();
    for c in &backlog {
        least.change(c.priority, cost_of(c).as_ref(), true);
    }
    let weight = |key: &str| options.fair.weight(&row.name, key);
    let mut open_now = !open.is_empty();
    let mut pending = backlog;
    // Joined as they fall due: earliest last, to pop.
    pending.sort_by(|a, b| {
        b.resume_after_ms
            .cmp(&a.resume_after_ms)
            .then_with(|| b.id.cmp(&a.id))
    });
    let mut queue = Queue::default();
    let mut t = now_ms;
    while t <= horizon {
        while pending.last().is_some_and(|c| c.resume_after_ms <= t) {
            if let Some(c) = pending.pop() {
                queue.push(c);
            }
        }
        if crate::abandon::cancelled() {
            break;
        }
        let mut admitted_any = false;
        let admitted = queue.pass(&weight, &mut |c| {
            let cost = cost_of(c);
            let ok = match &cost {
                Some(cost) => room.fits_keeping(cost, kept_of(c)),
                None => !admitted_any && !open_now && room.any_left(),
            };
            if ok {
                match &cost {
                    Some(cost) => room.take(cost),
                    None => room.alone = true,
                }
                admitted_any = true;
                return Offer::Admitted;
            }
            // Nothing after it can fit either: the least cost of each class does not.
            let fits = |maps, kept: &[(Resource, i64)]| {
                Least::least(maps).is_some_and(|l| room.fits_keeping(&l, kept))
            };
            let could = fits(&least.urgent, &[])
                || fits(&least.other, &urgent)
                || (least.unknown > 0 && !admitted_any && !open_now && room.any_left());
            if could {
                Offer::Held
            } else {
                Offer::Exhausted
            }
        });
        // What fits now starts at its due time (passed: at the next tick); the same answer
        // on every read.
        // A job of unknown cost waits for a pass that admits nothing before it.
        let admitted_now = !admitted.is_empty();
        for c in admitted {
            least.change(c.priority, cost_of(&c).as_ref(), false);
            let at = if t == now_ms { c.resume_after_ms } else { t };
            starts.insert(c.id, at);
        }
        if queue.is_empty() && pending.is_empty() {
            break;
        }
        // The next moment something can change: a job falls due, or (while jobs wait) a
        // window opens that gives more than is left now. A window that gives what is left
        // already changes nothing: skipped.
        let next_due = pending.last().map(|c| c.resume_after_ms);
        let next_refill = if queue.is_empty() {
            None
        } else {
            next_refill(&refills, &room, admitted_now || open_now)
        };
        let Some(next) = next_due.into_iter().chain(next_refill).min() else {
            // Jobs wait and no window can ever start them.
            for c in queue.into_jobs() {
                never.insert(c.id, true);
            }
            break;
        };
        t = next.max(t.saturating_add(1));
        if refill_at(&mut refills, &mut room, t) {
            open_now = false;
        }
    }
    forecast_from(order, &starts, &never, horizon)
}

/// The forecast of `order` from `starts`: a deferral not started is expected to expire when it
/// can never start (`never`) or its window ends within the horizon.
fn forecast_from(
    order: Vec<(String, u64, i64, String)>,
    starts: &HashMap<String, u64>,
    never: &HashMap<String, bool>,
    horizon: u64,
) -> Forecast {
    let mut drain_ms = Some(0);
    let expected: Vec<Expected> = order
        .into_iter()
        .map(|(id, resume_by_ms, priority, key)| {
            let start_ms = starts.get(&id).copied();
            drain_ms = match (drain_ms, start_ms) {
                (Some(d), Some(s)) => Some(d.max(s)),
                _ => None,
            };
            let will_expire = match start_ms {
                Some(s) => s > resume_by_ms,
                None => never.contains_key(&id) || resume_by_ms <= horizon,
            };
            Expected {
                will_expire,
                id,
                start_ms,
                priority,
                key,
            }
        })
        .collect();
    if expected.is_empty() {
        drain_ms = None;
    }
    let index = expected
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    Forecast {
        expected,
        drain_ms,
        index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pools::fair::FairRules;
    use crate::store::pools::WindowState;
    use std::time::Duration;

    const NOW: u64 = 1_000_000;
    const RESET: u64 = NOW + 2_000;
    const LENGTH: u64 = 3_000;
    const BUFFER: u64 = 500;

    fn pool(remaining: u64) -> PoolRow {
        let mut pool = PoolRow::empty("app-42");
        pool.windows.insert(
            Resource::Rest,
            WindowState {
                limit: 45,
                remaining,
                spent: 0,
                spent_at_report: 0,
                reserve: 5,
                reset_ms: RESET,
                reset_known: true,
                opened_after_ms: RESET - LENGTH,
                length_ms: LENGTH,
                next_limit: 45,
                observed_ms: NOW,
                source: "test".into(),
            },
        );
        pool
    }

    fn job(id: &str, key: &str, priority: i64, due: u64, rest: u64) -> Candidate {
        Candidate {
            id: id.into(),
            resume_after_ms: due,
            attempt: 1,
            cost: Some(Cost::default().with(Resource::Rest, rest)),
            priority,
            key: key.into(),
            tenant: key.into(),
            resume_by_ms: NOW + 3_600_000,
        }
    }

    fn options(fair: FairRules) -> PoolOptions {
        PoolOptions {
            buffer: Duration::from_millis(BUFFER),
            jitter: Duration::ZERO,
            fair: std::sync::Arc::new(fair),
        }
    }

    fn start(f: &Forecast, id: &str) -> u64 {
        f.of(id).unwrap().start_ms.unwrap()
    }

    /// 10 jobs of 10 behind a spent window of 45 with a reserve of 5: 4 a window, in the
    /// window after the reset, the one after, and the third; the drain is the third's start.
    #[test]
    fn a_backlog_starts_window_by_window_and_drains_at_the_last_window() {
        let jobs: Vec<Candidate> = (0..10)
            .map(|i| job(&format!("j{i}"), "a", 0, NOW - 100 + i, 10))
            .collect();
        let f = forecast(&pool(0), &[], jobs, NOW, &options(FairRules::default()));
        let first = RESET + BUFFER;
        assert_eq!(start(&f, "j0"), first);
        assert_eq!(start(&f, "j3"), first);
        assert_eq!(start(&f, "j4"), first + LENGTH);
        assert_eq!(start(&f, "j9"), first + 2 * LENGTH);
        assert_eq!(f.drain_ms, Some(first + 2 * LENGTH));
        assert!(f.expected.iter().all(|e| !e.will_expire));
        let some_left = forecast(
            &pool(25),
            &[],
            vec![job("now", "a", 0, NOW, 10)],
            NOW,
            &options(FairRules::default()),
        );
        assert_eq!(
            start(&some_left, "now"),
            NOW,
            "what is left now is used now"
        );
    }

    /// Another program spent 20 of the current window beside the host's 20 (the report says 5
    /// left): the forecast assumes it does so again in each later window, 2 jobs of 10 a
    /// window instead of 4, as the ledger's own next window assumes.
    #[test]
    fn what_other_programs_spent_of_this_window_is_assumed_in_the_next() {
        let mut spent = pool(5);
        if let Some(w) = spent.windows.get_mut(&Resource::Rest) {
            w.spent = 20;
            w.spent_at_report = 20;
        }
        let jobs: Vec<Candidate> = (0..6)
            .map(|i| job(&format!("j{i}"), "a", 0, NOW - 100 + i, 10))
            .collect();
        let f = forecast(&spent, &[], jobs, NOW, &options(FairRules::default()));
        let first = RESET + BUFFER;
        assert_eq!(start(&f, "j1"), first);
        assert_eq!(start(&f, "j2"), first + LENGTH);
        assert_eq!(f.drain_ms, Some(first + 2 * LENGTH));
    }

    /// A second key's 2 jobs, due after the first key's 8, start in the first window; a
    /// priority 1 job goes first; a job due later joins the first window after it is due.
    #[test]
    fn keys_take_turns_and_priority_goes_first_as_admission_does() {
        let mut jobs: Vec<Candidate> = (0..8)
            .map(|i| job(&format!("a{i}"), "a", 0, NOW - 100 + i, 10))
            .collect();
        jobs.push(job("b0", "b", 0, NOW - 50, 10));
        jobs.push(job("b1", "b", 0, NOW - 49, 10));
        jobs.push(job("u", "u", 1, NOW, 10));
        jobs.push(job("late", "c", 0, RESET + BUFFER + 1, 10));
        let f = forecast(&pool(0), &[], jobs, NOW, &options(FairRules::default()));
        let first = RESET + BUFFER;
        assert_eq!(start(&f, "u"), first);
        assert_eq!(start(&f, "a0"), first);
        assert_eq!(start(&f, "b0"), first);
        assert_eq!(start(&f, "a1"), first);
        assert_eq!(start(&f, "b1"), first + LENGTH);
        assert_eq!(start(&f, "late"), first + LENGTH);
        assert_eq!(f.drain_ms, Some(first + 2 * LENGTH));
    }

    /// With a quarter of each window kept for urgent work, priority 0 gets 3 jobs of 10 a
    /// window (30 of 40); a deferral whose window ends before its start will expire.
    #[test]
    fn the_urgent_share_slows_the_backlog_and_a_late_start_will_expire() {
        let rules = FairRules {
            weights: Vec::new(),
            urgent: vec![("app-42".into(), 2_500)],
        };
        let mut jobs: Vec<Candidate> = (0..6)
            .map(|i| job(&format!("j{i}"), "a", 0, NOW - 100 + i, 10))
            .collect();
        jobs[5].resume_by_ms = RESET + BUFFER + 10;
        let f = forecast(&pool(0), &[], jobs, NOW, &options(rules));
        let first = RESET + BUFFER;
        assert_eq!(start(&f, "j2"), first);
        assert_eq!(start(&f, "j3"), first + LENGTH);
        assert_eq!(start(&f, "j5"), first + LENGTH);
        let late = f.of("j5").unwrap();
        assert!(late.will_expire, "{late:?}");
        assert!(!f.of("j4").unwrap().will_expire);
    }

    /// A 2-second window, 5,000 jobs each of its own key and one due 29 days away: 4 a window
    /// (the last of the 5,000 in the 1,250th), the far one when it is due (a window has
    /// opened since the backlog drained), none flagged.
    #[test]
    fn a_short_window_a_far_job_and_many_keys_forecast_as_one_key_would() {
        const SHORT: u64 = 2_000;
        let mut short = pool(0);
        if let Some(w) = short.windows.get_mut(&Resource::Rest) {
            w.length_ms = SHORT;
        }
        let mut jobs: Vec<Candidate> = (0..5_000)
            .map(|i| job(&format!("j{i}"), &format!("k{i}"), 0, NOW - 10_000 + i, 10))
            .collect();
        let far_due = NOW + 29 * 24 * 3_600_000;
        let mut far = job("far", "far", 1, far_due, 10);
        far.resume_by_ms = far_due + 3_600_000;
        jobs.push(far);
        let f = forecast(&short, &[], jobs, NOW, &options(FairRules::default()));
        let first = RESET + BUFFER;
        assert_eq!(start(&f, "j0"), first);
        assert_eq!(start(&f, "j4"), first + SHORT);
        assert_eq!(start(&f, "j4999"), first + 1_249 * SHORT);
        assert_eq!(start(&f, "far"), far_due);
        assert_eq!(f.drain_ms, Some(far_due));
        let late: Vec<&Expected> = f.expected.iter().filter(|e| e.will_expire).collect();
        assert_eq!(late.len(), 0, "{late:?}");
    }

    /// A job no whole window holds above the reserve and the urgent share never starts: no
    /// start, and `will_expire`; so does a job behind it of its key, and one whose window ends
    /// within the horizon without a start.
    #[test]
    fn what_can_never_start_will_expire() {
        let rules = FairRules {
            weights: Vec::new(),
            urgent: vec![("app-42".into(), 5_000)],
        };
        let jobs = vec![
            job("big", "a", 0, NOW - 10, 30),
            job("behind", "a", 0, NOW - 5, 10),
            job("other", "b", 0, NOW - 1, 10),
        ];
        let f = forecast(&pool(0), &[], jobs, NOW, &options(rules));
        for id in ["big", "behind"] {
            let e = f.of(id).unwrap();
            assert_eq!((e.start_ms, e.will_expire), (None, true), "{e:?}");
        }
        assert_eq!(start(&f, "other"), RESET + BUFFER);
        assert!(!f.of("other").unwrap().will_expire);
        assert_eq!(f.drain_ms, None);
    }

    /// A pool that never learned a window admits everything when it is due.
    #[test]
    fn an_unmetered_pool_starts_each_job_when_due() {
        let f = forecast(
            &PoolRow::empty("p"),
            &[],
            vec![job("x", "a", 0, NOW + 7, 10), job("y", "a", 0, NOW - 7, 10)],
            NOW,
            &options(FairRules::default()),
        );
        assert_eq!((start(&f, "x"), start(&f, "y")), (NOW + 7, NOW - 7));
        assert_eq!(f.drain_ms, Some(NOW + 7));
        let none = forecast(
            &pool(0),
            &[],
            Vec::new(),
            NOW,
            &options(FairRules::default()),
        );
        assert_eq!(none.drain_ms, None);
    }
}
