//! Which file a connection opened, by device and inode, so that a store removed or replaced
//! under a running process (`serve`, `run`) is noticed: SQLite keeps writing into the file it
//! opened even once no path names it, and a record answered 201 into an unlinked file is
//! lost. Every read and every commit compares the path's device and inode with the opened
//! file's (one `stat`, microseconds beside a transaction) and refuses with `store-replaced`.

use crate::store::StoreError;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The file `path` names now (just opened; the open follows no link).
    pub fn of(path: &Path) -> Result<FileId, StoreError> {
        let meta = std::fs::symlink_metadata(path)
            .map_err(|e| StoreError::Backend(format!("cannot read {}: {e}", path.display())))?;
        Ok(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    /// `Ok` while `path` still names this file.
    pub fn check(&self, path: &Path) -> Result<(), StoreError> {
        let gone = |what: &str| {
            StoreError::Replaced(format!(
                "the store file {} was {what} while this process had it open: nothing more is \
                 read from or written to the old file; put the store back (or `init` a new one) \
                 and restart this process",
                path.display()
            ))
        };
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.dev() == self.dev && meta.ino() == self.ino => Ok(()),
            Ok(_) => Err(gone("replaced by another file")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(gone("removed")),
            Err(e) => Err(StoreError::Backend(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }
}
