//! Finding and ending the process group an earlier `exec:` launch left behind.
//!
//! A launch's group is recorded as [`LaunchProcess`]: its id, the machine and boot it runs on,
//! and its leader's start time. When a ticker recovers that launch's lease, it calls
//! [`end_stale_group`] before launching again: on the same machine and boot it kills every
//! process of the group and waits until none is left; a group from an earlier boot is gone
//! already; a group on another machine cannot be checked from here.
//!
//! Process ids are reused, so the group id alone could name someone else's processes later.
//! Linux keeps an id reserved while any process still uses it as its group id, so a group id
//! with live members is still ours, unless its leader died, every member died, and a new
//! process got the id; that new process is then the group's leader with another start time,
//! which is checked before anything is killed.
//!
//! Only Linux is supported (it reads `/proc`); elsewhere nothing is recorded and nothing killed.

use crate::store::LaunchProcess;
use std::time::{Duration, Instant};

/// What [`end_stale_group`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaleGroup {
    /// No process of the group is running (or it ran on an earlier boot).
    Gone,
    /// This many processes were killed, and none is left.
    Killed(usize),
    /// The group runs on another machine: only a ticker there can end it.
    Elsewhere(String),
    /// Processes of the group are still running after the wait.
    StillRunning(usize),
}

#[cfg(target_os = "linux")]
mod proc_fs {
    /// `(state, pgrp, starttime)` of a process from `/proc/PID/stat`.
    pub fn stat(pid: i64) -> Option<(char, i64, u64)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold spaces or ')': fields follow the last ')'.
        let (_, rest) = text.rsplit_once(')')?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the name: 0 state, 1 ppid, 2 pgrp, ..., 19 starttime (field 22 of stat(5)).
        let state = fields.first()?.chars().next()?;
        let pgrp = fields.get(2)?.parse().ok()?;
        let start = fields.get(19)?.parse().ok()?;
        Some((state, pgrp, start))
    }

    /// Running (not zombie) processes whose group is `pgid`.
    pub fn members(pgid: i64) -> Vec<i64> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i64>().ok())
            .filter(|pid| {
                stat(*pid)
                    .is_some_and(|(state, pgrp, _)| pgrp == pgid && state != 'Z' && state != 'X')
            })
            .collect()
    }

    pub fn read_trimmed(path: &str) -> Option<String> {
        let text = std::fs::read_to_string(path).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }
}

/// This machine's id and boot id.
#[cfg(target_os = "linux")]
fn here() -> (String, String) {
    let machine = proc_fs::read_trimmed("/etc/machine-id")
        .or_else(|| proc_fs::read_trimmed("/var/lib/dbus/machine-id"))
        .or_else(|| proc_fs::read_trimmed("/proc/sys/kernel/hostname"))
        .unwrap_or_default();
    let boot = proc_fs::read_trimmed("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    (machine, boot)
}

/// The record of a group whose leader is `pid`, just started; `None` where unsupported.
#[cfg(target_os = "linux")]
pub fn describe(pid: u32, fence: u64, now_ms: u64) -> Option<LaunchProcess> {
    let pgid = i64::from(pid);
    let (_, _, leader_start) = proc_fs::stat(pgid)?;
    let (machine, boot_id) = here();
    Some(LaunchProcess {
        fence,
        pgid,
        machine,
        boot_id,
        leader_start,
        recorded_ms: now_ms,
    })
}

#[cfg(not(target_os = "linux"))]
pub fn describe(_pid: u32, _fence: u64, _now_ms: u64) -> Option<LaunchProcess> {
    None
}

/// Kills what is left of a recorded group and waits up to `wait` for it to be gone.
#[cfg(target_os = "linux")]
pub fn end_stale_group(process: &LaunchProcess, wait: Duration) -> StaleGroup {
    let (machine, boot) = here();
    if process.machine != machine {
        return StaleGroup::Elsewhere(process.machine.clone());
    }
    if process.boot_id != boot {
        return StaleGroup::Gone;
    }
    // A live process with the group's id but another start time: the id was reused, so every
    // process of our group had ended (see the module docs).
    if let Some((state, _, start)) = proc_fs::stat(process.pgid) {
        if start != process.leader_start && state != 'Z' {
            return StaleGroup::Gone;
        }
    }
    let found = proc_fs::members(process.pgid).len();
    if found == 0 {
        return StaleGroup::Gone;
    }
    let Ok(pgid) = i32::try_from(process.pgid) else {
        return StaleGroup::StillRunning(found);
    };
    let deadline = Instant::now() + wait;
    loop {
        // SAFETY: kill(2) on the recorded process group; no memory involved.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(5));
        let left = proc_fs::members(process.pgid).len();
        if left == 0 {
            return StaleGroup::Killed(found);
        }
        if Instant::now() >= deadline {
            return StaleGroup::StillRunning(left);
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub fn end_stale_group(_process: &LaunchProcess, _wait: Duration) -> StaleGroup {
    StaleGroup::Gone
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn kills_a_live_group_and_leaves_a_reused_id_alone() {
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 30 & sleep 30; wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let record = describe(child.id(), 7, 0).unwrap();
        assert_eq!(record.pgid, i64::from(child.id()));
        // The same id, a different start time: not ours, nothing killed.
        let reused = LaunchProcess {
            leader_start: record.leader_start + 1,
            ..record.clone()
        };
        assert_eq!(
            end_stale_group(&reused, Duration::from_secs(1)),
            StaleGroup::Gone
        );
        assert_eq!(proc_fs::members(record.pgid).len(), 3, "sh and two sleeps");
        let elsewhere = LaunchProcess {
            machine: "another-machine".into(),
            ..record.clone()
        };
        assert_eq!(
            end_stale_group(&elsewhere, Duration::from_secs(1)),
            StaleGroup::Elsewhere("another-machine".into())
        );
        assert_eq!(
            end_stale_group(&record, Duration::from_secs(5)),
            StaleGroup::Killed(3)
        );
        child.wait().unwrap();
        assert!(proc_fs::members(record.pgid).is_empty());
        assert_eq!(
            end_stale_group(&record, Duration::from_secs(1)),
            StaleGroup::Gone
        );
    }
}
