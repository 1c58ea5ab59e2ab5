//! The files the host takes its secrets and settings from are refused, before anything listens
//! or launches, when someone other than the host's user could know or change them: the port's
//! token file (`--token-file`), the webhook's secret file, the GitHub App's key (none readable
//! by its group or others, none owned by another user but root) and `run --config`'s file
//! (writable by no one else, owned by no other user but root). A webhook secret shorter than 16
//! characters is refused too.
//!
//! "Owned by another user" needs a file chowned to another uid (65534, `nobody`): only root
//! can make one, so that part is skipped, saying so, when the tests do not run as root.

mod common;

use common::Host;
use serde_json::Value;
use std::io::BufRead;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PORT_TOKEN: &str = "private-files-port-token-not-real";
const WEBHOOK_SECRET: &str = "private-files-webhook-secret-not-real";
const NOBODY: u32 = 65534;

fn write(host: &Host, name: &str, text: &str, mode: u32) -> PathBuf {
    let path = host.path(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

fn is_root() -> bool {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

fn give_to_nobody(path: &Path) {
    std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY)).unwrap();
}

/// The command's first line on stdout and its exit code. A command that starts listening
/// instead of refusing is stopped, and answers `None` with its `{"listening"}` line.
fn first_answer(mut cmd: Command) -> (Option<i32>, Value) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    if answer.get("listening").is_some() {
        let _ = child.kill();
        let _ = child.wait();
        return (None, answer);
    }
    (child.wait().unwrap().code(), answer)
}

/// `serve` with the port's token given as `--token-file token`.
fn serve_with_token_file(host: &Host, token: &Path) -> Command {
    let mut cmd = host.command(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token.to_str().unwrap(),
    ]);
    cmd.env_remove("DEFERRAL_SERVE_TOKEN");
    cmd
}

/// `serve` taking GitHub's webhooks with the secret file `secret`.
fn serve_with_webhooks(host: &Host, secret: &Path) -> Command {
    let mut cmd = host.command(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--github-webhook-secret-file",
        secret.to_str().unwrap(),
    ]);
    cmd.env("DEFERRAL_SERVE_TOKEN", PORT_TOKEN)
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .env_remove("GH_TOKEN")
        .env_remove("DEFERRAL_GITHUB_APP_ID")
        .env_remove("DEFERRAL_GITHUB_APP_KEY_FILE");
    cmd
}

/// `run --config file`.
fn run_with_config(host: &Host, config: &Path) -> Command {
    let mut cmd = host.command(&[
        "run",
        "--listen",
        "127.0.0.1:0",
        "--config",
        config.to_str().unwrap(),
    ]);
    cmd.env("DEFERRAL_SERVE_TOKEN", PORT_TOKEN);
    cmd
}

/// `tick` as the GitHub App 4242 with the key `key` (refused before any request is made).
fn tick_as_app(host: &Host, key: &Path) -> Command {
    let mut cmd = host.command(&[
        "tick",
        "--github-app-id",
        "4242",
        "--github-app-key",
        key.to_str().unwrap(),
    ]);
    cmd.env("GITHUB_API_URL", "http://127.0.0.1:9");
    cmd
}

fn assert_refused(what: &str, (code, answer): (Option<i32>, Value), error: &str, says: &[&str]) {
    assert_eq!(
        (code, answer["error"]["code"].as_str()),
        (Some(2), Some(error)),
        "{what}: {answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap();
    for part in says {
        assert!(message.contains(part), "{what}: {message:?} lacks {part:?}");
    }
}

#[test]
fn a_webhook_secret_shorter_than_16_characters_is_refused() {
    let host = Host::new();
    for text in [
        "x\n",
        "fifteen-chars!!\n",
        &format!("{WEBHOOK_SECRET}\nshort\n"),
    ] {
        let secret = write(&host, "webhook-secret", text, 0o600);
        assert_refused(
            &format!("secret file {text:?}"),
            first_answer(serve_with_webhooks(&host, &secret)),
            "invalid-github",
            &[&secret.display().to_string(), "at least 16 characters"],
        );
    }
    // Sixteen characters and more: the port listens.
    let secret = write(&host, "webhook-secret", "sixteen-chars-ok\n", 0o600);
    let (code, answer) = first_answer(serve_with_webhooks(&host, &secret));
    assert_eq!(code, None, "{answer}");
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let host = Host::new();
    for mode in [0o644, 0o640, 0o604, 0o620] {
        let token = write(&host, "token", &format!("{PORT_TOKEN}\n"), mode);
        assert_refused(
            &format!("token file mode {mode:o}"),
            first_answer(serve_with_token_file(&host, &token)),
            "no-token",
            &[&token.display().to_string(), "chmod 600"],
        );
    }
    let token = write(&host, "token", &format!("{PORT_TOKEN}\n"), 0o400);
    let (code, answer) = first_answer(serve_with_token_file(&host, &token));
    assert_eq!(
        code, None,
        "a 0400 token file of this user's is taken: {answer}"
    );
}

#[test]
fn a_config_file_others_can_write_is_refused() {
    let host = Host::new();
    for mode in [0o666, 0o620, 0o602] {
        let config = write(&host, "host.toml", "follow-interval = \"10m\"\n", mode);
        assert_refused(
            &format!("config mode {mode:o}"),
            first_answer(run_with_config(&host, &config)),
            "invalid-config",
            &[&config.display().to_string(), "chmod go-w"],
        );
    }
    // Readable by all is fine: it holds no secret (the secrets are files it names).
    let config = write(&host, "host.toml", "follow-interval = \"10m\"\n", 0o644);
    let (code, answer) = first_answer(run_with_config(&host, &config));
    assert_eq!(code, None, "{answer}");
}

#[test]
fn files_owned_by_another_user_are_refused() {
    if !is_root() {
        eprintln!("skipped: only root can make a file owned by another user (uid {NOBODY})");
        return;
    }
    let host = Host::new();
    let owned = format!("owned by uid {NOBODY}");

    let token = write(&host, "token", &format!("{PORT_TOKEN}\n"), 0o600);
    give_to_nobody(&token);
    assert_refused(
        "token file",
        first_answer(serve_with_token_file(&host, &token)),
        "no-token",
        &[&token.display().to_string(), &owned],
    );

    let secret = write(
        &host,
        "webhook-secret",
        &format!("{WEBHOOK_SECRET}\n"),
        0o600,
    );
    give_to_nobody(&secret);
    assert_refused(
        "webhook secret file",
        first_answer(serve_with_webhooks(&host, &secret)),
        "invalid-github",
        &[&secret.display().to_string(), &owned],
    );

    let key = write(&host, "app.pem", "not a key\n", 0o600);
    give_to_nobody(&key);
    assert_refused(
        "App key",
        first_answer(tick_as_app(&host, &key)),
        "github-app-key-exposed",
        &[&key.display().to_string(), &owned],
    );

    // A world-writable config of another user's, and one only it may write.
    for mode in [0o666, 0o644] {
        let config = write(&host, "host.toml", "follow-interval = \"10m\"\n", mode);
        give_to_nobody(&config);
        assert_refused(
            &format!("config mode {mode:o}"),
            first_answer(run_with_config(&host, &config)),
            "invalid-config",
            &[&config.display().to_string(), &owned],
        );
    }
}

/// Gives `path` the access ACL systemd gives a credential: the owner and the users `uids` may
/// read, no one else (`user::r--,user:UID:r--,group::---,mask::r--,other::---`).
fn credential_acl(path: &Path, uids: &[u32]) {
    let mut acl = 2u32.to_le_bytes().to_vec();
    let mut entries = vec![(0x01u16, 4u16, u32::MAX)];
    entries.extend(uids.iter().map(|uid| (0x02, 4, *uid)));
    entries.extend([
        (0x04, 0, u32::MAX),
        (0x10, 4, u32::MAX),
        (0x20, 0, u32::MAX),
    ]);
    for (tag, perm, id) in entries {
        acl.extend_from_slice(&tag.to_le_bytes());
        acl.extend_from_slice(&perm.to_le_bytes());
        acl.extend_from_slice(&id.to_le_bytes());
    }
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: both strings are NUL-terminated and the buffer's length is given.
    let done = unsafe {
        libc::setxattr(
            name.as_ptr(),
            c"system.posix_acl_access".as_ptr(),
            acl.as_ptr().cast(),
            acl.len(),
            0,
        )
    };
    assert_eq!(done, 0, "{}", std::io::Error::last_os_error());
}

#[test]
fn a_credential_root_gives_this_user_by_an_acl_is_taken_one_it_gives_another_user_is_not() {
    use std::os::unix::process::CommandExt;
    if !is_root() {
        eprintln!("skipped: only root can make a root-owned credential for another user");
        return;
    }
    // The host runs as nobody, in a folder of its own, as systemd runs a service's user.
    let host = Host::uncreated();
    std::os::unix::fs::chown(host.dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    let as_nobody = |mut cmd: Command| {
        cmd.uid(NOBODY).gid(NOBODY);
        cmd
    };
    let init = as_nobody(host.command(&["init"])).output().unwrap();
    assert!(init.status.success(), "{init:?}");
    let token = write(&host, "token", &format!("{PORT_TOKEN}\n"), 0o400);
    credential_acl(&token, &[NOBODY]);
    let mode = std::fs::metadata(&token).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o440, "the ACL's mask shows in the group bits");
    let (code, answer) = first_answer(as_nobody(serve_with_token_file(&host, &token)));
    assert_eq!(code, None, "a credential for this user is taken: {answer}");
    // The same credential given to another user too (uid 4242).
    credential_acl(&token, &[4242, NOBODY]);
    let (code, answer) = first_answer(as_nobody(serve_with_token_file(&host, &token)));
    assert_eq!(
        (code, answer["error"]["code"].as_str()),
        (Some(2), Some("no-token")),
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("access control list"),
        "{answer}"
    );
}
