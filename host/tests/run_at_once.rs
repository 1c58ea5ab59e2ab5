//! Operations that take effect at once under `run` (issue 34 item 5): a webhook secret rotated
//! with SIGHUP is refused at once, even while the scheduler is inside a long `exec:` launch;
//! and a store file removed or replaced under a running host is noticed (`/readyz` fails, a
//! record is refused with `store-replaced`) instead of written into a file no path names.
//! Through the real binary and real sockets; the launch is a program blocked on a FIFO until
//! the test lets it go.

mod common;

use common::github::Standin;
use common::run::Run;
use common::signing::sign;
use common::webhook::{within, HookServe, SECRET};
use common::{script, sq, Host, HOUR};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

const OLD_SECRET: &str = "the-secret-before-rotation-not-real";
const PING: &[u8] = b"{\"zen\":\"Keep it logically awesome.\",\"hook_id\":1}";

fn write_private(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// A FIFO the launched program reads one line from: it blocks until the test writes (or this
/// guard is dropped, so a failed test leaves no program behind).
struct Gate(PathBuf);

impl Gate {
    fn new(path: PathBuf) -> Gate {
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) on a path in the test's own temporary folder.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        Gate(path)
    }

    /// Lets the program go (it has the FIFO open for reading, or opens it soon).
    fn open(&self) {
        let mut fifo = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.0)
            .unwrap();
        fifo.write_all(b"go\n").unwrap();
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking: when no program reads, there is nothing to let go.
        if let Ok(mut fifo) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&self.0)
        {
            let _ = fifo.write_all(b"go\n");
        }
    }
}

#[test]
fn a_secret_rotated_while_a_launch_runs_is_refused_at_once() {
    let standin = Standin::start();
    let host = Host::new();
    let (started, gate) = (host.path("started"), Gate::new(host.path("gate")));
    let target = script(
        &host.path("blocked.sh"),
        &format!(
            "touch {}\nread line < {}\nexit 0",
            sq(&started),
            sq(&gate.0)
        ),
    );
    let (id, _) = host.record(&target, 0, HOUR, &[]);
    let secrets = host.path("webhook-secrets");
    write_private(&secrets, &format!("{OLD_SECRET}\n"));
    let config = host.path("host.toml");
    write_private(
        &config,
        &format!(
            "github-webhook-secret-file = {:?}\nallow-launch = [{target:?}]\nhttp-timeout = \"5s\"\nfollow-interval = \"1h\"\nlease-timeout = \"10m\"\n",
            secrets.display().to_string()
        ),
    );
    let arg = config.display().to_string();
    let mut run = HookServe::start_command(&host, &standin, "run", &["--config", &arg]);
    // The scheduler is inside the launch: the program waits on the FIFO.
    within(Duration::from_secs(30), || started.exists().then_some(()))
        .unwrap_or_else(|| panic!("never launched\n{}", run.log_text()));
    let old = sign(OLD_SECRET, PING);
    let (status, answer) = run.deliver("ping", "before", PING, Some(&old));
    assert_eq!(status, 200, "the old secret is valid before: {answer}");
    write_private(&secrets, &format!("{SECRET}\n"));
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(run.child.id() as i32, libc::SIGHUP) };
    let refused = within(Duration::from_secs(10), || {
        let (status, _) = run.deliver("ping", "after", PING, Some(&old));
        (status == 401).then_some(())
    });
    assert!(
        refused.is_some(),
        "the rotated-out secret is still taken while the launch runs\n{}",
        run.log_text()
    );
    let (status, answer) = run.deliver_signed("ping", "new", PING);
    assert_eq!(status, 200, "the new secret is taken: {answer}");
    assert_eq!(
        host.status(&id)["state"],
        "resumable",
        "still launching: the secret did not wait for the pass"
    );
    gate.open();
    let done = within(Duration::from_secs(30), || {
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(done.is_some(), "{}\n{}", host.status(&id), run.log_text());
    assert_eq!(
        run.terminate(Duration::from_secs(10)),
        Some(0),
        "{}",
        run.log_text()
    );
}

fn readyz(run: &Run) -> (u16, serde_json::Value) {
    run.call("GET", "/readyz", false, "")
}

#[test]
fn a_store_removed_under_run_fails_readiness_and_refuses_records() {
    let host = Host::new();
    let run = Run::start(&host, "run", &[]);
    run.record("workflow-dispatch:octo/app/resume.yml@main", HOUR, 2 * HOUR);
    assert_eq!(readyz(&run).0, 200, "{}", run.log());
    std::fs::remove_file(&host.db).unwrap();
    let (status, answer) = readyz(&run);
    assert_eq!(status, 503, "a removed store is not ready: {answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("removed"),
        "{answer}"
    );
    let (status, answer) = run
        .try_record("workflow-dispatch:octo/app/resume.yml@main", HOUR, 2 * HOUR)
        .expect("an answer");
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (503, Some("store-replaced")),
        "{answer}"
    );
    assert!(!host.db.exists(), "nothing made again at the path");
}

#[test]
fn a_store_replaced_under_serve_refuses_records_and_the_new_file_is_untouched() {
    let host = Host::new();
    let (mut child, addr) = host.spawn_serve(
        &["serve", "--listen", "127.0.0.1:0"],
        common::run::TOKEN,
        std::process::Stdio::null(),
    );
    let client = common::run::Client { addr };
    let launch = "workflow-dispatch:octo/app/resume.yml@main";
    let (status, answer) = client.try_record(launch, HOUR, 2 * HOUR).unwrap();
    assert_eq!(status, 201, "{answer}");
    // Another store moved into the path (a restore from a backup, say).
    let other = Host::new();
    std::fs::rename(&other.db, &host.db).unwrap();
    let before = std::fs::read(&host.db).unwrap();
    let (status, answer) = client.try_record(launch, HOUR, 2 * HOUR).unwrap();
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (503, Some("store-replaced")),
        "{answer}"
    );
    let (status, answer) = client.try_call("GET", "/readyz", false, "").unwrap();
    assert_eq!(status, 503, "{answer}");
    assert_eq!(
        std::fs::read(&host.db).unwrap(),
        before,
        "the new file is untouched"
    );
    let _ = child.kill();
    let _ = child.wait();
}
