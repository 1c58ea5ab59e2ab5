//! Helpers for process-level tests: run the built binary against a temporary store.
#![allow(dead_code)]

pub mod checks;
pub mod clock;
pub mod exposition;
pub mod gate;
pub mod github;
pub mod github_cli;
pub mod pg;
pub mod refusing;
pub mod run;
pub mod serve_client;
pub mod server;
pub mod signing;
pub mod tcp_state;
pub mod webhook;

use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{SqliteStore, Store, StoreUrl};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const HOUR: u64 = 3_600_000;

pub struct Host {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    /// What `--store` gets: `sqlite:<db>` unless made with [`Host::with_store`].
    pub store: String,
}

pub fn now() -> u64 {
    deferral_host::clock::now_ms()
}

impl Host {
    /// A new SQLite store in a temporary folder, created with `init` as an operator does (only
    /// `init` creates a store).
    pub fn new() -> Host {
        Host::uncreated().init()
    }

    /// A host whose SQLite store (`host.db` in `dir`) is not created yet.
    pub fn uncreated() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("host.db");
        let store = format!("sqlite:{}", db.display());
        Host { dir, db, store }
    }

    /// A host on another store (a PostgreSQL URL), not created: [`Host::init`] creates it.
    /// `dir` still holds the test's files.
    pub fn with_store(url: &str) -> Host {
        Host {
            store: url.to_string(),
            ..Host::uncreated()
        }
    }

    /// Runs `init` (the only command that creates a store); answers the host.
    pub fn init(self) -> Host {
        self.expect(0, &["init"], "");
        self
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Starts `serve` with `args` and `token` (through `DEFERRAL_SERVE_TOKEN`), waits for its
    /// `{"listening"}` line, and answers the child and the address it listens on.
    pub fn spawn_serve(
        &self,
        args: &[&str],
        token: &str,
        stderr: Stdio,
    ) -> (std::process::Child, String) {
        use std::io::BufRead;
        let mut child = self
            .command(args)
            .env("DEFERRAL_SERVE_TOKEN", token)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ready: Value = serde_json::from_str(&line).expect("a {\"listening\"} line");
        let addr = ready["listening"].as_str().unwrap().to_string();
        (child, addr)
    }

    pub fn command(&self, args: &[&str]) -> Command {
        // DEFERRAL_HOST_BIN runs the same tests against another build (say, an older one, to
        // see a new test fail there).
        let bin = std::env::var("DEFERRAL_HOST_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_deferral-host").to_string());
        let mut cmd = Command::new(bin);
        cmd.arg("--store").arg(&self.store).args(args);
        cmd.env_remove("GITHUB_TOKEN")
            .env_remove("DEFERRAL_STORE")
            .env_remove("DEFERRAL_WAKEUP_HANDLE");
        cmd
    }

    /// Runs the host with `stdin` and returns its output.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Runs and expects exit `code`; returns stdout's last line as JSON (or Null).
    pub fn expect(&self, code: i32, args: &[&str], stdin: &str) -> Value {
        let out = self.run(args, stdin);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "deferral-host {args:?}\nstdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .lines()
            .last()
            .and_then(|l| serde_json::from_str(l).ok())
            .unwrap_or(Value::Null)
    }

    /// Records a handoff receipt with window `[now + after, now + by]`; returns (id, cancel handle).
    pub fn record(
        &self,
        launch: &str,
        after_ms: u64,
        by_ms: u64,
        extra: &[&str],
    ) -> (String, String) {
        // A distinct receipt each call: recording is idempotent by receipt digest.
        let receipt = deferral_host_conformance::distinct_handoff(now(), after_ms, by_ms).to_json();
        let mut args = vec!["record", "--launch", launch];
        args.extend_from_slice(extra);
        args.push("-");
        let out = self.expect(0, &args, &receipt);
        (
            out["id"].as_str().unwrap().to_string(),
            out["cancellation_handle"].as_str().unwrap().to_string(),
        )
    }

    pub fn status(&self, id: &str) -> Value {
        self.expect(0, &["status", "--json", id], "")
    }

    pub fn tick(&self, extra: &[&str]) -> Value {
        let mut args = vec!["tick"];
        args.extend_from_slice(extra);
        self.expect(0, &args, "")
    }

    pub fn open(&self) -> SqliteStore {
        SqliteStore::open(&self.db, IntegrityCheck::Full).unwrap()
    }

    /// A connection to whichever store `--store` names.
    pub fn open_any(&self) -> Box<dyn Store + Send> {
        StoreUrl::parse(&self.store)
            .unwrap()
            .open(IntegrityCheck::Full)
            .unwrap()
    }
}

/// Lines of a file (empty when it does not exist).
pub fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A shell-quoted path.
pub fn sq(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// Writes an executable `#!/bin/sh` script at `path`; returns its `exec:` target.
pub fn script(path: &Path, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("exec:'{}'", path.display())
}
