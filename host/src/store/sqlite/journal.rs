//! Switching a store file to WAL when other processes may be opening it at the same moment.
//!
//! The switch needs the file to itself. When two connections reach for that lock at once,
//! SQLite refuses one with `SQLITE_BUSY` straight away instead of waiting (waiting could
//! deadlock), so the busy timeout never applies. The switch happens once per file and takes
//! milliseconds, so the refused process tries again, briefly, within the same timeout.

use super::backend;
use crate::store::StoreError;
use rusqlite::{Connection, ErrorCode};
use std::time::{Duration, Instant};

const PAUSE: Duration = Duration::from_millis(5);

/// Puts `conn`'s file in WAL mode, trying again while another process holds the lock, for at
/// most `timeout`.
pub(super) fn use_wal(conn: &Connection, timeout: Duration) -> Result<(), StoreError> {
    let give_up = Instant::now() + timeout;
    let mode: String = loop {
        match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)) {
            Ok(mode) => break mode,
            Err(err)
                if err.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && Instant::now() < give_up =>
            {
                std::thread::sleep(PAUSE)
            }
            Err(err) => return Err(backend(err)),
        }
    };
    if mode.eq_ignore_ascii_case("wal") {
        Ok(())
    } else {
        Err(StoreError::Backend(format!(
            "could not switch the journal to WAL (got {mode})"
        )))
    }
}
