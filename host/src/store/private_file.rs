//! A SQLite store is private to the user that runs the host, because whoever can write its file
//! chooses the programs `tick` launches as that user (a row's `launch` carries no digest).
//!
//! * Its folder must be owned by this user (or root) and writable by no one else: whoever can
//!   write in the folder can plant the store's file, or its `-wal` or `-shm` file, before the
//!   host makes them. A folder of the path that does not exist yet is created `0700`.
//! * A new store is created only as a new file (`O_CREAT|O_EXCL`, mode `0600`); SQLite gives
//!   its `-wal` and `-shm` files the same mode.
//! * An existing file is opened only when it is a regular file (not a link, a directory or a
//!   FIFO) owned by this user and writable by no one else; the same for an existing `-wal` or
//!   `-shm` file. Whether its content is a store is checked next (`header`, `ownership`).
//!
//! Refusals are `unsafe-store` (who else could write it) or `foreign-store` (what it is instead).

use super::StoreError;
use std::fs::{DirBuilder, Metadata, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Makes sure the store at `path` may be opened: creates it (and its missing folders) when it
/// does not exist, else checks it and its `-wal` and `-shm` files.
pub fn prepare(path: &Path) -> Result<(), StoreError> {
    let shown = path.display();
    let fail = |what: &str, err: std::io::Error| {
        StoreError::Backend(format!("cannot create {what} {shown}: {err}"))
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if !dir.exists() {
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| fail("the folder of", e))?;
    }
    check_folder(path, dir)?;
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(_) => return Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(fail("the store file", err)),
    }
    check_file(path, &shown.to_string())?;
    for side in ["-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(side);
        let side_path = Path::new(&name);
        if std::fs::symlink_metadata(side_path).is_ok() {
            check_file(
                side_path,
                &format!("the store's {side} file {}", side_path.display()),
            )?;
        }
    }
    Ok(())
}

fn euid() -> u32 {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

fn unsafe_store(message: String) -> StoreError {
    StoreError::Unsafe(message)
}

/// The folder must be this user's (or root's) and writable by no one else.
fn check_folder(path: &Path, dir: &Path) -> Result<(), StoreError> {
    let meta = std::fs::metadata(dir).map_err(|err| {
        StoreError::Backend(format!(
            "cannot read the folder {} of {}: {err}",
            dir.display(),
            path.display()
        ))
    })?;
    let (uid, me) = (meta.uid(), euid());
    if uid != me && uid != 0 {
        return Err(unsafe_store(format!(
            "the folder {} of the store {} is owned by uid {uid}, not by this user (uid {me}) or root: its owner can replace the store's files. Keep the store in a folder of this user's own (mkdir -m 700 ~/.deferral)",
            dir.display(),
            path.display()
        )));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(unsafe_store(format!(
            "the folder {} of the store {} may be written by {} (mode {mode:04o}): anyone who can write there can plant the store's file or its -wal and -shm files before this host makes them, and so choose what tick runs. Keep the store in a folder only this user can write (mkdir -m 700 ~/.deferral), or chmod go-w {}",
            dir.display(),
            path.display(),
            who_writes(mode),
            dir.display()
        )));
    }
    Ok(())
}

fn who_writes(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "its group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// An existing file of the store (`what` names it): a regular file, this user's, writable by
/// no one else.
fn check_file(path: &Path, what: &str) -> Result<(), StoreError> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|err| StoreError::Backend(format!("cannot read {what}: {err}")))?;
    let file_type = meta.file_type();
    if file_type.is_symlink() {
        return Err(unsafe_store(format!(
            "{what} is a symbolic link: give --store the path of the store's file itself (a link lets whoever controls it choose the file)"
        )));
    }
    if !file_type.is_file() {
        return Err(StoreError::Foreign(format!(
            "{what} is {}, not a store file{}",
            special_kind(&meta),
            if meta.is_dir() {
                format!(
                    ": give --store a file path, such as {}/host.db",
                    path.display()
                )
            } else {
                String::new()
            }
        )));
    }
    let (uid, me) = (meta.uid(), euid());
    if uid != me {
        return Err(unsafe_store(format!(
            "{what} is owned by uid {uid}, not by this user (uid {me}): a store is opened only by the user that made it, since its owner chooses what tick runs. If it is this user's store, chown it; if not, remove it and run init"
        )));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(unsafe_store(format!(
            "{what} may be written by {} (mode {mode:04o}), who could then choose what tick runs: chmod 600 {}",
            who_writes(mode),
            path.display()
        )));
    }
    Ok(())
}

/// What a file that is not a regular file is, in words.
fn special_kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}
