//! `status --html FILE` on the built binary: one JSON line on stdout saying what was written, a
//! self-contained page (no script, no external asset), and everything from the store escaped.
//! The page in a real browser: tests/browser/status-page.test.mjs.

mod common;

use common::{now, Host, HOUR};
use deferral_host::coordinator::{self, Outcome};
use deferral_host::store::AttemptStatus;

const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror='x()'>\"&";

#[test]
fn status_html_writes_a_self_contained_page_with_everything_escaped() {
    let host = Host::new();
    let (waiting, _) = host.record("exec:/bin/true", 30 * 60_000, HOUR, &[]);
    let (blocked, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    // An outcome whose detail came from outside (a child's output, a provider's message).
    let store = host.open();
    let d = coordinator::load(&store, &blocked).unwrap();
    let t = now();
    let claimed =
        coordinator::claim(&store, &d, "test", t + 60_000, AttemptStatus::Launching, t).unwrap();
    coordinator::finish(
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
