//! Store connections for `serve`'s request handlers, which run on blocking threads off the
//! async runtime (rusqlite and postgres are synchronous). A handler borrows a pooled
//! connection for its reads and compare-and-set updates; its inserts (`record`) go to the
//! group-commit writer instead, so concurrent records share one transaction.

use super::group_commit::GroupCommit;
use crate::store::forward::{Forward, Forwarded};
use crate::store::{Deferral, IntegrityCheck, NewDeferral, Store, StoreError, StoreUrl};
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
        let writer = GroupCommit::start(url.open_existing(IntegrityCheck::Off)?);
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
            // The store was opened, migrated and checked at start; a store deleted since is
            // refused (`store-not-found`), never made again empty.
            None => self.url.open_existing(IntegrityCheck::Off)?,
        };
        let session = Forwarded(Session {
            conn: &*conn,
            writer: &self.writer,
        });
        let value = work(&session);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
        Ok(value)
    }

    /// Reads one row by id on a pooled connection (`/readyz`). A connection that fails is
    /// dropped, not pooled again, so the next request opens a fresh one.
    pub fn probe(&self) -> Result<(), StoreError> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let conn = match pooled {
            Some(conn) => conn,
            None => self.url.open_existing(IntegrityCheck::Off)?,
        };
        conn.get("readyz")?;
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
        Ok(())
    }

    /// Lets the writer commit what is queued and stops it.
    pub fn stop(&self) {
        self.writer.stop();
    }
}

/// A pooled connection whose `insert` is the group commit's; every other call is the
/// connection's (see `store::forward`).
struct Session<'a> {
    conn: &'a dyn Store,
    writer: &'a GroupCommit,
}

impl Forward for Session<'_> {
    fn inner(&self) -> &dyn Store {
        self.conn
    }

    fn forward_insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        self.writer.insert(new)
    }
}
