//! Store connections for `serve`'s request handlers, which run on blocking threads off the
//! async runtime (rusqlite and postgres are synchronous). A handler borrows a pooled
//! connection for its reads and compare-and-set updates; its inserts (`record`) go to the
//! group-commit writer instead, so concurrent records share one transaction.

use super::group_commit::GroupCommit;
use crate::store::forward::{Forward, Forwarded};
use crate::store::sqlite::identity::FileId;
use crate::store::{Deferral, IntegrityCheck, NewDeferral, Store, StoreError, StoreUrl};
use std::sync::Mutex;

/// Open connections not in use, and the writer every handler shares.
pub struct Stores {
    url: StoreUrl,
    /// The SQLite file the port started on: a connection opened later opens that file or none
    /// (a file put at the path since is another store, never half served).
    file: Option<FileId>,
    idle: Mutex<Vec<Box<dyn Store + Send>>>,
    writer: GroupCommit,
}

impl Stores {
    /// Starts the group-commit writer on a connection of its own.
    pub fn new(url: StoreUrl) -> Result<Stores, StoreError> {
        let writer = GroupCommit::start(url.open_existing(IntegrityCheck::Off)?);
        let file = match &url {
            StoreUrl::Sqlite(path) => Some(FileId::of(path)?),
            StoreUrl::Postgres(_) => None,
        };
        Ok(Stores {
            url,
            file,
            idle: Mutex::new(Vec::new()),
            writer,
        })
    }

    /// A new connection, to the file the port started on.
    fn open(&self) -> Result<Box<dyn Store + Send>, StoreError> {
        if let (Some(file), StoreUrl::Sqlite(path)) = (&self.file, &self.url) {
            file.check(path)?;
        }
        self.url.open_existing(IntegrityCheck::Off)
    }

    /// Runs `work` with a store whose inserts are group-committed. Blocks: call it from a
    /// blocking thread. A connection is opened when none is free (the caller bounds how many
    /// handlers run at once) and kept for the next handler.
    pub fn with<T>(&self, work: impl FnOnce(&dyn Store) -> T) -> Result<T, StoreError> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let conn = match pooled {
            Some(conn) => conn,
            // The store was opened, migrated and checked at start; a store removed or replaced
            // since is refused (`store-replaced`), never made again empty.
            None => self.open()?,
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
            None => self.open()?,
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
