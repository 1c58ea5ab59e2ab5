//! One run of the `deferral` CLI or of the Action, whole: the shell passes what it was started
//! with and what it has read or received so far; the core answers the next step. The shell
//! only reads files, makes the one request, holds the ledger lock, talks to the durable port,
//! and prints and writes what the last step says.
//!
//! Input (JSON text, plus the bytes of every file read so far, back to back), read as a
//! [`Crossing`]; a member that does not read as its type is `invalid-attempt` (a shell bug):
//!
//! ```json
//! {"surface": "cli" | "action", "argv": ["gate", "--plan", "plan.json"],
//!  "env": {"GITHUB_API_URL": ..., "INPUT_PLAN": ..., "HTTPS_PROXY": ...},
//!  "now_ms": 1800000000000, "utc_offset_min": 60, "tmpdir": "/tmp", "stderr_tty": false,
//!  "crossing": 0,
//!  "file_sizes": [["plan", 120, "plan.json"], ["ledger", null, "ledger.json"]],
//!  "answer": {"status": 200, "headers": [[name, value]], "body": "<text>"},
//!  "transport_error": "ECONNREFUSED",
//!  "port_answer": {"status": 201, "body": "<text>"}, "coordinator_error": "...",
//!  "admission_answer": {"status": 200, "body": "<text>"}, "admission_error": "...",
//!  "io_error": {"op": "read" | "ledger" | "lock" | "lock-timeout" | "internal",
//!               "path": "plan.json", "detail": "ENOENT"}}
//! ```
//!
//! `env` holds the variables the shell passes on (`INPUT_*`, `GITHUB_*`, `RUNNER_*`,
//! `DEFERRAL_*`, the proxy variables and `GH_TOKEN`); secrets among them are never printed and
//! are masked first in the Action. `file_sizes` names each file in the order of the bytes;
//! `null` is a file that does not exist (a new ledger).
//!
//! Each answer is a [`Step`] (see [`crate::step`], and [`crate::attempt`] for gate and resume):
//! `read` (a list of `{name, path, limit}`: read at most `limit + 1` bytes, `-` is standard
//! input), `fetch` or `admit` or `retain` with a `request` (`{url, method, headers, body,
//! token_env, proxy, into, error_into}`: put the answer, or the transport failure's message,
//! into the input under those names), `lock` (`{path, limit, wait_ms, stale_ms}`: hold the
//! ledger's lock, read it as file `ledger`, write back the `ledger` text the next answer carries
//! before letting go), or `done`. A step may carry `stdout` text to print at once and `writes`
//! (`{path, text, mode, exclusive, append}`) to make. `done` carries `exit` (the class),
//! `process_exit` (the code to exit with), `stderr` and, for gate and resume, `status`.

mod args;
pub mod help;
mod small;

use crate::attempt::limits::limit_of;
use crate::attempt::{self, view::CodeMessage, AttemptError, AttemptInput};
use crate::commands::StatusError;
use crate::crossing::{Crossing, IoOp, Surface};
use crate::runner;
use crate::step::{Done, Step, Write};
use deferral_core::exit::Exit;
use serde_json::{Map, Value};

/// Where a path reads from, for a person.
pub fn where_(path: &str) -> String {
    if path == "-" {
        "standard input".into()
    } else {
        path.to_string()
    }
}

/// The files read so far: bytes by name (`None`: the file does not exist), and their paths.
#[derive(Debug, Default)]
pub struct Files {
    items: Vec<(String, Option<Vec<u8>>, String)>,
}

impl Files {
    /// From `file_sizes` and the bytes; a mismatch is `invalid-attempt` (a shell bug).
    fn from(c: &Crossing, payload: &[u8]) -> Result<Files, AttemptError> {
        let mut items = Vec::new();
        let mut at = 0usize;
        for (name, size, path) in &c.file_sizes {
            let bytes = match size {
                None => None,
                Some(n) => {
                    let end = usize::try_from(*n)
                        .ok()
                        .and_then(|n| at.checked_add(n))
                        .filter(|end| *end <= payload.len())
                        .ok_or_else(|| AttemptError::InvalidAttempt {
                            detail: "file sizes beyond the bytes given".into(),
                        })?;
                    let bytes = payload[at..end].to_vec();
                    at = end;
                    Some(bytes)
                }
            };
            items.push((name.clone(), bytes, path.clone()));
        }
        // Native callers and tests may give files as text instead.
        if let Some(map) = &c.files {
            for (name, text) in map {
                let bytes = text.as_str().map(|t| t.as_bytes().to_vec());
                items.push((name.clone(), bytes, String::new()));
            }
        }
        Ok(Files { items })
    }

    /// `Some(bytes)` once `name` was read, with `None` bytes for a file that does not exist.
    pub fn get(&self, name: &str) -> Option<Option<&[u8]>> {
        self.items
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, b, _)| b.as_deref())
    }

    /// The bytes of `name`; `None` when not read or not existing.
    pub fn bytes(&self, name: &str) -> Option<&[u8]> {
        self.get(name).flatten()
    }

    /// The text of every file (invalid UTF-8 replaced), `null` for one that does not exist.
    pub fn text_map(&self) -> Map<String, Value> {
        self.items
            .iter()
            .map(|(name, bytes, _)| {
                let text = bytes.as_deref().map_or(Value::Null, |b| {
                    String::from_utf8_lossy(b).into_owned().into()
                });
                (name.clone(), text)
            })
            .collect()
    }

    /// The first file past its limit, as `too-large`.
    fn too_large(&self) -> Option<AttemptError> {
        self.items.iter().find_map(|(name, bytes, path)| {
            let limit = limit_of(name);
            let size = bytes.as_ref().map_or(0, Vec::len) as u64;
            (name != "receipt" && size > limit).then(|| AttemptError::TooLarge {
                what: name.clone(),
                path: where_(path),
                limit,
            })
        })
    }
}

/// The deferral id a port's 2xx answer to a retain request gave (checked as the gate checks
/// it), for an error after the port kept the receipt.
fn retained_id(c: &Crossing) -> Option<String> {
    let answer = c.port_answer.as_ref()?;
    if !(200..300).contains(&answer.status) {
        return None;
    }
    let body: serde_json::Value = serde_json::from_str(answer.body.as_deref()?).ok()?;
    let id = body.get("id")?.as_str()?;
    crate::port_answer::check_id(id).ok()?;
    Some(id.to_string())
}

/// The shell's own failure, as the error it is.
fn shell_error(c: &Crossing) -> Option<AttemptError> {
    let e = c.io_error.as_ref()?;
    let detail = e.detail.clone();
    Some(match e.op {
        IoOp::Read => AttemptError::UnreadableFile {
            path: where_(&e.path),
            detail,
        },
        IoOp::Ledger => AttemptError::UnreadableLedger { detail },
        IoOp::Lock => AttemptError::LedgerLockFailed { detail },
        IoOp::LockTimeout => AttemptError::LedgerLockTimeout { ms: e.ms },
        IoOp::Folder => AttemptError::UnsafeTempFolder {
            path: where_(&e.path),
            detail,
        },
        IoOp::Write => AttemptError::UnwritableFile {
            path: where_(&e.path),
            detail,
            retained: retained_id(c),
        },
        IoOp::Internal => AttemptError::Internal { detail },
    })
}

/// The last step: print, write, exit.
pub fn done(
    exit: Exit,
    stdout: &str,
    stderr: &str,
    writes: Vec<Write>,
    ledger: Option<&str>,
) -> Step {
    Step::Done(Done {
        exit: exit.code(),
        process_exit: exit.code(),
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        ledger: ledger.map(str::to_string),
        writes,
        ..Done::default()
    })
}

/// An error that stops a command before it has a result: `{"status":"error","error":{...}}`.
pub fn error_done(e: &AttemptError, stderr: &str) -> Step {
    let line = StatusError {
        status: "error",
        error: CodeMessage {
            code: e.code(),
            message: &e.to_string(),
        },
    }
    .to_json();
    done(e.exit(), &(line + "\n"), stderr, Vec::new(), None)
}

/// One crossing, over JSON text and the files' bytes.
pub fn run_json(input: &str, payload: &[u8]) -> String {
    match serde_json::from_str::<Crossing>(input) {
        Ok(c) => run(&c, payload),
        Err(e) => error_done(
            &AttemptError::InvalidAttempt {
                detail: format!("it does not read as a crossing: {e}"),
            },
            "",
        ),
    }
    .to_json()
}

/// One crossing (see the module docs).
pub fn run(v: &Crossing, payload: &[u8]) -> Step {
    let files = match Files::from(v, payload) {
        Ok(f) => f,
        Err(e) => return error_done(&e, ""),
    };
    let failure = shell_error(v).or_else(|| files.too_large());
    let env = &v.env;
    if v.surface == Surface::Action {
        let inputs: Map<String, Value> = env
            .iter()
            .filter_map(|(k, val)| {
                Some((k.strip_prefix("INPUT_")?.to_ascii_lowercase(), val.clone()))
            })
            .collect();
        let secret = |name: &str| inputs.get(name).and_then(Value::as_str).unwrap_or_default();
        let masks = runner::masks([
            secret("token"),
            secret("coordinator-token"),
            env.get("DEFERRAL_WAKEUP_HANDLE")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        ]);
        let resume = !secret("receipt").trim().is_empty();
        let step = gate_or_resume(v, &files, failure, resume, inputs, "INPUT_TOKEN");
        // Masks go out with the first answer, before anything else is printed.
        return if v.crossing == 0 {
            step.with_stdout_first(&masks)
        } else {
            step
        };
    }
    let argv = &v.argv;
    let Some(name) = argv.first() else {
        return error_done(&AttemptError::MissingCommand, &help::usage());
    };
    if matches!(name.as_str(), "--help" | "-h" | "help") {
        return done(Exit::Ok, &help::usage(), "", Vec::new(), None);
    }
    if name == "--version" {
        return done(Exit::Ok, &help::version(), "", Vec::new(), None);
    }
    let Some(command) = help::command(name) else {
        return error_done(&AttemptError::UnknownCommand { name: name.clone() }, "");
    };
    let parsed = match args::parse(&argv[1..], command) {
        Ok(p) => p,
        Err(e) => return error_done(&e, ""),
    };
    if parsed.help {
        return done(
            Exit::Ok,
            &format!("{}\n", command.help),
            "",
            Vec::new(),
            None,
        );
    }
    match command.name {
        "gate" | "resume" => {
            let inputs = parsed
                .flags
                .into_iter()
                .map(|(k, val)| match val {
                    Value::Bool(b) => (k, Value::String(b.to_string())),
                    other => (k, other),
                })
                .collect();
            let token_env = ["GITHUB_TOKEN", "GH_TOKEN"]
                .into_iter()
                .find(|k| {
                    env.get(*k)
                        .and_then(Value::as_str)
                        .is_some_and(|t| !t.trim().is_empty())
                })
                .unwrap_or("GITHUB_TOKEN");
            gate_or_resume(
                v,
                &files,
                failure,
                command.name == "resume",
                inputs,
                token_env,
            )
        }
        _ => match failure {
            Some(e) => error_done(&e, ""),
            None => small::run(command.name, &parsed, v, &files),
        },
    }
}

/// A gate or resume attempt, with the inputs by name (Action inputs or CLI flags).
fn gate_or_resume(
    v: &Crossing,
    files: &Files,
    failure: Option<AttemptError>,
    resume: bool,
    inputs: Map<String, Value>,
    token_env: &'static str,
) -> Step {
    let token = v
        .env
        .get(token_env)
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty());
    attempt::run_attempt(
        &AttemptInput {
            crossing: v,
            resume,
            inputs,
            token,
            token_env,
            files: files.text_map(),
        },
        failure,
    )
}
