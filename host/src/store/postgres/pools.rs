//! The PostgreSQL side of [`PoolStore`] (see `store::pools`). A pool's row is locked
//! (`SELECT ... FOR UPDATE`) before its version is compared, so two tickers on two machines
//! writing one pool are serialised: the second reads the first's version and gets `None`.

use super::super::pools::{
    cost_cells, cost_of_cells, window_cells, window_of_cells, Admission, Candidate, Cost,
    Observation, PoolRow, PoolStore, PoolWrite, PoolWritten, Resource, DEFAULT_POOL, POOL_COLUMNS,
};
use super::super::{NewDeferral, StoreError};
use super::{backend, to_i64, to_u32, to_u64, PostgresStore};
use postgres::{GenericClient, Row, Transaction};

/// Migration 5: pools, costs, admissions, observations.
pub(super) const MIGRATION: &str = r#"
ALTER TABLE deferrals ADD COLUMN pool TEXT NOT NULL DEFAULT 'default';
ALTER TABLE deferrals ADD COLUMN rest_cost BIGINT;
ALTER TABLE deferrals ADD COLUMN graphql_cost BIGINT;
ALTER TABLE deferrals ADD COLUMN content_cost BIGINT;
-- A pool's due deferrals, earliest first then by id: a range scan that stops at the limit.
CREATE INDEX deferrals_pool_due ON deferrals (state, pool, resume_after_ms, id);
CREATE TABLE pools (
    name                TEXT PRIMARY KEY,
    version             BIGINT NOT NULL,
    rest_limit          BIGINT,
    rest_remaining      BIGINT,
    rest_reserve        BIGINT,
    rest_reset_ms       BIGINT,
    rest_observed_ms    BIGINT,
    rest_source         TEXT,
    graphql_limit       BIGINT,
    graphql_remaining   BIGINT,
    graphql_reserve     BIGINT,
    graphql_reset_ms    BIGINT,
    graphql_observed_ms BIGINT,
    graphql_source      TEXT,
    hold_until_ms       BIGINT,
    hold_reason         TEXT,
    updated_ms          BIGINT NOT NULL
);
INSERT INTO pools (name, version, updated_ms) VALUES ('default', 1, 0);
CREATE TABLE pool_observations (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pool           TEXT NOT NULL,
    deferral_id    TEXT,
    resource       TEXT NOT NULL,
    reported_limit BIGINT NOT NULL,
    remaining      BIGINT NOT NULL,
    reserve        BIGINT NOT NULL,
    reset_ms       BIGINT NOT NULL,
    observed_ms    BIGINT NOT NULL,
    source         TEXT NOT NULL
);
CREATE INDEX pool_observations_deferral ON pool_observations (deferral_id, seq);
CREATE TRIGGER pool_observations_no_update BEFORE UPDATE ON pool_observations FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER pool_observations_no_delete BEFORE DELETE ON pool_observations FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TABLE admissions (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pool            TEXT NOT NULL,
    deferral_id     TEXT,
    attempt         BIGINT NOT NULL,
    rest_cost       BIGINT,
    graphql_cost    BIGINT,
    content_cost    BIGINT,
    window_reset_ms BIGINT NOT NULL,
    expires_ms      BIGINT NOT NULL,
    admitted_ms     BIGINT NOT NULL,
    released_ms     BIGINT
);
CREATE INDEX admissions_open ON admissions (pool, released_ms, expires_ms);
CREATE INDEX admissions_deferral ON admissions (deferral_id, attempt);
"#;

fn read_pool(row: &Row) -> PoolRow {
    let cells = |at: usize| {
        (
            row.get::<_, Option<i64>>(at),
            row.get::<_, Option<i64>>(at + 1),
            row.get::<_, Option<i64>>(at + 2),
            row.get::<_, Option<i64>>(at + 3),
            row.get::<_, Option<i64>>(at + 4),
            row.get::<_, Option<String>>(at + 5),
        )
    };
    PoolRow {
        name: row.get(0),
        version: to_u64(row.get(1)),
        rest: window_of_cells(cells(2)),
        graphql: window_of_cells(cells(8)),
        hold_until_ms: row.get::<_, Option<i64>>(14).map(to_u64),
        hold_reason: row.get(15),
        updated_ms: to_u64(row.get(16)),
    }
}

const ADMISSION_COLUMNS: &str =
    "seq, pool, deferral_id, attempt, rest_cost, graphql_cost, content_cost, \
     window_reset_ms, expires_ms, admitted_ms, released_ms";

fn read_admission(row: &Row) -> Admission {
    Admission {
        seq: to_u64(row.get(0)),
        pool: row.get(1),
        deferral_id: row.get(2),
        attempt: to_u32(row.get(3)),
        cost: cost_of_cells(row.get(4), row.get(5), row.get(6)),
        window_reset_ms: to_u64(row.get(7)),
        expires_ms: to_u64(row.get(8)),
        admitted_ms: to_u64(row.get(9)),
        released_ms: row.get::<_, Option<i64>>(10).map(to_u64),
    }
}

fn pool_in(
    conn: &mut impl GenericClient,
    name: &str,
    lock: bool,
) -> Result<Option<PoolRow>, StoreError> {
    let sql = format!(
        "SELECT {POOL_COLUMNS} FROM pools WHERE name = $1{}",
        if lock { " FOR UPDATE" } else { "" }
    );
    Ok(conn
        .query_opt(sql.as_str(), &[&name])
        .map_err(backend)?
        .map(|r| read_pool(&r)))
}

/// The compare-and-set of [`PoolStore::write_pool`], inside a transaction the caller holds.
fn write_pool_in(tx: &mut Transaction, w: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
    let name = &w.row.name;
    // The lock: a concurrent writer of this pool waits here, then reads our version.
    let version = pool_in(tx, name, true)?.map_or(0, |p| p.version);
    if version != w.expect_version {
        return Ok(None);
    }
    let (rest, graphql) = (
        window_cells(w.row.rest.as_ref()),
        window_cells(w.row.graphql.as_ref()),
    );
    let next = to_i64(w.expect_version + 1);
    let hold = w.row.hold_until_ms.map(to_i64);
    let changed = tx
        .execute(
            "INSERT INTO pools (name, version, rest_limit, rest_remaining, rest_reserve, rest_reset_ms, rest_observed_ms, rest_source, \
             graphql_limit, graphql_remaining, graphql_reserve, graphql_reset_ms, graphql_observed_ms, graphql_source, \
             hold_until_ms, hold_reason, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
             ON CONFLICT (name) DO UPDATE SET version = excluded.version, rest_limit = excluded.rest_limit, \
             rest_remaining = excluded.rest_remaining, rest_reserve = excluded.rest_reserve, rest_reset_ms = excluded.rest_reset_ms, \
             rest_observed_ms = excluded.rest_observed_ms, rest_source = excluded.rest_source, graphql_limit = excluded.graphql_limit, \
             graphql_remaining = excluded.graphql_remaining, graphql_reserve = excluded.graphql_reserve, \
             graphql_reset_ms = excluded.graphql_reset_ms, graphql_observed_ms = excluded.graphql_observed_ms, \
             graphql_source = excluded.graphql_source, hold_until_ms = excluded.hold_until_ms, hold_reason = excluded.hold_reason, \
             updated_ms = excluded.updated_ms WHERE pools.version = $18",
            &[
                name, &next, &rest.0, &rest.1, &rest.2, &rest.3, &rest.4, &rest.5, &graphql.0, &graphql.1, &graphql.2,
                &graphql.3, &graphql.4, &graphql.5, &hold, &w.row.hold_reason, &to_i64(w.at_ms),
                &to_i64(w.expect_version),
            ],
        )
        .map_err(backend)?;
    if changed != 1 {
        return Ok(None);
    }
    let mut admitted = Vec::with_capacity(w.admit.len());
    for a in &w.admit {
        let cost = cost_cells(a.cost.as_ref());
        let row = tx.query_one(
            "INSERT INTO admissions (pool, deferral_id, attempt, rest_cost, graphql_cost, content_cost, window_reset_ms, expires_ms, admitted_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq",
            &[
                name,
                &a.deferral_id,
                &i64::from(a.attempt),
                &cost.0,
                &cost.1,
                &cost.2,
                &to_i64(a.window_reset_ms),
                &to_i64(a.expires_ms),
                &to_i64(w.at_ms),
            ],
        )
        .map_err(backend)?;
        admitted.push(to_u64(row.get(0)));
    }
    for seq in &w.release {
        tx.execute(
            "UPDATE admissions SET released_ms = $1 WHERE seq = $2 AND released_ms IS NULL",
            &[&to_i64(w.at_ms), &to_i64(*seq)],
        )
        .map_err(backend)?;
    }
    for o in &w.observations {
        tx.execute(
            "INSERT INTO pool_observations (pool, deferral_id, resource, reported_limit, remaining, reserve, reset_ms, observed_ms, source) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                name,
                &o.deferral_id,
                &o.resource.as_str(),
                &to_i64(o.limit),
                &to_i64(o.remaining),
                &to_i64(o.reserve),
                &to_i64(o.reset_ms),
                &to_i64(o.observed_ms),
                &o.source,
            ],
        )
        .map_err(backend)?;
    }
    Ok(pool_in(tx, name, false)?.map(|row| PoolWritten { row, admitted }))
}

/// Writes a new deferral's pool and cost in its insert transaction, and teaches the pool the
/// rate state its gate saw.
pub(super) fn register_new(tx: &mut Transaction, new: &NewDeferral) -> Result<(), StoreError> {
    let tag = new.keys.pool.clone().unwrap_or_default();
    let seen = tag.seen_by(&new.id);
    let inherited: Option<String> = match (&tag.pool, &new.keys.predecessor) {
        (None, Some(predecessor)) => tx
            .query_opt("SELECT pool FROM deferrals WHERE id = $1", &[predecessor])
            .map_err(backend)?
            .map(|r| r.get(0)),
        _ => None,
    };
    let pool = tag
        .pool
        .or(inherited)
        .unwrap_or_else(|| DEFAULT_POOL.to_string());
    let cost = cost_cells(tag.cost.as_ref());
    tx.execute(
        "UPDATE deferrals SET pool = $1, rest_cost = $2, graphql_cost = $3, content_cost = $4 WHERE id = $5",
        &[&pool, &cost.0, &cost.1, &cost.2, &new.id],
    )
    .map_err(backend)?;
    let existing = pool_in(tx, &pool, !tag.seen.is_empty())?;
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
    match write_pool_in(tx, &write)? {
        Some(_) => Ok(()),
        // A new pool another transaction created first: learn on top of its row.
        None => {
            let mut row = pool_in(tx, &pool, true)?.unwrap_or_else(|| PoolRow::empty(&pool));
            let expect_version = row.version;
            row.observe(&seen);
            write_pool_in(
                tx,
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

impl PoolStore for PostgresStore {
    fn pool(&self, name: &str) -> Result<Option<PoolRow>, StoreError> {
        pool_in(&mut *self.client(), name, false)
    }

    fn pools(&self) -> Result<Vec<PoolRow>, StoreError> {
        Ok(self
            .client()
            .query(
                format!("SELECT {POOL_COLUMNS} FROM pools ORDER BY name").as_str(),
                &[],
            )
            .map_err(backend)?
            .iter()
            .map(read_pool)
            .collect())
    }

    fn write_pool(&self, write: &PoolWrite) -> Result<Option<PoolWritten>, StoreError> {
        self.write(|tx| write_pool_in(tx, write))
    }

    fn admission(&self, seq: u64) -> Result<Option<Admission>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                format!("SELECT {ADMISSION_COLUMNS} FROM admissions WHERE seq = $1").as_str(),
                &[&to_i64(seq)],
            )
            .map_err(backend)?
            .map(|r| read_admission(&r)))
    }

    fn open_admissions(&self, pool: &str, now_ms: u64) -> Result<Vec<Admission>, StoreError> {
        Ok(self
            .client()
            .query(
                format!(
                    "SELECT {ADMISSION_COLUMNS} FROM admissions WHERE pool = $1 AND released_ms IS NULL AND expires_ms > $2 ORDER BY seq"
                )
                .as_str(),
                &[&pool, &to_i64(now_ms)],
            )
            .map_err(backend)?
            .iter()
            .map(read_admission)
            .collect())
    }

    fn admission_of(
        &self,
        deferral_id: &str,
        attempt: u32,
        now_ms: u64,
    ) -> Result<Option<Admission>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                format!(
                    "SELECT {ADMISSION_COLUMNS} FROM admissions WHERE deferral_id = $1 AND attempt = $2 \
                     AND released_ms IS NULL AND expires_ms > $3 ORDER BY seq DESC LIMIT 1"
                )
                .as_str(),
                &[&deferral_id, &i64::from(attempt), &to_i64(now_ms)],
            )
            .map_err(backend)?
            .map(|r| read_admission(&r)))
    }

    fn pool_candidates(
        &self,
        pool: &str,
        now_ms: u64,
        skip_kinds: &[&str],
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(self
            .client()
            .query(
                "SELECT id, resume_after_ms, reentries, rest_cost, graphql_cost, content_cost FROM deferrals d \
                 WHERE state = 'deferred' AND pool = $1 AND resume_after_ms <= $2 AND resume_by_ms >= $2 \
                 AND NOT (launch_kind = ANY($3)) \
                 AND NOT EXISTS (SELECT 1 FROM admissions a WHERE a.deferral_id = d.id AND a.attempt = d.reentries + 1 \
                                 AND a.released_ms IS NULL AND a.expires_ms > $2) \
                 ORDER BY resume_after_ms, id LIMIT $4",
                &[&pool, &to_i64(now_ms), &skip_kinds, &limit],
            )
            .map_err(backend)?
            .iter()
            .map(|row| Candidate {
                id: row.get(0),
                resume_after_ms: to_u64(row.get(1)),
                attempt: to_u32(row.get(2)) + 1,
                cost: cost_of_cells(row.get(3), row.get(4), row.get(5)),
            })
            .collect())
    }

    fn pool_of(&self, deferral_id: &str) -> Result<Option<(String, Option<Cost>)>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                "SELECT pool, rest_cost, graphql_cost, content_cost FROM deferrals WHERE id = $1",
                &[&deferral_id],
            )
            .map_err(backend)?
            .map(|r| (r.get(0), cost_of_cells(r.get(1), r.get(2), r.get(3)))))
    }

    fn set_cost(&self, deferral_id: &str, cost: &Cost) -> Result<(), StoreError> {
        let cells = cost_cells(Some(cost));
        self.client()
            .execute(
                "UPDATE deferrals SET rest_cost = $1, graphql_cost = $2, content_cost = $3 WHERE id = $4",
                &[&cells.0, &cells.1, &cells.2, &deferral_id],
            )
            .map_err(backend)?;
        Ok(())
    }

    fn observations_of(&self, deferral_id: &str) -> Result<Vec<Observation>, StoreError> {
        Ok(self
            .client()
            .query(
                "SELECT resource, reported_limit, remaining, reserve, reset_ms, observed_ms, source, deferral_id \
                 FROM pool_observations WHERE deferral_id = $1 ORDER BY seq",
                &[&deferral_id],
            )
            .map_err(backend)?
            .iter()
            .map(|r| Observation {
                resource: Resource::parse(r.get(0)).unwrap_or(Resource::Rest),
                limit: to_u64(r.get(1)),
                remaining: to_u64(r.get(2)),
                reserve: to_u64(r.get(3)),
                reset_ms: to_u64(r.get(4)),
                observed_ms: to_u64(r.get(5)),
                source: r.get(6),
                deferral_id: r.get(7),
            })
            .collect())
    }
}
