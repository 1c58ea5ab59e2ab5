//! The DDL of the pools tables (migration 7, and the window ledger of migration 9), for every
//! SQL backend; the statements are in `pools` (see `store::pools`).

use super::Dialect;

/// Pools, planned costs, admissions and the rate states reported.
pub fn ddl(d: &dyn Dialect) -> String {
    let tables = r#"
ALTER TABLE deferrals ADD COLUMN pool TEXT NOT NULL DEFAULT 'default';
ALTER TABLE deferrals ADD COLUMN rest_cost {int};
ALTER TABLE deferrals ADD COLUMN graphql_cost {int};
ALTER TABLE deferrals ADD COLUMN content_cost {int};
-- A pool's due deferrals, earliest first then by id: a range scan that stops at the limit.
CREATE INDEX deferrals_pool_due ON deferrals (state, pool, resume_after_ms, id);
CREATE TABLE pools (
    name                TEXT PRIMARY KEY,
    version             {int} NOT NULL,
    rest_limit          {int},
    rest_remaining      {int},
    rest_reserve        {int},
    rest_reset_ms       {int},
    rest_observed_ms    {int},
    rest_source         TEXT,
    graphql_limit       {int},
    graphql_remaining   {int},
    graphql_reserve     {int},
    graphql_reset_ms    {int},
    graphql_observed_ms {int},
    graphql_source      TEXT,
    hold_until_ms       {int},
    hold_reason         TEXT,
    updated_ms          {int} NOT NULL
);
INSERT INTO pools (name, version, updated_ms) VALUES ('default', 1, 0);
CREATE TABLE pool_observations (
    seq            {seq},
    pool           TEXT NOT NULL,
    deferral_id    TEXT,
    resource       TEXT NOT NULL,
    reported_limit {int} NOT NULL,
    remaining      {int} NOT NULL,
    reserve        {int} NOT NULL,
    reset_ms       {int} NOT NULL,
    observed_ms    {int} NOT NULL,
    source         TEXT NOT NULL
);
CREATE INDEX pool_observations_deferral ON pool_observations (deferral_id, seq);
"#;
    let admissions = r#"
CREATE TABLE admissions (
    seq             {seq},
    pool            TEXT NOT NULL,
    deferral_id     TEXT,
    attempt         {int} NOT NULL,
    rest_cost       {int},
    graphql_cost    {int},
    content_cost    {int},
    window_reset_ms {int} NOT NULL,
    expires_ms      {int} NOT NULL,
    admitted_ms     {int} NOT NULL,
    released_ms     {int}
);
CREATE INDEX admissions_open ON admissions (pool, released_ms, expires_ms);
CREATE INDEX admissions_deferral ON admissions (deferral_id, attempt);
"#;
    let text = format!(
        "{tables}{}{admissions}",
        d.append_only("pool_observations", "pool observations", false)
    );
    text.replace("{int}", d.int()).replace("{seq}", d.seq_key())
}

/// The window ledger (migration 9): one row per pool and resource, keyed by the resource's name
/// (a new rate-limit bucket is a new row, never a new column). The `pools` table keeps its
/// name, version (the compare-and-set), hold and time; its old per-resource columns are copied
/// here and no longer read.
pub fn windows_ddl(d: &dyn Dialect) -> String {
    let mut text = String::from(
        r#"
CREATE TABLE pool_windows (
    pool            TEXT NOT NULL,
    resource        TEXT NOT NULL,
    window_limit    {int} NOT NULL,
    remaining       {int} NOT NULL,
    spent           {int} NOT NULL,
    spent_at_report {int} NOT NULL,
    reserve         {int} NOT NULL,
    reset_ms        {int} NOT NULL,
    reset_known     {int} NOT NULL,
    opened_after_ms {int} NOT NULL,
    length_ms       {int} NOT NULL,
    next_limit      {int} NOT NULL,
    observed_ms     {int} NOT NULL,
    source          TEXT NOT NULL,
    PRIMARY KEY (pool, resource)
);
-- Pools touched lately first: listings skip pools idle for long (see PoolStore::pools).
CREATE INDEX pools_updated ON pools (updated_ms, name);
-- Admissions not released, by when they expire: the pools a pass must settle.
CREATE INDEX admissions_live ON admissions (released_ms, expires_ms, pool);
-- A runner admission's secret (SHA-256): only its holder releases it.
ALTER TABLE admissions ADD COLUMN secret_digest TEXT;
"#,
    );
    for r in ["rest", "graphql"] {
        text.push_str(&format!(
            "INSERT INTO pool_windows (pool, resource, window_limit, remaining, spent, spent_at_report, reserve, reset_ms, reset_known, \
             opened_after_ms, length_ms, next_limit, observed_ms, source) \
             SELECT name, '{r}', {r}_limit, {r}_remaining, 0, 0, {r}_reserve, {r}_reset_ms, 1, 0, 3600000, {r}_limit, \
             {r}_observed_ms, {r}_source FROM pools WHERE {r}_limit IS NOT NULL AND {r}_remaining IS NOT NULL \
             AND {r}_reserve IS NOT NULL AND {r}_reset_ms IS NOT NULL AND {r}_observed_ms IS NOT NULL \
             AND {r}_source IS NOT NULL;\n"
        ));
    }
    text.replace("{int}", d.int())
}

/// Fair pools (migration 11 on SQLite, 10 on PostgreSQL): each deferral's priority (higher is
/// admitted first in its pool) and fairness key (admission takes turns between keys of one
/// priority). A key of `''` (rows stored before) is read as the launch target's default key
/// (see `pools::fair::default_key`).
pub fn fair_ddl(d: &dyn Dialect) -> String {
    r#"
ALTER TABLE deferrals ADD COLUMN priority {int} NOT NULL DEFAULT 0;
ALTER TABLE deferrals ADD COLUMN fairness_key TEXT NOT NULL DEFAULT '';
-- A pool's due deferrals, highest priority first, then earliest first then by id.
CREATE INDEX deferrals_pool_priority ON deferrals (state, pool, priority, resume_after_ms, id);
"#
    .replace("{int}", d.int())
}
