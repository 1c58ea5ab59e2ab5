//! Launches never overlap: the launched process dies with its ticker (Linux parent-death
//! signal), and a ticker that recovers a stale lease kills the old launch's process group and
//! sees it gone before it launches again.
#![cfg(target_os = "linux")]

mod common;

use common::{lines, script, sq, Host, HOUR};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Alive and not a zombie (an orphan's zombie waits for whoever reaps it; it runs nothing).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn wait_for_lines(path: &std::path::Path, n: usize) -> Vec<String> {
    let start = Instant::now();
    while lines(path).len() < n && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    lines(path)
}

fn kill9(child: &mut std::process::Child) {
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
}

#[test]
fn the_launched_process_dies_with_its_ticker() {
    let host = Host::new();
    let pids = host.path("pids");
    let launch = script(
        &host.path("long.sh"),
        &format!("echo $$ >> {}; exec sleep 60", sq(&pids)),
    );
    host.record(&launch, 0, HOUR, &[]);
    let mut ticker = host
        .command(&["tick", "--lease-timeout", "2m"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid: u32 = wait_for_lines(&pids, 1)[0].parse().unwrap();
    assert!(alive(pid));
    kill9(&mut ticker);
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let survived = alive(pid);
    if survived {
        // SAFETY: cleaning up the process this test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert!(!survived, "the launched process outlived its ticker");
}

#[test]
fn a_recovered_lease_kills_the_old_process_group_before_launching_again() {
    let host = Host::new();
    let (log, pids) = (host.path("log"), host.path("pids"));
    // Attempt 1 leaves a second process in its group and waits; attempt 2 looks whether that
    // process is still running when it starts.
    let body = format!(
        r#"cat > /dev/null
alive() {{ [ -e /proc/$1/stat ] && ! grep -q '^[0-9]* (.*) Z' /proc/$1/stat; }}
if [ "$DEFERRAL_ATTEMPT" = 1 ]; then
  sleep 60 &
  echo $! >> {pids}
  echo $$ >> {pids}
  wait
fi
if alive "$(head -1 {pids})"; then echo "attempt $DEFERRAL_ATTEMPT: overlap" >> {log}; else echo "attempt $DEFERRAL_ATTEMPT: alone" >> {log}; fi
exit 0"#,
        pids = sq(&pids),
        log = sq(&log),
    );
    let launch = script(&host.path("resume.sh"), &body);
    let (id, _) = host.record(&launch, 0, HOUR, &[]);
    let mut ticker = host
        .command(&["tick", "--lease-timeout", "1500ms"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let started: Vec<u32> = wait_for_lines(&pids, 2)
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    kill9(&mut ticker);
    common::clock::until_past_field(&host, &id, "lease_until_ms");
    let report = host.tick(&[]);
    let leftovers: Vec<u32> = started.iter().copied().filter(|p| alive(*p)).collect();
    for pid in &leftovers {
        // SAFETY: cleaning up processes this test started.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    assert_eq!(
        lines(&log),
        ["attempt 2: alone"],
        "the relaunch ran alone ({report})"
    );
    assert!(
        leftovers.is_empty(),
        "old group members left: {leftovers:?}"
    );
    let s = host.status(&id);
    assert_eq!(s["state"], "complete", "{s}");
    let show = host.expect(0, &["show", "--json", &id], "");
    let details: Vec<String> = show["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["detail"].as_str().map(str::to_string))
        .collect();
    assert!(
        details.iter().any(|d| d.contains("process group")),
        "the recovery says it killed the old group: {details:?}"
    );
}
