//! What `deferral-host` tells a person, on the built binary: when each deferral is due, when the
//! next one is, progress while `tick` works, the cancellation handle worth keeping, and the JSON
//! error line of a usage error. Machine output on stdout stays one JSON line throughout.

mod common;

use common::{now, Host, HOUR};
use std::process::Command;

const MINUTE: u64 = 60_000;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout_lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn status_table_says_when_each_deferral_is_due() {
    let host = Host::new();
    let (later, _) = host.record("exec:/bin/true", 23 * MINUTE + 30_000, HOUR, &[]);
    host.record("exec:/bin/true", 0, HOUR, &[]);
    let table = String::from_utf8(host.run(&["status"], "").stdout).unwrap();
    let header = table.lines().next().unwrap();
    assert!(header.contains("DUE"), "{table}");
    assert!(table.contains("in 23 min"), "{table}");
    assert!(table.contains("due now"), "{table}");
    let show = String::from_utf8(host.run(&["show", &later], "").stdout).unwrap();
    assert!(
        show.lines().any(|l| l == "due           in 23 min"),
        "show says it too: {show}"
    );
}

#[test]
fn dry_run_with_nothing_due_says_when_the_next_one_is() {
    let host = Host::new();
    let (later, _) = host.record(
        "exec:/bin/true",
        2 * HOUR + 5 * MINUTE + 30_000,
        3 * HOUR,
        &[],
    );
    host.record("exec:/bin/true", 40 * MINUTE + 30_000, 3 * HOUR, &[]);
    let (soon, _) = host.record("exec:/bin/true", 7 * MINUTE + 30_000, 3 * HOUR, &[]);
    let out = host.run(&["tick", "--dry-run"], "");
    assert_eq!(out.status.code(), Some(0));
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 1, "one JSON line on stdout: {lines:?}");
    let report: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(report["launched"].as_array().unwrap().len(), 0);
    assert_eq!(report["next"]["id"], soon.as_str());
    let in_ms = report["next"]["in_ms"].as_u64().unwrap();
    assert!((7 * MINUTE..=8 * MINUTE).contains(&in_ms), "{report}");
    let stderr = stderr_of(&out);
    assert!(stderr.contains("nothing due"), "{stderr}");
    assert!(
        stderr.contains(&format!("next: {soon}")) && stderr.contains("in 7 min"),
        "{stderr}"
    );
    assert!(!stderr.contains(&later), "only the next one: {stderr}");
    // With nothing waiting at all, it says that too.
    let empty = Host::new();
    // A store must exist before tick reads it (issue 21: tick no longer creates one).
    empty.expect(0, &["init"], "");
    let out = empty.run(&["tick", "--dry-run"], "");
    let report: serde_json::Value = serde_json::from_str(&stdout_lines(&out)[0]).unwrap();
    assert!(report["next"].is_null(), "{report}");
    assert!(
        stderr_of(&out).contains("no wake-up is scheduled"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn tick_prints_a_line_per_launch_and_outcome_and_a_summary_on_stderr() {
    let host = Host::new();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(host.record("exec:/bin/true", 0, HOUR, &[]).0);
    }
    let (blocked, _) = host.record("exec:/bin/false", 0, HOUR, &[]);
    let (waiting, _) = host.record("exec:/bin/true", 30 * MINUTE + 30_000, HOUR, &[]);
    let out = host.run(&["tick"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 1, "the JSON report alone on stdout: {lines:?}");
    let report: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(report["launched"].as_array().unwrap().len(), 4);
    assert_eq!(report["next"]["id"], waiting.as_str());
    let stderr = stderr_of(&out);
    for id in &ids {
        assert!(stderr.contains(&format!("launching {id}")), "{stderr}");
        assert!(stderr.contains(&format!("{id}: complete")), "{stderr}");
    }
    assert!(stderr.contains(&format!("{blocked}: blocked")), "{stderr}");
    let summary = stderr.lines().last().unwrap();
    assert!(
        summary.contains("launched 4")
            && summary.contains("3 complete")
            && summary.contains("1 blocked"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("next: {waiting}")) && summary.contains("in 30 min"),
        "{summary}"
    );
    // --quiet: nothing on stderr, the same JSON on stdout.
    host.record("exec:/bin/true", 0, HOUR, &[]);
    let out = host.run(&["tick", "--quiet"], "");
    assert_eq!(stderr_of(&out), "");
    assert_eq!(stdout_lines(&out).len(), 1);
}

/// Runs the command under a pseudo-terminal (util-linux `script`), so stderr is a terminal;
/// returns everything the terminal showed. None when `script` is not installed.
fn on_a_terminal(host: &Host, args: &[&str], stdin_file: &std::path::Path) -> Option<String> {
    let mut words = vec![
        env!("CARGO_BIN_EXE_deferral-host").to_string(),
        "--store".into(),
        host.store.clone(),
    ];
    words.extend(args.iter().map(|a| (*a).to_string()));
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
        .collect();
    let command = format!("{} < '{}'", quoted.join(" "), stdin_file.display());
    let out = Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .env_remove("DEFERRAL_STORE")
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).replace('\r', ""))
}

#[test]
fn record_on_a_terminal_says_to_keep_the_handle_on_its_own_line() {
    let host = Host::new();
    let receipt = deferral_host_conformance::handoff(now(), MINUTE, HOUR).to_json();
    let file = host.path("receipt.json");
    std::fs::write(&file, &receipt).unwrap();
    let Some(screen) = on_a_terminal(&host, &["record", "--launch", "exec:/bin/true", "-"], &file)
    else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    let json_line = screen.lines().find(|l| l.starts_with('{')).unwrap();
    let recorded: serde_json::Value = serde_json::from_str(json_line).unwrap();
    let handle = recorded["cancellation_handle"].as_str().unwrap();
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("keep this cancellation handle: it is shown once"))
        .unwrap_or_else(|| panic!("no reminder on the terminal:\n{screen}"));
    assert!(
        lines[at + 1..].iter().any(|l| l.trim() == handle),
        "the handle on its own line after the reminder:\n{screen}"
    );
    // Not a terminal: stdout keeps its one JSON line and stderr stays quiet.
    let out = host.run(&["record", "--launch", "exec:/bin/true", "-"], &receipt);
    assert_eq!(stdout_lines(&out).len(), 1);
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn tick_on_a_terminal_draws_a_progress_bar() {
    let host = Host::new();
    for _ in 0..3 {
        host.record("exec:/bin/true", 0, HOUR, &[]);
    }
    let empty = host.path("empty");
    std::fs::write(&empty, "").unwrap();
    let Some(screen) = on_a_terminal(&host, &["tick"], &empty) else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    assert!(screen.contains("3/3"), "{screen}");
    assert!(screen.contains("[#"), "a bar: {screen}");
    assert!(screen.contains("launched 3"), "the summary: {screen}");
}

#[test]
fn usage_errors_print_the_json_error_line() {
    let host = Host::new();
    let cases: [(&[&str], &str); 4] = [
        (&["cancel"], "missing-argument"),
        (&["cancel", "d123"], "missing-argument"),
        (&["tick", "--frobnicate"], "unknown-flag"),
        (&["tick", "--lease-timeout", "soon"], "invalid-value"),
    ];
    for (args, code) in cases {
        let out = host.run(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let lines = stdout_lines(&out);
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        let error: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(error["error"]["code"], code, "{args:?}: {error}");
        assert!(
            error["error"]["message"].as_str().unwrap().len() > 10,
            "{error}"
        );
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains("--help") || stderr.contains("Usage"),
            "{stderr}"
        );
    }
    let out = host.run(&["frobnicate"], "");
    let error: serde_json::Value = serde_json::from_str(&stdout_lines(&out)[0]).unwrap();
    assert_eq!(error["error"]["code"], "unknown-command");
    // --help is not an error: text on stdout, exit 0.
    let out = host.run(&["cancel", "--help"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
}
