//! `status --html FILE` on the built binary: one JSON line on stdout saying what was written, a
//! self-contained page (no script, no external asset), and everything from the store escaped.
//! The page in a real browser: tests/browser/status-page.test.mjs.

mod common;

use common::{now, Host, HOUR};
use deferral_host::lifecycle;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::store::AttemptStatus;

const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror='x()'>\"&";

#[test]
fn status_html_writes_a_self_contained_page_with_everything_escaped() {
    let host = Host::new();
    let (waiting, _) = host.record("exec:/bin/true", 30 * 60_000, HOUR, &[]);
    let (blocked, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    // An outcome whose detail came from outside (a child's output, a provider's message).
    let store = host.open();
    let d = lifecycle::change::load(&store, &blocked).unwrap();
    let t = now();
    let claimed =
        lifecycle::claim::claim(&store, &d, "test", t + 60_000, AttemptStatus::Launching, t)
            .unwrap();
    lifecycle::outcome::end_attempt(
        &store,
        &claimed.deferral,
        Outcome::Blocked {
            detail: Some(HOSTILE.into()),
        },
        t,
    )
    .unwrap();

    let file = host.path("status.html");
    let out = host.expect(0, &["status", "--html", file.to_str().unwrap()], "");
    assert_eq!(out["deferrals"], 2);
    assert_eq!(out["html"], file.to_str().unwrap());
    let page = std::fs::read_to_string(&file).unwrap();
    assert_eq!(out["bytes"], page.len());
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&#39;x()&#39;&gt;&quot;&amp;"),
        "the detail is shown, escaped: {page}"
    );
    let lower = page.to_lowercase();
    // (The escaped detail's text "src=x" is text; what must not appear is markup.)
    for markup in [
        "<script", "<img", "<link", "<iframe", "src=\"", "href=", "url(", "@import",
    ] {
        assert!(!lower.contains(markup), "{markup} in the page: {page}");
    }
    assert!(
        page.contains("default-src 'none'"),
        "the page tells the browser to load nothing"
    );
    assert!(
        page.contains(&waiting) && (page.contains("in 29 min") || page.contains("in 30 min")),
        "{page}"
    );
    assert!(page.contains("Deferrals by state (2 in all)"), "{page}");

    // An unwritable path is an error line, exit 1, and nothing else on stdout.
    let out = host.run(&["status", "--html", "/nonexistent-dir/status.html"], "");
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8(out.stdout).unwrap();
    let error: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(error["error"]["code"], "unwritable-output");
}

/// The regular files of `dir`, by name.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn status_html_replaces_a_planted_symlink_and_never_writes_through_it() {
    use std::os::unix::fs::PermissionsExt;
    let host = Host::new();
    host.record("exec:/bin/true", 30 * 60_000, HOUR, &[]);
    // A symlink planted at FILE, to a file that exists and to one that does not yet.
    let victim = host.path("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    let absent = host.path("absent.txt");
    for (name, target) in [("page.html", &victim), ("other.html", &absent)] {
        let file = host.path(name);
        std::os::unix::fs::symlink(target, &file).unwrap();
        let out = host.expect(0, &["status", "--html", file.to_str().unwrap()], "");
        assert_eq!(out["html"], file.to_str().unwrap());
        let meta = std::fs::symlink_metadata(&file).unwrap();
        assert!(meta.file_type().is_file(), "{name} is now a regular file");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{name}");
        let page = std::fs::read_to_string(&file).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        assert_eq!(out["bytes"], page.len());
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert_eq!(
        std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777,
        0o644
    );
    assert!(
        !absent.exists(),
        "nothing was created through the dangling link"
    );

    // A regular file already there is replaced the same way (0600 whatever its mode was), and
    // no temporary file is left behind.
    let file = host.path("plain.html");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    host.expect(0, &["status", "--html", file.to_str().unwrap()], "");
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    let names = names_in(host.dir.path());
    for name in &names {
        assert!(
            [
                "host.db",
                "host.db-shm",
                "host.db-wal",
                "victim.txt",
                "page.html",
                "other.html",
                "plain.html"
            ]
            .contains(&name.as_str()),
            "left behind: {name} in {names:?}"
        );
    }
}
