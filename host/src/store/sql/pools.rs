//! [`PoolStore`] over SQL, for both backends (see `store::pools`). On PostgreSQL a pool's row is
//! locked (`SELECT ... FOR UPDATE`) before its version is compared, so two tickers on two
//! machines writing one pool are serialised: the second reads the first's version and gets
//! `None`. SQLite needs no lock: `BEGIN IMMEDIATE` lets one writer in at a time.

use super::super::pools::{
    default_key, tenant_of, Admission, Candidate, Cost, Observation, PoolRow, PoolStore, PoolWrite,
    PoolWritten, Resource, DEFAULT_POOL,
};
use super::super::{NewDeferral, StoreError};
use super::cost_rows::{read_cost, seq_owner, CostOf};
use super::pool_cells::{window_of_row, POOL_COLUMNS, WINDOW_COLUMNS};
use super::pool_rows::{read_admission, read_observation, read_pool, select_admissions};
use super::{args, query_all, query_opt, to_i64, SqlBackend, SqlConn};

fn pool_in(conn: &mut dyn SqlConn, name: &str, lock: bool) -> Result<Option<PoolRow>, StoreError> {
    let lock = if lock {
        conn.dialect().for_update()
    } else {
        ""
    };
    let sql = format!("SELECT {POOL_COLUMNS} FROM pools WHERE name = ?1{lock}");
    let Some(mut row) = query_opt(conn, &sql, args![name], read_pool)? else {
        return Ok(None);
    };
    let sql =
        format!("SELECT {WINDOW_COLUMNS} FROM pool_windows WHERE pool = ?1 ORDER BY resource");
    for (resource, window) in query_all(conn, &sql, args![name], window_of_row)? {
        match Resource::parse(&resource) {
            Some(r) => {
                row.windows.insert(r, window);
            }
            None => row.unmetered.push((resource, window)),
        }
    }
    Ok(Some(row))
}

const UPSERT_POOL: &str = "INSERT INTO pools (name, version, hold_until_ms, hold_reason, updated_ms) \
     VALUES (?1, ?2, ?3, ?4, ?5) \
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, hold_until_ms = excluded.hold_until_ms, \
     hold_reason = excluded.hold_reason, updated_ms = excluded.updated_ms WHERE pools.version = ?6";

const INSERT_WINDOW: &str =
    "INSERT INTO pool_windows (pool, resource, window_limit, remaining, spent, spent_at_report, \
     reserve, reset_ms, reset_known, opened_after_ms, length_ms, next_limit, observed_ms, source) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";

/// Writes the windows of `row`: one row per resource this program meters, replacing what was
/// there. Rows of other buckets (a newer host's) are left as they are.
fn write_windows(conn: &mut dyn SqlConn, row: &PoolRow) -> Result<(), StoreError> {
    for r in Resource::ALL {
        conn.execute(
            "DELETE FROM pool_windows WHERE pool = ?1 AND resource = ?2",
            args![&row.name, r.as_str()],
        )?;
        let Some(w) = row.window(r) else { continue };
        conn.execute(
            INSERT_WINDOW,
            args![
                &row.name,
                r.as_str(),
                to_i64(w.limit),
                to_i64(w.remaining),
                to_i64(w.spent),
                to_i64(w.spent_at_report),
                to_i64(w.reserve),
                to_i64(w.reset_ms),
                i64::from(w.reset_known),
                to_i64(w.opened_after_ms),
                to_i64(w.length_ms),
                to_i64(w.next_limit),
                to_i64(w.observed_ms),
                &w.source
            ],
        )?;
    }
    Ok(())
}

/// The compare-and-set of [`PoolStore::write_pool`], inside a transaction the caller holds.
fn write_pool_in(conn: &mut dyn SqlConn, w: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
    let name = &w.row.name;
    // The lock (PostgreSQL): a concurrent writer of this pool waits here, then reads our version.
    let version = pool_in(conn, name, true)?.map_or(0, |p| p.version);
    if version != w.expect_version {
        return Ok(None);
    }
    let changed = conn.execute(
        UPSERT_POOL,
        args![
            name,
            to_i64(w.expect_version + 1),
            w.row.hold_until_ms.map(to_i64),
            &w.row.hold_reason,
            to_i64(w.at_ms),
            to_i64(w.expect_version)
        ],
    )?;
    if changed != 1 {
        return Ok(None);
    }
    write_windows(conn, &w.row)?;
    let mut admitted = Vec::with_capacity(w.admit.len());
    for a in &w.admit {
        let seq = conn.insert_seq(
            "INSERT INTO admissions (pool, deferral_id, attempt, window_reset_ms, expires_ms, admitted_ms, secret_digest) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            args![
                name,
                &a.deferral_id,
                a.attempt,
                to_i64(a.window_reset_ms),
                to_i64(a.expires_ms),
                to_i64(w.at_ms),
                &a.secret_digest
            ],
        )?;
        CostOf::Admission.write(conn, seq_owner(seq), a.cost.as_ref())?;
        admitted.push(seq);
    }
    for seq in &w.release {
        conn.execute(
            "UPDATE admissions SET released_ms = ?1 WHERE seq = ?2 AND released_ms IS NULL",
            args![to_i64(w.at_ms), to_i64(*seq)],
        )?;
    }
    if !w.release.is_empty() {
        // Room in the pool again: held work may fit now.
        super::notify_work(conn)?;
    }
    for o in &w.observations {
        conn.execute(
            "INSERT INTO pool_observations (pool, deferral_id, resource, reported_limit, remaining, reserve, reset_ms, observed_ms, source) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            args![
                name,
                &o.deferral_id,
                o.resource.as_str(),
                to_i64(o.window.limit),
                to_i64(o.window.remaining),
                to_i64(o.window.reserve),
                to_i64(o.window.reset_ms),
                to_i64(o.observed_ms),
                &o.source
            ],
        )?;
    }
    Ok(pool_in(conn, name, false)?.map(|row| PoolWritten { row, admitted }))
}

/// Pools with a due deferral or an open admission at `now_ms` (both index ranges: their cost
/// follows the live rows, not the number of pools).
fn at_work(conn: &mut dyn SqlConn, now_ms: u64) -> Result<Vec<String>, StoreError> {
    let now = to_i64(now_ms);
    let mut names = names_of(
        conn,
        "SELECT DISTINCT pool FROM deferrals WHERE state = 'deferred' AND resume_after_ms <= ?1",
        now,
    )?;
    names.extend(names_of(
        conn,
        "SELECT DISTINCT pool FROM admissions WHERE released_ms IS NULL AND expires_ms > ?1",
        now,
    )?);
    Ok(names)
}

/// The pool names one query answers, given one number (`?1`).
fn names_of(conn: &mut dyn SqlConn, sql: &str, at: i64) -> Result<Vec<String>, StoreError> {
    query_all(conn, sql, args![at], |r| r.text(0))
}

/// Writes a new deferral's pool and cost in its insert transaction, and teaches the pool the
/// rate state its gate saw.
pub fn register_new(conn: &mut dyn SqlConn, new: &NewDeferral) -> Result<(), StoreError> {
    let tag = new.keys.pool.clone().unwrap_or_default();
    let seen = tag.seen_by(&new.id);
    // A successor or a retry waits where its deferral waited, at its priority and key.
    let from = new.keys.predecessor.as_ref().or(new.keys.retry_of.as_ref());
    let inherited: Option<(String, i64, String)> = match from {
        Some(earlier) => query_opt(
            conn,
            "SELECT pool, priority, fairness_key FROM deferrals WHERE id = ?1",
            args![earlier],
            |r| Ok((r.text(0)?, r.i64(1)?, r.text(2)?)),
        )?,
        None => None,
    };
    let pool = tag
        .pool
        .clone()
        .or(inherited.as_ref().map(|i| i.0.clone()))
        .unwrap_or_else(|| DEFAULT_POOL.to_string());
    let priority = tag
        .priority
        .or(inherited.as_ref().map(|i| i.1))
        .unwrap_or(0);
    let key = tag
        .fairness_key
        .clone()
        .or(inherited.map(|i| i.2).filter(|k| !k.is_empty()))
        .unwrap_or_else(|| default_key(&new.launch));
    conn.execute(
        "UPDATE deferrals SET pool = ?1, priority = ?2, fairness_key = ?3 WHERE id = ?4",
        args![&pool, priority, &key, &new.id],
    )?;
    CostOf::Deferral.write(conn, (&new.id).into(), tag.cost.as_ref())?;
    let existing = pool_in(conn, &pool, !tag.seen.is_empty())?;
    if existing.is_some() && tag.seen.is_empty() {
        return Ok(());
    }
    let mut row = existing.unwrap_or_else(|| PoolRow::empty(&pool));
    let expect_version = row.version;
    row.observe(&seen);
    let write = PoolWrite {
        expect_version,
        row,
        admit: Vec::new(),
        release: Vec::new(),
        observations: seen.clone(),
        at_ms: new.at_ms,
    };
    // SQLite: under BEGIN IMMEDIATE nothing else writes in between, the version cannot move.
    match write_pool_in(conn, &write)? {
        Some(_) => Ok(()),
        // PostgreSQL: a new pool another transaction created first: learn on top of its row.
        None => {
            let mut row = pool_in(conn, &pool, true)?.unwrap_or_else(|| PoolRow::empty(&pool));
            let expect_version = row.version;
            row.observe(&seen);
            write_pool_in(
                conn,
                &PoolWrite {
                    expect_version,
                    row,
                    ..write
                },
            )?
            .map(|_| ())
            .ok_or_else(|| StoreError::Backend(format!("pool {pool} changed while recording")))
        }
    }
}

/// `SELECT ... FROM deferrals d ...` of what a candidate is read from: its cost last, from
/// `deferral_costs`. The caller adds the `WHERE`.
fn select_candidates() -> String {
    format!(
        "SELECT id, resume_after_ms, reentries, priority, fairness_key, launch, resume_by_ms, {} \
         FROM deferrals d{}",
        CostOf::Deferral.cells(),
        CostOf::Deferral.join("d.id")
    )
}

/// No open admission for the attempt a claim would make (`?2`: now).
const NOT_ADMITTED: &str = "NOT EXISTS (SELECT 1 FROM admissions a WHERE a.deferral_id = d.id \
     AND a.attempt = d.reentries + 1 AND a.released_ms IS NULL AND a.expires_ms > ?2)";

fn read_candidate(row: &dyn super::SqlRow) -> Result<Candidate, StoreError> {
    Ok(Candidate {
        id: row.text(0)?,
        resume_after_ms: row.u64(1)?,
        attempt: row.u32(2)? + 1,
        priority: row.i64(3)?,
        key: Some(row.text(4)?)
            .filter(|k| !k.is_empty())
            .map_or_else(|| row.text(5).map(|l| default_key(&l)), Ok)?,
        tenant: tenant_of(&row.text(5)?),
        resume_by_ms: row.u64(6)?,
        cost: read_cost(row, 7)?,
    })
}

impl<B: SqlBackend> PoolStore for B {
    fn pool(&self, name: &str) -> Result<Option<PoolRow>, StoreError> {
        self.sql_read(|conn| pool_in(conn, name, false))
    }

    fn pools(&self, now_ms: u64, since_ms: u64) -> Result<Vec<PoolRow>, StoreError> {
        self.sql_read(|conn| {
            let mut names = at_work(conn, now_ms)?;
            names.extend(query_all(
                conn,
                "SELECT DISTINCT pool FROM deferrals WHERE state IN ('deferred', 'resumable')",
                &[],
                |r| r.text(0),
            )?);
            names.extend(names_of(
                conn,
                "SELECT name FROM pools WHERE updated_ms >= ?1 ORDER BY updated_ms DESC LIMIT 500",
                to_i64(since_ms),
            )?);
            names.sort_unstable();
            names.dedup();
            let mut rows = Vec::with_capacity(names.len());
            for name in names {
                if let Some(row) = pool_in(conn, &name, false)? {
                    rows.push(row);
                }
            }
            Ok(rows)
        })
    }

    fn pools_at_work(&self, now_ms: u64) -> Result<Vec<String>, StoreError> {
        self.sql_read(|conn| {
            let mut names = at_work(conn, now_ms)?;
            names.sort_unstable();
            names.dedup();
            Ok(names)
        })
    }

    fn write_pool(&self, write: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
        self.sql_write(|conn| write_pool_in(conn, write))
    }

    fn admission(&self, seq: u64) -> Result<Option<Admission>, StoreError> {
        let sql = format!("{} WHERE seq = ?1", select_admissions());
        self.sql_read(|conn| query_opt(conn, &sql, args![to_i64(seq)], read_admission))
    }

    fn open_admissions(&self, pool: &str, now_ms: u64) -> Result<Vec<Admission>, StoreError> {
        let sql = format!(
            "{} WHERE pool = ?1 AND released_ms IS NULL AND expires_ms > ?2 ORDER BY seq",
            select_admissions()
        );
        self.sql_read(|conn| query_all(conn, &sql, args![pool, to_i64(now_ms)], read_admission))
    }

    fn admission_of(
        &self,
        deferral_id: &str,
        attempt: u32,
        now_ms: u64,
    ) -> Result<Option<Admission>, StoreError> {
        let sql = format!(
            "{} WHERE deferral_id = ?1 AND attempt = ?2 \
             AND released_ms IS NULL AND expires_ms > ?3 ORDER BY seq DESC LIMIT 1",
            select_admissions()
        );
        self.sql_read(|conn| {
            query_opt(
                conn,
                &sql,
                args![deferral_id, attempt, to_i64(now_ms)],
                read_admission,
            )
        })
    }

    fn pool_candidates(
        &self,
        pool: &str,
        now_ms: u64,
        skip_kinds: &[&str],
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.sql_read(|conn| {
            let sql = format!(
                "{} WHERE state = 'deferred' AND pool = ?1 AND resume_after_ms <= ?2 AND resume_by_ms >= ?2 \
                 AND {} AND {NOT_ADMITTED} \
                 ORDER BY priority DESC, resume_after_ms, id LIMIT ?4",
                select_candidates(),
                conn.dialect().not_in_list("launch_kind", 3)
            );
            query_all(
                conn,
                &sql,
                args![pool, to_i64(now_ms), skip_kinds, limit],
                read_candidate,
            )
        })
    }

    fn pool_backlog(
        &self,
        pool: &str,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError> {
        // One priority at a time, highest first, each read in the order of the index
        // `deferrals_pool_priority` (state, pool, priority, resume_after_ms, id): the read stops
        // at `limit` rows instead of reading, joining and sorting the whole backlog. The `+`s
        // keep the planner on that index (and on `admissions_deferral` for the admission).
        let not_admitted = "NOT EXISTS (SELECT 1 FROM admissions a WHERE a.deferral_id = d.id \
             AND a.attempt = d.reentries + 1 AND +a.released_ms IS NULL AND +a.expires_ms > ?2)";
        let rows = format!(
            "{} WHERE state = 'deferred' AND pool = ?1 AND priority = ?4 AND +resume_by_ms >= ?2 \
             AND {not_admitted} ORDER BY resume_after_ms, id LIMIT ?3",
            select_candidates()
        );
        self.sql_read(|conn| {
            let mut backlog: Vec<Candidate> = Vec::new();
            let mut above: Option<i64> = None;
            while backlog.len() < limit {
                let next = match above {
                    None => query_opt(
                        conn,
                        "SELECT priority FROM deferrals WHERE state = 'deferred' AND pool = ?1 \
                         ORDER BY priority DESC LIMIT 1",
                        args![pool],
                        |r| r.i64(0),
                    )?,
                    Some(p) => query_opt(
                        conn,
                        "SELECT priority FROM deferrals WHERE state = 'deferred' AND pool = ?1 \
                         AND priority < ?2 ORDER BY priority DESC LIMIT 1",
                        args![pool, p],
                        |r| r.i64(0),
                    )?,
                };
                let Some(priority) = next else { break };
                let left = i64::try_from(limit - backlog.len()).unwrap_or(i64::MAX);
                backlog.extend(query_all(
                    conn,
                    &rows,
                    args![pool, to_i64(now_ms), left, priority],
                    read_candidate,
                )?);
                above = Some(priority);
            }
            Ok(backlog)
        })
    }

    fn pool_of(&self, deferral_id: &str) -> Result<Option<(String, Option<Cost>)>, StoreError> {
        self.sql_read(|conn| {
            query_opt(
                conn,
                &format!(
                    "SELECT pool, {} FROM deferrals d{} WHERE id = ?1",
                    CostOf::Deferral.cells(),
                    CostOf::Deferral.join("d.id")
                ),
                args![deferral_id],
                |r| Ok((r.text(0)?, read_cost(r, 1)?)),
            )
        })
    }

    fn set_cost(&self, deferral_id: &str, cost: &Cost) -> Result<(), StoreError> {
        self.sql_write(|conn| CostOf::Deferral.write(conn, deferral_id.into(), Some(cost)))
    }

    fn observations_of(&self, deferral_id: &str) -> Result<Vec<Observation>, StoreError> {
        self.sql_read(|conn| {
            query_all(
                conn,
                "SELECT resource, reported_limit, remaining, reserve, reset_ms, observed_ms, source, deferral_id \
                 FROM pool_observations WHERE deferral_id = ?1 ORDER BY seq",
                args![deferral_id],
                read_observation,
            )
            .map(|all| all.into_iter().flatten().collect())
        })
    }
}
