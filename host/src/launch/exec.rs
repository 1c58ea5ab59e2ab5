//! `exec:` launches: the program run directly (no shell) with its arguments, the claimed
//! receipt on stdin and a cleared environment (PATH, HOME, LANG kept; DEFERRAL_ID,
//! DEFERRAL_ATTEMPT, DEFERRAL_WAKEUP_HANDLE, DEFERRAL_RECEIPT_DIGEST and, when the host made
//! one, DEFERRAL_REPORT_FILE added: see `report_file`). The process runs in its own process
//! group, which is killed if it (or a background process still holding its stdout) outlives the
//! lease. On Linux the process also gets a parent-death signal: it is
//! killed when the ticker dies. So no two launches of one deferral can overlap.

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
    /// The program could not be started (its error kind tells not-found from not-executable).
    SpawnFailed(std::io::ErrorKind, String),
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
    /// An absolute path, run directly.
    pub program: &'a str,
    pub args: &'a [String],
    pub deferral_id: &'a str,
    pub attempt: u32,
    pub wakeup_handle: &'a str,
    pub receipt_json: &'a str,
    pub receipt_digest: &'a str,
    /// `DEFERRAL_REPORT_FILE`: where the process reports its gate or resume line.
    pub report_file: Option<&'a std::path::Path>,
    /// Kill the process group when this passes.
    pub deadline: Instant,
}

/// Runs the launch to its end (or its deadline). `started` is called with the process group id
/// as soon as the process exists, before anything is waited for (the ticker records it).
pub fn run(request: &ExecRequest, started: &mut dyn FnMut(u32)) -> ExecResult {
    let mut command = Command::new(request.program);
    command.args(request.args).env_clear();
    for key in KEPT_ENV {
        if let Some(value) = std::env::var_os(key) {
            command.env(key, value);
        }
    }
    command
        .env("DEFERRAL_ID", request.deferral_id)
        .env("DEFERRAL_ATTEMPT", request.attempt.to_string())
        .env("DEFERRAL_WAKEUP_HANDLE", request.wakeup_handle)
        .env("DEFERRAL_RECEIPT_DIGEST", request.receipt_digest);
    if let Some(path) = request.report_file {
        command.env(super::report_file::REPORT_ENV, path);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0);
    die_with_parent(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return ExecResult {
                end: ExecEnd::SpawnFailed(err.kind(), err.to_string()),
                stdout: String::new(),
            }
        }
    };
    let pid = child.id();
    started(pid);
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
            None => ExecEnd::SpawnFailed(
                std::io::ErrorKind::Other,
                "could not wait for the process".into(),
            ),
        }
    };
    ExecResult { end, stdout }
}

/// Linux: the launched process gets SIGKILL when the thread that started it (the ticker) dies,
/// and refuses to start if the ticker is already gone. Elsewhere there is no such signal; the
/// recovering ticker kills the recorded group instead (see `tick`).
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    // SAFETY: getpid is async-signal-safe; called before fork, no memory involved.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the forked child before exec and only calls
    // async-signal-safe functions (prctl, getppid); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The ticker died between fork and prctl: the signal will never come.
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals the process group we created; no memory involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}
