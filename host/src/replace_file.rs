//! Replacing a file whose folder others may write (a collector's folder, a web root): the new
//! text goes to a new file with a random name in the same folder, created exclusively
//! (`O_CREAT|O_EXCL|O_NOFOLLOW`: a link or file planted at that name makes the create fail,
//! it is never followed or truncated), flushed to disk, given `mode` on its own descriptor, and
//! renamed over `path`. So `path` ends up a regular file of this user, whatever a link there
//! pointed to is left untouched, and a reader sees the old file or the new one, never a part.
//!
//! The one way `status --html` and `tick --metrics-file` write their files; each caller names
//! its own error code.

use std::fs::{OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where a replacement failed, and why.
#[derive(Debug)]
pub enum ReplaceError {
    /// `path` has no file name (`/`, `..`, empty).
    NoFileName,
    Io(std::io::Error),
}

impl std::fmt::Display for ReplaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplaceError::NoFileName => f.write_str("the path names no file"),
            ReplaceError::Io(err) => err.fmt(f),
        }
    }
}

/// The temporary name for `path`: `.NAME.RANDOM.tmp` beside it (hidden, and not `*.prom`, so a
/// textfile collector never reads a part).
fn temporary_name(path: &Path) -> Result<PathBuf, ReplaceError> {
    let name = path.file_name().ok_or(ReplaceError::NoFileName)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok(dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        &crate::handle::new_handle()[..16]
    )))
}

/// Writes `bytes` to `path` as described above, the new file with `mode`.
pub fn replace_file(path: &Path, bytes: &[u8], mode: u32) -> Result<(), ReplaceError> {
    let temp = temporary_name(path)?;
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&temp)
        .map_err(ReplaceError::Io)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.set_permissions(Permissions::from_mode(mode)))
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|err| {
        // Ours (created exclusively above): never leave it behind.
        let _ = std::fs::remove_file(&temp);
        ReplaceError::Io(err)
    })
}
