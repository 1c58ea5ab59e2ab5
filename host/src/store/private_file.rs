//! A new SQLite store is private to its owner: the file is created `0600` before SQLite opens
//! it (SQLite gives its `-wal` and `-shm` files the same mode), and directories of its path
//! that do not exist yet are created `0700`. Existing files and directories are left as they are.

use super::StoreError;
use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

pub fn create(path: &Path) -> Result<(), StoreError> {
    let fail = |what: &str, err: std::io::Error| {
        StoreError::Backend(format!("cannot create {what} {}: {err}", path.display()))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| fail("the directory of", e))?;
        }
    }
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(fail("the store file", err)),
    }
}
