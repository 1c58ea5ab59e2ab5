//! The SQLite side of [`PoolStore`] (see `store::pools`).

use super::super::pools::{
    cost_cells, cost_of_cells, window_cells, window_of_cells, Admission, Candidate, Cost,
    Observation, PoolRow, PoolStore, PoolWrite, PoolWritten, Resource, DEFAULT_POOL, POOL_COLUMNS,
};
use super::super::{NewDeferral, StoreError};
use super::{backend, get_u64, to_i64, SqliteStore};
use rusqlite::{params, Connection, OptionalExtension, Row};

/// Migration 5: pools, costs, admissions, observations.
pub(super) const MIGRATION: &str = r#"
ALTER TABLE deferrals ADD COLUMN pool TEXT NOT NULL DEFAULT 'default';
ALTER TABLE deferrals ADD COLUMN rest_cost INTEGER;
ALTER TABLE deferrals ADD COLUMN graphql_cost INTEGER;
ALTER TABLE deferrals ADD COLUMN content_cost INTEGER;
-- A pool's due deferrals, earliest first then by id: a range scan that stops at the limit.
CREATE INDEX deferrals_pool_due ON deferrals (state, pool, resume_after_ms, id);
CREATE TABLE pools (
    name                TEXT PRIMARY KEY,
    version             INTEGER NOT NULL,
    rest_limit          INTEGER,
    rest_remaining      INTEGER,
    rest_reserve        INTEGER,
    rest_reset_ms       INTEGER,
    rest_observed_ms    INTEGER,
    rest_source         TEXT,
    graphql_limit       INTEGER,
    graphql_remaining   INTEGER,
    graphql_reserve     INTEGER,
    graphql_reset_ms    INTEGER,
    graphql_observed_ms INTEGER,
    graphql_source      TEXT,
    hold_until_ms       INTEGER,
    hold_reason         TEXT,
    updated_ms          INTEGER NOT NULL
);
INSERT INTO pools (name, version, updated_ms) VALUES ('default', 1, 0);
CREATE TABLE pool_observations (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    pool        TEXT NOT NULL,
    deferral_id TEXT,
    resource    TEXT NOT NULL,
    reported_limit INTEGER NOT NULL,
    remaining   INTEGER NOT NULL,
    reserve     INTEGER NOT NULL,
    reset_ms    INTEGER NOT NULL,
    observed_ms INTEGER NOT NULL,
    source      TEXT NOT NULL
);
CREATE INDEX pool_observations_deferral ON pool_observations (deferral_id, seq);
CREATE TRIGGER pool_observations_no_update BEFORE UPDATE ON pool_observations BEGIN SELECT RAISE(ABORT, 'pool observations are append-only'); END;
CREATE TRIGGER pool_observations_no_delete BEFORE DELETE ON pool_observations BEGIN SELECT RAISE(ABORT, 'pool observations are append-only'); END;
CREATE TABLE admissions (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    pool            TEXT NOT NULL,
    deferral_id     TEXT,
    attempt         INTEGER NOT NULL,
    rest_cost       INTEGER,
    graphql_cost    INTEGER,
    content_cost    INTEGER,
    window_reset_ms INTEGER NOT NULL,
    expires_ms      INTEGER NOT NULL,
    admitted_ms     INTEGER NOT NULL,
    released_ms     INTEGER
);
CREATE INDEX admissions_open ON admissions (pool, released_ms, expires_ms);
CREATE INDEX admissions_deferral ON admissions (deferral_id, attempt);
"#;

fn read_pool(row: &Row) -> rusqlite::Result<PoolRow> {
    let cells = |at: usize| -> rusqlite::Result<_> {
        Ok((
            row.get::<_, Option<i64>>(at)?,
            row.get::<_, Option<i64>>(at + 1)?,
            row.get::<_, Option<i64>>(at + 2)?,
            row.get::<_, Option<i64>>(at + 3)?,
            row.get::<_, Option<i64>>(at + 4)?,
            row.get::<_, Option<String>>(at + 5)?,
        ))
    };
    Ok(PoolRow {
        name: row.get(0)?,
        version: get_u64(row, 1)?,
        rest: window_of_cells(cells(2)?),
        graphql: window_of_cells(cells(8)?),
        hold_until_ms: row
            .get::<_, Option<i64>>(14)?
            .map(|v| u64::try_from(v).unwrap_or(0)),
        hold_reason: row.get(15)?,
        updated_ms: get_u64(row, 16)?,
    })
}

fn read_admission(row: &Row) -> rusqlite::Result<Admission> {
    Ok(Admission {
        seq: get_u64(row, 0)?,
        pool: row.get(1)?,
        deferral_id: row.get(2)?,
        attempt: row.get(3)?,
        cost: cost_of_cells(row.get(4)?, row.get(5)?, row.get(6)?),
        window_reset_ms: get_u64(row, 7)?,
        expires_ms: get_u64(row, 8)?,
        admitted_ms: get_u64(row, 9)?,
        released_ms: row
            .get::<_, Option<i64>>(10)?
            .map(|v| u64::try_from(v).unwrap_or(0)),
    })
}

const ADMISSION_COLUMNS: &str =
    "seq, pool, deferral_id, attempt, rest_cost, graphql_cost, content_cost, \
     window_reset_ms, expires_ms, admitted_ms, released_ms";

fn pool_in(conn: &Connection, name: &str) -> Result<Option<PoolRow>, StoreError> {
    conn.prepare_cached(&format!("SELECT {POOL_COLUMNS} FROM pools WHERE name = ?1"))
        .map_err(backend)?
        .query_row([name], read_pool)
        .optional()
        .map_err(backend)
}

fn append_observations(
    conn: &Connection,
    pool: &str,
    list: &[Observation],
) -> Result<(), StoreError> {
    for o in list {
        conn.prepare_cached(
            "INSERT INTO pool_observations (pool, deferral_id, resource, reported_limit, remaining, reserve, reset_ms, observed_ms, source) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .map_err(backend)?
        .execute(params![
            pool,
            o.deferral_id,
            o.resource.as_str(),
            to_i64(o.limit),
            to_i64(o.remaining),
            to_i64(o.reserve),
            to_i64(o.reset_ms),
            to_i64(o.observed_ms),
            o.source
        ])
        .map_err(backend)?;
    }
    Ok(())
}

/// The compare-and-set of [`PoolStore::write_pool`], inside a transaction the caller holds.
fn write_pool_in(conn: &Connection, w: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
    let name = &w.row.name;
    let version = pool_in(conn, name)?.map_or(0, |p| p.version);
    if version != w.expect_version {
        return Ok(None);
    }
    let (rest, graphql) = (
        window_cells(w.row.rest.as_ref()),
        window_cells(w.row.graphql.as_ref()),
    );
    let next = to_i64(w.expect_version + 1);
    let hold = w.row.hold_until_ms.map(to_i64);
    let changed = conn
        .prepare_cached(
            "INSERT INTO pools (name, version, rest_limit, rest_remaining, rest_reserve, rest_reset_ms, rest_observed_ms, rest_source, \
             graphql_limit, graphql_remaining, graphql_reserve, graphql_reset_ms, graphql_observed_ms, graphql_source, \
             hold_until_ms, hold_reason, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) \
             ON CONFLICT (name) DO UPDATE SET version = excluded.version, rest_limit = excluded.rest_limit, \
             rest_remaining = excluded.rest_remaining, rest_reserve = excluded.rest_reserve, rest_reset_ms = excluded.rest_reset_ms, \
             rest_observed_ms = excluded.rest_observed_ms, rest_source = excluded.rest_source, graphql_limit = excluded.graphql_limit, \
             graphql_remaining = excluded.graphql_remaining, graphql_reserve = excluded.graphql_reserve, \
             graphql_reset_ms = excluded.graphql_reset_ms, graphql_observed_ms = excluded.graphql_observed_ms, \
             graphql_source = excluded.graphql_source, hold_until_ms = excluded.hold_until_ms, hold_reason = excluded.hold_reason, \
             updated_ms = excluded.updated_ms WHERE pools.version = ?18",
        )
        .map_err(backend)?
        .execute(params![
            name, next, rest.0, rest.1, rest.2, rest.3, rest.4, rest.5, graphql.0, graphql.1, graphql.2, graphql.3,
            graphql.4, graphql.5, hold, w.row.hold_reason, to_i64(w.at_ms), to_i64(w.expect_version)
        ])
        .map_err(backend)?;
    if changed != 1 {
        return Ok(None);
    }
    let mut admitted = Vec::with_capacity(w.admit.len());
    for a in &w.admit {
        let cost = cost_cells(a.cost.as_ref());
        conn.prepare_cached(
            "INSERT INTO admissions (pool, deferral_id, attempt, rest_cost, graphql_cost, content_cost, window_reset_ms, expires_ms, admitted_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .map_err(backend)?
        .execute(params![
            name,
            a.deferral_id,
            a.attempt,
            cost.0,
            cost.1,
            cost.2,
            to_i64(a.window_reset_ms),
            to_i64(a.expires_ms),
            to_i64(w.at_ms)
        ])
        .map_err(backend)?;
        admitted.push(u64::try_from(conn.last_insert_rowid()).unwrap_or(0));
    }
    for seq in &w.release {
        conn.prepare_cached(
            "UPDATE admissions SET released_ms = ?1 WHERE seq = ?2 AND released_ms IS NULL",
        )
        .map_err(backend)?
        .execute(params![to_i64(w.at_ms), to_i64(*seq)])
        .map_err(backend)?;
    }
    append_observations(conn, name, &w.observations)?;
    Ok(pool_in(conn, name)?.map(|row| PoolWritten { row, admitted }))
}

/// Writes a new deferral's pool and cost in its insert transaction, and teaches the pool the
/// rate state its gate saw.
pub(super) fn register_new(conn: &Connection, new: &NewDeferral) -> Result<(), StoreError> {
    let tag = new.keys.pool.clone().unwrap_or_default();
    let seen = tag.seen_by(&new.id);
    let inherited: Option<String> = match (&tag.pool, &new.keys.predecessor) {
        (None, Some(predecessor)) => conn
            .query_row(
                "SELECT pool FROM deferrals WHERE id = ?1",
                [predecessor],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)?,
        _ => None,
    };
    let pool = tag
        .pool
        .or(inherited)
        .unwrap_or_else(|| DEFAULT_POOL.to_string());
    let cost = cost_cells(tag.cost.as_ref());
    conn.prepare_cached(
        "UPDATE deferrals SET pool = ?1, rest_cost = ?2, graphql_cost = ?3, content_cost = ?4 WHERE id = ?5",
    )
    .map_err(backend)?
    .execute(params![pool, cost.0, cost.1, cost.2, new.id])
    .map_err(backend)?;
    let mut row = pool_in(conn, &pool)?.unwrap_or_else(|| PoolRow::empty(&pool));
    if row.version > 0 && tag.seen.is_empty() {
        return Ok(());
    }
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
    // Under BEGIN IMMEDIATE nothing else writes in between: the version cannot have moved.
    write_pool_in(conn, &write)?
        .map(|_| ())
        .ok_or_else(|| StoreError::Backend(format!("pool {pool} changed while recording")))
}

impl PoolStore for SqliteStore {
    fn pool(&self, name: &str) -> Result<Option<PoolRow>, StoreError> {
        pool_in(&self.conn, name)
    }

    fn pools(&self) -> Result<Vec<PoolRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {POOL_COLUMNS} FROM pools ORDER BY name"))
            .map_err(backend)?;
        let rows = stmt.query_map([], read_pool).map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }

    fn write_pool(&self, write: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
        self.write(|conn| write_pool_in(conn, write))
    }

    fn admission(&self, seq: u64) -> Result<Option<Admission>, StoreError> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {ADMISSION_COLUMNS} FROM admissions WHERE seq = ?1"
            ))
            .map_err(backend)?
            .query_row([to_i64(seq)], read_admission)
            .optional()
            .map_err(backend)
    }

    fn open_admissions(&self, pool: &str, now_ms: u64) -> Result<Vec<Admission>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ADMISSION_COLUMNS} FROM admissions WHERE pool = ?1 AND released_ms IS NULL AND expires_ms > ?2 ORDER BY seq"
            ))
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![pool, to_i64(now_ms)], read_admission)
            .map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }

    fn admission_of(
        &self,
        deferral_id: &str,
        attempt: u32,
        now_ms: u64,
    ) -> Result<Option<Admission>, StoreError> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {ADMISSION_COLUMNS} FROM admissions WHERE deferral_id = ?1 AND attempt = ?2 \
                 AND released_ms IS NULL AND expires_ms > ?3 ORDER BY seq DESC LIMIT 1"
            ))
            .map_err(backend)?
            .query_row(params![deferral_id, attempt, to_i64(now_ms)], read_admission)
            .optional()
            .map_err(backend)
    }

    fn pool_candidates(
        &self,
        pool: &str,
        now_ms: u64,
        skip_kinds: &[&str],
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, resume_after_ms, reentries, rest_cost, graphql_cost, content_cost FROM deferrals d \
                 WHERE state = 'deferred' AND pool = ?1 AND resume_after_ms <= ?2 AND resume_by_ms >= ?2 \
                 AND launch_kind NOT IN (SELECT value FROM json_each(?3)) \
                 AND NOT EXISTS (SELECT 1 FROM admissions a WHERE a.deferral_id = d.id AND a.attempt = d.reentries + 1 \
                                 AND a.released_ms IS NULL AND a.expires_ms > ?2) \
                 ORDER BY resume_after_ms, id LIMIT ?4",
            )
            .map_err(backend)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(
                params![pool, to_i64(now_ms), super::json_list(skip_kinds), limit],
                |row| {
                    Ok(Candidate {
                        id: row.get(0)?,
                        resume_after_ms: get_u64(row, 1)?,
                        attempt: row.get::<_, u32>(2)? + 1,
                        cost: cost_of_cells(row.get(3)?, row.get(4)?, row.get(5)?),
                    })
                },
            )
            .map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }

    fn pool_of(&self, deferral_id: &str) -> Result<Option<(String, Option<Cost>)>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT pool, rest_cost, graphql_cost, content_cost FROM deferrals WHERE id = ?1",
            )
            .map_err(backend)?
            .query_row([deferral_id], |r| {
                Ok((r.get(0)?, cost_of_cells(r.get(1)?, r.get(2)?, r.get(3)?)))
            })
            .optional()
            .map_err(backend)
    }

    fn set_cost(&self, deferral_id: &str, cost: &Cost) -> Result<(), StoreError> {
        let cells = cost_cells(Some(cost));
        self.write(|conn| {
            conn.prepare_cached(
                "UPDATE deferrals SET rest_cost = ?1, graphql_cost = ?2, content_cost = ?3 WHERE id = ?4",
            )
            .map_err(backend)?
            .execute(params![cells.0, cells.1, cells.2, deferral_id])
            .map_err(backend)?;
            Ok(())
        })
    }

    fn observations_of(&self, deferral_id: &str) -> Result<Vec<Observation>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT resource, reported_limit, remaining, reserve, reset_ms, observed_ms, source, deferral_id \
                 FROM pool_observations WHERE deferral_id = ?1 ORDER BY seq",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map([deferral_id], |r| {
                let resource: String = r.get(0)?;
                Ok(Observation {
                    resource: Resource::parse(&resource).unwrap_or(Resource::Rest),
                    limit: get_u64(r, 1)?,
                    remaining: get_u64(r, 2)?,
                    reserve: get_u64(r, 3)?,
                    reset_ms: get_u64(r, 4)?,
                    observed_ms: get_u64(r, 5)?,
                    source: r.get(6)?,
                    deferral_id: r.get(7)?,
                })
            })
            .map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }
}
