//! `run --config FILE`: keys are the long flag names, `[[watch]]` tables name repositories, a
//! flag on the command line wins over the file, an unknown key is refused naming it; and the
//! health probes of the port, which need no token (on `serve` too).

mod common;

use common::run::{Run, TOKEN};
use common::server::Server;
use common::{Host, HOUR};
use serde_json::Value;
use std::process::Stdio;

fn config(host: &Host, text: &str) -> String {
    let path = host.path("host.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `run` expecting it to refuse to start: its exit code and error line.
fn refused(host: &Host, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["run", "--listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let out = host
        .command(&all)
        .env("DEFERRAL_SERVE_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(line).unwrap_or(Value::Null),
    )
}

#[test]
fn an_unknown_key_is_refused_by_name() {
    let host = Host::new();
    let file = config(&host, "listen = \"127.0.0.1:0\"\nlease_timeout = \"5m\"\n");
    let (code, error) = refused(&host, &["--config", &file]);
    assert_eq!(code, 2, "{error}");
    assert_eq!(error["error"]["code"], "invalid-config", "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`lease_timeout`") && message.contains("`lease-timeout`"),
        "{message}"
    );

    let file = config(&host, "[[watch]]\nrepo = \"octo/app\"\nlaunch = \"workflow-dispatch:octo/app/r.yml@main\"\nbranches = \"main\"\n");
    let (code, error) = refused(&host, &["--config", &file]);
    assert_eq!(
        (code, &error["error"]["code"]),
        (2, &Value::from("invalid-config")),
        "{error}"
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("branches"),
        "{error}"
    );
}

#[test]
fn a_bad_value_in_the_file_names_its_flag_and_a_flag_wins_over_it() {
    let host = Host::new();
    let file = config(
        &host,
        "lease-timeout = \"soon\"\nallow-launch = [\"workflow-dispatch:\"]\n",
    );
    let (code, error) = refused(&host, &["--config", &file]);
    assert_eq!(
        (code, &error["error"]["code"]),
        (2, &Value::from("invalid-config")),
        "{error}"
    );
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("--lease-timeout") && message.contains("host.toml"),
        "{message}"
    );
    // The command line's value is taken; the file's bad one is never read.
    let run = Run::start(&host, "run", &["--config", &file, "--lease-timeout", "5m"]);
    assert_eq!(run.call("GET", "/healthz", false, "").0, 200);
}

#[test]
fn the_file_gives_the_store_and_the_launch_policy() {
    let host = Host::new();
    let other = host.path("from-file.db");
    let file = config(
        &host,
        &format!(
            "store = \"sqlite:{}\"\nallow-launch = [\"exec:/bin/true\"]\nno-check = false\n",
            other.display()
        ),
    );
    // Only `init` creates a store.
    Host::with_store(&format!("sqlite:{}", other.display())).init();
    // No --store on this command line: `Host::command` gives one, so call the binary itself.
    let bin = std::env::var("DEFERRAL_HOST_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_deferral-host").to_string());
    let mut child = std::process::Command::new(bin)
        .args(["run", "--listen", "127.0.0.1:0", "--config", &file])
        .env("DEFERRAL_SERVE_TOKEN", TOKEN)
        .env_remove("DEFERRAL_STORE")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr: Value = serde_json::from_str(&line).unwrap();
    let run = Run {
        child,
        addr: addr["listening"].as_str().unwrap().to_string(),
        log: host.path("none.log"),
    };
    let (status, answer) = run.try_record("exec:/bin/true", HOUR, 2 * HOUR).unwrap();
    assert_eq!(status, 201, "{answer}");
    let (status, answer) = run.try_record("exec:/bin/false", HOUR, 2 * HOUR).unwrap();
    assert_eq!(
        (status, &answer["error"]["code"]),
        (403, &Value::from("launch-not-allowed")),
        "{answer}"
    );
    assert!(other.exists(), "the store the file names was created");
}

#[test]
fn health_probes_need_no_token_on_run() {
    let host = Host::new();
    let run = Run::start(&host, "run", &[]);
    assert_eq!(run.call("GET", "/healthz", false, "").0, 200);
    let (status, answer) = run.call("GET", "/readyz", false, "");
    assert_eq!(
        (status, &answer["ready"]),
        (200, &Value::Bool(true)),
        "{answer}"
    );
    assert_eq!(run.call("POST", "/healthz", false, "").0, 405);
    // Everything else still needs the token.
    assert_eq!(run.call("GET", "/v1/pools", false, "").0, 401);
}

#[test]
fn health_probes_need_no_token_on_serve() {
    let serve = Server::start(&[]);
    let (status, _) = serve.call_with("GET", "/healthz", None, "");
    assert_eq!(status, 200);
    let (status, answer) = serve.call_with("GET", "/readyz", None, "");
    assert_eq!(
        (status, &answer["ready"]),
        (200, &Value::Bool(true)),
        "{answer}"
    );
}

#[test]
fn sighup_reads_the_file_again_and_a_bad_one_leaves_the_running_settings() {
    let host = Host::new();
    let file = config(&host, "follow-interval = \"10m\"\n");
    let run = Run::start(&host, "run", &["--config", &file]);
    std::fs::write(&file, "follow-interval = \"5m\"\nlease-timeout = \"10m\"\n").unwrap();
    run.signal(libc::SIGHUP);
    common::run::wait_for(std::time::Duration::from_secs(20), || {
        run.log().contains("configuration read again").then_some(())
    })
    .unwrap_or_else(|| panic!("{}", run.log()));
    std::fs::write(&file, "lease_timeout = \"10m\"\n").unwrap();
    run.signal(libc::SIGHUP);
    common::run::wait_for(std::time::Duration::from_secs(20), || {
        run.log()
            .contains("configuration not applied")
            .then_some(())
    })
    .unwrap_or_else(|| panic!("{}", run.log()));
    assert!(run.log().contains("`lease_timeout`"), "{}", run.log());
    // Still serving.
    assert_eq!(run.call("GET", "/readyz", false, "").0, 200);
}

#[test]
fn a_bad_value_is_named_by_key_and_line_never_shown() {
    // Looks like a secret: whatever is wrong with it, the error must not repeat it.
    const VALUE: &str = "cfg-value-that-looks-secret-not-real-0123";
    let host = Host::new();
    for (text, key, line) in [
        // A string where a number goes (clap's check of --max-connections).
        (
            format!("follow-interval = \"10m\"\nmax-connections = \"{VALUE}\"\n"),
            "max-connections",
            2,
        ),
        // A list where one value goes.
        (
            format!("\nrequest-timeout-ms = [\"{VALUE}\"]\n"),
            "request-timeout-ms",
            2,
        ),
        // A [[watch]] table's number given as a string.
        (
            format!("[[watch]]\nrepo = \"octo/app\"\nlaunch = \"workflow-dispatch:octo/app/r.yml@main\"\nmax-reentries = \"{VALUE}\"\n"),
            "max-reentries",
            4,
        ),
        // Not TOML at all: the value left unquoted.
        (format!("follow-interval = \"10m\"\ntoken-file = {VALUE}\n"), "token-file", 2),
    ] {
        let file = config(&host, &text);
        let (code, error) = refused(&host, &["--config", &file]);
        assert_eq!(
            (code, &error["error"]["code"]),
            (2, &Value::from("invalid-config")),
            "{text}: {error}"
        );
        let message = error["error"]["message"].as_str().unwrap();
        assert!(!message.contains(VALUE), "{text}: the value is shown: {message}");
        assert!(
            message.contains(&format!("`{key}`")) && message.contains(&format!("line {line}")),
            "{text}: no key `{key}` and line {line}: {message}"
        );
    }
}
