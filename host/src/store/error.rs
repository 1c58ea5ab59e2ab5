//! Why a store operation failed, with the stable code each failure is reported under.

use deferral_core::lifecycle::State;
use std::fmt;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The row changed since it was read: another worker got there first.
    Conflict {
        id: String,
        expected_state: State,
        expected_fence: u64,
    },
    NotFound(String),
    /// A deferral with this id exists already.
    Duplicate(String),
    /// The store failed its integrity check.
    Corrupt(String),
    /// The database belongs to another application: refused, left untouched.
    Foreign(String),
    /// Another user could write the store's file or folder (see `store::private_file`).
    Unsafe(String),
    /// The store was written by a newer version of this program.
    SchemaTooNew {
        found: i64,
        supported: i64,
    },
    /// Anything the backend reports (I/O, locking, SQL).
    Backend(String),
    /// The store does not exist and this command does not create one (see `store::existing`).
    Missing(String),
    /// The SQLite file this process opened was removed or replaced since (see
    /// `store::sqlite::identity`): refused rather than read or written.
    Replaced(String),
}

impl StoreError {
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Conflict { .. } => "conflict",
            StoreError::NotFound(_) => "not-found",
            StoreError::Duplicate(_) => "duplicate",
            StoreError::Corrupt(_) => "store-corrupt",
            StoreError::Foreign(_) => "foreign-store",
            StoreError::Unsafe(_) => "unsafe-store",
            StoreError::SchemaTooNew { .. } => "schema-too-new",
            StoreError::Backend(_) => "store-error",
            StoreError::Missing(_) => "store-not-found",
            StoreError::Replaced(_) => "store-replaced",
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Conflict { id, expected_state, expected_fence } => write!(
                f,
                "deferral {id} is no longer {expected_state} at fence {expected_fence}: another worker changed it"
            ),
            StoreError::NotFound(id) => write!(f, "no deferral with id {id}"),
            StoreError::Duplicate(id) => write!(f, "a deferral with id {id} exists already"),
            StoreError::Corrupt(report) => write!(f, "the store failed its integrity check: {report}"),
            StoreError::Foreign(why) => write!(f, "not a deferral-host store: {why}"),
            StoreError::Unsafe(why) => write!(f, "the store is not private to this user: {why}"),
            StoreError::SchemaTooNew { found, supported } => write!(
                f,
                "the store has schema version {found}, newer than the {supported} this program knows"
            ),
            StoreError::Backend(message) => write!(f, "store error: {message}"),
            StoreError::Missing(message) | StoreError::Replaced(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for StoreError {}
