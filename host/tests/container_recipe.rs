//! docs/recipes/Containerfile, tried without a container runtime (none can run here: see
//! docs/host-service.md, "In a container"). What a runtime would do with it is done by hand,
//! from the file's own instructions:
//!
//! * every `FROM` names its image by digest (written, or an `ARG` the build must be given);
//! * the build stage's `COPY` lines bring the whole workspace: cargo, given only what they copy,
//!   finds every member the repository's workspace has, with the toolchain the stage names;
//! * the last stage's `ENTRYPOINT` and `CMD`, run by `/bin/sh` with its `ENV`, its volume and
//!   its secrets under a temporary folder, create the store, answer the `HEALTHCHECK` command,
//!   and stop with 0 on SIGTERM (the `exec` makes `run` the process the runtime signals).

use serde_json::Value;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "container-test-token-not-real-0123456789";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One instruction: its keyword and the rest of its (joined) line.
struct Instruction {
    keyword: String,
    rest: String,
}

/// The Containerfile's global `ARG`s (before the first `FROM`) and its stages, each the
/// instructions after its `FROM` (the `FROM` included).
fn parse() -> (Vec<Instruction>, Vec<Vec<Instruction>>) {
    let text = std::fs::read_to_string(root().join("docs/recipes/Containerfile")).unwrap();
    let mut joined = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.trim();
        if current.is_empty() && (line.starts_with('#') || line.is_empty()) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(line);
                joined.push(std::mem::take(&mut current));
            }
        }
    }
    let mut global = Vec::new();
    let mut stages: Vec<Vec<Instruction>> = Vec::new();
    for line in joined {
        let (keyword, rest) = line.split_once(char::is_whitespace).unwrap();
        let instruction = Instruction {
            keyword: keyword.to_ascii_uppercase(),
            rest: rest.trim().to_string(),
        };
        if instruction.keyword == "FROM" {
            stages.push(Vec::new());
        }
        match stages.last_mut() {
            Some(stage) => stage.push(instruction),
            None => {
                assert_eq!(
                    instruction.keyword, "ARG",
                    "only ARG comes before the first FROM"
                );
                global.push(instruction);
            }
        }
    }
    (global, stages)
}

fn stages() -> Vec<Vec<Instruction>> {
    parse().1
}

fn all<'a>(stage: &'a [Instruction], keyword: &str) -> Vec<&'a str> {
    stage
        .iter()
        .filter(|i| i.keyword == keyword)
        .map(|i| i.rest.as_str())
        .collect()
}

/// `KEY=VALUE` of the stage's `ENV` lines.
fn env_of(stage: &[Instruction]) -> Vec<(String, String)> {
    all(stage, "ENV")
        .into_iter()
        .map(|rest| {
            let (key, value) = rest.split_once('=').expect("ENV KEY=VALUE");
            (key.to_string(), value.to_string())
        })
        .collect()
}

/// An exec-form instruction (`["a", "b"]`).
fn exec_form(stage: &[Instruction], keyword: &str) -> Vec<String> {
    let rest = all(stage, keyword)
        .pop()
        .unwrap_or_else(|| panic!("no {keyword}"));
    serde_json::from_str(rest).unwrap_or_else(|e| panic!("{keyword} is not exec form: {e}"))
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        std::fs::copy(from, to).unwrap();
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "node_modules" {
            continue;
        }
        copy_tree(&entry.path(), &to.join(name));
    }
}

/// The names of the workspace's packages as cargo reads them in `dir`.
fn workspace_members(dir: &Path, toolchain: Option<&str>) -> Result<Vec<String>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(dir);
    if let Some(toolchain) = toolchain {
        command.env("RUSTUP_TOOLCHAIN", toolchain);
    }
    let out = command.output().unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut names: Vec<String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    Ok(names)
}

#[test]
fn every_base_image_is_pinned_by_digest() {
    let (global, stages) = parse();
    // `ARG NAME` or `ARG NAME=DEFAULT`.
    let args: Vec<(&str, Option<&str>)> = global
        .iter()
        .map(|arg| match arg.rest.split_once('=') {
            Some((name, default)) => (name, Some(default)),
            None => (arg.rest.as_str(), None),
        })
        .collect();
    let is_digest = |d: &str| {
        d.strip_prefix("sha256:")
            .is_some_and(|hex| hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit()))
    };
    for stage in &stages {
        let from = &stage[0].rest;
        let image = from
            .split_whitespace()
            .find(|word| !word.starts_with("--"))
            .unwrap();
        let (_, digest) = image
            .rsplit_once('@')
            .unwrap_or_else(|| panic!("FROM {from}: not pinned by digest"));
        match digest
            .strip_prefix("${")
            .and_then(|name| name.strip_suffix('}'))
        {
            // A digest the build is given: declared before the first FROM, with no default
            // (the build stops without it) or a digest as its default.
            Some(name) => {
                let (_, default) = args
                    .iter()
                    .find(|(arg, _)| *arg == name)
                    .unwrap_or_else(|| {
                        panic!("FROM {from}: {name} is no ARG before the first FROM")
                    });
                if let Some(default) = default {
                    assert!(is_digest(default), "ARG {name}={default} is not a digest");
                }
            }
            None => assert!(
                is_digest(digest),
                "FROM {from}: {digest} is not a sha256 digest"
            ),
        }
    }
}

#[test]
fn the_build_stage_copies_every_workspace_member_and_names_the_pinned_toolchain() {
    let stages = stages();
    let build = &stages[0];
    let dir = tempfile::tempdir().unwrap();
    for rest in all(build, "COPY") {
        let words: Vec<&str> = rest.split_whitespace().collect();
        assert!(
            !words[0].starts_with("--"),
            "the build stage copies from the context: {rest}"
        );
        let (dest, sources) = words.split_last().unwrap();
        for source in sources {
            let to = if dest.ends_with('/') {
                dir.path().join(dest).join(source)
            } else {
                dir.path().join(dest)
            };
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            copy_tree(&root().join(source), &to);
        }
    }
    let toolchain = env_of(build)
        .into_iter()
        .find(|(key, _)| key == "RUSTUP_TOOLCHAIN")
        .map(|(_, value)| value)
        .expect("the build stage names its toolchain");
    let pinned: toml::Table = std::fs::read_to_string(root().join("rust-toolchain.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let channel = pinned["toolchain"]["channel"].as_str().unwrap();
    assert_eq!(
        toolchain, channel,
        "the image builds with rust-toolchain.toml's channel"
    );
    let image = &build[0].rest;
    let minor = channel.rsplit_once('.').unwrap().0;
    assert!(
        image.contains(&format!("rust:{minor}")),
        "{image} is not the rust {minor} image"
    );
    let wanted = workspace_members(&root(), None).unwrap();
    let copied = workspace_members(dir.path(), Some(&toolchain))
        .unwrap_or_else(|e| panic!("cargo cannot read the workspace the stage copies:\n{e}"));
    assert_eq!(copied, wanted);
}

#[test]
fn the_entry_point_creates_the_store_answers_its_health_check_and_stops_on_sigterm() {
    let stages = stages();
    let image = stages.last().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let volume = dir.path().join("volume");
    let secrets = dir.path().join("secrets");
    std::fs::create_dir_all(&volume).unwrap();
    std::fs::create_dir_all(&secrets).unwrap();
    let token_file = secrets.join("deferral-token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(
        &token_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o400),
    )
    .unwrap();
    // The image's paths, moved under the temporary folder; its port, to one the system picks.
    let declared: Vec<String> = serde_json::from_str(all(image, "VOLUME")[0]).unwrap();
    let place = |text: &str| {
        text.replace(&declared[0], volume.to_str().unwrap())
            .replace("/run/secrets", secrets.to_str().unwrap())
    };
    let port = all(image, "EXPOSE")[0].to_string();
    let entry = exec_form(image, "ENTRYPOINT");
    let cmd: Vec<String> = exec_form(image, "CMD")
        .iter()
        .map(|arg| place(arg).replace(&format!("0.0.0.0:{port}"), "127.0.0.1:0"))
        .collect();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_deferral-host"));
    let path = format!("{}:/usr/bin:/bin", bin.parent().unwrap().to_str().unwrap());
    let log = dir.path().join("stderr.log");
    let mut command = Command::new(&entry[0]);
    command
        .args(&entry[1..])
        .args(&cmd)
        .env_clear()
        .env("PATH", &path)
        .env("HOME", dir.path())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap());
    for (key, value) in env_of(image) {
        command.env(key, place(&value));
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let stderr = || std::fs::read_to_string(&log).unwrap_or_default();
    let ready: Value = serde_json::from_str(&line)
        .unwrap_or_else(|_| panic!("no listening line: {line:?}\n{}", stderr()));
    let addr = ready["listening"].as_str().unwrap().to_string();
    // `init` wrote its answer on stderr and made the store in the volume.
    let created = stderr()
        .lines()
        .find_map(|l| {
            serde_json::from_str::<Value>(l)
                .ok()
                .filter(|v| v.get("created").is_some())
        })
        .unwrap_or_else(|| panic!("no init answer on stderr:\n{}", stderr()));
    assert_eq!(created["created"], true, "{created}");
    assert!(
        volume.join("host.db").exists(),
        "the store is not in the volume"
    );
    // The HEALTHCHECK's own command, at the address `run` took.
    let check = all(image, "HEALTHCHECK")[0];
    let check = check.split_once("CMD ").expect("HEALTHCHECK ... CMD").1;
    let check = check.replace(&format!("127.0.0.1:{port}"), &addr);
    if Command::new("curl").arg("--version").output().is_ok() {
        let healthy = Command::new("/bin/sh")
            .args(["-c", &check])
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            healthy.status.success(),
            "{check}: {}\n{}",
            String::from_utf8_lossy(&healthy.stderr),
            stderr()
        );
    } else {
        // The image installs curl; without it here, the same request by hand.
        eprintln!("curl is not installed here: GET /healthz asked without it");
        let (_, path) = check.split_once(&addr).expect("the check asks the port");
        let path = path.split_whitespace().next().unwrap();
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}\n{}", stderr());
    }
    // SIGTERM reaches `run` itself (the shell exec'd it) and it exits 0.
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "still running 30 s after SIGTERM\n{}",
            stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", stderr());
}
