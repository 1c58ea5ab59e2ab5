//! What the shell is told it may read, wait for and hold: the limits of files, answers and the
//! ledger's lock, and the `read` and `lock` parts of a step that carry them.

use crate::step::{Lock, ReadEntry};

/// The largest file read (plan, ledger, scope, rate state, saved response).
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Receipts: the contract's 16 KiB (the validator names a larger receipt `too-large` itself).
pub const MAX_RECEIPT_BYTES: u64 = 16 * 1024;

/// How long the shell waits for the ledger's lock before giving up (`ledger-lock-timeout`).
pub const LOCK_WAIT_MS: u64 = 10_000;
/// A lock older than this whose owner cannot be shown alive is taken to be left by a crash.
pub const STALE_LOCK_MS: u64 = 30_000;

/// The `lock` of a step: the ledger to hold under its lock and read (at most `limit` bytes).
pub fn lock(path: &str) -> Lock {
    Lock {
        path: path.to_string(),
        limit: MAX_FILE_BYTES,
        wait_ms: LOCK_WAIT_MS,
        stale_ms: STALE_LOCK_MS,
    }
}

/// How long the shell waits for an answer to a request before it is a transport failure.
pub const REQUEST_TIMEOUT_MS: u64 = 15_000;
/// The largest answer body the shell reads; a larger one is a transport failure.
pub const MAX_ANSWER_BYTES: u64 = 1 << 20;

/// How much of the file `name` the shell reads (one byte more shows it is too large).
pub fn limit_of(name: &str) -> u64 {
    if name == "receipt" {
        MAX_RECEIPT_BYTES
    } else {
        MAX_FILE_BYTES
    }
}

/// A `{name, path, limit}` entry of a `read` step.
pub fn read_entry(name: &str, path: &str) -> ReadEntry {
    ReadEntry {
        name: name.to_string(),
        path: path.to_string(),
        limit: limit_of(name),
    }
}
