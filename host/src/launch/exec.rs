//! `exec:` launches: `sh -c COMMAND` with the claimed receipt on stdin and a cleared
//! environment (PATH, HOME, LANG kept; DEFERRAL_ID, DEFERRAL_ATTEMPT, DEFERRAL_WAKEUP_HANDLE,
//! DEFERRAL_RECEIPT_DIGEST added). The process runs in its own process group, which is killed
//! if it (or a background process still holding its stdout) outlives the lease, so no two
//! launches of one deferral can overlap.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Kept from the host's environment; everything else is cleared.
pub const KEPT_ENV: [&str; 3] = ["PATH", "HOME", "LANG"];

/// Stdout beyond this is read and dropped.
const MAX_STDOUT: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecEnd {
    Exited(i32),
    Signaled(i32),
    /// Killed because it outlived its lease.
    TimedOut,
    SpawnFailed(String),
}

#[derive(Debug, Clone)]
pub struct ExecResult {
    pub end: ExecEnd,
    pub stdout: String,
}

impl ExecResult {
    /// The last stdout line that looks like a JSON object (where exit 6 puts the new receipt).
    pub fn last_json_line(&self) -> Option<&str> {
        self.stdout
            .lines()
            .map(str::trim)
            .rev()
            .find(|line| line.starts_with('{'))
    }
}

pub struct ExecRequest<'a> {
    pub command: &'a str,
    pub deferral_id: &'a str,
    pub attempt: u32,
    pub wakeup_handle: &'a str,
    pub receipt_json: &'a str,
    pub receipt_digest: &'a str,
    /// Kill the process group when this passes.
    pub deadline: Instant,
}

pub fn run(request: &ExecRequest) -> ExecResult {
    let mut command = Command::new("sh");
    command.arg("-c").arg(request.command).env_clear();
    for key in KEPT_ENV {
        if let Some(value) = std::env::var_os(key) {
            command.env(key, value);
        }
    }
    command
        .env("DEFERRAL_ID", request.deferral_id)
        .env("DEFERRAL_ATTEMPT", request.attempt.to_string())
        .env("DEFERRAL_WAKEUP_HANDLE", request.wakeup_handle)
        .env("DEFERRAL_RECEIPT_DIGEST", request.receipt_digest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return ExecResult {
                end: ExecEnd::SpawnFailed(err.to_string()),
                stdout: String::new(),
            }
        }
    };
    let pid = child.id();
    let stdin = child.stdin.take();
    let input = format!("{}\n", request.receipt_json);
    // Writer and reader in threads so a process that ignores stdin or floods stdout cannot stall us.
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let stdout = child.stdout.take();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut stdout) = stdout {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if kept.len() < MAX_STDOUT {
                    kept.extend_from_slice(&buf[..n.min(MAX_STDOUT - kept.len())]);
                }
            }
        }
        let _ = sender.send(String::from_utf8_lossy(&kept).into_owned());
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if Instant::now() >= request.deadline {
            timed_out = true;
            // Killed before the leader is reaped, so the group id cannot have been reused.
            kill_group(pid);
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    // Something the command started in the background may still hold stdout open: wait for it
    // until the lease deadline, then kill the group (a member holding the pipe keeps its id).
    let remaining = request.deadline.saturating_duration_since(Instant::now());
    let stdout = match receiver.recv_timeout(remaining) {
        Ok(text) => text,
        Err(_) => {
            timed_out = true;
            kill_group(pid);
            receiver
                .recv_timeout(Duration::from_secs(5))
                .unwrap_or_default()
        }
    };
    let end = if timed_out {
        ExecEnd::TimedOut
    } else {
        match status {
            Some(status) => match status.code() {
                Some(code) => ExecEnd::Exited(code),
                None => ExecEnd::Signaled(status.signal().unwrap_or(0)),
            },
            None => ExecEnd::SpawnFailed("could not wait for the process".into()),
        }
    };
    ExecResult { end, stdout }
}

fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals the process group we created; no memory involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}
