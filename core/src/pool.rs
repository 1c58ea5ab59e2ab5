//! A pool as a gate sees it: one quota boundary shared with other runners (a GitHub App
//! installation, one user's token), named by the caller and kept by the durable host. Before a
//! gate with a pool proceeds it asks the host to admit its plan's cost there, with the rate
//! state it just read; a refusal comes with the pool's window, which the gate folds into its
//! own rate state before it runs the same decision again.
//!
//! This file holds the cost and rate a gate sends, made from its decision
//! (the types and their JSON are `deferral_protocol`'s, shared with the host that reads them;
//! times in host milliseconds as the decision uses them), and the fold.

use crate::decision::{Decision, Resource as Checked, ResourceFigures};
use crate::ledger::ResourceEntry;
use crate::plan::PlanCost;
use crate::signals::RateSnapshot;
use deferral_protocol::{
    AdmissionRequest, Cost, PerResource, RateState, Resource, Window, Windows,
};

/// Resets of one resource this close together (host milliseconds) are one window. A gate's
/// reset in host time is GitHub's reset less the clock offset it measured from the `date`
/// header, which has whole seconds only: two runners reading the same window disagree by up to
/// a second or so. GitHub's windows of one resource are an hour apart.
pub const SAME_WINDOW_SLACK_MS: u64 = 60_000;

/// The cost of a decision's plan (nothing without a plan).
pub fn cost_of(plan: Option<&PlanCost>) -> Cost {
    plan.map_or_else(Cost::default, |p| Cost {
        resources: PerResource::from_fn(|r| p.of(r)),
        content: p.content_creating,
    })
}

/// A decision's figures as a window, the reset moved to host time by the offset the decision
/// used.
pub fn window_of(f: &ResourceFigures, clock_offset_ms: i64) -> Window {
    let reset_ms = i128::from(f.reset) * 1000 - i128::from(clock_offset_ms);
    Window {
        limit: f.limit,
        remaining: f.remaining,
        reserve: f.reserve,
        reset_ms: u64::try_from(reset_ms.max(0)).unwrap_or(u64::MAX),
    }
}

/// A pool's window as a ledger entry: the reset back on the server's clock, in whole seconds
/// (rounded up, so the window is never taken to end before the pool says).
fn entry(w: &Window, clock_offset_ms: i64, observed_at_ms: u64) -> ResourceEntry {
    let server_ms = (i128::from(w.reset_ms) + i128::from(clock_offset_ms)).max(0);
    ResourceEntry {
        limit: w.limit,
        remaining: w.remaining,
        used: w.limit.saturating_sub(w.remaining),
        reset: u64::try_from((server_ms + 999) / 1000).unwrap_or(u64::MAX),
        observed_at_ms,
    }
}

/// The windows a decision judged by.
pub fn windows_of(d: &Decision) -> Windows {
    Windows::of(Checked::checked(d).filter_map(|(row, f)| {
        Resource::of_bucket(row.name).map(|r| (r, Some(window_of(f, d.clock_offset_ms))))
    }))
}

/// The rate state a gate sends: when it read `GET /rate_limit` (host clock) and the windows its
/// decision judged by.
pub fn rate_of(d: &Decision, observed_ms: u64) -> RateState {
    RateState {
        observed_ms,
        windows: windows_of(d),
    }
}

/// The admission request a gate sends for its decision's plan.
pub fn admission_request(pool: &str, d: &Decision, observed_ms: u64) -> AdmissionRequest {
    AdmissionRequest {
        pool: pool.to_string(),
        cost: cost_of(d.plan.as_ref()),
        rate: rate_of(d, observed_ms),
    }
}

/// Folds a pool's windows into `rate` as one more observation, by the ledger's rule: within one
/// window the lowest `remaining` wins, a later reset replaces an earlier one. Resets within
/// [`SAME_WINDOW_SLACK_MS`] of the gate's own are its window, ending at the later of the two.
pub fn fold(rate: &mut RateSnapshot, pool: &Windows, clock_offset_ms: i64, now_ms: u64) {
    for (resource, window) in pool.iter() {
        let name = resource.bucket();
        let theirs = entry(&window, clock_offset_ms, now_ms);
        let merged = match rate.resources.get(name) {
            None => theirs,
            Some(own) => {
                let own = ResourceEntry::from_window(own, now_ms);
                let apart = own.reset.abs_diff(theirs.reset).saturating_mul(1000);
                if apart <= SAME_WINDOW_SLACK_MS {
                    let reset = own.reset.max(theirs.reset);
                    let at = |e: ResourceEntry| ResourceEntry { reset, ..e };
                    at(own).merge(&at(theirs))
                } else {
                    own.merge(&theirs)
                }
            }
        };
        rate.resources.insert(name.to_string(), merged.window());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{RateWindow, REST_RESOURCE};

    fn snapshot(remaining: u64, reset: u64) -> RateSnapshot {
        let mut rate = RateSnapshot::default();
        rate.resources.insert(
            REST_RESOURCE.into(),
            RateWindow {
                limit: 5000,
                remaining,
                used: None,
                reset,
            },
        );
        rate
    }

    fn pool(remaining: u64, reset_ms: u64) -> Windows {
        Windows::default().with(
            Resource::Rest,
            deferral_protocol::Window {
                limit: 5000,
                remaining,
                reserve: 500,
                reset_ms,
            },
        )
    }

    #[test]
    fn within_one_window_the_lowest_remaining_wins() {
        let mut rate = snapshot(4000, 1_800_003_600);
        fold(&mut rate, &pool(600, 1_800_003_600_000), 0, 1);
        assert_eq!(rate.resources[REST_RESOURCE].remaining, 600);
        // A pool with more left changes nothing.
        fold(&mut rate, &pool(4900, 1_800_003_600_000), 0, 1);
        assert_eq!(rate.resources[REST_RESOURCE].remaining, 600);
    }

    #[test]
    fn a_later_window_replaces_an_earlier_one_and_never_the_reverse() {
        let mut rate = snapshot(4000, 1_800_003_600);
        fold(&mut rate, &pool(10, 1_800_007_200_000), 0, 1);
        assert_eq!(rate.resources[REST_RESOURCE].reset, 1_800_007_200);
        assert_eq!(rate.resources[REST_RESOURCE].remaining, 10);
        let mut rate = snapshot(4000, 1_800_003_600);
        fold(&mut rate, &pool(10, 1_800_000_000_000), 0, 1);
        assert_eq!(rate.resources[REST_RESOURCE].remaining, 4000);
    }

    #[test]
    fn resets_a_second_apart_are_one_window_ending_at_the_later() {
        // Another runner measured the clock offset 700 ms differently.
        let mut rate = snapshot(4000, 1_800_003_600);
        fold(&mut rate, &pool(300, 1_800_003_599_300), 0, 1);
        let w = rate.resources[REST_RESOURCE];
        assert_eq!((w.remaining, w.reset), (300, 1_800_003_600));
        let mut rate = snapshot(4000, 1_800_003_600);
        fold(&mut rate, &pool(300, 1_800_003_601_000), 0, 1);
        let w = rate.resources[REST_RESOURCE];
        assert_eq!((w.remaining, w.reset), (300, 1_800_003_601));
    }

    #[test]
    fn host_time_goes_back_to_the_server_clock() {
        let f = ResourceFigures {
            resource: REST_RESOURCE.into(),
            limit: 45,
            remaining: 3,
            reserve: 5,
            planned_cost: 10,
            reset: 1_800_003_600,
            ok: false,
        };
        // The server is 2.5 s ahead: its reset is 2.5 s earlier on the host's clock.
        let w = window_of(&f, 2_500);
        assert_eq!(w.reset_ms, 1_800_003_597_500);
        assert_eq!(entry(&w, 2_500, 0).reset, 1_800_003_600);
        assert_eq!(
            serde_json::to_string(&w).unwrap(),
            r#"{"limit":45,"remaining":3,"reserve":5,"reset_ms":1800003597500}"#
        );
    }
}
