//! The schema, written once for every SQL backend: each migration's DDL with the few words a
//! dialect spells its own way (`{int}` for a 64-bit integer column, `{seq}` for an
//! auto-numbered key, the append-only triggers, the function that finds a character), and the
//! loop that applies the migrations a store lacks, each with its backfill, in the caller's
//! transaction. A backend lists its migrations in its version order (SQLite has one of its
//! own, the kept counts) and keeps where it stores the version.

use super::{Dialect, SqlConn};
use crate::store::StoreError;

/// Rows a migration fills after its DDL, in the same transaction.
pub type Backfill = fn(&mut dyn SqlConn) -> Result<(), StoreError>;

/// One numbered schema change: its DDL in a dialect, and rows to fill after it, if any.
pub struct Migration {
    pub ddl: fn(&dyn Dialect) -> String,
    pub backfill: Option<Backfill>,
}

impl Migration {
    const fn ddl(ddl: fn(&dyn Dialect) -> String) -> Migration {
        Migration {
            ddl,
            backfill: None,
        }
    }
}

/// `text` in `dialect`: `{int}` and `{seq}` replaced.
fn render(dialect: &dyn Dialect, text: &str) -> String {
    text.replace("{int}", dialect.int())
        .replace("{seq}", dialect.seq_key())
}

fn core(d: &dyn Dialect) -> String {
    let tables = render(
        d,
        r#"
CREATE TABLE deferrals (
    id                  TEXT PRIMARY KEY,
    state               TEXT NOT NULL CHECK (state IN ('ready','deferred','resumable','complete','blocked','cancelled')),
    fence               {int} NOT NULL,
    reentries           {int} NOT NULL,
    max_reentries       {int} NOT NULL,
    reason              TEXT NOT NULL,
    resume_after_ms     {int} NOT NULL,
    resume_by_ms        {int} NOT NULL,
    launch              TEXT NOT NULL,
    wakeup_digest       TEXT,
    cancellation_digest TEXT NOT NULL,
    lease_owner         TEXT,
    lease_until_ms      {int},
    attempt_status      TEXT,
    cause               TEXT NOT NULL,
    detail              TEXT,
    receipt_seq         {int} NOT NULL,
    created_ms          {int} NOT NULL,
    updated_ms          {int} NOT NULL
);
-- Finding due work: state = 'deferred' AND resume_after_ms <= now, a range scan at any size.
CREATE INDEX deferrals_due ON deferrals (state, resume_after_ms);
-- Finding expirable work: state IN (...) AND resume_by_ms < now.
CREATE INDEX deferrals_expiry ON deferrals (state, resume_by_ms);
-- Finding leases left by a crashed ticker: state = 'resumable' AND lease_until_ms < now.
CREATE INDEX deferrals_lease ON deferrals (state, lease_until_ms);
CREATE INDEX deferrals_created ON deferrals (created_ms, id);

CREATE TABLE receipts (
    seq         {seq},
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    kind        TEXT NOT NULL,
    receipt     TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    created_ms  {int} NOT NULL
);
CREATE INDEX receipts_deferral ON receipts (deferral_id, seq);

CREATE TABLE events (
    seq         {seq},
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    at_ms       {int} NOT NULL,
    event       TEXT NOT NULL,
    from_state  TEXT,
    to_state    TEXT NOT NULL,
    cause       TEXT NOT NULL,
    fence       {int} NOT NULL,
    reentries   {int} NOT NULL,
    detail      TEXT
);
CREATE INDEX events_deferral ON events (deferral_id, seq);
"#,
    );
    // Evidence is append-only: UPDATE and DELETE (and TRUNCATE where there is one) raise,
    // whoever runs them.
    format!(
        "{tables}{}{}{}",
        d.append_only_setup(),
        d.append_only("receipts", "receipts", true),
        d.append_only("events", "events", true)
    )
}

fn launch_processes(d: &dyn Dialect) -> String {
    render(
        d,
        r#"
-- 2: the process group of each deferral's current exec: launch (see LaunchProcess).
CREATE TABLE launch_processes (
    deferral_id  TEXT PRIMARY KEY REFERENCES deferrals (id),
    fence        {int} NOT NULL,
    pgid         {int} NOT NULL,
    machine      TEXT NOT NULL,
    boot_id      TEXT NOT NULL,
    leader_start {int} NOT NULL,
    recorded_ms  {int} NOT NULL
);
"#,
    )
}

/// The GitHub loop's tables (receipt digests, artifacts, runs, successors, ETags).
fn github(d: &dyn Dialect) -> String {
    render(
        d,
        r#"
CREATE TABLE receipt_keys (
    digest      TEXT PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id)
);
CREATE INDEX receipt_keys_deferral ON receipt_keys (deferral_id);
CREATE TABLE artifacts (
    artifact_id {int} PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    repo        TEXT NOT NULL,
    run_id      {int}
);
CREATE TABLE runs (
    deferral_id   TEXT NOT NULL REFERENCES deferrals (id),
    attempt       {int} NOT NULL,
    run_id        {int},
    html_url      TEXT,
    workflow      TEXT NOT NULL,
    dispatched_ms {int} NOT NULL,
    PRIMARY KEY (deferral_id, attempt)
);
CREATE INDEX runs_run ON runs (run_id);
CREATE TABLE links (
    successor_id   TEXT PRIMARY KEY REFERENCES deferrals (id),
    predecessor_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    chain          {int} NOT NULL
);
CREATE TABLE http_cache (
    key        TEXT PRIMARY KEY,
    etag       TEXT NOT NULL,
    body       TEXT NOT NULL,
    updated_ms {int} NOT NULL
);
CREATE TABLE artifact_names (
    deferral_id TEXT PRIMARY KEY REFERENCES deferrals (id),
    name        TEXT NOT NULL
);
CREATE INDEX deferrals_attempt ON deferrals (state, attempt_status);
"#,
    )
}

/// A run's API URL beside its page (`html_url` already held the page, so older rows keep it
/// there and have no `run_url`).
fn run_urls(_: &dyn Dialect) -> String {
    "ALTER TABLE runs ADD COLUMN run_url TEXT;".into()
}

fn changed_index(_: &dyn Dialect) -> String {
    r#"
-- 5: the status page's latest outcomes (state = ... ORDER BY updated_ms DESC, id DESC LIMIT n)
-- read only the rows drawn, at any size of the store.
CREATE INDEX IF NOT EXISTS deferrals_changed ON deferrals (state, updated_ms, id);
"#
    .into()
}

/// The links from a blocked deferral to its retry.
fn retries(d: &dyn Dialect) -> String {
    render(
        d,
        r#"
CREATE TABLE retries (
    retry_id    TEXT PRIMARY KEY REFERENCES deferrals (id),
    original_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    created_ms  {int} NOT NULL
);
"#,
    )
}

/// Each target's kind (`store::launch_kind`: the text before its first colon), so that a
/// query picks targets by kind, never by their text; rows stored before are filled by that rule.
fn launch_kind(d: &dyn Dialect) -> String {
    let find = d.find_text();
    format!(
        "ALTER TABLE deferrals ADD COLUMN launch_kind TEXT NOT NULL DEFAULT '';\n\
         UPDATE deferrals SET launch_kind = CASE WHEN {find}(launch, ':') > 0 \
         THEN substr(launch, 1, {find}(launch, ':') - 1) ELSE '' END;\n"
    )
}

/// GitHub webhook deliveries seen, so that a redelivery has no second effect (`serve
/// --github-webhook-secret-file`). `delivery_id` is the delivery's identity from its signed body
/// (`crate::webhook::payload::CompletedRun::key`: repository, run, attempt); hosts before it
/// stored `X-GitHub-Delivery` there, which the signature does not cover (such rows match no key
/// and only wait to be pruned).
fn webhook_deliveries(d: &dyn Dialect) -> String {
    render(
        d,
        r#"
CREATE TABLE github_deliveries (
    delivery_id TEXT PRIMARY KEY,
    event       TEXT NOT NULL,
    received_ms {int} NOT NULL
);
"#,
    )
}

/// The commit each deferral's work belongs to, when its origin named one (`store::github::CommitRef`):
/// where the host keeps the deferral's commit status.
fn deferral_commits(d: &dyn Dialect) -> String {
    render(
        d,
        r#"
CREATE TABLE deferral_commits (
    deferral_id TEXT PRIMARY KEY REFERENCES deferrals(id),
    repo        TEXT NOT NULL,
    sha         TEXT NOT NULL,
    context     TEXT NOT NULL
);
"#,
    )
}

/// How each deferral's commit shows it (a status, or a check run), and the check runs made.
fn check_runs(d: &dyn Dialect) -> String {
    render(
        d,
        r#"
ALTER TABLE deferral_commits ADD COLUMN face TEXT NOT NULL DEFAULT 'status';
CREATE TABLE check_runs (
    check_run_id {int} PRIMARY KEY,
    repo         TEXT NOT NULL,
    deferral_id  TEXT NOT NULL REFERENCES deferrals (id),
    state        TEXT NOT NULL,
    completed    {int} NOT NULL,
    written_ms   {int} NOT NULL
);
CREATE INDEX check_runs_deferral ON check_runs (deferral_id, written_ms);
"#,
    )
}

pub const CORE: Migration = Migration::ddl(core);
pub const LAUNCH_PROCESSES: Migration = Migration::ddl(launch_processes);
pub const GITHUB: Migration = Migration {
    ddl: github,
    backfill: Some(super::github::backfill),
};
pub const RUN_URLS: Migration = Migration::ddl(run_urls);
pub const CHANGED_INDEX: Migration = Migration::ddl(changed_index);
pub const RETRIES: Migration = Migration::ddl(retries);
pub const POOLS: Migration = Migration::ddl(super::pools_schema::ddl);
pub const LAUNCH_KIND: Migration = Migration::ddl(launch_kind);
pub const POOL_WINDOWS: Migration = Migration::ddl(super::pools_schema::windows_ddl);
pub const WEBHOOK_DELIVERIES: Migration = Migration::ddl(webhook_deliveries);
pub const FAIR_POOLS: Migration = Migration::ddl(super::pools_schema::fair_ddl);
pub const COST_ROWS: Migration = Migration::ddl(super::cost_rows::ddl);
pub const DEFERRAL_COMMITS: Migration = Migration::ddl(deferral_commits);
pub const RETENTION: Migration = Migration::ddl(super::retention::ddl);
pub const CHECK_RUNS: Migration = Migration::ddl(check_runs);

/// Applies `migrations[found..]` in the caller's transaction, telling `record` each version
/// reached; `SchemaTooNew` (and nothing applied) when the store is newer than this list.
pub fn migrate(
    conn: &mut dyn SqlConn,
    migrations: &[Migration],
    found: i64,
    record: &dyn Fn(&mut dyn SqlConn, i64) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let supported = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    if found > supported {
        return Err(StoreError::SchemaTooNew { found, supported });
    }
    let dialect = conn.dialect();
    for (index, migration) in migrations
        .iter()
        .enumerate()
        .skip(usize::try_from(found).unwrap_or(0))
    {
        conn.execute_batch(&(migration.ddl)(dialect))?;
        if let Some(backfill) = migration.backfill {
            backfill(conn)?;
        }
        record(conn, i64::try_from(index + 1).unwrap_or(i64::MAX))?;
    }
    Ok(())
}
