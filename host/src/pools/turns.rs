//! The fair order of [`super::fair`] as a queue kept across passes: priorities, then tenants
//! taking turns, a tenant's turn going to its fairness keys in turn.
//!
//! One pass ([`Queue::pass`]) offers the queued jobs in the fair order; what is not admitted
//! stays queued for the next pass, so the forecast plays window after window without sorting
//! or searching its backlog again. Every lookup is a map's: a pass costs the offers it makes
//! (plus a logarithm), never the number of keys or tenants it does not reach, and an offer
//! answered [`Offer::Exhausted`] ends the pass at once.
//!
//! The order within one priority, as `turns` always had it for keys:
//! * tenants take turns, the tenant whose earliest job is due first going first (earliest by
//!   due time, then id, as the pass begins);
//! * a tenant's turn goes to its next key, its keys in the same order; a key's turn offers up
//!   to its weight of its jobs, earliest first;
//! * a job that does not fit ends its own key's turns for the pass: nothing of that key
//!   overtakes it; the tenant's next turn goes to its next key.
//!
//! With one key per tenant (keys left at their default) this is the order of keys taking turns.

use crate::store::pools::Candidate;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Bound::{Excluded, Unbounded};

/// What offering one job did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    Admitted,
    /// It does not fit: its key gets no more turns in this pass.
    Held,
    /// It does not fit, and nothing offered after it in this pass could: the pass ends.
    Exhausted,
}

/// A job's place in an order: due time, then id.
type Head = (u64, String);

/// One fairness key's queued jobs, earliest first.
#[derive(Debug, Default)]
struct Lane {
    key: String,
    jobs: VecDeque<Candidate>,
    /// Its first job as `Tenant::order` holds it.
    indexed: Option<Head>,
}

/// One tenant's keys, and where its turns are in the current pass.
#[derive(Debug, Default)]
struct Tenant {
    lanes: Vec<Lane>,
    by_key: HashMap<String, usize>,
    /// Its non-empty lanes by their first job.
    order: BTreeSet<(Head, usize)>,
    /// Its first job as `Level::order` holds it.
    indexed: Option<Head>,
    /// The pass the fields below are of.
    pass: u64,
    /// The first round walks `order` from here; then `round` and `again` take over.
    cursor: Option<(Head, usize)>,
    walked: bool,
    round: Vec<usize>,
    at: usize,
    /// Lanes that took their whole turn and have jobs left: the next round.
    again: Vec<usize>,
}

/// The tenants of one priority.
#[derive(Debug, Default)]
struct Level {
    tenants: Vec<Tenant>,
    by_name: HashMap<String, usize>,
    /// Its non-empty tenants by their first job.
    order: BTreeSet<(Head, usize)>,
}

/// What a tenant's turn did.
enum Turn {
    /// It may take another turn in this pass.
    More,
    Done,
    Exhausted,
}

/// Queued jobs in the fair order.
#[derive(Debug, Default)]
pub struct Queue {
    levels: BTreeMap<Reverse<i64>, Level>,
    /// Lanes whose first job changed since the orders were brought up to date.
    moved: Vec<(i64, usize, usize)>,
    passes: u64,
    len: usize,
}

fn head(jobs: &VecDeque<Candidate>) -> Option<Head> {
    jobs.front().map(|c| (c.resume_after_ms, c.id.clone()))
}

impl Queue {
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queues `job` after every job of its key queued before: push each key's jobs earliest
    /// first.
    pub fn push(&mut self, job: Candidate) {
        let priority = job.priority;
        let level = self.levels.entry(Reverse(priority)).or_default();
        let t = *level.by_name.entry(job.tenant.clone()).or_insert_with(|| {
            level.tenants.push(Tenant::default());
            level.tenants.len() - 1
        });
        let tenant = &mut level.tenants[t];
        let l = *tenant.by_key.entry(job.key.clone()).or_insert_with(|| {
            tenant.lanes.push(Lane {
                key: job.key.clone(),
                ..Lane::default()
            });
            tenant.lanes.len() - 1
        });
        tenant.lanes[l].jobs.push_back(job);
        self.moved.push((priority, t, l));
        self.len += 1;
    }

    /// Brings the orders up to date with the lanes' first jobs.
    fn reorder(&mut self) {
        let Queue { levels, moved, .. } = self;
        for (priority, t, l) in moved.drain(..) {
            let Some(level) = levels.get_mut(&Reverse(priority)) else {
                continue;
            };
            let tenant = &mut level.tenants[t];
            let lane = &mut tenant.lanes[l];
            let first = head(&lane.jobs);
            if lane.indexed != first {
                if let Some(old) = lane.indexed.take() {
                    tenant.order.remove(&(old, l));
                }
                if let Some(h) = &first {
                    tenant.order.insert((h.clone(), l));
                }
                lane.indexed = first;
            }
            let first = tenant.order.first().map(|(h, _)| h.clone());
            if tenant.indexed != first {
                if let Some(old) = tenant.indexed.take() {
                    level.order.remove(&(old, t));
                }
                if let Some(h) = &first {
                    level.order.insert((h.clone(), t));
                }
                tenant.indexed = first;
            }
        }
    }

    /// One pass: offers the queued jobs in the fair order (see the module) until every key is
    /// held or empty, or an offer is [`Offer::Exhausted`]. Answers the admitted, in the order
    /// offered; the rest stay queued.
    pub fn pass(
        &mut self,
        weight: &dyn Fn(&str) -> u32,
        offer: &mut dyn FnMut(&Candidate) -> Offer,
    ) -> Vec<Candidate> {
        self.reorder();
        self.passes += 1;
        let pass = self.passes;
        let mut admitted = Vec::new();
        let Queue { levels, moved, .. } = self;
        'levels: for (Reverse(priority), level) in levels.iter_mut() {
            let Level { tenants, order, .. } = level;
            let mut walk = order.iter().map(|(_, t)| *t);
            let mut walked = false;
            let mut round: Vec<usize> = Vec::new();
            let mut at = 0;
            let mut again: Vec<usize> = Vec::new();
            loop {
                let t = if !walked {
                    match walk.next() {
                        Some(t) => t,
                        None => {
                            walked = true;
                            continue;
                        }
                    }
                } else if at < round.len() {
                    at += 1;
                    round[at - 1]
                } else if again.is_empty() {
                    break;
                } else {
                    round = std::mem::take(&mut again);
                    at = 0;
                    continue;
                };
                let place = (*priority, t);
                match tenant_turn(
                    &mut tenants[t],
                    pass,
                    place,
                    weight,
                    offer,
                    &mut admitted,
                    moved,
                ) {
                    Turn::More => again.push(t),
                    Turn::Done => {}
                    Turn::Exhausted => break 'levels,
                }
            }
        }
        self.len -= admitted.len();
        admitted
    }

    /// Every queued job: by priority, tenant and key in the fair order, earliest first.
    pub fn into_jobs(mut self) -> Vec<Candidate> {
        self.reorder();
        let mut jobs = Vec::with_capacity(self.len);
        for level in self.levels.values_mut() {
            for (_, t) in &level.order {
                let tenant = &mut level.tenants[*t];
                for (_, l) in &tenant.order {
                    jobs.extend(std::mem::take(&mut tenant.lanes[*l].jobs));
                }
            }
        }
        jobs
    }
}

/// One turn of `tenant` (at `place`: its priority and index) in pass `pass`: its next key's.
fn tenant_turn(
    tenant: &mut Tenant,
    pass: u64,
    place: (i64, usize),
    weight: &dyn Fn(&str) -> u32,
    offer: &mut dyn FnMut(&Candidate) -> Offer,
    admitted: &mut Vec<Candidate>,
    moved: &mut Vec<(i64, usize, usize)>,
) -> Turn {
    if tenant.pass != pass {
        tenant.pass = pass;
        tenant.cursor = None;
        tenant.walked = false;
        tenant.round.clear();
        tenant.at = 0;
        tenant.again.clear();
    }
    let l = loop {
        if !tenant.walked {
            let next = match &tenant.cursor {
                None => tenant.order.iter().next(),
                Some(c) => tenant.order.range((Excluded(c), Unbounded)).next(),
            };
            match next {
                Some(entry) => {
                    let l = entry.1;
                    tenant.cursor = Some(entry.clone());
                    break l;
                }
                None => tenant.walked = true,
            }
        } else if tenant.at < tenant.round.len() {
            tenant.at += 1;
            break tenant.round[tenant.at - 1];
        } else if tenant.again.is_empty() {
            return Turn::Done;
        } else {
            tenant.round = std::mem::take(&mut tenant.again);
            tenant.at = 0;
        }
    };
    let lane = &mut tenant.lanes[l];
    let mut whole = true;
    for _ in 0..weight(&lane.key).max(1) {
        let Some(job) = lane.jobs.pop_front() else {
            break;
        };
        match offer(&job) {
            Offer::Admitted => {
                moved.push((place.0, place.1, l));
                admitted.push(job);
            }
            Offer::Held => {
                lane.jobs.push_front(job);
                whole = false;
                break;
            }
            Offer::Exhausted => {
                lane.jobs.push_front(job);
                return Turn::Exhausted;
            }
        }
    }
    if whole && !lane.jobs.is_empty() {
        tenant.again.push(l);
    }
    if !tenant.walked || tenant.at < tenant.round.len() || !tenant.again.is_empty() {
        Turn::More
    } else {
        Turn::Done
    }
}
