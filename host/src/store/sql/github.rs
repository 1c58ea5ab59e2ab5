//! [`LoopStore`] over SQL, for both backends: the GitHub loop's tables (see `store::github`).

use super::super::github::{
    workflow_repo, ArtifactRef, CheckRunRef, CommitRef, Face, Link, LoopStore, RunRecord,
    SUBMITTED_KIND,
};
use super::super::{Deferral, NewDeferral, NewReceipt, StoreError};
use super::{args, query_all, query_opt, rows, to_i64, SqlBackend, SqlConn, SqlRow};

/// Writes a new deferral's keys in its insert transaction: its submitted receipt's digest, its
/// artifact and its predecessor must be new, else `Duplicate` (and the insert rolls back).
pub fn register_new(conn: &mut dyn SqlConn, new: &NewDeferral) -> Result<(), StoreError> {
    let duplicate = || StoreError::Duplicate(new.id.clone());
    for receipt in &new.receipts {
        let Some(digest) = &receipt.digest else {
            continue;
        };
        // A submitted receipt must be new; the forms the host issues are indexed as found.
        let sql = if receipt.kind == SUBMITTED_KIND {
            "INSERT INTO receipt_keys (digest, deferral_id) VALUES (?1, ?2)"
        } else {
            "INSERT INTO receipt_keys (digest, deferral_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING"
        };
        conn.execute_unique(sql, args![digest, &new.id])?
            .ok_or_else(duplicate)?;
    }
    if let Some(artifact) = &new.keys.artifact {
        conn.execute_unique(
            "INSERT INTO artifacts (artifact_id, deferral_id, repo, run_id) VALUES (?1, ?2, ?3, ?4)",
            args![
                to_i64(artifact.artifact_id),
                &new.id,
                &artifact.repo,
                artifact.run_id.map(to_i64)
            ],
        )?
        .ok_or_else(duplicate)?;
    }
    if let Some(name) = &new.keys.artifact_name {
        conn.execute(
            "INSERT INTO artifact_names (deferral_id, name) VALUES (?1, ?2)",
            args![&new.id, name],
        )?;
    }
    if let Some(predecessor) = &new.keys.predecessor {
        let chain = query_opt(
            conn,
            "SELECT chain FROM links WHERE successor_id = ?1",
            args![predecessor],
            |r| r.i64(0),
        )?
        .unwrap_or(0);
        conn.execute_unique(
            "INSERT INTO links (successor_id, predecessor_id, chain) VALUES (?1, ?2, ?3)",
            args![&new.id, predecessor, chain + 1],
        )?
        .ok_or_else(duplicate)?;
    }
    Ok(())
}

/// Indexes the receipts an update appends (issued for an existing deferral).
pub fn register_receipts(
    conn: &mut dyn SqlConn,
    id: &str,
    receipts: &[NewReceipt],
) -> Result<(), StoreError> {
    for receipt in receipts {
        if let Some(digest) = &receipt.digest {
            conn.execute(
                "INSERT INTO receipt_keys (digest, deferral_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                args![digest, id],
            )?;
        }
    }
    Ok(())
}

/// Indexes the receipts stored before the loop's migration, so they are found and deduplicated
/// too.
pub fn backfill(conn: &mut dyn SqlConn) -> Result<(), StoreError> {
    let rows = query_all(
        conn,
        "SELECT deferral_id, receipt FROM receipts ORDER BY seq",
        &[],
        |r| Ok((r.text(0)?, r.text(1)?)),
    )?;
    for (id, text) in rows {
        register_receipts(conn, &id, &[NewReceipt::new(String::new(), text)])?;
    }
    Ok(())
}

fn read_run(row: &dyn SqlRow) -> Result<RunRecord, StoreError> {
    Ok(RunRecord {
        deferral_id: row.text(0)?,
        attempt: row.u32(1)?,
        run_id: row.opt_u64(2)?,
        html_url: row.opt_text(3)?,
        workflow: row.text(4)?,
        dispatched_ms: row.u64(5)?,
        run_url: row.opt_text(6)?,
    })
}

const RUN_COLUMNS: &str =
    "deferral_id, attempt, run_id, html_url, workflow, dispatched_ms, run_url";

fn run_in(
    conn: &mut dyn SqlConn,
    deferral_id: &str,
    attempt: u32,
) -> Result<Option<RunRecord>, StoreError> {
    let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE deferral_id = ?1 AND attempt = ?2");
    query_opt(conn, &sql, args![deferral_id, attempt], read_run)
}

fn one_text(conn: &mut dyn SqlConn, sql: &str, key: &str) -> Result<Option<String>, StoreError> {
    query_opt(conn, sql, args![key], |r| r.text(0))
}

impl<B: SqlBackend> LoopStore for B {
    fn find_by_receipt_digest(&self, digest: &str) -> Result<Option<String>, StoreError> {
        self.sql_read(|conn| {
            one_text(
                conn,
                "SELECT deferral_id FROM receipt_keys WHERE digest = ?1",
                digest,
            )
        })
    }

    fn find_by_artifact(&self, artifact_id: u64) -> Result<Option<String>, StoreError> {
        self.sql_read(|conn| {
            query_opt(
                conn,
                "SELECT deferral_id FROM artifacts WHERE artifact_id = ?1",
                args![to_i64(artifact_id)],
                |r| r.text(0),
            )
        })
    }

    fn add_artifact(&self, deferral_id: &str, artifact: &ArtifactRef) -> Result<bool, StoreError> {
        let added = self.sql_read(|conn| {
            conn.execute(
                "INSERT INTO artifacts (artifact_id, deferral_id, repo, run_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                args![
                    to_i64(artifact.artifact_id),
                    deferral_id,
                    &artifact.repo,
                    artifact.run_id.map(to_i64)
                ],
            )
        })?;
        Ok(added == 1)
    }

    fn put_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.sql_read(|conn| {
            conn.execute(
                "INSERT INTO runs (deferral_id, attempt, run_id, html_url, workflow, dispatched_ms, run_url) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (deferral_id, attempt) DO UPDATE SET \
                 run_id = excluded.run_id, html_url = excluded.html_url, run_url = excluded.run_url",
                args![
                    &run.deferral_id,
                    run.attempt,
                    run.run_id.map(to_i64),
                    &run.html_url,
                    &run.workflow,
                    to_i64(run.dispatched_ms),
                    &run.run_url
                ],
            )
        })?;
        Ok(())
    }

    fn run_of(&self, deferral_id: &str, attempt: u32) -> Result<Option<RunRecord>, StoreError> {
        self.sql_read(|conn| run_in(conn, deferral_id, attempt))
    }

    fn is_own_run(&self, repo: &str, run_id: u64) -> Result<bool, StoreError> {
        let workflows = self.sql_read(|conn| {
            query_all(
                conn,
                "SELECT workflow FROM runs WHERE run_id = ?1",
                args![to_i64(run_id)],
                |r| r.text(0),
            )
        })?;
        Ok(workflows
            .iter()
            .any(|w| workflow_repo(w).eq_ignore_ascii_case(repo)))
    }

    fn dispatched(&self, limit: usize) -> Result<Vec<(Deferral, Option<RunRecord>)>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.sql_read(|conn| {
            let found = rows::select(
                conn,
                "WHERE state = 'resumable' AND attempt_status = 'dispatched' ORDER BY updated_ms, id LIMIT ?1",
                args![limit],
            )?;
            found
                .into_iter()
                .map(|d| {
                    let run = run_in(conn, &d.id, d.reentries)?;
                    Ok((d, run))
                })
                .collect()
        })
    }

    fn link(&self, deferral_id: &str) -> Result<Link, StoreError> {
        self.sql_read(|conn| {
            let up = query_opt(
                conn,
                "SELECT predecessor_id, chain FROM links WHERE successor_id = ?1",
                args![deferral_id],
                |r| Ok((r.text(0)?, r.u32(1)?)),
            )?;
            let successor = one_text(
                conn,
                "SELECT successor_id FROM links WHERE predecessor_id = ?1",
                deferral_id,
            )?;
            Ok(Link {
                chain: up.as_ref().map_or(0, |(_, c)| *c),
                predecessor: up.map(|(p, _)| p),
                successor,
            })
        })
    }

    fn artifact_name(&self, deferral_id: &str) -> Result<Option<String>, StoreError> {
        self.sql_read(|conn| {
            one_text(
                conn,
                "SELECT name FROM artifact_names WHERE deferral_id = ?1",
                deferral_id,
            )
        })
    }

    fn cached(&self, key: &str) -> Result<Option<(String, String)>, StoreError> {
        self.sql_read(|conn| {
            query_opt(
                conn,
                "SELECT etag, body FROM http_cache WHERE key = ?1",
                args![key],
                |r| Ok((r.text(0)?, r.text(1)?)),
            )
        })
    }

    fn put_cached(&self, key: &str, etag: &str, body: &str, at_ms: u64) -> Result<(), StoreError> {
        self.sql_read(|conn| {
            conn.execute(
                "INSERT INTO http_cache (key, etag, body, updated_ms) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (key) DO UPDATE SET etag = excluded.etag, body = excluded.body, updated_ms = excluded.updated_ms",
                args![key, etag, body, to_i64(at_ms)],
            )
        })?;
        Ok(())
    }

    fn note_delivery(&self, key: &str, event: &str, at_ms: u64) -> Result<bool, StoreError> {
        // `delivery_id` holds the key (see the table's migration): a row per run attempt.
        let inserted = self.sql_write(|conn| {
            conn.execute(
                "INSERT INTO github_deliveries (delivery_id, event, received_ms) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (delivery_id) DO NOTHING",
                args![key, event, to_i64(at_ms)],
            )
        })?;
        Ok(inserted == 1)
    }

    fn delivery_noted(&self, delivery_id: &str) -> Result<bool, StoreError> {
        self.sql_read(|conn| {
            Ok(query_opt(
                conn,
                "SELECT delivery_id FROM github_deliveries WHERE delivery_id = ?1",
                args![delivery_id],
                |r| r.text(0),
            )?
            .is_some())
        })
    }

    fn put_commit(&self, commit: &CommitRef) -> Result<bool, StoreError> {
        let inserted = self.sql_write(|conn| {
            conn.execute(
                "INSERT INTO deferral_commits (deferral_id, repo, sha, context, face) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (deferral_id) DO NOTHING",
                args![
                    &commit.deferral_id,
                    &commit.repo,
                    &commit.sha,
                    &commit.context,
                    commit.face.as_str()
                ],
            )
        })?;
        Ok(inserted == 1)
    }

    fn commit_of(&self, deferral_id: &str) -> Result<Option<CommitRef>, StoreError> {
        self.sql_read(|conn| {
            query_opt(
                conn,
                "SELECT deferral_id, repo, sha, context, face FROM deferral_commits WHERE deferral_id = ?1",
                args![deferral_id],
                |r| {
                    Ok(CommitRef {
                        deferral_id: r.text(0)?,
                        repo: r.text(1)?,
                        sha: r.text(2)?,
                        context: r.text(3)?,
                        face: Face::parse(&r.text(4)?),
                    })
                },
            )
        })
    }

    fn put_check_run(&self, run: &CheckRunRef) -> Result<(), StoreError> {
        self.sql_write(|conn| {
            conn.execute(
                "INSERT INTO check_runs (check_run_id, repo, deferral_id, state, completed, written_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (check_run_id) DO UPDATE SET \
                 state = excluded.state, completed = excluded.completed, written_ms = excluded.written_ms",
                args![
                    to_i64(run.check_run_id),
                    &run.repo,
                    &run.deferral_id,
                    &run.state,
                    i64::from(run.completed),
                    to_i64(run.written_ms)
                ],
            )
        })?;
        Ok(())
    }

    fn latest_check_run(&self, deferral_id: &str) -> Result<Option<CheckRunRef>, StoreError> {
        self.sql_read(|conn| {
            let sql = format!(
                "SELECT {CHECK_RUN_COLUMNS} FROM check_runs WHERE deferral_id = ?1 \
                 ORDER BY written_ms DESC, check_run_id DESC LIMIT 1"
            );
            query_opt(conn, &sql, args![deferral_id], read_check_run)
        })
    }

    fn check_run(&self, repo: &str, check_run_id: u64) -> Result<Option<CheckRunRef>, StoreError> {
        let found = self.sql_read(|conn| {
            let sql = format!("SELECT {CHECK_RUN_COLUMNS} FROM check_runs WHERE check_run_id = ?1");
            query_opt(conn, &sql, args![to_i64(check_run_id)], read_check_run)
        })?;
        Ok(found.filter(|run| run.repo.eq_ignore_ascii_case(repo)))
    }
}

const CHECK_RUN_COLUMNS: &str = "check_run_id, repo, deferral_id, state, completed, written_ms";

fn read_check_run(r: &dyn SqlRow) -> Result<CheckRunRef, StoreError> {
    Ok(CheckRunRef {
        check_run_id: r.u64(0)?,
        repo: r.text(1)?,
        deferral_id: r.text(2)?,
        state: r.text(3)?,
        completed: r.u64(4)? != 0,
        written_ms: r.u64(5)?,
    })
}
