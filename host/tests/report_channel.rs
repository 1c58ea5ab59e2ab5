//! The report channel (issue 26 item 2), through the real binaries: `deferral-host` launches
//! `exec:` jobs with `DEFERRAL_REPORT_FILE`, and the `deferral` CLI (dist/cli.js, run by node)
//! appends its whole gate or resume line there as well as printing it. A job written as
//! `deferral resume ... && ./work.sh`, whose work prints a JSON line of its own last, still
//! teaches its pool what the resume saw and planned: the host reads the report file first and
//! stdout's last JSON line only when the file is absent or empty, and says which in the
//! attempt's event.

mod common;

use common::{now, script, sq, Host};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SCOPE: &str = "report-channel";

fn cli() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist/cli.js")
}

/// A `GET /rate_limit` body: core `limit` with `remaining`, resetting at `reset_s`.
fn rate_body(remaining: u64, reset_s: u64) -> String {
    let core = format!(
        r#"{{"limit":45,"used":{},"remaining":{remaining},"reset":{reset_s},"resource":"core"}}"#,
        45 - remaining
    );
    format!(r#"{{"resources":{{"core":{core}}},"rate":{core}}}"#)
}

/// The CLI's flags shared by the gate and the resume (the same work, the same bindings).
fn flags(host: &Host) -> String {
    format!(
        "--plan {} --scope {SCOPE} --rest-reserve 5 --resume-buffer 0s --resume-jitter 0s --fresh-approval never",
        sq(&host.path("plan.json"))
    )
}

/// `deferral gate` on a window with 3 left of 45, resetting in 2 s: its deferred line.
fn deferred_gate_line(host: &Host) -> String {
    std::fs::write(
        host.path("plan.json"),
        r#"{"rest":[{"method":"POST","route":"/repos/{owner}/{repo}/issues","count":10}]}"#,
    )
    .unwrap();
    std::fs::write(host.path("low.json"), rate_body(3, now() / 1000 + 2)).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "node {} gate --rate-state {} {}",
            sq(&cli()),
            sq(&host.path("low.json")),
            flags(host)
        ))
        .env_remove("DEFERRAL_REPORT_FILE")
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(6), "the gate defers: {line}");
    line
}

fn show(host: &Host, id: &str) -> Value {
    host.expect(0, &["show", "--json", id], "")
}

#[test]
fn a_jobs_own_last_line_does_not_hide_the_resume_line_from_its_pool() {
    let host = Host::new();
    let line = deferred_gate_line(&host);
    let full_reset_s = now() / 1000 + 3000;
    std::fs::write(host.path("full.json"), rate_body(45, full_reset_s)).unwrap();
    let work = host.path("work.sh");
    script(&work, r#"echo '{"status":"complete"}'"#);
    let launch = script(
        &host.path("job.sh"),
        &format!(
            "node {} resume --receipt - --rate-state {} {} && {}",
            sq(&cli()),
            sq(&host.path("full.json")),
            flags(&host),
            sq(&work)
        ),
    );
    let recorded = host.expect(
        0,
        &["record", "--launch", &launch, "--pool", "app-1", "-"],
        &line,
    );
    let id = recorded["id"].as_str().unwrap().to_string();

    // Ticks until the job has run (held until the 2 s window resets, then admitted).
    let deadline = Instant::now() + Duration::from_secs(60);
    while host.status(&id)["state"] == "deferred" {
        assert!(
            Instant::now() < deadline,
            "never launched: {}",
            show(&host, &id)
        );
        host.tick(&["--pool-buffer", "0s", "--pool-jitter", "0s"]);
        std::thread::sleep(Duration::from_millis(200));
    }
    let shown = show(&host, &id);
    assert_eq!(shown["deferral"]["state"], "complete", "{shown}");
    let ended = shown["events"].as_array().unwrap().last().unwrap().clone();
    let detail = ended["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("exit 0; report-file: resume ready"),
        "the attempt's event says what the host read and from where: {ended}"
    );
    assert!(
        detail.contains(&format!("reset {full_reset_s}")),
        "the resume's figures: {ended}"
    );

    // What the pool learned: the window the resume read, less the 10 it planned.
    let learned: Vec<&Value> = shown["observations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["source"] == format!("attempt {id}#1"))
        .collect();
    assert_eq!(learned.len(), 1, "{shown}");
    assert_eq!(
        (&learned[0]["remaining"], &learned[0]["reset_ms"]),
        (&Value::from(35), &Value::from(full_reset_s * 1000)),
        "{shown}"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let pool = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "app-1")
        .cloned()
        .unwrap_or_else(|| panic!("app-1 is listed: {pools}"));
    assert_eq!(pool["rest"]["remaining"], 35, "{pool}");
    assert_eq!(pool["admitted"], 0, "the admission was released: {pool}");

    // The report file was the host's own: fresh, private, and removed once read.
    let leftovers: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("deferral-report-{id}-"))
        })
        .collect();
    assert!(leftovers.is_empty(), "the report directory is removed");
}
