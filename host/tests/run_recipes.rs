//! The service recipes in docs/recipes: the systemd unit of `run` passes `systemd-analyze
//! verify` (where the command exists) with the hardening it documents, its system-call filter
//! allows every call the host and an `exec:` program make (traced with strace), and the example
//! configuration file is one `run --config` takes.

mod common;

use std::collections::BTreeSet;
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
        "SystemCallFilter=@system-service",
        "SystemCallArchitectures=native",
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
fn docs_host_service_md_shows_the_unit_as_it_is() {
    let docs = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/host-service.md"),
    )
    .unwrap();
    assert!(
        docs.contains(&format!("```ini\n{}```", unit())),
        "docs/host-service.md's copy of docs/recipes/deferral-host.service differs from the file"
    );
}

/// The system calls of a `systemd-analyze syscall-filter` group, its groups expanded.
fn syscall_group(name: &str) -> BTreeSet<String> {
    let out = Command::new("systemd-analyze")
        .args(["syscall-filter", name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "systemd-analyze syscall-filter {name}"
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && *l != name)
        .flat_map(|l| match l.strip_prefix('@') {
            Some(_) => syscall_group(l).into_iter().collect::<Vec<_>>(),
            None => vec![l.to_string()],
        })
        .collect()
}

#[test]
fn the_units_system_call_filter_allows_every_call_the_host_and_an_exec_program_make() {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if !have("strace") || !have("systemd-analyze") {
        eprintln!("skipped: strace and systemd-analyze are needed to compare the calls made with the unit's filter");
        return;
    }
    let filter = unit()
        .lines()
        .find_map(|l| l.strip_prefix("SystemCallFilter="))
        .expect("the unit filters system calls")
        .to_string();
    let allowed = syscall_group(&filter);
    // Record an exec: program (a shell script running coreutils, as many are) and tick it,
    // everything the host does traced, its children included.
    let host = common::Host::new();
    let ran = host.path("ran");
    let target = common::script(
        &host.path("job.sh"),
        &format!(
            "cat > /dev/null; date > '{}'; ls / > /dev/null",
            ran.display()
        ),
    );
    let trace = host.path("trace");
    let traced = |args: &[&str], stdin: &str| {
        use std::io::Write;
        let cmd = host.command(args);
        let bin = cmd.get_program().to_owned();
        let mut strace = Command::new("strace");
        strace
            .args(["-f", "-qq", "-c", "-U", "name", "-o"])
            .arg(&trace)
            .arg(bin)
            .args(cmd.get_args())
            .envs(cmd.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null());
        for (key, value) in cmd.get_envs() {
            if value.is_none() {
                strace.env_remove(key);
            }
        }
        let mut child = strace.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success(), "{args:?}");
        std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .map(str::trim)
            .filter(|l| {
                l.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            })
            .filter(|l| !l.is_empty() && *l != "syscall" && *l != "total")
            .map(str::to_string)
            .collect::<BTreeSet<String>>()
    };
    let receipt =
        deferral_host_conformance::distinct_handoff(common::now(), 0, common::HOUR).to_json();
    let mut made = traced(&["record", "--launch", &target, "-"], &receipt);
    made.extend(traced(&["tick"], ""));
    assert!(ran.exists(), "the exec: program ran under strace");
    assert!(made.contains("execve") && made.len() > 20, "{made:?}");
    let refused: Vec<&String> = made.difference(&allowed).collect();
    assert!(
        refused.is_empty(),
        "{filter} would refuse {refused:?} (made: {made:?})"
    );
}
