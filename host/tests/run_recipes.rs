//! The service recipes in docs/recipes: the systemd unit of `run` passes `systemd-analyze
//! verify` (where the command exists) with the hardening it documents, and the example
//! configuration file is one `run --config` takes.

use std::path::PathBuf;
use std::process::Command;

fn recipe(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/recipes")
        .join(name)
}

fn unit() -> String {
    std::fs::read_to_string(recipe("deferral-host.service")).unwrap()
}

#[test]
fn the_unit_has_the_hardening_it_documents() {
    let unit = unit();
    let has = |line: &str| unit.lines().any(|l| l.trim() == line);
    assert!(has("DynamicUser=yes") || unit.lines().any(|l| l.starts_with("User=")));
    for line in [
        "StateDirectory=deferral-host",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "PrivateTmp=yes",
        "LoadCredential=token:/etc/deferral-host/token",
        "KillMode=mixed",
        "ExecReload=/bin/kill -HUP $MAINPID",
    ] {
        assert!(has(line), "the unit lacks {line}");
    }
    let exec = unit.lines().find(|l| l.starts_with("ExecStart=")).unwrap();
    assert!(
        exec.contains(" run ") && exec.contains("--token-file %d/token"),
        "{exec}"
    );
}

#[test]
fn systemd_analyze_verify_passes_the_unit() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: systemd-analyze is not installed here, so the unit was not verified");
        return;
    }
    // Verified with ExecStart pointing at the binary this test built (verify checks it exists).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deferral-host.service");
    let text = unit().replace(
        "/usr/local/bin/deferral-host",
        env!("CARGO_BIN_EXE_deferral-host"),
    );
    std::fs::write(&path, &text).unwrap();
    let verify = |path: &std::path::Path| {
        let out = Command::new("systemd-analyze")
            .arg("verify")
            .arg(path)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // Only what it says of this unit (a system may have warnings of its own units).
        let ours: Vec<String> = said
            .lines()
            .filter(|l| l.contains("deferral-host"))
            .map(str::to_string)
            .collect();
        (out.status.success(), ours)
    };
    let (ok, said) = verify(&path);
    assert!(ok && said.is_empty(), "systemd-analyze verify: {said:#?}");
    // With the webhook's secret handed over too (the commented line, as an operator enables it).
    let hooked = text.replace(
        "#LoadCredential=webhook-secret:",
        "LoadCredential=webhook-secret:",
    );
    assert_ne!(hooked, text, "the unit shows the webhook's credential");
    std::fs::write(&path, &hooked).unwrap();
    let (ok, said) = verify(&path);
    assert!(ok && said.is_empty(), "systemd-analyze verify: {said:#?}");
    // The check bites: a misspelt setting is reported.
    std::fs::write(
        &path,
        text.replace("ProtectSystem=strict", "ProtectSystem=strickt"),
    )
    .unwrap();
    let (_, said) = verify(&path);
    assert!(!said.is_empty(), "a bad value went unnoticed");
}

#[test]
fn the_example_configuration_is_one_run_takes() {
    let file = recipe("deferral-host.toml");
    let argv = ["deferral-host", "run", "--config", file.to_str().unwrap()];
    let mut cli = match deferral_host::cli::config::parse(argv.iter().map(Into::into).collect()) {
        Ok(cli) => cli,
        Err(deferral_host::cli::config::ParseError::Config(err)) => panic!("{err}"),
        Err(deferral_host::cli::config::ParseError::Usage(err)) => panic!("{err}"),
    };
    let args = cli.run_args_mut().expect("the run command");
    assert_eq!(args.port.listen, "127.0.0.1:8787");
    assert_eq!(
        args.scheduler.lease_timeout,
        std::time::Duration::from_secs(900)
    );
    assert_eq!(
        args.follow_interval,
        Some(std::time::Duration::from_secs(60))
    );
    assert_eq!(args.port.allow_launch.len(), 2);
    assert_eq!(args.watches.len(), 1);
    assert_eq!(args.watches[0].repo, "octo/app");
    assert_eq!(args.watches[0].workflow, ["gate.yml"]);
}

#[test]
fn docs_host_md_shows_the_unit_as_it_is() {
    let docs =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/host.md"))
            .unwrap();
    assert!(
        docs.contains(&format!("```ini\n{}```", unit())),
        "docs/host.md's copy of docs/recipes/deferral-host.service differs from the file"
    );
}
