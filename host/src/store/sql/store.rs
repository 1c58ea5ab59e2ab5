//! [`Store`] over SQL, for every backend that implements [`SqlBackend`]: each method is the
//! statements of `deferrals`, `receipts`, `events` and `work`, run in a read or in a write
//! transaction. What a backend keeps itself (group commit, counts, its integrity check) it
//! answers through [`SqlBackend`].

use super::super::{
    ClaimBuilder, Deferral, EventRecord, LaunchProcess, ListQuery, NewDeferral, NextDue, PageOrder,
    Store, StoreError, StoredReceipt, Update,
};
use super::{args, deferrals, events, query_all, receipts, rows, work, SqlBackend};
use deferral_core::lifecycle::State;

impl<B: SqlBackend> Store for B {
    fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        self.sql_write(|conn| deferrals::insert(conn, new))
    }

    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        self.sql_batch(news)
    }

    fn update(&self, id: &str, update: &Update) -> Result<Deferral, StoreError> {
        self.sql_write(|conn| deferrals::update(conn, id, update))
    }

    fn get(&self, id: &str) -> Result<Option<Deferral>, StoreError> {
        self.sql_read(|conn| Ok(rows::select(conn, "WHERE id = ?1", args![id])?.pop()))
    }

    fn list(&self, query: &ListQuery) -> Result<Vec<Deferral>, StoreError> {
        self.sql_read(|conn| work::list(conn, query))
    }

    fn receipts(&self, id: &str) -> Result<Vec<StoredReceipt>, StoreError> {
        self.sql_read(|conn| receipts::all(conn, id))
    }

    fn current_receipt(&self, id: &str) -> Result<StoredReceipt, StoreError> {
        self.sql_read(|conn| receipts::current(conn, id))
    }

    fn events(&self, id: &str) -> Result<Vec<EventRecord>, StoreError> {
        self.sql_read(|conn| events::all(conn, id))
    }

    fn due(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        // A plain read that locks nothing: a listing (a tick's plan and report), never the
        // claim. Locked, every due row would be skipped by other tickers' claims for as long
        // as this listing ran.
        self.sql_read(|conn| work::due(conn, now_ms, limit))
    }

    fn claim_next_due(
        &self,
        next: &NextDue,
        claim: &mut ClaimBuilder,
    ) -> Result<Option<Deferral>, StoreError> {
        self.sql_write(|conn| {
            let Some(row) = work::next_due(conn, next)? else {
                return Ok(None);
            };
            // Handed to the builder even when it fails its check, so the caller learns which
            // deferral it was.
            let update = claim(&row, receipts::current(conn, &row.id))?;
            deferrals::update(conn, &row.id, &update).map(Some)
        })
    }

    fn next_wakeup(&self, now_ms: u64) -> Result<Option<Deferral>, StoreError> {
        self.sql_read(|conn| work::next_wakeup(conn, now_ms))
    }

    fn next_deadline(&self, now_ms: u64) -> Result<Option<u64>, StoreError> {
        self.sql_read(|conn| work::next_deadline(conn, now_ms))
    }

    fn expirable(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        self.sql_work(|conn| work::expirable(conn, now_ms, limit))
    }

    fn stale_leases(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        self.sql_work(|conn| work::stale_leases(conn, now_ms, limit))
    }

    fn record_launch_process(&self, id: &str, process: &LaunchProcess) -> Result<(), StoreError> {
        self.sql_write(|conn| work::record_launch_process(conn, id, process))
    }

    fn launch_process(&self, id: &str) -> Result<Option<LaunchProcess>, StoreError> {
        self.sql_read(|conn| work::launch_process(conn, id))
    }

    fn first_in_state(
        &self,
        state: State,
        order: PageOrder,
        limit: usize,
    ) -> Result<Vec<Deferral>, StoreError> {
        self.sql_read(|conn| work::first_in_state(conn, state, order, limit))
    }

    fn count_by_state(&self) -> Result<Vec<(State, u64)>, StoreError> {
        self.sql_read(|conn| {
            let sql = conn.dialect().count_by_state();
            query_all(conn, sql, &[], |r| Ok((rows::state(r, 0)?, r.u64(1)?)))
        })
    }

    fn count_by_state_cause(&self) -> Result<Vec<(State, String, u64)>, StoreError> {
        self.sql_read(|conn| {
            let sql = conn.dialect().count_by_state_cause();
            query_all(conn, sql, &[], |r| {
                Ok((rows::state(r, 0)?, r.text(1)?, r.u64(2)?))
            })
        })
    }

    fn check_integrity(&self) -> Result<(), StoreError> {
        self.sql_check()
    }
}
