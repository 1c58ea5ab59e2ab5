//! One way to change a pool's row: read it, decide, write with the compare-and-set, and read
//! and decide again when another writer got there first, at most [`TRIES`] times. Every writer
//! of a pool row (admission in a pass, a runner's admission and its release, a report, the
//! host's own rate read) goes through [`update`].

use crate::error::HostError;
use crate::store::pools::{PoolWrite, PoolWritten};
use crate::store::Store;

/// Tries of one update before it gives up (`pool-busy`).
pub const TRIES: usize = 64;

/// What one try decided.
pub enum Try<T> {
    /// Write this, answering `T` once it is written ([`Try::write`]).
    Write(Box<PoolWrite>, T),
    /// Nothing to write: the answer.
    Done(T),
}

impl<T> Try<T> {
    /// Write `write`, answering `answer` once it is written.
    pub fn write(write: PoolWrite, answer: T) -> Try<T> {
        Try::Write(Box::new(write), answer)
    }
}

/// Runs `decide` (which reads what it needs each time) and writes what it decides, until a
/// write is not beaten by another writer; after [`TRIES`] beaten writes, the error `busy`
/// makes. The answer, and what was written when something was.
pub fn update<T>(
    store: &dyn Store,
    mut decide: impl FnMut() -> Result<Try<T>, HostError>,
    busy: impl FnOnce() -> HostError,
) -> Result<(T, Option<PoolWritten>), HostError> {
    for _ in 0..TRIES {
        match decide()? {
            Try::Done(answer) => return Ok((answer, None)),
            Try::Write(write, answer) => {
                if let Some(written) = store.write_pool(&write)? {
                    return Ok((answer, Some(written)));
                }
            }
        }
    }
    Err(busy())
}
