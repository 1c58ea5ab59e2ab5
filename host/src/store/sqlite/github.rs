//! The SQLite side of [`LoopStore`]: the GitHub loop's tables (see `store::github`).

use super::super::github::{
    receipt_digest, ArtifactRef, Link, LoopStore, RunRecord, SUBMITTED_KIND,
};
use super::super::{Deferral, NewDeferral, NewReceipt, StoreError};
use super::{backend, get_u64, select_with, to_i64, SqliteStore};
use rusqlite::{params, Connection, OptionalExtension};

/// The migration that adds the loop's tables.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE receipt_keys (
    digest      TEXT PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id)
);
CREATE INDEX receipt_keys_deferral ON receipt_keys (deferral_id);
CREATE TABLE artifacts (
    artifact_id INTEGER PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    repo        TEXT NOT NULL,
    run_id      INTEGER
);
CREATE TABLE runs (
    deferral_id   TEXT NOT NULL REFERENCES deferrals (id),
    attempt       INTEGER NOT NULL,
    run_id        INTEGER,
    html_url      TEXT,
    workflow      TEXT NOT NULL,
    dispatched_ms INTEGER NOT NULL,
    PRIMARY KEY (deferral_id, attempt)
);
CREATE INDEX runs_run ON runs (run_id);
CREATE TABLE links (
    successor_id   TEXT PRIMARY KEY REFERENCES deferrals (id),
    predecessor_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    chain          INTEGER NOT NULL
);
CREATE TABLE http_cache (
    key        TEXT PRIMARY KEY,
    etag       TEXT NOT NULL,
    body       TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
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

fn is_unique_violation(err: &rusqlite::Error) -> bool {
    matches!(err, rusqlite::Error::SqliteFailure(e, _) if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// Writes a new deferral's keys in its insert transaction: its submitted receipt's digest, its
/// artifact and its predecessor must be new, else `Duplicate` (and the insert rolls back).
pub(super) fn register_new(conn: &Connection, new: &NewDeferral) -> Result<(), StoreError> {
    let duplicate = |err: rusqlite::Error| {
        if is_unique_violation(&err) {
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
            "INSERT INTO receipt_keys (digest, deferral_id) VALUES (?1, ?2)"
        } else {
            "INSERT OR IGNORE INTO receipt_keys (digest, deferral_id) VALUES (?1, ?2)"
        };
        conn.execute(sql, params![digest, new.id])
            .map_err(duplicate)?;
    }
    if let Some(artifact) = &new.keys.artifact {
        conn.execute(
            "INSERT INTO artifacts (artifact_id, deferral_id, repo, run_id) VALUES (?1, ?2, ?3, ?4)",
            params![to_i64(artifact.artifact_id), new.id, artifact.repo, artifact.run_id.map(to_i64)],
        )
        .map_err(duplicate)?;
    }
    if let Some(name) = &new.keys.artifact_name {
        conn.execute(
            "INSERT INTO artifact_names (deferral_id, name) VALUES (?1, ?2)",
            params![new.id, name],
        )
        .map_err(backend)?;
    }
    if let Some(predecessor) = &new.keys.predecessor {
        let chain: i64 = conn
            .query_row(
                "SELECT chain FROM links WHERE successor_id = ?1",
                [predecessor],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)?
            .unwrap_or(0);
        conn.execute(
            "INSERT INTO links (successor_id, predecessor_id, chain) VALUES (?1, ?2, ?3)",
            params![new.id, predecessor, chain + 1],
        )
        .map_err(duplicate)?;
    }
    Ok(())
}

/// Indexes the receipts an update appends (issued for an existing deferral).
pub(super) fn register_receipts(
    conn: &Connection,
    id: &str,
    receipts: &[NewReceipt],
) -> Result<(), StoreError> {
    for receipt in receipts {
        if let Some(digest) = receipt_digest(&receipt.text) {
            conn.execute(
                "INSERT OR IGNORE INTO receipt_keys (digest, deferral_id) VALUES (?1, ?2)",
                params![digest, id],
            )
            .map_err(backend)?;
        }
    }
    Ok(())
}

/// Indexes the receipts stored before this migration, so they are found and deduplicated too.
pub(super) fn backfill(conn: &Connection) -> Result<(), StoreError> {
    let mut stmt = conn
        .prepare("SELECT deferral_id, receipt FROM receipts ORDER BY seq")
        .map_err(backend)?;
    let rows: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(backend)?
        .collect::<Result<_, _>>()
        .map_err(backend)?;
    for (id, text) in rows {
        register_receipts(
            conn,
            &id,
            &[NewReceipt {
                kind: String::new(),
                text,
            }],
        )?;
    }
    Ok(())
}

fn read_run(row: &rusqlite::Row) -> rusqlite::Result<RunRecord> {
    Ok(RunRecord {
        deferral_id: row.get(0)?,
        attempt: row.get(1)?,
        run_id: row
            .get::<_, Option<i64>>(2)?
            .map(|v| u64::try_from(v).unwrap_or(0)),
        html_url: row.get(3)?,
        workflow: row.get(4)?,
        dispatched_ms: get_u64(row, 5)?,
        run_url: row.get(6)?,
    })
}

const RUN_COLUMNS: &str =
    "deferral_id, attempt, run_id, html_url, workflow, dispatched_ms, run_url";

impl LoopStore for SqliteStore {
    fn find_by_receipt_digest(&self, digest: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT deferral_id FROM receipt_keys WHERE digest = ?1",
                [digest],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)
    }

    fn find_by_artifact(&self, artifact_id: u64) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT deferral_id FROM artifacts WHERE artifact_id = ?1",
                [to_i64(artifact_id)],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)
    }

    fn add_artifact(&self, deferral_id: &str, artifact: &ArtifactRef) -> Result<bool, StoreError> {
        let added = self
            .conn
            .execute(
                "INSERT OR IGNORE INTO artifacts (artifact_id, deferral_id, repo, run_id) VALUES (?1, ?2, ?3, ?4)",
                params![to_i64(artifact.artifact_id), deferral_id, artifact.repo, artifact.run_id.map(to_i64)],
            )
            .map_err(backend)?;
        Ok(added == 1)
    }

    fn put_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO runs (deferral_id, attempt, run_id, html_url, workflow, dispatched_ms, run_url) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (deferral_id, attempt) DO UPDATE SET \
                 run_id = excluded.run_id, html_url = excluded.html_url, run_url = excluded.run_url",
                params![
                    run.deferral_id,
                    run.attempt,
                    run.run_id.map(to_i64),
                    run.html_url,
                    run.workflow,
                    to_i64(run.dispatched_ms),
                    run.run_url
                ],
            )
            .map_err(backend)?;
        Ok(())
    }

    fn run_of(&self, deferral_id: &str, attempt: u32) -> Result<Option<RunRecord>, StoreError> {
        self.conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE deferral_id = ?1 AND attempt = ?2"),
                params![deferral_id, attempt],
                read_run,
            )
            .optional()
            .map_err(backend)
    }

    fn is_own_run(&self, run_id: u64) -> Result<bool, StoreError> {
        let found: Option<i64> = self
            .conn
            .query_row(
                "SELECT 1 FROM runs WHERE run_id = ?1 LIMIT 1",
                [to_i64(run_id)],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)?;
        Ok(found.is_some())
    }

    fn dispatched(&self, limit: usize) -> Result<Vec<(Deferral, Option<RunRecord>)>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = select_with(
            &self.conn,
            "WHERE state = 'resumable' AND attempt_status = 'dispatched' ORDER BY updated_ms, id LIMIT ?1",
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
        let up: Option<(String, i64)> = self
            .conn
            .query_row(
                "SELECT predecessor_id, chain FROM links WHERE successor_id = ?1",
                [deferral_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(backend)?;
        let successor: Option<String> = self
            .conn
            .query_row(
                "SELECT successor_id FROM links WHERE predecessor_id = ?1",
                [deferral_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)?;
        Ok(Link {
            chain: up
                .as_ref()
                .map_or(0, |(_, c)| u32::try_from(*c).unwrap_or(0)),
            predecessor: up.map(|(p, _)| p),
            successor,
        })
    }

    fn artifact_name(&self, deferral_id: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT name FROM artifact_names WHERE deferral_id = ?1",
                [deferral_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)
    }

    fn cached(&self, key: &str) -> Result<Option<(String, String)>, StoreError> {
        self.conn
            .query_row(
                "SELECT etag, body FROM http_cache WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(backend)
    }

    fn put_cached(&self, key: &str, etag: &str, body: &str, at_ms: u64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO http_cache (key, etag, body, updated_ms) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (key) DO UPDATE SET etag = excluded.etag, body = excluded.body, updated_ms = excluded.updated_ms",
                params![key, etag, body, to_i64(at_ms)],
            )
            .map_err(backend)?;
        Ok(())
    }
}
