//! How the pools' rows read back (see `pools`): a pool, an admission, an observation.

use super::super::pools::{Admission, Observation, PoolRow, Resource, Window};
use super::super::StoreError;
use super::cost_rows::{read_cost, CostOf};
use super::SqlRow;

/// A pool's row without its windows (see `pool_cells::window_of_row`).
pub fn read_pool(row: &dyn SqlRow) -> Result<PoolRow, StoreError> {
    let mut pool = PoolRow::empty(&row.text(0)?);
    pool.version = row.u64(1)?;
    pool.hold_until_ms = row.opt_u64(2)?;
    pool.hold_reason = row.opt_text(3)?;
    pool.updated_ms = row.u64(4)?;
    Ok(pool)
}

pub fn read_admission(row: &dyn SqlRow) -> Result<Admission, StoreError> {
    Ok(Admission {
        seq: row.u64(0)?,
        pool: row.text(1)?,
        deferral_id: row.opt_text(2)?,
        attempt: row.u32(3)?,
        window_reset_ms: row.u64(4)?,
        expires_ms: row.u64(5)?,
        admitted_ms: row.u64(6)?,
        released_ms: row.opt_u64(7)?,
        secret_digest: row.opt_text(8)?,
        cost: read_cost(row, 9)?,
    })
}

/// `SELECT ... FROM admissions ...` of the columns [`read_admission`] reads: its cost last,
/// from its rows in `admission_costs`. The caller adds the `WHERE`.
pub fn select_admissions() -> String {
    format!(
        "SELECT seq, pool, deferral_id, attempt, window_reset_ms, expires_ms, admitted_ms, released_ms, \
         secret_digest, {} FROM admissions{}",
        CostOf::Admission.cells(),
        CostOf::Admission.join("admissions.seq")
    )
}

/// An observation; `None` for one of a bucket this program does not meter (kept in the table as
/// evidence, never read as another bucket's).
pub fn read_observation(r: &dyn SqlRow) -> Result<Option<Observation>, StoreError> {
    let Some(resource) = Resource::parse(&r.text(0)?) else {
        return Ok(None);
    };
    Ok(Some(Observation {
        resource,
        window: Window {
            limit: r.u64(1)?,
            remaining: r.u64(2)?,
            reserve: r.u64(3)?,
            reset_ms: r.u64(4)?,
        },
        observed_ms: r.u64(5)?,
        source: r.text(6)?,
        deferral_id: r.opt_text(7)?,
    }))
}
