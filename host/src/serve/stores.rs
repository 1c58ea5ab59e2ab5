//! Store connections for `serve`'s request handlers, which run on blocking threads off the
//! async runtime (rusqlite and postgres are synchronous). A handler borrows a pooled
//! connection for its reads and compare-and-set updates; its inserts (`record`) go to the
//! group-commit writer instead, so concurrent records share one transaction.

use super::group_commit::GroupCommit;
use crate::store::{
    ClaimBuilder, Deferral, EventRecord, IntegrityCheck, LaunchProcess, ListQuery, NewDeferral,
    NextDue, PageOrder, Store, StoreError, StoreUrl, StoredReceipt, Update,
};
use deferral_core::lifecycle::State;
use std::sync::Mutex;

/// Open connections not in use, and the writer every handler shares.
pub struct Stores {
    url: StoreUrl,
    idle: Mutex<Vec<Box<dyn Store + Send>>>,
    writer: GroupCommit,
}

impl Stores {
    /// Starts the group-commit writer on a connection of its own.
    pub fn new(url: StoreUrl) -> Result<Stores, StoreError> {
        let writer = GroupCommit::start(url.open(IntegrityCheck::Off)?);
        Ok(Stores {
            url,
            idle: Mutex::new(Vec::new()),
            writer,
        })
    }

    /// Runs `work` with a store whose inserts are group-committed. Blocks: call it from a
    /// blocking thread. A connection is opened when none is free (the caller bounds how many
    /// handlers run at once) and kept for the next handler.
    pub fn with<T>(&self, work: impl FnOnce(&dyn Store) -> T) -> Result<T, StoreError> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let conn = match pooled {
            Some(conn) => conn,
            // The store was opened, migrated and checked at start.
            None => self.url.open(IntegrityCheck::Off)?,
        };
        let session = Session {
            conn: &*conn,
            writer: &self.writer,
        };
        let value = work(&session);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
        Ok(value)
    }

    /// Lets the writer commit what is queued and stops it.
    pub fn stop(&self) {
        self.writer.stop();
    }
}

/// A pooled connection whose `insert` is the group commit's.
struct Session<'a> {
    conn: &'a dyn Store,
    writer: &'a GroupCommit,
}

impl Store for Session<'_> {
    fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        self.writer.insert(new)
    }

    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        self.conn.insert_batch(news)
    }

    fn update(&self, id: &str, update: &Update) -> Result<Deferral, StoreError> {
        self.conn.update(id, update)
    }

    fn get(&self, id: &str) -> Result<Option<Deferral>, StoreError> {
        self.conn.get(id)
    }

    fn list(&self, query: &ListQuery) -> Result<Vec<Deferral>, StoreError> {
        self.conn.list(query)
    }

    fn receipts(&self, id: &str) -> Result<Vec<StoredReceipt>, StoreError> {
        self.conn.receipts(id)
    }

    fn current_receipt(&self, id: &str) -> Result<StoredReceipt, StoreError> {
        self.conn.current_receipt(id)
    }

    fn events(&self, id: &str) -> Result<Vec<EventRecord>, StoreError> {
        self.conn.events(id)
    }

    fn due(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        self.conn.due(now_ms, limit)
    }

    fn expirable(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        self.conn.expirable(now_ms, limit)
    }

    fn stale_leases(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        self.conn.stale_leases(now_ms, limit)
    }

    fn next_wakeup(&self, now_ms: u64) -> Result<Option<Deferral>, StoreError> {
        self.conn.next_wakeup(now_ms)
    }

    fn claim_next_due(
        &self,
        next: &NextDue,
        claim: &mut ClaimBuilder,
    ) -> Result<Option<Deferral>, StoreError> {
        self.conn.claim_next_due(next, claim)
    }

    fn record_launch_process(&self, id: &str, process: &LaunchProcess) -> Result<(), StoreError> {
        self.conn.record_launch_process(id, process)
    }

    fn launch_process(&self, id: &str) -> Result<Option<LaunchProcess>, StoreError> {
        self.conn.launch_process(id)
    }

    fn first_in_state(
        &self,
        state: State,
        order: PageOrder,
        limit: usize,
    ) -> Result<Vec<Deferral>, StoreError> {
        self.conn.first_in_state(state, order, limit)
    }

    fn count_by_state(&self) -> Result<Vec<(State, u64)>, StoreError> {
        self.conn.count_by_state()
    }

    fn count_by_state_cause(&self) -> Result<Vec<(State, String, u64)>, StoreError> {
        self.conn.count_by_state_cause()
    }

    fn check_integrity(&self) -> Result<(), StoreError> {
        self.conn.check_integrity()
    }
}

/// The GitHub loop's part of the store, read and written on the pooled connection.
impl crate::store::LoopStore for Session<'_> {
    fn find_by_receipt_digest(&self, digest: &str) -> Result<Option<String>, StoreError> {
        self.conn.find_by_receipt_digest(digest)
    }

    fn find_by_artifact(&self, artifact_id: u64) -> Result<Option<String>, StoreError> {
        self.conn.find_by_artifact(artifact_id)
    }

    fn add_artifact(
        &self,
        deferral_id: &str,
        artifact: &crate::store::ArtifactRef,
    ) -> Result<bool, StoreError> {
        self.conn.add_artifact(deferral_id, artifact)
    }

    fn put_run(&self, run: &crate::store::RunRecord) -> Result<(), StoreError> {
        self.conn.put_run(run)
    }

    fn run_of(
        &self,
        deferral_id: &str,
        attempt: u32,
    ) -> Result<Option<crate::store::RunRecord>, StoreError> {
        self.conn.run_of(deferral_id, attempt)
    }

    fn is_own_run(&self, run_id: u64) -> Result<bool, StoreError> {
        self.conn.is_own_run(run_id)
    }

    fn dispatched(
        &self,
        limit: usize,
    ) -> Result<Vec<(Deferral, Option<crate::store::RunRecord>)>, StoreError> {
        self.conn.dispatched(limit)
    }

    fn link(&self, deferral_id: &str) -> Result<crate::store::Link, StoreError> {
        self.conn.link(deferral_id)
    }

    fn artifact_name(&self, deferral_id: &str) -> Result<Option<String>, StoreError> {
        self.conn.artifact_name(deferral_id)
    }

    fn cached(&self, key: &str) -> Result<Option<(String, String)>, StoreError> {
        self.conn.cached(key)
    }

    fn put_cached(&self, key: &str, etag: &str, body: &str, at_ms: u64) -> Result<(), StoreError> {
        self.conn.put_cached(key, etag, body, at_ms)
    }
}

/// The retry links, read on the pooled connection.
impl crate::store::RetryStore for Session<'_> {
    fn retry_link(&self, deferral_id: &str) -> Result<crate::store::RetryLink, StoreError> {
        self.conn.retry_link(deferral_id)
    }
}
/// The pools' part of the store, read and written on the pooled connection.
impl crate::store::PoolStore for Session<'_> {
    fn pool(&self, name: &str) -> Result<Option<PoolRow>, StoreError> {
        self.conn.pool(name)
    }

    fn pools(&self) -> Result<Vec<PoolRow>, StoreError> {
        self.conn.pools()
    }

    fn write_pool(&self, write: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
        self.conn.write_pool(write)
    }

    fn admission(&self, seq: u64) -> Result<Option<Admission>, StoreError> {
        self.conn.admission(seq)
    }

    fn open_admissions(&self, pool: &str, now_ms: u64) -> Result<Vec<Admission>, StoreError> {
        self.conn.open_admissions(pool, now_ms)
    }

    fn admission_of(
        &self,
        deferral_id: &str,
        attempt: u32,
        now_ms: u64,
    ) -> Result<Option<Admission>, StoreError> {
        self.conn.admission_of(deferral_id, attempt, now_ms)
    }

    fn pool_candidates(
        &self,
        pool: &str,
        now_ms: u64,
        skip_kinds: &[&str],
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError> {
        self.conn.pool_candidates(pool, now_ms, skip_kinds, limit)
    }

    fn pool_of(&self, deferral_id: &str) -> Result<Option<(String, Option<Cost>)>, StoreError> {
        self.conn.pool_of(deferral_id)
    }

    fn set_cost(&self, deferral_id: &str, cost: &Cost) -> Result<(), StoreError> {
        self.conn.set_cost(deferral_id, cost)
    }

    fn observations_of(&self, deferral_id: &str) -> Result<Vec<Observation>, StoreError> {
        self.conn.observations_of(deferral_id)
    }
}

use crate::store::pools::{
    Admission, Candidate, Cost, Observation, PoolRow, PoolWrite, PoolWritten,
};
