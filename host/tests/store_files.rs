//! Where a SQLite store may live and which file the host takes as one (issue 29, items 1 and
//! 7): a store is only ever created as a new private file, in a folder no one else can write;
//! an existing file is opened only when it is a store owned by this user and writable by no
//! one else, and the same for its `-wal` and `-shm` files. A file that is not a store, or a
//! directory, is named for what it is.
//!
//! "Another user" is `nobody`: the tests that give a file away need root (as CI's container
//! has); as another user they check everything but the owner.

mod common;

use common::{Host, HOUR};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

const NOBODY: u32 = 65534;

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Gives `path` to `nobody`; false when this user may not (not root).
fn give_to_nobody(path: &Path) -> bool {
    match std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY)) {
        Ok(()) => true,
        Err(err) if err.kind() == std::io::ErrorKind::PermissionDenied => false,
        Err(err) => panic!("chown {}: {err}", path.display()),
    }
}

fn on(db: &Path) -> Host {
    let host = Host::new();
    Host {
        store: format!("sqlite:{}", db.display()),
        db: db.to_path_buf(),
        ..host
    }
}

/// Runs `args` and expects exit 1 with `code`; answers the message.
fn refused(host: &Host, args: &[&str], stdin: &str, code: &str) -> String {
    let out = host.expect(1, args, stdin);
    assert_eq!(out["error"]["code"], code, "{args:?}: {out}");
    out["error"]["message"].as_str().unwrap().to_string()
}

/// A receipt in a file of `host`'s folder (a refused `record` exits before it reads stdin).
fn receipt_file(host: &Host) -> String {
    let path = host.path("receipt.json");
    let text = deferral_host_conformance::distinct_handoff(common::now(), 0, HOUR).to_json();
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn record_args(receipt: &str) -> [&str; 4] {
    ["record", "--launch", "exec:/bin/true", receipt]
}

#[test]
fn an_empty_file_another_user_planted_never_becomes_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("host.db");
    std::fs::write(&db, "").unwrap();
    chmod(&db, 0o666);
    let given = give_to_nobody(&db);
    let host = on(&db);
    let receipt = receipt_file(&host);
    let message = refused(&host, &["init"], "", "unsafe-store");
    assert!(message.contains(&db.display().to_string()), "{message}");
    assert!(
        message.contains("writable by") || message.contains("owned by"),
        "says why: {message}"
    );
    // `record` creates no store: an empty file is none, and init refuses to make it one.
    let out = host.expect(2, &record_args(&receipt), "");
    assert_eq!(out["error"]["code"], "store-not-found", "{out}");
    let meta = std::fs::metadata(&db).unwrap();
    assert_eq!(meta.len(), 0, "not one byte written into it");
    if given {
        assert_eq!(meta.uid(), NOBODY);
        // Owned by another user, even though no one else may write it: still not ours.
        chmod(&db, 0o600);
        let message = refused(&host, &["init"], "", "unsafe-store");
        assert!(message.contains("owned by"), "{message}");
        assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
    }
}

#[test]
fn a_store_others_may_write_is_refused_until_it_is_made_private() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    host.record("exec:/bin/true", 0, HOUR, &[]);
    chmod(&host.db, 0o666);
    let message = refused(&host, &["status"], "", "unsafe-store");
    assert!(message.contains("chmod"), "says what to do: {message}");
    refused(
        &host,
        &record_args(&receipt_file(&host)),
        "",
        "unsafe-store",
    );
    refused(&host, &["tick"], "", "unsafe-store");
    chmod(&host.db, 0o600);
    host.expect(0, &["status"], "");
}

#[test]
fn a_planted_wal_or_shm_file_is_refused() {
    for side in ["-wal", "-shm"] {
        let host = Host::new();
        host.expect(0, &["init"], "");
        let planted = host.path(&format!("host.db{side}"));
        let _ = std::fs::remove_file(&planted);
        std::fs::write(&planted, "").unwrap();
        chmod(&planted, 0o666);
        give_to_nobody(&planted);
        let message = refused(&host, &["status"], "", "unsafe-store");
        assert!(message.contains(side), "{side}: {message}");
    }
}

#[test]
fn a_store_is_not_created_in_a_folder_others_may_write() {
    for mode in [0o777, 0o1777, 0o775] {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        chmod(&shared, mode);
        let db = shared.join("host.db");
        let host = on(&db);
        let message = refused(&host, &["init"], "", "unsafe-store");
        assert!(
            message.contains("folder") && message.contains(&shared.display().to_string()),
            "{mode:o}: {message}"
        );
        assert!(!db.exists(), "{mode:o}: nothing created");
        // The same store moved to a private folder is fine.
        chmod(&shared, 0o700);
        host.expect(0, &["init"], "");
        assert_eq!(
            std::fs::metadata(&db).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[test]
fn a_folder_of_another_user_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    chmod(&theirs, 0o755);
    if !give_to_nobody(&theirs) {
        eprintln!("not root: a folder cannot be given to another user here");
        return;
    }
    let host = on(&theirs.join("host.db"));
    let message = refused(&host, &["init"], "", "unsafe-store");
    assert!(message.contains("owned by"), "{message}");
}

#[test]
fn a_file_that_is_not_a_store_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "shopping: eggs, milk\n").unwrap();
    chmod(&text, 0o600);
    let before = std::fs::read(&text).unwrap();
    let host = on(&text);
    for args in [&["status"][..], &["init"][..]] {
        let message = refused(&host, args, "", "foreign-store");
        assert!(
            message.contains("not a SQLite database") && message.contains("text"),
            "{args:?}: {message}"
        );
    }
    assert_eq!(std::fs::read(&text).unwrap(), before, "left as it was");
}

#[test]
fn a_directory_as_the_store_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("store.d");
    std::fs::create_dir(&folder).unwrap();
    chmod(&folder, 0o700);
    let host = on(&folder);
    for args in [&["status"][..], &["init"][..]] {
        let message = refused(&host, args, "", "foreign-store");
        assert!(message.contains("is a directory"), "{args:?}: {message}");
    }
}

#[test]
fn a_symlink_as_the_store_is_refused() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    let link = host.path("link.db");
    std::os::unix::fs::symlink(&host.db, &link).unwrap();
    let linked = on(&link);
    let message = refused(&linked, &["status"], "", "unsafe-store");
    assert!(message.contains("symbolic link"), "{message}");
}
