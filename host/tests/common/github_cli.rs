//! Running `deferral-host` against the GitHub stand-in ([`super::github`]): the token and the
//! API URL in the environment, no proxy, the token never printed.

use super::github::{Standin, TOKEN};
use super::{now, Host, HOUR};
use deferral_core::receipt::{Bindings, Reason, Receipt};
use serde_json::Value;
use std::process::{Output, Stdio};

/// A handoff receipt due in `after_ms`, scope digest `scope…`, request digest `request…`.
pub fn receipt(after_ms: u64, scope: char, request: char) -> String {
    let t = now();
    Receipt::handoff(
        Reason::RestReserve,
        t,
        t + after_ms,
        t + HOUR,
        Bindings {
            scope_digest: std::iter::repeat_n(scope, 64).collect(),
            request_digest: std::iter::repeat_n(request, 64).collect(),
            plan_digest: None,
        },
        true,
    )
    .unwrap()
    .to_json()
}

/// The deferral's own bindings (`common::Host::record` records scope `a…`, request `b…`).
pub fn same_bindings() -> String {
    receipt(0, 'a', 'b')
}

pub struct Run {
    pub json: Value,
    pub output: String,
}

/// Runs the host with the stand-in's token and API URL; stdout and stderr together.
pub fn run_host(host: &Host, standin: &Standin, args: &[&str]) -> (Output, String) {
    let out = host
        .command(args)
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .env("DEFERRAL_GITHUB_API_VERSION", standin.api_version())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains(TOKEN), "the token is never printed: {text}");
    (out, text)
}

/// `tick`, expected to succeed.
pub fn tick(host: &Host, standin: &Standin) -> Run {
    let (out, output) = run_host(host, standin, &["tick", "--http-timeout", "5s"]);
    assert!(out.status.success(), "{output}");
    Run {
        json: serde_json::from_slice(&out.stdout).unwrap(),
        output,
    }
}

/// `watch` with `args` after `watch`, expected to succeed.
pub fn watch(host: &Host, standin: &Standin, args: &[&str]) -> Run {
    // `watch` refuses a missing store (`store-not-found`): made once, as an operator does.
    let _ = run_host(host, standin, &["init"]);
    let mut all = vec!["watch"];
    all.extend_from_slice(args);
    let (out, output) = run_host(host, standin, &all);
    assert_eq!(out.status.code(), Some(0), "{output}");
    Run {
        json: serde_json::from_slice(&out.stdout).unwrap(),
        output,
    }
}
