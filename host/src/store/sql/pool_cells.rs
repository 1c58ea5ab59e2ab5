//! A pool's and a window's columns, and a window back from its row (see `pool_rows` and
//! `pools`; a cost's rows are in `cost_rows`).

use super::super::pools::WindowState;
use super::super::StoreError;
use super::SqlRow;

/// Columns of a pool row, in the order both backends read them (its windows are rows of
/// `pool_windows`, see [`WINDOW_COLUMNS`]).
pub const POOL_COLUMNS: &str = "name, version, hold_until_ms, hold_reason, updated_ms";

/// Columns of a window row, in the order [`window_of_row`] reads them.
pub const WINDOW_COLUMNS: &str =
    "pool, resource, window_limit, remaining, spent, spent_at_report, \
     reserve, reset_ms, reset_known, opened_after_ms, length_ms, next_limit, observed_ms, source";

/// A window's row: `(resource, window)`, the resource by its stored name (rate-limit buckets
/// are an open set: a row of one this program does not meter is read, kept and shown).
pub fn window_of_row(row: &dyn SqlRow) -> Result<(String, WindowState), StoreError> {
    Ok((
        row.text(1)?,
        WindowState {
            limit: row.u64(2)?,
            remaining: row.u64(3)?,
            spent: row.u64(4)?,
            spent_at_report: row.u64(5)?,
            reserve: row.u64(6)?,
            reset_ms: row.u64(7)?,
            reset_known: row.u64(8)? != 0,
            opened_after_ms: row.u64(9)?,
            length_ms: row.u64(10)?,
            next_limit: row.u64(11)?,
            observed_ms: row.u64(12)?,
            source: row.text(13)?,
        },
    ))
}
