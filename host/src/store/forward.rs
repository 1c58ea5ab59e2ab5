//! A store that hands every call to another one: the one place that lists the store traits'
//! methods for a wrapper, so that adding a method to a store trait touches the trait, the SQL
//! layer and this file, never the wrappers (serve's pooled session, the error-counting store).
//!
//! A wrapper implements [`Forward`] (which store to call, what to do with each failure, and,
//! if it must, its own `insert`) and is used as `Forwarded(wrapper)`, a `&dyn Store`.

use super::github::{ArtifactRef, CheckRunRef, CommitRef, Link, LoopStore, RunRecord};
use super::pools::{
    Admission, Candidate, Cost, Observation, PoolRow, PoolStore, PoolWrite, PoolWritten,
};
use super::retention::{Horizon, Removed, RetentionStore};
use super::retry::{RetryLink, RetryStore};
use super::{
    ClaimBuilder, Deferral, EventRecord, LaunchProcess, ListQuery, NewDeferral, NextDue, PageOrder,
    Store, StoreError, StoredReceipt, Update,
};
use deferral_core::lifecycle::State;

/// What a wrapper of a store decides; everything else is passed on as it is.
pub trait Forward {
    /// The store every call goes to.
    fn inner(&self) -> &dyn Store;

    /// Sees each failed call's error, before it is returned (by default, nothing).
    fn seen(&self, _err: &StoreError) {}

    /// [`Store::insert`]; by default the inner store's.
    fn forward_insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        self.inner().insert(new)
    }
}

/// `W`'s store, every call forwarded (see [`Forward`]).
pub struct Forwarded<W>(pub W);

impl<W: Forward> Forwarded<W> {
    fn seen<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(err) = &result {
            self.0.seen(err);
        }
        result
    }
}

/// Methods that pass their arguments on to the inner store and show a failure to `seen`.
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(fn $name(&self, $($arg: $ty),*) -> Result<$out, StoreError> {
            let result = self.0.inner().$name($($arg),*);
            self.seen(result)
        })*
    };
}

impl<W: Forward> Store for Forwarded<W> {
    fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        let result = self.0.forward_insert(new);
        self.seen(result)
    }

    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        let results = self.0.inner().insert_batch(news);
        for err in results.iter().filter_map(|r| r.as_ref().err()) {
            self.0.seen(err);
        }
        results
    }

    forward! {
        update(id: &str, update: &Update) -> Deferral;
        get(id: &str) -> Option<Deferral>;
        list(query: &ListQuery) -> Vec<Deferral>;
        receipts(id: &str) -> Vec<StoredReceipt>;
        current_receipt(id: &str) -> StoredReceipt;
        events(id: &str) -> Vec<EventRecord>;
        due(now_ms: u64, limit: usize) -> Vec<Deferral>;
        claim_next_due(next: &NextDue, claim: &mut ClaimBuilder) -> Option<Deferral>;
        next_wakeup(now_ms: u64) -> Option<Deferral>;
        next_deadline(now_ms: u64) -> Option<u64>;
        expirable(now_ms: u64, limit: usize) -> Vec<Deferral>;
        stale_leases(now_ms: u64, limit: usize) -> Vec<Deferral>;
        record_launch_process(id: &str, process: &LaunchProcess) -> ();
        launch_process(id: &str) -> Option<LaunchProcess>;
        first_in_state(state: State, order: PageOrder, limit: usize) -> Vec<Deferral>;
        count_by_state() -> Vec<(State, u64)>;
        count_by_state_cause() -> Vec<(State, String, u64)>;
        check_integrity() -> ();
    }
}

impl<W: Forward> LoopStore for Forwarded<W> {
    forward! {
        find_by_receipt_digest(digest: &str) -> Option<String>;
        find_by_artifact(artifact_id: u64) -> Option<String>;
        add_artifact(deferral_id: &str, artifact: &ArtifactRef) -> bool;
        put_run(run: &RunRecord) -> ();
        run_of(deferral_id: &str, attempt: u32) -> Option<RunRecord>;
        is_own_run(repo: &str, run_id: u64) -> bool;
        dispatched(limit: usize) -> Vec<(Deferral, Option<RunRecord>)>;
        link(deferral_id: &str) -> Link;
        artifact_name(deferral_id: &str) -> Option<String>;
        cached(key: &str) -> Option<(String, String)>;
        put_cached(key: &str, etag: &str, body: &str, at_ms: u64) -> ();
        note_delivery(key: &str, event: &str, at_ms: u64) -> bool;
        delivery_noted(key: &str) -> bool;
        put_commit(commit: &CommitRef) -> bool;
        commit_of(deferral_id: &str) -> Option<CommitRef>;
        put_check_run(run: &CheckRunRef) -> ();
        latest_check_run(deferral_id: &str) -> Option<CheckRunRef>;
        check_run(repo: &str, check_run_id: u64) -> Option<CheckRunRef>;
    }
}

impl<W: Forward> RetryStore for Forwarded<W> {
    forward! {
        retry_link(deferral_id: &str) -> RetryLink;
    }
}

impl<W: Forward> RetentionStore for Forwarded<W> {
    forward! {
        count_prunable(horizon: &Horizon) -> Removed;
        prune_ended(horizon: &Horizon, limit: usize) -> Removed;
        prune_bookkeeping(horizon: &Horizon, limit: usize) -> Removed;
    }
}

impl<W: Forward> PoolStore for Forwarded<W> {
    forward! {
        pool(name: &str) -> Option<PoolRow>;
        pools(now_ms: u64, since_ms: u64) -> Vec<PoolRow>;
        pools_at_work(now_ms: u64) -> Vec<String>;
        write_pool(write: &PoolWrite) -> Option<PoolWritten>;
        admission(seq: u64) -> Option<Admission>;
        open_admissions(pool: &str, now_ms: u64) -> Vec<Admission>;
        admission_of(deferral_id: &str, attempt: u32, now_ms: u64) -> Option<Admission>;
        pool_candidates(pool: &str, now_ms: u64, skip_kinds: &[&str], limit: usize) -> Vec<Candidate>;
        pool_backlog(pool: &str, now_ms: u64, limit: usize) -> Vec<Candidate>;
        pool_of(deferral_id: &str) -> Option<(String, Option<Cost>)>;
        set_cost(deferral_id: &str, cost: &Cost) -> ();
        observations_of(deferral_id: &str) -> Vec<Observation>;
    }
}
