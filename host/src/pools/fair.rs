//! The order of admission within a pool: priorities, turns between fairness keys, weights, and
//! the share of each window kept for urgent work (DESIGN section 10, "Fair pools").
//!
//! * Higher priority first: a priority's candidates are all offered before a lower one's.
//! * Among one priority, the tenants take turns in due order (the tenant whose earliest job is
//!   due first goes first), and a tenant's turn goes to its keys in turn, in the same order,
//!   each key taking up to its weight (default 1) of its jobs per turn, earliest first within a
//!   key; so one key's backlog of 300 never starves another key's 3, and one tenant's 300 keys
//!   get one tenant's turns. A tenant is whose work it is, which its keys cannot choose: the
//!   repository of a `workflow-dispatch:` target, the program of an `exec:` one
//!   ([`crate::store::pools::tenant_of`]). With keys left at their default a tenant's keys are
//!   its workflows (or its one program).
//! * A job that does not fit ends its own key's turns for the pass (a key's order is never
//!   broken: nothing of that key overtakes it), not the pass: the next key's smaller job may
//!   use what is left.
//! * Priority 0 (and below) never uses the pool's urgent share: that part of each window is
//!   for priority > 0 only.
//!
//! [`super::turns::Queue`] is the one rule: `admission::decide` offers one pass ([`turns`]),
//! `forecast` one pass per window.

use super::turns::{Offer, Queue};
use super::PoolOptions;
use crate::error::{HostError, HostErrorKind};
use crate::store::pools::{Candidate, PoolRow, Resource};
use std::collections::HashMap;

/// Weights and urgent shares per pool (`tick --pool-weight`, `--pool-urgent-share`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FairRules {
    /// `(pool, key, weight)`: the key's jobs per turn (default 1).
    pub weights: Vec<(String, String, u32)>,
    /// `(pool, share in parts per 10,000)` of each window above the reserve kept for priority > 0.
    pub urgent: Vec<(String, u32)>,
}

impl FairRules {
    pub fn weight(&self, pool: &str, key: &str) -> u32 {
        self.weights
            .iter()
            .find(|(p, k, _)| p == pool && k == key)
            .map_or(1, |w| w.2.max(1))
    }

    /// The urgent share of `pool` in parts per 10,000 (0: none).
    pub fn urgent_share(&self, pool: &str) -> u32 {
        self.urgent
            .iter()
            .find(|(p, _)| p == pool)
            .map_or(0, |u| u.1)
    }
}

fn bad(text: String) -> HostError {
    HostError::new(HostErrorKind::InvalidPool, text)
}

/// Parses `POOL:KEY=N` (`--pool-weight`): N from 1 to 1000.
pub fn parse_weight(text: &str) -> Result<(String, String, u32), HostError> {
    let usage = || {
        bad(format!(
            "--pool-weight {text:?}: give POOL:KEY=N (N a whole number from 1 to 1000)"
        ))
    };
    let (pool, rest) = text.split_once(':').ok_or_else(usage)?;
    let (key, n) = rest.rsplit_once('=').ok_or_else(usage)?;
    super::check_name(pool)?;
    check_key(key)?;
    let n: u32 = n.trim().parse().map_err(|_| usage())?;
    if !(1..=1000).contains(&n) {
        return Err(usage());
    }
    Ok((pool.to_string(), key.to_string(), n))
}

/// Parses `POOL=F` (`--pool-urgent-share`): F from 0 to 1 (a fraction, as `0.2`).
pub fn parse_urgent_share(text: &str) -> Result<(String, u32), HostError> {
    let usage = || {
        bad(format!(
            "--pool-urgent-share {text:?}: give POOL=F with F a fraction from 0 to 1 (as 0.2)"
        ))
    };
    let (pool, f) = text.split_once('=').ok_or_else(usage)?;
    super::check_name(pool)?;
    let f: f64 = f.trim().parse().map_err(|_| usage())?;
    if !(0.0..=1.0).contains(&f) {
        return Err(usage());
    }
    // In parts per 10,000: a fraction of a whole number of requests is never needed finer.
    Ok((pool.to_string(), (f * 10_000.0).round() as u32))
}

/// The rules of `--pool-weight` and `--pool-urgent-share` flags.
pub fn rules(
    weights: &[String],
    shares: &[String],
) -> Result<std::sync::Arc<FairRules>, HostError> {
    Ok(std::sync::Arc::new(FairRules {
        weights: weights
            .iter()
            .map(|w| parse_weight(w))
            .collect::<Result<_, _>>()?,
        urgent: shares
            .iter()
            .map(|s| parse_urgent_share(s))
            .collect::<Result<_, _>>()?,
    }))
}

/// Checks a fairness key given by a caller (`invalid-fairness-key`, the protocol's rule).
pub fn check_key(key: &str) -> Result<(), HostError> {
    deferral_protocol::FairnessKey::parse(key)
        .map(drop)
        .map_err(super::wire::refused)
}

/// Per resource the pool meters, the part of each window kept for priority > 0: the share of
/// what a window holds above its reserve, rounded up.
pub fn urgent_room(pool: &PoolRow, options: &PoolOptions) -> Vec<(Resource, i64)> {
    let share = u64::from(options.fair.urgent_share(&pool.name));
    if share == 0 {
        return Vec::new();
    }
    Resource::ALL
        .into_iter()
        .filter_map(|r| {
            let w = pool.window(r)?;
            let whole = w.limit.max(w.next_limit).saturating_sub(w.reserve);
            let kept = whole.saturating_mul(share).div_ceil(10_000);
            Some((r, i64::try_from(kept).unwrap_or(i64::MAX)))
        })
        .collect()
}

/// Offers `candidates` in the fair order ([`super::turns`]) to `try_admit` (true: admitted;
/// false: it does not fit, and its key gets no more turns in this pass). Answers the admitted
/// and the held, each in the order they were offered (the held: offered first, then never
/// offered).
pub fn turns(
    candidates: Vec<Candidate>,
    weight: &dyn Fn(&str) -> u32,
    try_admit: &mut dyn FnMut(&Candidate) -> bool,
) -> (Vec<Candidate>, Vec<Candidate>) {
    let mut sorted = candidates;
    sorted.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then(a.resume_after_ms.cmp(&b.resume_after_ms))
            .then_with(|| a.id.cmp(&b.id))
    });
    let mut queue = Queue::default();
    for c in sorted {
        queue.push(c);
    }
    let mut refused: HashMap<String, usize> = HashMap::new();
    let admitted = queue.pass(weight, &mut |c| {
        if try_admit(c) {
            Offer::Admitted
        } else {
            refused.insert(c.id.clone(), refused.len());
            Offer::Held
        }
    });
    let (mut offered, never): (Vec<Candidate>, Vec<Candidate>) = queue
        .into_jobs()
        .into_iter()
        .partition(|c| refused.contains_key(&c.id));
    offered.sort_by_key(|c| refused.get(&c.id).copied());
    offered.extend(never);
    (admitted, offered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, key: &str, priority: i64, due: u64) -> Candidate {
        Candidate {
            id: id.into(),
            resume_after_ms: due,
            attempt: 1,
            cost: None,
            priority,
            key: key.into(),
            tenant: key.into(),
            resume_by_ms: u64::MAX,
        }
    }

    fn ids(list: &[Candidate]) -> Vec<&str> {
        list.iter().map(|c| c.id.as_str()).collect()
    }

    #[test]
    fn keys_take_turns_by_weight_priority_first_and_a_blocked_key_keeps_its_order() {
        let jobs = vec![
            job("a1", "a", 0, 1),
            job("a2", "a", 0, 2),
            job("a3", "a", 0, 3),
            job("b1", "b", 0, 10),
            job("b2", "b", 0, 11),
            job("u1", "u", 1, 50),
        ];
        let mut order = Vec::new();
        let (admitted, held) = turns(jobs.clone(), &|_| 1, &mut |c| {
            order.push(c.id.clone());
            true
        });
        assert_eq!(order, ["u1", "a1", "b1", "a2", "b2", "a3"]);
        assert_eq!((admitted.len(), held.len()), (6, 0));
        let weights = |k: &str| if k == "a" { 2 } else { 1 };
        let (admitted, _) = turns(jobs.clone(), &weights, &mut |_| true);
        assert_eq!(ids(&admitted), ["u1", "a1", "a2", "b1", "a3", "b2"]);
        // a2 does not fit: a3 never overtakes it; b's jobs still go.
        let (admitted, held) = turns(jobs, &|_| 1, &mut |c| c.id != "a2");
        assert_eq!(ids(&admitted), ["u1", "a1", "b1", "b2"]);
        assert_eq!(ids(&held), ["a2", "a3"]);
    }

    /// One tenant's 6 keys and another tenant's one: the tenants take turns, the first
    /// tenant's turns going to its keys in turn; 4 fit: 2 of each.
    #[test]
    fn tenants_take_turns_and_a_tenants_keys_share_its_turns() {
        let mut jobs: Vec<Candidate> = (0..6)
            .map(|i| {
                let mut c = job(&format!("a{i}"), &format!("k{i}"), 0, i);
                c.tenant = "x".into();
                c
            })
            .collect();
        for i in 0..2 {
            let mut c = job(&format!("b{i}"), "b", 0, 10 + i);
            c.tenant = "y".into();
            jobs.push(c);
        }
        let (admitted, _) = turns(jobs.clone(), &|_| 1, &mut |_| true);
        assert_eq!(
            ids(&admitted),
            ["a0", "b0", "a1", "b1", "a2", "a3", "a4", "a5"]
        );
        let mut n = 0;
        let (admitted, held) = turns(jobs, &|_| 1, &mut |_| {
            n += 1;
            n <= 4
        });
        assert_eq!(ids(&admitted), ["a0", "b0", "a1", "b1"]);
        assert_eq!(held.len(), 4);
    }

    #[test]
    fn weights_and_shares_parse_with_clear_refusals() {
        assert_eq!(
            parse_weight("app-42:acme/site/sync.yml=3").unwrap(),
            ("app-42".into(), "acme/site/sync.yml".into(), 3)
        );
        assert_eq!(
            parse_weight("app-42:exec:/bin/x=2").unwrap().1,
            "exec:/bin/x"
        );
        for (bad, code) in [
            ("app-42", "invalid-pool"),
            ("app-42:k=0", "invalid-pool"),
            ("app-42:k=x", "invalid-pool"),
            ("a b:k=1", "invalid-pool"),
            ("app-42:=1", "invalid-fairness-key"),
        ] {
            let err = parse_weight(bad).unwrap_err();
            assert_eq!(err.code, code, "{bad}");
        }
        assert_eq!(parse_urgent_share("app-42=0.2").unwrap().1, 2_000);
        for bad in ["app-42", "app-42=1.5", "app-42=-0.1", "app-42=x"] {
            assert!(parse_urgent_share(bad).is_err(), "{bad}");
        }
    }
}
