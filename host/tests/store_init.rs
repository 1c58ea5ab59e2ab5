//! Only `init` creates a store, through the real binary: `record`, `serve` and `run` refuse a
//! store that does not exist (`store-not-found`, exit 2, the path named and `init` given as the
//! fix) and create no file, and `serve` and `run` refuse before they listen; `init` run twice
//! keeps what the store holds. The same on PostgreSQL, where "does not exist" is a database
//! (search_path) without the deferral-host tables.

mod common;

use common::{now, Host, HOUR};
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn receipt() -> String {
    deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Starts `args` (a `serve` or a `run` on port 0) and waits, up to 20 s, for it to end; answers
/// its exit code and its first stdout line (a `{"listening"}` line if it started after all).
fn start_and_wait(host: &Host, args: &[&str]) -> (Option<i32>, Value) {
    let mut child = host
        .command(args)
        .env("DEFERRAL_SERVE_TOKEN", common::server::TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null);
    (out.status.code(), first)
}

const STARTS: [&[&str]; 2] = [
    &["serve", "--listen", "127.0.0.1:0"],
    &["run", "--listen", "127.0.0.1:0"],
];

/// The refusal of a missing store: its code, and a message naming `shown` with `init` as the fix.
fn assert_refused(what: &str, answer: &Value, shown: &str) {
    assert_eq!(
        answer["error"]["code"], "store-not-found",
        "{what}: {answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(shown), "{what}: {message}");
    assert!(
        message.contains("deferral-host init --store"),
        "{what}: {message}"
    );
    assert!(
        !message.contains("create it too") && !message.contains("create them too"),
        "{what}: only init creates a store: {message}"
    );
}

#[test]
fn record_serve_and_run_refuse_a_missing_sqlite_store_and_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["hots.db", "no-such-folder/host.db"] {
        let missing = dir.path().join(name);
        let store = format!("sqlite:{}", missing.display());
        let host = Host::with_store(&store);
        let before = listing(dir.path());
        let out = host.expect(
            2,
            &["record", "--launch", "exec:/bin/true", "-"],
            &receipt(),
        );
        assert_refused("record", &out, &store);
        for args in STARTS {
            let (code, first) = start_and_wait(&host, args);
            assert_eq!(code, Some(2), "{args:?} must not start: {first}");
            assert!(
                first.get("listening").is_none(),
                "{args:?} listened: {first}"
            );
            assert_refused(args[0], &first, &store);
        }
        // A command that only reads refused already; it still does.
        assert_refused("status", &host.expect(2, &["status"], ""), &store);
        assert_eq!(
            listing(dir.path()),
            before,
            "{name}: no file nor folder made"
        );
        assert!(!missing.exists());
    }
}

#[test]
fn init_twice_keeps_what_the_store_holds() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("host.db").display());
    let host = Host::with_store(&store);
    assert_eq!(host.expect(0, &["init"], "")["created"], true);
    let recorded = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "-"],
        &receipt(),
    );
    let id = recorded["id"].as_str().unwrap();
    // `--store` after the command name, as the refusal's advice writes it.
    let bin = env!("CARGO_BIN_EXE_deferral-host");
    let again = std::process::Command::new(bin)
        .args(["init", "--store", &store])
        .env_remove("DEFERRAL_STORE")
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["created"], false, "{again}");
    let listed = host.expect(0, &["status", "--json"], "");
    let ids: Vec<&str> = listed["deferrals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [id],
        "the deferral recorded between the two inits is kept"
    );
    assert_eq!(host.status(id)["state"], "deferred");
    assert_eq!(host.expect(0, &["init"], "")["created"], false);
}

#[test]
fn postgres_only_init_creates_the_tables() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url);
    let out = host.expect(
        2,
        &["record", "--launch", "exec:/bin/true", "-"],
        &receipt(),
    );
    assert_refused("record", &out, "PostgreSQL");
    for args in STARTS {
        let (code, first) = start_and_wait(&host, args);
        assert_eq!(code, Some(2), "{args:?} must not start: {first}");
        assert_refused(args[0], &first, "PostgreSQL");
        assert!(
            !first.to_string().contains("postgres://"),
            "no URL: {first}"
        );
    }
    let mut client = schema.client();
    let tables = |client: &mut postgres::Client| -> i64 {
        client
            .query_one(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1",
                &[&schema.name],
            )
            .unwrap()
            .get(0)
    };
    assert_eq!(tables(&mut client), 0, "nothing created");
    assert_eq!(host.expect(0, &["init"], "")["created"], true);
    assert!(tables(&mut client) > 0);
    let recorded = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "-"],
        &receipt(),
    );
    assert_eq!(host.expect(0, &["init"], "")["created"], false);
    let id = recorded["id"].as_str().unwrap();
    assert_eq!(
        host.status(id)["state"],
        "deferred",
        "kept by the second init"
    );
}

#[test]
fn the_store_help_says_only_init_creates_it() {
    let host = Host::uncreated();
    for command in ["record", "serve", "run", "tick", "init"] {
        let out = host.run(&[command, "--help"], "");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{command} --help");
        assert!(
            text.contains("It must exist: create it with `deferral-host init`")
                && text.contains("running init again is harmless")
                && !text.contains("(created if missing)"),
            "{command} --help:\n{text}"
        );
    }
    assert!(!host.db.exists(), "--help made no store");
}
