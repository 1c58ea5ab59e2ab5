//! `--store`: which backend and where, parsed once.

use super::{IntegrityCheck, PostgresStore, SqliteStore, Store, StoreError};
use std::fmt;
use std::path::PathBuf;

/// Where the store lives: `sqlite:PATH` (or a bare path) or `postgres://...` / `postgresql://...`.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreUrl {
    Sqlite(PathBuf),
    /// A libpq-style URL, kept whole (it may hold a password).
    Postgres(String),
}

impl StoreUrl {
    /// Parses `--store`; the error is a sentence for the user.
    pub fn parse(url: &str) -> Result<StoreUrl, String> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(StoreUrl::Postgres(url.to_string()));
        }
        let path = if let Some(path) = url.strip_prefix("sqlite:") {
            path.strip_prefix("//").unwrap_or(path)
        } else if let Some((scheme, _)) = url.split_once("://") {
            return Err(format!(
                "unsupported store scheme {scheme:?}: use sqlite:PATH or postgres://USER@HOST:PORT/DB"
            ));
        } else {
            url
        };
        if path.is_empty() {
            return Err("the store path is empty".into());
        }
        check_absolute(path)?;
        Ok(StoreUrl::Sqlite(PathBuf::from(path)))
    }

    /// Opens (creating and migrating if needed) a new connection to the store.
    pub fn open(&self, check: IntegrityCheck) -> Result<Box<dyn Store + Send>, StoreError> {
        Ok(match self {
            StoreUrl::Sqlite(path) => Box::new(SqliteStore::open(path, check)?),
            StoreUrl::Postgres(url) => Box::new(PostgresStore::open(url, check)?),
        })
    }
}

/// A store path must be absolute: a relative one depends on the working directory (cron runs
/// in `$HOME`, so every ticker would see another store), and a `~` the shell did not expand is
/// a folder named `~`. The refusal says the absolute path it would have meant.
fn check_absolute(path: &str) -> Result<(), String> {
    if let Some(rest) = path.strip_prefix('~') {
        let home = std::env::var("HOME").unwrap_or_default();
        let rest = rest.trim_start_matches('/');
        return Err(format!(
            "the store path {path:?} starts with a literal ~, which is not your home folder here \
             (the shell expands ~ only unquoted, at the start of a word): give the absolute \
             path, e.g. sqlite:{home}/{rest}"
        ));
    }
    if std::path::Path::new(path).is_absolute() {
        return Ok(());
    }
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "(unknown)".into());
    Err(format!(
        "the store path {path:?} is relative: here it means {cwd}/{path} (working directory \
         {cwd}), and under cron another folder; give the absolute path, e.g. sqlite:{cwd}/{path}"
    ))
}

/// Never prints a PostgreSQL URL: it may carry a password.
impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreUrl::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            StoreUrl::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}
