//! `deferral-host serve` with GitHub's webhooks, against the GitHub stand-in, and a client that
//! delivers as GitHub does: `X-GitHub-Event`, `X-GitHub-Delivery` and `X-Hub-Signature-256`
//! (HMAC-SHA256 of the body with the secret, computed here with the `hmac` crate).

use super::github::{Standin, REPO, TOKEN};
use super::signing::sign;
use super::Host;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The webhook's secret in the tests (two lines: the file may hold several while rotating).
pub const SECRET: &str = "test-webhook-secret-not-real";

pub struct HookServe {
    pub child: Child,
    pub addr: String,
    pub log: std::path::PathBuf,
}

impl HookServe {
    /// `serve` with the secret file, GitHub's token and the stand-in's URL and version.
    pub fn start(host: &Host, standin: &Standin, extra: &[&str]) -> HookServe {
        let secrets = secret_file(host).display().to_string();
        let mut args = vec!["--github-webhook-secret-file", secrets.as_str()];
        args.extend_from_slice(extra);
        HookServe::start_command(host, standin, "serve", &args)
    }

    /// `COMMAND --listen 127.0.0.1:0 ARGS...` (`serve` or `run`) with the port's token, GitHub's
    /// token and the stand-in's URL and version; the webhook's settings are in `args` (or in
    /// `run --config`). Its stderr is kept in `COMMAND.log`.
    pub fn start_command(
        host: &Host,
        standin: &Standin,
        command: &str,
        extra: &[&str],
    ) -> HookServe {
        let log = host.path(&format!("{command}.log"));
        let mut args = vec![command, "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = host
            .command(&args)
            .env("DEFERRAL_SERVE_TOKEN", super::server::TOKEN)
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_API_URL", &standin.api)
            .env("DEFERRAL_GITHUB_API_VERSION", standin.api_version())
            .env_remove("HTTPS_PROXY")
            .env_remove("HTTP_PROXY")
            .env_remove("ALL_PROXY")
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let addr = serde_json::from_str::<Value>(&line)
            .ok()
            .and_then(|ready| ready["listening"].as_str().map(str::to_string))
            .unwrap_or_else(|| {
                panic!(
                    "no listening line: {line}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            });
        HookServe { child, addr, log }
    }

    /// SIGTERM, then waits up to `bound` for the process to end: its exit code, or `None`.
    pub fn terminate(&mut self, bound: Duration) -> Option<i32> {
        // SAFETY: kill(2) on the child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        within(bound, || {
            let status = self.child.try_wait().unwrap()?;
            Some(status.code().unwrap_or(-1))
        })
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// POSTs one delivery; `signature` is the header's value (`None`: no header).
    pub fn deliver(
        &self,
        event: &str,
        delivery: &str,
        body: &[u8],
        signature: Option<&str>,
    ) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut head = format!(
            "POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nUser-Agent: GitHub-Hookshot/test\r\nContent-Type: application/json\r\nX-GitHub-Event: {event}\r\nX-GitHub-Delivery: {delivery}\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if let Some(signature) = signature {
            head.push_str(&format!("X-Hub-Signature-256: {signature}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        let _ = stream.write_all(body);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        (
            head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0),
            serde_json::from_str(body).unwrap_or(Value::Null),
        )
    }

    /// [`HookServe::deliver`] signed with [`SECRET`], as GitHub signs it.
    pub fn deliver_signed(&self, event: &str, delivery: &str, body: &[u8]) -> (u16, Value) {
        self.deliver(event, delivery, body, Some(&sign(SECRET, body)))
    }
}

impl Drop for HookServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The webhook's secret file (mode 0600) with an older secret and [`SECRET`], as while
/// rotating.
pub fn secret_file(host: &Host) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let secrets = host.path("webhook-secrets");
    std::fs::write(&secrets, format!("an-older-secret-not-real\n{SECRET}\n")).unwrap();
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o600)).unwrap();
    secrets
}

/// Polls `probe` until it answers `Some` or `within` has passed.
pub fn within<T>(within: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if started.elapsed() > within {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Requests for the run itself or for lists of runs: what a webhook spares.
pub fn run_polls(standin: &Standin, from: usize, run_id: u64) -> Vec<String> {
    standin.seen()[from..]
        .iter()
        .map(|s| s.path.clone())
        .filter(|p| {
            p.split('?').next() == Some(&format!("/repos/{REPO}/actions/runs/{run_id}"))
                || p.contains("/runs?")
        })
        .collect()
}

/// How many times `id` became `complete`: one, however often its delivery came.
pub fn completions(host: &Host, id: &str) -> usize {
    let shown = host.expect(0, &["show", "--json", id], "");
    shown["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["to"] == "complete")
        .count()
}

/// Delivers the `completed` delivery of `run_id` (with a marker in its body) under each of the
/// signatures `signatures` gives for that body to `hook`: each is 401 `bad-signature`, GitHub is asked nothing, `id` stays
/// dispatched, and the log names `delivery` as refused but never shows the body. Returns the
/// body, for the same delivery sent again signed.
pub fn refuses_each(
    hook: &HookServe,
    host: &Host,
    standin: &Standin,
    (id, run_id): (&str, u64),
    delivery: &str,
    signatures: impl Fn(&[u8]) -> Vec<Option<String>>,
) -> String {
    let before = standin.seen().len();
    let mut payload = standin.completed_delivery(run_id);
    payload["marker"] = serde_json::json!("body-text-never-logged");
    let body = payload.to_string();
    for signature in signatures(body.as_bytes()) {
        let (status, answer) = hook.deliver(
            "workflow_run",
            delivery,
            body.as_bytes(),
            signature.as_deref(),
        );
        assert_eq!(
            (status, &answer["error"]["code"]),
            (401, &serde_json::json!("bad-signature")),
            "{answer}"
        );
    }
    assert_eq!(
        standin.seen().len(),
        before,
        "GitHub was not asked anything"
    );
    assert_eq!(host.status(id)["attempt_status"], "dispatched");
    let log = hook.log_text();
    assert!(log.contains(delivery) && log.contains("refused"), "{log}");
    assert!(!log.contains("body-text-never-logged"), "{log}");
    body
}

/// How many times `run` has listed the stand-in repository's artifacts: a `[[watch]]` pass each.
pub fn watch_passes(standin: &Standin) -> usize {
    standin
        .seen()
        .iter()
        .filter(|s| {
            s.path
                .starts_with(&format!("/repos/{REPO}/actions/artifacts?"))
        })
        .count()
}

/// Waits until `run` has made `n` watch passes in all (see [`watch_passes`]), within 15 s.
pub fn watched(standin: &Standin, run: &HookServe, n: usize) {
    let listed = within(Duration::from_secs(15), || {
        (watch_passes(standin) >= n).then_some(())
    });
    assert!(listed.is_some(), "{}", run.log_text());
}
