//! An `exec:` program runs as the host's user, yet cannot read the host's secrets: its own
//! environment holds none of the host's (it is cleared), and the host's process is not
//! dumpable, so `/proc/<host>/environ` (and `mem`) are closed to a process of the same user.
//!
//! Root may read any process's memory (CAP_SYS_PTRACE), so when the tests run as root the host
//! is run as the user `nobody` (65534), in a folder of that user's, as an operator runs it.

mod common;

use common::{now, script, Host, HOUR};
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

const SECRET: &str = "exec-secrets-host-token-not-real-0123";
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// The host's command, as `nobody` when the tests run as root, with a secret in its
/// environment as an operator's unit gives one.
fn host_command(host: &Host, args: &[&str]) -> Command {
    let mut cmd = host.command(args);
    cmd.env("DEFERRAL_SERVE_TOKEN", SECRET)
        .env("GH_TOKEN", SECRET)
        .env("GITHUB_API_URL", "http://127.0.0.1:9");
    if is_root() {
        cmd.uid(NOBODY).gid(NOBODY).env("HOME", host.dir.path());
    }
    cmd
}

fn expect(host: &Host, args: &[&str], stdin: &str) -> Value {
    use std::io::Write;
    let mut child = host_command(host, args)
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
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "deferral-host {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or(Value::Null)
}

/// The lines of an environment that hold the secret (and nothing else of the test's).
fn with_secret(environment: &str) -> Vec<&str> {
    environment.lines().filter(|l| l.contains(SECRET)).collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn an_exec_program_cannot_read_the_hosts_environment() {
    let host = Host::uncreated();
    if is_root() {
        std::os::unix::fs::chown(host.dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    expect(&host, &["init"], "");
    // The program reads its parent's (the host's) environment and its own, and says how the
    // read ended.
    let parent = host.path("parent-environ");
    let own = host.path("own-environ");
    let status = host.path("parent-read-status");
    let target = script(
        &host.path("snoop.sh"),
        &format!(
            "{{ tr '\\0' '\\n' < /proc/$PPID/environ; }} > '{}' 2>&1; echo $? > '{}'; env > '{}'",
            parent.display(),
            status.display(),
            own.display()
        ),
    );
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let recorded = expect(&host, &["record", "--launch", &target, "-"], &receipt);
    let report = expect(&host, &["tick"], "");
    assert!(
        status.exists(),
        "the program ran: {report}\nrecorded: {recorded}"
    );
    let parent = read(&parent);
    assert!(
        !parent.contains(SECRET),
        "the program read the host's environment: {:?}",
        with_secret(&parent)
    );
    assert_ne!(
        read(&status).trim(),
        "0",
        "/proc/<host>/environ was readable ({} bytes)",
        parent.len()
    );
    let own = read(&own);
    assert!(
        !own.contains(SECRET),
        "the program was given a secret: {:?}",
        with_secret(&own)
    );
}
