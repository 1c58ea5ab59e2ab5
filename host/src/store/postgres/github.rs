//! The PostgreSQL side of [`LoopStore`]: the GitHub loop's tables (see `store::github`).

use super::super::github::{
    receipt_digest, ArtifactRef, Link, LoopStore, RunRecord, SUBMITTED_KIND,
};
use super::super::{Deferral, NewDeferral, NewReceipt, StoreError};
use super::{backend, select_with, to_i64, to_u32, to_u64, PostgresStore};
use postgres::error::SqlState;
use postgres::{GenericClient, Row, Transaction};

/// The migration that adds the loop's tables.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE receipt_keys (
    digest      TEXT PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id)
);
CREATE INDEX receipt_keys_deferral ON receipt_keys (deferral_id);
CREATE TABLE artifacts (
    artifact_id BIGINT PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    repo        TEXT NOT NULL,
    run_id      BIGINT
);
CREATE TABLE runs (
    deferral_id   TEXT NOT NULL REFERENCES deferrals (id),
    attempt       BIGINT NOT NULL,
    run_id        BIGINT,
    html_url      TEXT,
    workflow      TEXT NOT NULL,
    dispatched_ms BIGINT NOT NULL,
    PRIMARY KEY (deferral_id, attempt)
);
CREATE INDEX runs_run ON runs (run_id);
CREATE TABLE links (
    successor_id   TEXT PRIMARY KEY REFERENCES deferrals (id),
    predecessor_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    chain          BIGINT NOT NULL
);
CREATE TABLE http_cache (
    key        TEXT PRIMARY KEY,
    etag       TEXT NOT NULL,
    body       TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE TABLE artifact_names (
    deferral_id TEXT PRIMARY KEY REFERENCES deferrals (id),
    name        TEXT NOT NULL
);
CREATE INDEX deferrals_attempt ON deferrals (state, attempt_status);
"#;

/// The migration that keeps a run's API URL beside its page (`html_url` already held the page,
/// so older rows keep it there and have no `run_url`).
pub(super) const RUN_URLS_MIGRATION: &str = "ALTER TABLE runs ADD COLUMN run_url TEXT;";

fn opt_i64(value: Option<u64>) -> Option<i64> {
    value.map(to_i64)
}

/// Writes a new deferral's keys in its insert transaction: its submitted receipt's digest, its
/// artifact and its predecessor must be new, else `Duplicate` (and the insert rolls back).
pub(super) fn register_new(tx: &mut Transaction, new: &NewDeferral) -> Result<(), StoreError> {
    let duplicate = |err: postgres::Error| {
        if err.code() == Some(&SqlState::UNIQUE_VIOLATION) {
            StoreError::Duplicate(new.id.clone())
        } else {
            backend(err)
        }
    };
    for receipt in &new.receipts {
        let Some(digest) = receipt_digest(&receipt.text) else {
            continue;
        };
        // A submitted receipt must be new; the forms the host issues are indexed as found.
        let sql = if receipt.kind == SUBMITTED_KIND {
            "INSERT INTO receipt_keys (digest, deferral_id) VALUES ($1, $2)"
        } else {
            "INSERT INTO receipt_keys (digest, deferral_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
        };
        tx.execute(sql, &[&digest, &new.id]).map_err(duplicate)?;
    }
    if let Some(artifact) = &new.keys.artifact {
        tx.execute(
            "INSERT INTO artifacts (artifact_id, deferral_id, repo, run_id) VALUES ($1, $2, $3, $4)",
            &[&to_i64(artifact.artifact_id), &new.id, &artifact.repo, &opt_i64(artifact.run_id)],
        )
        .map_err(duplicate)?;
    }
    if let Some(name) = &new.keys.artifact_name {
        tx.execute(
            "INSERT INTO artifact_names (deferral_id, name) VALUES ($1, $2)",
            &[&new.id, name],
        )
        .map_err(backend)?;
    }
    if let Some(predecessor) = &new.keys.predecessor {
        let chain: i64 = tx
            .query_opt(
                "SELECT chain FROM links WHERE successor_id = $1",
                &[predecessor],
            )
            .map_err(backend)?
            .map_or(0, |r| r.get(0));
        tx.execute(
            "INSERT INTO links (successor_id, predecessor_id, chain) VALUES ($1, $2, $3)",
            &[&new.id, predecessor, &(chain + 1)],
        )
        .map_err(duplicate)?;
    }
    Ok(())
}

/// Indexes the receipts an update appends (issued for an existing deferral).
pub(super) fn register_receipts(
    tx: &mut impl GenericClient,
    id: &str,
    receipts: &[NewReceipt],
) -> Result<(), StoreError> {
    for receipt in receipts {
        if let Some(digest) = receipt_digest(&receipt.text) {
            tx.execute(
                "INSERT INTO receipt_keys (digest, deferral_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&digest, &id],
            )
            .map_err(backend)?;
        }
    }
    Ok(())
}

/// Indexes the receipts stored before this migration, so they are found and deduplicated too.
pub(super) fn backfill(tx: &mut Transaction) -> Result<(), StoreError> {
    let rows = tx
        .query(
            "SELECT deferral_id, receipt FROM receipts ORDER BY seq",
            &[],
        )
        .map_err(backend)?;
    for row in rows {
        let id: String = row.get(0);
        let text: String = row.get(1);
        register_receipts(
            tx,
            &id,
            &[NewReceipt {
                kind: String::new(),
                text,
            }],
        )?;
    }
    Ok(())
}

fn read_run(row: &Row) -> RunRecord {
    RunRecord {
        deferral_id: row.get(0),
        attempt: to_u32(row.get(1)),
        run_id: row.get::<_, Option<i64>>(2).map(to_u64),
        html_url: row.get(3),
        workflow: row.get(4),
        dispatched_ms: to_u64(row.get(5)),
        run_url: row.get(6),
    }
}

const RUN_COLUMNS: &str =
    "deferral_id, attempt, run_id, html_url, workflow, dispatched_ms, run_url";

impl LoopStore for PostgresStore {
    fn find_by_receipt_digest(&self, digest: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                "SELECT deferral_id FROM receipt_keys WHERE digest = $1",
                &[&digest],
            )
            .map_err(backend)?
            .map(|r| r.get(0)))
    }

    fn find_by_artifact(&self, artifact_id: u64) -> Result<Option<String>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                "SELECT deferral_id FROM artifacts WHERE artifact_id = $1",
                &[&to_i64(artifact_id)],
            )
            .map_err(backend)?
            .map(|r| r.get(0)))
    }

    fn add_artifact(&self, deferral_id: &str, artifact: &ArtifactRef) -> Result<bool, StoreError> {
        let added = self
            .client()
            .execute(
                "INSERT INTO artifacts (artifact_id, deferral_id, repo, run_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                &[&to_i64(artifact.artifact_id), &deferral_id, &artifact.repo, &opt_i64(artifact.run_id)],
            )
            .map_err(backend)?;
        Ok(added == 1)
    }

    fn put_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.client()
            .execute(
                "INSERT INTO runs (deferral_id, attempt, run_id, html_url, workflow, dispatched_ms, run_url) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (deferral_id, attempt) DO UPDATE SET \
                 run_id = excluded.run_id, html_url = excluded.html_url, run_url = excluded.run_url",
                &[
                    &run.deferral_id,
                    &i64::from(run.attempt),
                    &opt_i64(run.run_id),
                    &run.html_url,
                    &run.workflow,
                    &to_i64(run.dispatched_ms),
                    &run.run_url,
                ],
            )
            .map_err(backend)?;
        Ok(())
    }

    fn run_of(&self, deferral_id: &str, attempt: u32) -> Result<Option<RunRecord>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE deferral_id = $1 AND attempt = $2"),
                &[&deferral_id, &i64::from(attempt)],
            )
            .map_err(backend)?
            .as_ref()
            .map(read_run))
    }

    fn is_own_run(&self, run_id: u64) -> Result<bool, StoreError> {
        Ok(self
            .client()
            .query_opt(
                "SELECT 1 FROM runs WHERE run_id = $1 LIMIT 1",
                &[&to_i64(run_id)],
            )
            .map_err(backend)?
            .is_some())
    }

    fn dispatched(&self, limit: usize) -> Result<Vec<(Deferral, Option<RunRecord>)>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = select_with(
            &mut *self.client(),
            "WHERE state = 'resumable' AND attempt_status = 'dispatched' ORDER BY updated_ms, id LIMIT $1",
            &[&limit],
        )?;
        rows.into_iter()
            .map(|d| {
                let run = self.run_of(&d.id, d.reentries)?;
                Ok((d, run))
            })
            .collect()
    }

    fn link(&self, deferral_id: &str) -> Result<Link, StoreError> {
        let mut client = self.client();
        let up = client
            .query_opt(
                "SELECT predecessor_id, chain FROM links WHERE successor_id = $1",
                &[&deferral_id],
            )
            .map_err(backend)?;
        let successor = client
            .query_opt(
                "SELECT successor_id FROM links WHERE predecessor_id = $1",
                &[&deferral_id],
            )
            .map_err(backend)?
            .map(|r| r.get(0));
        Ok(Link {
            chain: up.as_ref().map_or(0, |r| to_u32(r.get(1))),
            predecessor: up.map(|r| r.get(0)),
            successor,
        })
    }

    fn artifact_name(&self, deferral_id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .client()
            .query_opt(
                "SELECT name FROM artifact_names WHERE deferral_id = $1",
                &[&deferral_id],
            )
            .map_err(backend)?
            .map(|r| r.get(0)))
    }

    fn cached(&self, key: &str) -> Result<Option<(String, String)>, StoreError> {
        Ok(self
            .client()
            .query_opt("SELECT etag, body FROM http_cache WHERE key = $1", &[&key])
            .map_err(backend)?
            .map(|r| (r.get(0), r.get(1))))
    }

    fn put_cached(&self, key: &str, etag: &str, body: &str, at_ms: u64) -> Result<(), StoreError> {
        self.client()
            .execute(
                "INSERT INTO http_cache (key, etag, body, updated_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (key) DO UPDATE SET etag = excluded.etag, body = excluded.body, updated_ms = excluded.updated_ms",
                &[&key, &etag, &body, &to_i64(at_ms)],
            )
            .map_err(backend)?;
        Ok(())
    }
}
