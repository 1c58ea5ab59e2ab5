//! What a launcher kind is given: the tick's pass ([`LaunchPass`]) and one claimed attempt
//! ([`Attempt`]).

use super::launched::{LaunchEnd, Launched};
use crate::github::client::GithubClient;
use crate::lifecycle;
use crate::lifecycle::claim::Claimed;
use crate::lifecycle::outcome::Outcome;
use crate::store::Store;

/// One tick's pass, as the launcher kinds see it.
pub struct LaunchPass<'a> {
    pub store: &'a dyn Store,
    /// The GitHub client (`None`: no credentials given).
    pub github: Option<&'a GithubClient>,
    /// Only these deferrals (all when empty).
    pub ids: &'a [String],
    /// At most this many of each kind of work per pass.
    pub limit: usize,
    pub lease_ms: u64,
    /// Successors a chain may have before progress blocks (`chain-limit`).
    pub max_chain: u32,
    pub now_ms: &'a dyn Fn() -> u64,
}

/// One claimed launch: the claim, who holds its lease, and the pass it is part of.
pub struct Attempt<'a> {
    pub pass: &'a LaunchPass<'a>,
    pub claimed: &'a Claimed,
    /// The lease owner the claim wrote.
    pub owner: &'a str,
}

impl Attempt<'_> {
    pub fn store(&self) -> &dyn Store {
        self.pass.store
    }

    pub fn id(&self) -> &str {
        &self.claimed.deferral.id
    }

    /// The attempt's number (the re-entries counted with the claim).
    pub fn attempt(&self) -> u32 {
        self.claimed.deferral.reentries
    }

    pub fn now_ms(&self) -> u64 {
        (self.pass.now_ms)()
    }

    /// Records how the launch ended (through the chain rule).
    pub fn record_outcome(&self, outcome: Outcome) -> Launched {
        let (id, attempt) = (self.id(), self.attempt());
        match lifecycle::outcome::end_attempt_chained(
            self.store(),
            &self.claimed.deferral,
            outcome,
            self.pass.max_chain,
            self.now_ms(),
        ) {
            Ok(after) => Launched::new(id, attempt, LaunchEnd::Finished(after)),
            Err(err) => Launched::failed(id, Some(attempt), err),
        }
    }
}
