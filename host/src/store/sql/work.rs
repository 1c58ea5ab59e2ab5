//! The reads that find work and draw pages, for every SQL backend: the `tick` rules (due,
//! expirable, stale leases, written once in `store::rules`), the next wake-up, the status
//! page's rows, `list`, and the launch process of an `exec:` attempt.

use super::super::rules;
use super::super::{Deferral, LaunchProcess, ListQuery, NextDue, PageOrder, StoreError};
use super::{args, deferrals, query_opt, rows, to_i64, SqlConn};
use deferral_core::lifecycle::State;

/// A `LIMIT` as the integer it is bound as.
fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Deferrals ordered by creation, of one state or all, at most `query.limit` (no `LIMIT`
/// clause without one).
pub fn list(conn: &mut dyn SqlConn, query: &ListQuery) -> Result<Vec<Deferral>, StoreError> {
    let n = query.limit.map(limit);
    match (query.state, n) {
        (Some(state), Some(n)) => rows::select(
            conn,
            "WHERE state = ?1 ORDER BY created_ms, id LIMIT ?2",
            args![state.as_str(), n],
        ),
        (Some(state), None) => rows::select(
            conn,
            "WHERE state = ?1 ORDER BY created_ms, id",
            args![state.as_str()],
        ),
        (None, Some(n)) => rows::select(conn, "ORDER BY created_ms, id LIMIT ?1", args![n]),
        (None, None) => rows::select(conn, "ORDER BY created_ms, id", &[]),
    }
}

/// The rows a rule picks at `now`, in `order` (then by id where the dialect needs a tie-break),
/// at most `n`, with the dialect's `lock` appended.
fn by_rule(
    conn: &mut dyn SqlConn,
    rule: &rules::Rule,
    order: &str,
    lock: &str,
    now_ms: u64,
    n: usize,
) -> Result<Vec<Deferral>, StoreError> {
    let ties = conn.dialect().order_ties();
    let tail = format!("WHERE {} ORDER BY {order}{ties} LIMIT ?2{lock}", rule.sql);
    rows::select(conn, &tail, args![to_i64(now_ms), limit(n)])
}

/// `deferred` rows inside their window, earliest first: a plain read that locks nothing.
pub fn due(conn: &mut dyn SqlConn, now_ms: u64, n: usize) -> Result<Vec<Deferral>, StoreError> {
    by_rule(conn, &rules::DUE, "resume_after_ms", "", now_ms, n)
}

/// Rows past their `resume_by` with no live lease; rows another transaction holds are
/// skipped, not waited for, where the dialect locks rows.
pub fn expirable(
    conn: &mut dyn SqlConn,
    now_ms: u64,
    n: usize,
) -> Result<Vec<Deferral>, StoreError> {
    let lock = conn.dialect().skip_locked();
    by_rule(conn, &rules::EXPIRABLE, "resume_by_ms", lock, now_ms, n)
}

/// `resumable` rows whose lease ended, skipping locked rows as [`expirable`] does.
pub fn stale_leases(
    conn: &mut dyn SqlConn,
    now_ms: u64,
    n: usize,
) -> Result<Vec<Deferral>, StoreError> {
    let lock = conn.dialect().skip_locked();
    by_rule(conn, &rules::STALE_LEASE, "lease_until_ms", lock, now_ms, n)
}

/// The earliest due row `next` allows that no other transaction holds, locked until the
/// caller's transaction ends (a row another ticker holds is skipped, never waited for).
pub fn next_due(conn: &mut dyn SqlConn, next: &NextDue) -> Result<Option<Deferral>, StoreError> {
    let dialect = conn.dialect();
    let tail = format!(
        "WHERE {} AND {} AND {} ORDER BY resume_after_ms LIMIT 1{}",
        rules::DUE.sql,
        dialect.not_in_list("launch_kind", 2),
        dialect.not_in_list("id", 3),
        dialect.skip_locked()
    );
    let exclude: Vec<&str> = next.exclude.iter().map(String::as_str).collect();
    Ok(rows::select(
        conn,
        &tail,
        args![to_i64(next.now_ms), next.skip_kinds, exclude.as_slice()],
    )?
    .pop())
}

/// The `deferred` row that becomes due next.
pub fn next_wakeup(conn: &mut dyn SqlConn, now_ms: u64) -> Result<Option<Deferral>, StoreError> {
    let tail = format!(
        "WHERE state = 'deferred' AND resume_after_ms > ?1 ORDER BY resume_after_ms{} LIMIT 1",
        conn.dialect().order_ties()
    );
    Ok(rows::select(conn, &tail, args![to_i64(now_ms)])?.pop())
}

/// The earliest instant after `now_ms` at which a work rule picks a row it does not pick at
/// `now_ms`: a `deferred` row's `resume_after` (due), a `resumable` row's lease end + 1 (a stale
/// lease), a live row's `resume_by` + 1 (expirable). One indexed `MIN` per rule and state.
pub fn next_deadline(conn: &mut dyn SqlConn, now_ms: u64) -> Result<Option<u64>, StoreError> {
    let sql = "SELECT MIN(t) FROM (\
         SELECT MIN(resume_after_ms) AS t FROM deferrals WHERE state = 'deferred' AND resume_after_ms > ?1 \
         UNION ALL SELECT MIN(lease_until_ms) + 1 FROM deferrals WHERE state = 'resumable' AND lease_until_ms >= ?1 \
         UNION ALL SELECT MIN(resume_by_ms) + 1 FROM deferrals WHERE state = 'deferred' AND resume_by_ms >= ?1 \
         UNION ALL SELECT MIN(resume_by_ms) + 1 FROM deferrals WHERE state = 'resumable' AND resume_by_ms >= ?1\
         ) AS deadlines";
    let found = query_opt(conn, sql, args![to_i64(now_ms)], |row| row.opt_u64(0))?;
    Ok(found.flatten())
}

/// At most `n` rows of `state` in the page's `order`.
pub fn first_in_state(
    conn: &mut dyn SqlConn,
    state: State,
    order: PageOrder,
    n: usize,
) -> Result<Vec<Deferral>, StoreError> {
    let tail = format!("WHERE state = ?1 {} LIMIT ?2", order.sql());
    rows::select(conn, &tail, args![state.as_str(), limit(n)])
}

/// Records `process` for `id` iff the deferral is still `resumable` at its fence.
pub fn record_launch_process(
    conn: &mut dyn SqlConn,
    id: &str,
    process: &LaunchProcess,
) -> Result<(), StoreError> {
    let current = deferrals::locked(conn, id)?;
    if current.state != State::Resumable || current.fence != process.fence {
        return Err(StoreError::Conflict {
            id: id.to_string(),
            expected_state: State::Resumable,
            expected_fence: process.fence,
        });
    }
    conn.execute(
        "INSERT INTO launch_processes (deferral_id, fence, pgid, machine, boot_id, leader_start, recorded_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (deferral_id) DO UPDATE SET fence = excluded.fence, \
         pgid = excluded.pgid, machine = excluded.machine, boot_id = excluded.boot_id, \
         leader_start = excluded.leader_start, recorded_ms = excluded.recorded_ms",
        args![
            id,
            to_i64(process.fence),
            process.pgid,
            &process.machine,
            &process.boot_id,
            to_i64(process.leader_start),
            to_i64(process.recorded_ms),
        ],
    )?;
    Ok(())
}

/// The last recorded launch process of `id`.
pub fn launch_process(
    conn: &mut dyn SqlConn,
    id: &str,
) -> Result<Option<LaunchProcess>, StoreError> {
    let sql = format!(
        "SELECT {} FROM launch_processes WHERE deferral_id = ?1",
        rows::PROCESS_COLUMNS
    );
    query_opt(conn, &sql, args![id], rows::launch_process)
}
