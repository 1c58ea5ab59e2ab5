//! `serve --github-webhook-secret-file`'s start-up checks: GitHub credentials are required,
//! the secret file must be its owner's only and hold a secret, and `--watch` needs a target.
//! Each is refused before the port listens, with a stable code.

mod common;

use common::Host;
use std::os::unix::fs::PermissionsExt;

fn secret_file(host: &Host, text: &str, mode: u32) -> String {
    let path = host.path("webhook-secret");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.display().to_string()
}

fn refused(host: &Host, args: &[&str], token: bool) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let mut cmd = host.command(&all);
    cmd.env("DEFERRAL_SERVE_TOKEN", common::server::TOKEN)
        .env_remove("GH_TOKEN")
        .env_remove("DEFERRAL_GITHUB_APP_ID")
        .env_remove("DEFERRAL_GITHUB_APP_KEY_FILE");
    if token {
        cmd.env("GITHUB_TOKEN", common::github::TOKEN);
    }
    let out = cmd.output().unwrap();
    let first = String::from_utf8_lossy(&out.stdout);
    let line = first.lines().next().unwrap_or_default().to_string();
    (
        out.status.code(),
        serde_json::from_str(&line).unwrap_or(serde_json::Value::Null),
    )
}

#[test]
fn webhooks_need_credentials_a_private_secret_file_and_a_watch_target() {
    let host = Host::new();
    let good = secret_file(&host, "a-secret-not-real\n", 0o600);
    let (code, out) = refused(&host, &["--github-webhook-secret-file", &good], false);
    assert_eq!(
        (code, &out["error"]["code"]),
        (Some(2), &serde_json::json!("no-github-credentials")),
        "{out}"
    );
    let exposed = secret_file(&host, "a-secret-not-real\n", 0o644);
    let (code, out) = refused(&host, &["--github-webhook-secret-file", &exposed], true);
    assert_eq!(out["error"]["code"], "invalid-github", "{out}");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("chmod 600"),
        "{out}"
    );
    assert_eq!(code, Some(2));
    let empty = secret_file(&host, "\n  \n", 0o600);
    let (_, out) = refused(&host, &["--github-webhook-secret-file", &empty], true);
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("holds no secret"),
        "{out}"
    );
    let missing = host.path("no-such-file").display().to_string();
    let (_, out) = refused(&host, &["--github-webhook-secret-file", &missing], true);
    assert_eq!(out["error"]["code"], "invalid-github", "{out}");
    // --watch without the target its deferrals launch: a usage error.
    let good = secret_file(&host, "a-secret-not-real\n", 0o600);
    let (code, _) = refused(
        &host,
        &[
            "--github-webhook-secret-file",
            &good,
            "--watch",
            "octo-org/app",
        ],
        true,
    );
    assert_eq!(code, Some(2));
}
