//! GitHub App authentication against the stand-in (the JWT is checked with the App's public
//! key, installation tokens are short-lived and renewed), and the client's proxy handling.
//! The test key pair is generated at test time with `openssl`; nothing secret is committed.

mod common;

use common::github::{Script, Standin, REPO, TARGET};
use common::{Host, HOUR};
use deferral_host::github::app::{AppAuth, RENEW_BEFORE_MS};
use deferral_host::github::auth::Auth;
use deferral_host::github::client::GithubClient;
use deferral_host::github::quota::Quota;
use std::cell::Cell;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::rc::Rc;
use std::time::Duration;

/// A fresh RSA key pair for this test: (private PEM path, public PEM bytes).
fn key_pair(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let private = dir.join("app-key.pem");
    let public = dir.join("app-key.pub.pem");
    let status = Command::new("openssl")
        .args(["genrsa", "-traditional", "-out"])
        .arg(&private)
        .arg("2048")
        .stderr(std::process::Stdio::null())
        .status()
        .expect("openssl is installed");
    assert!(status.success());
    let status = Command::new("openssl")
        .args(["rsa", "-pubout", "-in"])
        .arg(&private)
        .arg("-out")
        .arg(&public)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    (private, std::fs::read(public).unwrap())
}

fn app_standin(public: Vec<u8>) -> Standin {
    let standin = Standin::start();
    {
        let mut state = standin.state.lock().unwrap();
        state.app_public_key = Some(public);
        state.app_id = "4242".into();
    }
    standin
}

#[test]
fn installation_tokens_are_exchanged_with_a_signed_jwt_and_renewed_before_they_expire() {
    let dir = tempfile::tempdir().unwrap();
    let (private, public) = key_pair(dir.path());
    let standin = app_standin(public);
    let clock = Rc::new(Cell::new(deferral_host::clock::now_ms()));
    let now = clock.clone();
    let app = AppAuth::new(
        "4242",
        &std::fs::read(&private).unwrap(),
        Box::new(move || now.get()),
    )
    .unwrap();
    let client = GithubClient::new(
        &standin.api,
        Auth::App(app),
        Duration::from_secs(5),
        Quota::new(deferral_core::decision::Reserve::Absolute(0)),
    )
    .unwrap();
    let path = format!("/repos/{REPO}/actions/artifacts?name=deferred-receipt&per_page=100");
    for _ in 0..2 {
        let reply = client.call("GET", &path, Some(REPO), &[], None).unwrap();
        assert_eq!(reply.status, 200);
    }
    {
        let state = standin.state.lock().unwrap();
        assert_eq!(
            state.installation_tokens.len(),
            1,
            "one token serves both calls"
        );
        assert_eq!(
            state.jwts_verified, 2,
            "installation look-up and token exchange"
        );
    }
    // Close to its expiry (an hour): renewed before use.
    clock.set(clock.get() + 3_600_000 - RENEW_BEFORE_MS + 1000);
    let reply = client.call("GET", &path, Some(REPO), &[], None).unwrap();
    assert_eq!(reply.status, 200);
    let state = standin.state.lock().unwrap();
    assert_eq!(state.installation_tokens.len(), 2, "renewed");
    let last = state.seen.last().unwrap();
    assert_eq!(
        last.authorization.as_deref(),
        Some(format!("Bearer {}", state.installation_tokens[1].0).as_str())
    );
}

#[test]
fn a_jwt_signed_with_another_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, public) = key_pair(dir.path());
    let other = tempfile::tempdir().unwrap();
    let (wrong_private, _) = key_pair(other.path());
    let standin = app_standin(public);
    let app = AppAuth::new(
        "4242",
        &std::fs::read(wrong_private).unwrap(),
        Box::new(deferral_host::clock::now_ms),
    )
    .unwrap();
    let client = GithubClient::new(
        &standin.api,
        Auth::App(app),
        Duration::from_secs(5),
        Quota::new(deferral_core::decision::Reserve::Absolute(0)),
    )
    .unwrap();
    let err = client
        .call(
            "GET",
            &format!("/repos/{REPO}/actions/artifacts"),
            Some(REPO),
            &[],
            None,
        )
        .unwrap_err();
    assert!(err.message().contains("401"), "{err:?}");
    assert!(standin.state.lock().unwrap().installation_tokens.is_empty());
}

#[test]
fn tick_dispatches_as_a_github_app_and_never_prints_the_installation_token() {
    let host = Host::new();
    let (private, public) = key_pair(host.dir.path());
    let standin = app_standin(public);
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let out = host
        .command(&["tick", "--github-app-id", "4242", "--github-app-key"])
        .arg(&private)
        .env("GITHUB_API_URL", &standin.api)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert_eq!(host.status(&id)["attempt_status"], "dispatched", "{text}");
    let state = standin.state.lock().unwrap();
    let token = &state.installation_tokens[0].0;
    assert!(!text.contains(token.as_str()), "never printed");
    let stored = std::fs::read(&host.db).unwrap();
    let wal = std::fs::read(host.db.with_extension("db-wal")).unwrap_or_default();
    for bytes in [stored, wal] {
        assert!(
            !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
            "never stored"
        );
    }
}

/// A proxy that records the first request line it gets, then closes.
fn fake_proxy() -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 1024];
        // The whole CONNECT head, however it arrives, as a proxy reads it before answering.
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
        let line = String::from_utf8_lossy(&seen)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let _ = stream.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
        line
    });
    (url, handle)
}

#[test]
fn https_proxy_is_used_and_no_proxy_bypasses_it() {
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let (proxy, seen) = fake_proxy();
    let out = host
        .command(&["tick"])
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .env("GITHUB_API_URL", "https://api.github.example")
        .env("HTTPS_PROXY", &proxy)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        seen.join().unwrap(),
        "CONNECT api.github.example:443 HTTP/1.1"
    );
    let s = host.status(&id);
    assert_eq!(
        (
            s["state"].as_str(),
            s["reentries"].as_u64(),
            s["cause"].as_str()
        ),
        (Some("deferred"), Some(0), Some("not-sent")),
        "refused by the proxy: certainly not sent, no re-entry spent: {s}"
    );
    // NO_PROXY names the API host: straight to it, the proxy (nothing listening) unused.
    let standin = Standin::start();
    standin.script(Script::default());
    let closed = common::refusing::Refusing::new();
    let out = host
        .command(&["tick"])
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .env("HTTPS_PROXY", closed.url())
        .env("HTTP_PROXY", closed.url())
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
}

#[test]
fn app_options_go_together_and_a_bad_key_is_refused() {
    let host = Host::new();
    let out = host
        .command(&["tick", "--github-app-id", "4242"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "invalid-github");
    let not_a_key = host.path("not-a-key.pem");
    write_key(&not_a_key, b"-----BEGIN NOTHING-----\n", 0o600);
    let out = host
        .command(&[
            "watch",
            REPO,
            "--launch",
            TARGET,
            "--github-app-id",
            "4242",
            "--github-app-key",
        ])
        .arg(&not_a_key)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "invalid-github");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not an RSA private key"),
        "{error}"
    );
}

/// An RSA private key in form only: PKCS#1 `RSAPrivateKey`, version 0 and then its eight
/// integers (modulus, exponents, primes, CRT values) all 3. It is PEM, it is DER, it says RSA;
/// nothing can sign with a modulus of 3.
const UNSIGNABLE_PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\n\
MBsCAQACAQMCAQMCAQMCAQMCAQMCAQMCAQMCAQM=\n\
-----END RSA PRIVATE KEY-----\n";

fn write_key(path: &Path, bytes: &[u8], mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, bytes).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `args` (a command) as the App 4242 with `key`, against `api`.
fn as_app(host: &Host, args: &[&str], key: &Path, api: &str) -> Command {
    let mut cmd = host.command(args);
    cmd.args([
        "--http-timeout",
        "5s",
        "--github-app-id",
        "4242",
        "--github-app-key",
    ])
    .arg(key)
    .env("GITHUB_API_URL", api)
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped());
    cmd
}

fn error_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "one JSON line: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn a_key_that_parses_but_cannot_sign_stops_tick_and_watch_before_anything_is_claimed() {
    let host = Host::new();
    let (_, public) = key_pair(host.dir.path());
    let standin = app_standin(public);
    let key = host.path("unsignable.pem");
    write_key(&key, UNSIGNABLE_PEM.as_bytes(), 0o600);
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let before = host.status(&id);
    // Every cron minute the same: refused at the door, the deferral untouched.
    for _ in 0..3 {
        let out = as_app(&host, &["tick"], &key, &standin.api)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", error_of(&out));
        let error = error_of(&out);
        assert_eq!(error["error"]["code"], "github-app-key-unusable", "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(&key.display().to_string()), "{message}");
    }
    assert_eq!(
        host.status(&id),
        before,
        "nothing claimed, no re-entry counted"
    );
    let out = as_app(
        &host,
        &["watch", REPO, "--launch", TARGET],
        &key,
        &standin.api,
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(error_of(&out)["error"]["code"], "github-app-key-unusable");
    assert!(standin.seen().is_empty(), "nothing was sent to GitHub");
}

#[test]
fn an_unreachable_github_spends_no_reentry_of_an_app() {
    let host = Host::new();
    let (private, _) = key_pair(host.dir.path());
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let closed = common::refusing::Refusing::new();
    for _ in 0..3 {
        let out = as_app(&host, &["tick"], &private, &closed.url())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", error_of(&out));
    }
    let s = host.status(&id);
    assert_eq!(
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(0)),
        "the installation look-up never reached GitHub: {s}"
    );
    assert!(s["detail"].as_str().unwrap().contains("not sent"), "{s}");
}

#[test]
fn a_key_file_others_can_read_is_refused_as_ssh_does() {
    let host = Host::new();
    let (private, public) = key_pair(host.dir.path());
    let standin = app_standin(public);
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let before = host.status(&id);
    let pem = std::fs::read(&private).unwrap();
    for mode in [0o644, 0o640, 0o604, 0o660] {
        write_key(&private, &pem, mode);
        let out = as_app(&host, &["tick"], &private, &standin.api)
            .output()
            .unwrap();
        let error = error_of(&out);
        assert_eq!(out.status.code(), Some(2), "mode {mode:o}: {error}");
        assert_eq!(error["error"]["code"], "github-app-key-exposed", "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&private.display().to_string()) && message.contains("chmod 600"),
            "{message}"
        );
    }
    assert_eq!(host.status(&id), before, "nothing claimed");
    assert!(standin.seen().is_empty());
    // The owner's own (0600, or read-only 0400): accepted.
    write_key(&private, &pem, 0o400);
    let out = as_app(&host, &["tick"], &private, &standin.api)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", error_of(&out));
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
}

#[test]
fn a_key_file_is_read_to_64_kib_at_most_and_never_blocks_on_a_fifo() {
    let host = Host::new();
    let big = host.path("big.pem");
    let mut bytes = b"-----BEGIN RSA PRIVATE KEY-----\n".to_vec();
    bytes.resize(64 * 1024 + 1, b'A');
    write_key(&big, &bytes, 0o600);
    let out = as_app(&host, &["tick"], &big, "http://127.0.0.1:9")
        .output()
        .unwrap();
    let error = error_of(&out);
    assert_eq!(out.status.code(), Some(2), "{error}");
    assert_eq!(
        error["error"]["code"], "github-app-key-too-large",
        "{error}"
    );
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains(&big.display().to_string()));

    // A FIFO: opening it for reading would wait for a writer forever.
    let fifo = host.path("fifo.pem");
    let status = Command::new("mkfifo")
        .arg("-m")
        .arg("600")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let mut child = as_app(&host, &["tick"], &fifo, "http://127.0.0.1:9")
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("tick blocked on the FIFO");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let error = error_of(&out);
    assert_eq!(out.status.code(), Some(2), "{error}");
    assert_eq!(
        error["error"]["code"], "github-app-key-not-a-file",
        "{error}"
    );
}

#[test]
fn a_refused_token_exchange_never_quotes_the_answer() {
    const LEAK: &str = "test-installation-token-not-real-leak";
    let dir = tempfile::tempdir().unwrap();
    let (private, public) = key_pair(dir.path());
    let expires = "2099-01-01T00:00:00Z";
    let cases = [
        // Not 201 but a token anyway, and no message.
        (
            200,
            serde_json::json!({"token": LEAK, "expires_at": expires}),
            None,
        ),
        // A message that carries the token.
        (
            403,
            serde_json::json!({"message": format!("token {LEAK} is yours"), "token": LEAK}),
            None,
        ),
        // Not an object at all.
        (500, serde_json::json!(format!("token={LEAK}")), None),
        // GitHub's documented error shape: its message is worth showing.
        (
            422,
            serde_json::json!({"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest"}),
            Some("Validation Failed"),
        ),
    ];
    for (status, body, message) in cases {
        let host = Host::new();
        let standin = app_standin(public.clone());
        standin.state.lock().unwrap().access_token_answer = Some((status, body.clone()));
        let (id, _) = host.record(TARGET, 0, HOUR, &[]);
        let out = as_app(&host, &["tick"], &private, &standin.api)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{text}");
        assert!(!text.contains(LEAK), "HTTP {status}: quoted: {text}");
        let stored = std::fs::read(&host.db).unwrap();
        let wal = std::fs::read(host.db.with_extension("db-wal")).unwrap_or_default();
        for bytes in [stored, wal] {
            assert!(
                !bytes.windows(LEAK.len()).any(|w| w == LEAK.as_bytes()),
                "HTTP {status}: stored"
            );
        }
        let detail = host.status(&id)["detail"].as_str().unwrap().to_string();
        assert!(detail.contains(&format!("HTTP {status}")), "{detail}");
        if let Some(message) = message {
            assert!(detail.contains(message), "{detail}");
        }
    }
}
