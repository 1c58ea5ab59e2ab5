//! A store that counts its errors: every call goes to the store it wraps, and each one that
//! fails with a store failure (not a conflict, an unknown id or a duplicate, which are answers
//! the callers expect) adds one to `deferral_host_store_errors_total{code}` (serve), or to the
//! tick's `deferral_host_tick_store_errors{code}`. What failed is in the log.

use crate::store::{
    ArtifactRef, ClaimBuilder, Deferral, EventRecord, LaunchProcess, Link, ListQuery, LoopStore,
    NewDeferral, NextDue, PageOrder, RunRecord, Store, StoreError, StoredReceipt, Update,
};
use deferral_core::lifecycle::State;
use prometheus::IntCounterVec;

/// `inner`, with every store failure counted in `errors` by code.
pub struct CountingStore<'a> {
    inner: &'a dyn Store,
    errors: &'a IntCounterVec,
}

impl<'a> CountingStore<'a> {
    /// `errors` has one label, `code` (the store error's code).
    pub fn new(inner: &'a dyn Store, errors: &'a IntCounterVec) -> CountingStore<'a> {
        CountingStore { inner, errors }
    }

    fn seen<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(err) = &result {
            count(self.errors, err);
        }
        result
    }
}

/// Counts `err` under its code when it is a failure of the store.
pub fn count(errors: &IntCounterVec, err: &StoreError) {
    if !matches!(
        err,
        StoreError::Conflict { .. } | StoreError::NotFound(_) | StoreError::Duplicate(_)
    ) {
        errors.with_label_values(&[err.code()]).inc();
    }
}

/// Methods that pass their arguments on and count a failed result.
macro_rules! counted {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(fn $name(&self, $($arg: $ty),*) -> Result<$out, StoreError> {
            let result = self.inner.$name($($arg),*);
            self.seen(result)
        })*
    };
}

impl Store for CountingStore<'_> {
    counted! {
        insert(new: &NewDeferral) -> Deferral;
        update(id: &str, update: &Update) -> Deferral;
        get(id: &str) -> Option<Deferral>;
        list(query: &ListQuery) -> Vec<Deferral>;
        receipts(id: &str) -> Vec<StoredReceipt>;
        current_receipt(id: &str) -> StoredReceipt;
        events(id: &str) -> Vec<EventRecord>;
        due(now_ms: u64, limit: usize) -> Vec<Deferral>;
        claim_next_due(next: &NextDue, claim: &mut ClaimBuilder) -> Option<Deferral>;
        next_wakeup(now_ms: u64) -> Option<Deferral>;
        expirable(now_ms: u64, limit: usize) -> Vec<Deferral>;
        stale_leases(now_ms: u64, limit: usize) -> Vec<Deferral>;
        record_launch_process(id: &str, process: &LaunchProcess) -> ();
        launch_process(id: &str) -> Option<LaunchProcess>;
        first_in_state(state: State, order: PageOrder, limit: usize) -> Vec<Deferral>;
        count_by_state() -> Vec<(State, u64)>;
        count_by_state_cause() -> Vec<(State, String, u64)>;
        check_integrity() -> ();
    }

    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        let results = self.inner.insert_batch(news);
        for err in results.iter().filter_map(|r| r.as_ref().err()) {
            count(self.errors, err);
        }
        results
    }
}

impl crate::store::retry::RetryStore for CountingStore<'_> {
    counted! {
        retry_link(deferral_id: &str) -> crate::store::retry::RetryLink;
    }
}

impl crate::store::PoolStore for CountingStore<'_> {
    counted! {
        pool(name: &str) -> Option<crate::store::pools::PoolRow>;
        pools() -> Vec<crate::store::pools::PoolRow>;
        write_pool(write: &crate::store::pools::PoolWrite) -> Option<crate::store::pools::PoolWritten>;
        admission(seq: u64) -> Option<crate::store::pools::Admission>;
        open_admissions(pool: &str, now_ms: u64) -> Vec<crate::store::pools::Admission>;
        admission_of(deferral_id: &str, attempt: u32, now_ms: u64) -> Option<crate::store::pools::Admission>;
        pool_candidates(pool: &str, now_ms: u64, skip_kinds: &[&str], limit: usize) -> Vec<crate::store::pools::Candidate>;
        pool_of(deferral_id: &str) -> Option<(String, Option<crate::store::pools::Cost>)>;
        set_cost(deferral_id: &str, cost: &crate::store::pools::Cost) -> ();
        observations_of(deferral_id: &str) -> Vec<crate::store::pools::Observation>;
    }
}

impl LoopStore for CountingStore<'_> {
    counted! {
        find_by_receipt_digest(digest: &str) -> Option<String>;
        find_by_artifact(artifact_id: u64) -> Option<String>;
        add_artifact(deferral_id: &str, artifact: &ArtifactRef) -> bool;
        put_run(run: &RunRecord) -> ();
        run_of(deferral_id: &str, attempt: u32) -> Option<RunRecord>;
        is_own_run(run_id: u64) -> bool;
        dispatched(limit: usize) -> Vec<(Deferral, Option<RunRecord>)>;
        link(deferral_id: &str) -> Link;
        artifact_name(deferral_id: &str) -> Option<String>;
        cached(key: &str) -> Option<(String, String)>;
        put_cached(key: &str, etag: &str, body: &str, at_ms: u64) -> ();
    }
}
