//! `tick --metrics-file` in a folder others can write (a textfile collector's folder often is):
//! a symbolic link planted at the temporary name the tick would use is never written through
//! (issue 29 item 2). The tick is started by a shell that reports its process id and waits, so
//! the link is planted at exactly the name a `.NAME.PID.tmp` scheme would pick, then the shell
//! `exec`s the host under that same id.

mod common;

use common::{Host, HOUR};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

const VICTIM_TEXT: &str = "a file of the ticker's user that the planter cannot write\n";

#[test]
fn a_link_planted_at_the_temporary_name_is_not_written_through() {
    let host = Host::new();
    host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    let shared = host.path("collector");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = host.path("victim.key");
    std::fs::write(&victim, VICTIM_TEXT).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file = shared.join("deferral.prom");

    let bin = std::env::var("DEFERRAL_HOST_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_deferral-host").to_string());
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("echo $$; read go; exec \"$0\" \"$@\"")
        .arg(bin)
        .args(["--store", &host.store, "tick", "--quiet", "--metrics-file"])
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut pid = String::new();
    stdout.read_line(&mut pid).unwrap();
    let pid = pid.trim();
    assert!(pid.parse::<u32>().is_ok(), "the shell's pid: {pid:?}");
    let planted = shared.join(format!(".deferral.prom.{pid}.tmp"));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "tick: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        VICTIM_TEXT,
        "the link's target is untouched"
    );
    let mode = std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "and keeps its mode");
    let meta = std::fs::symlink_metadata(&file).unwrap();
    assert!(meta.file_type().is_file(), "the metrics file is a file");
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o644,
        "readable by the collector"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("deferral_host_tick_failed 0"), "{text}");
    let left: Vec<_> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") && !n.ends_with(&format!(".{pid}.tmp")))
        .collect();
    assert!(left.is_empty(), "no temporary file left behind: {left:?}");
}
