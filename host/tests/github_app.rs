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
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(1)),
        "refused by the proxy: certainly not sent, {s}"
    );
    // NO_PROXY names the API host: straight to it, the proxy (nothing listening) unused.
    let standin = Standin::start();
    standin.script(Script::default());
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = host
        .command(&["tick"])
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .env("HTTPS_PROXY", format!("http://{closed}"))
        .env("HTTP_PROXY", format!("http://{closed}"))
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
    std::fs::write(&not_a_key, "-----BEGIN NOTHING-----\n").unwrap();
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
