//! Opening a store that must exist already. Only `init` creates a store; every other command
//! (`record`, `serve` and `run` included) refuses a store that does not exist
//! (`store-not-found`, exit 2) instead of creating an empty one, so a typo in `--store` cannot
//! record a job no ticker ever sees, nor make a cron job that silently finds nothing to do.
//!
//! "Does not exist" is a SQLite file that is missing or empty, or a PostgreSQL database (with
//! the URL's search_path) that has no deferral-host tables.

use super::{IntegrityCheck, Store, StoreError, StoreUrl};

impl StoreUrl {
    /// [`StoreUrl::open`], unless the store does not exist yet: then [`StoreError::Missing`]
    /// and nothing is created.
    pub fn open_existing(
        &self,
        check: IntegrityCheck,
    ) -> Result<Box<dyn Store + Send>, StoreError> {
        if !self.exists()? {
            return Err(StoreError::Missing(self.missing_message()));
        }
        self.open(check)
    }

    /// Whether the store has been created (a non-empty SQLite file; a PostgreSQL schema
    /// version table).
    pub fn exists(&self) -> Result<bool, StoreError> {
        match self {
            StoreUrl::Sqlite(path) => match std::fs::metadata(path) {
                Ok(metadata) => Ok(metadata.len() > 0),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
                Err(err) => Err(StoreError::Backend(format!(
                    "cannot read {}: {err}",
                    path.display()
                ))),
            },
            StoreUrl::Postgres(url) => {
                let mut client =
                    super::postgres_tls::connect(url).map_err(super::postgres::connect_error)?;
                let row = client
                    .query_one(
                        "SELECT to_regclass('deferral_schema_version') IS NOT NULL",
                        &[],
                    )
                    .map_err(super::postgres::backend)?;
                Ok(row.get(0))
            }
        }
    }

    /// What [`StoreError::Missing`] says: where, and the command that creates it (never the
    /// PostgreSQL URL, which may hold a password).
    fn missing_message(&self) -> String {
        match self {
            StoreUrl::Sqlite(path) => format!(
                "no store at {path}: check --store for a typo, or create it first with \
                 `deferral-host init --store sqlite:{path}` (only init creates a store)",
                path = path.display()
            ),
            StoreUrl::Postgres(_) => "the PostgreSQL database that --store names has no \
                 deferral-host tables (in its search_path): check --store for a typo, or create \
                 them first with `deferral-host init --store URL` (only init creates them)"
                .to_string(),
        }
    }
}
