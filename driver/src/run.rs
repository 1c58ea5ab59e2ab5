//! One run of the `deferral` CLI or of the Action, whole: the shell passes what it was started
//! with and what it has read or received so far; the core answers the next step. The shell
//! only reads files, makes the one request, holds the ledger lock, talks to the durable port,
//! and prints and writes what the last step says.
//!
//! Input (JSON text, plus the bytes of every file read so far, back to back):
//!
//! ```json
//! {"surface": "cli" | "action", "argv": ["gate", "--plan", "plan.json"],
//!  "env": {"GITHUB_API_URL": ..., "INPUT_PLAN": ..., "HTTPS_PROXY": ...},
//!  "now_ms": 1800000000000, "utc_offset_min": 60, "tmpdir": "/tmp", "stderr_tty": false,
//!  "crossing": 0,
//!  "file_sizes": [["plan", 120, "plan.json"], ["ledger", null, "ledger.json"]],
//!  "answer": {"status": 200, "headers": [[name, value]], "body": "<text>"},
//!  "transport_error": "ECONNREFUSED", "retained": {...}, "coordinator_error": "...",
//!  "io_error": {"op": "read" | "ledger" | "lock" | "lock-timeout" | "internal",
//!               "path": "plan.json", "detail": "ENOENT"}}
//! ```
//!
//! `env` holds the variables the shell passes on (`INPUT_*`, `GITHUB_*`, `RUNNER_*`,
//! `DEFERRAL_*`, the proxy variables and `GH_TOKEN`); secrets among them are never printed and
//! are masked first in the Action. `file_sizes` names each file in the order of the bytes;
//! `null` is a file that does not exist (a new ledger).
//!
//! Each answer is a step (see [`crate::attempt`] for gate and resume): `read` (a list of
//! `{name, path, limit}`: read at most `limit + 1` bytes, `-` is standard input), `request`
//! (`{url, method, headers, body, token_env, proxy, into, error_into}`: put the answer, or the
//! transport failure's message, into the input under those names), `lock` (`{path, limit,
//! wait_ms, stale_ms}`: hold the ledger's lock, read it as file `ledger`, write back the
//! `ledger` text the next answer carries before letting go), `retain` (hand a receipt to
//! the durable port), or `done`. Any step may carry `stdout` and `stderr` text to print at once
//! and `writes` (`{path, text, mode, exclusive, append}`) to make. `done` carries `exit` (the
//! class), `process_exit` (the code to exit with) and `status`.

mod args;
pub mod help;
mod small;

use crate::attempt::limits::limit_of;
use crate::attempt::{self, view::Obj, AttemptError};
use crate::runner;
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
    fn from(v: &Value, payload: &[u8]) -> Result<Files, AttemptError> {
        let bad = |detail: &str| AttemptError::InvalidAttempt {
            detail: detail.to_string(),
        };
        let mut items = Vec::new();
        let mut at = 0usize;
        for entry in v["file_sizes"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let name = entry[0]
                .as_str()
                .ok_or_else(|| bad("a file without a name"))?;
            let path = entry[2].as_str().unwrap_or_default().to_string();
            let bytes = match entry[1].as_u64() {
                None => None,
                Some(n) => {
                    let end = usize::try_from(n)
                        .ok()
                        .and_then(|n| at.checked_add(n))
                        .filter(|end| *end <= payload.len())
                        .ok_or_else(|| bad("file sizes beyond the bytes given"))?;
                    let bytes = payload[at..end].to_vec();
                    at = end;
                    Some(bytes)
                }
            };
            items.push((name.to_string(), bytes, path));
        }
        // Native callers and tests may give files as text instead.
        if let Some(map) = v["files"].as_object() {
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

/// The shell's own failure, as the error it is.
fn shell_error(v: &Value) -> Option<AttemptError> {
    let e = v.get("io_error")?;
    let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
    Some(match e["op"].as_str().unwrap_or_default() {
        "read" => AttemptError::UnreadableFile {
            path: where_(&text("path")),
            detail: text("detail"),
        },
        "ledger" => AttemptError::UnreadableLedger {
            detail: text("detail"),
        },
        "lock" => AttemptError::LedgerLockFailed {
            detail: text("detail"),
        },
        "lock-timeout" => AttemptError::LedgerLockTimeout {
            ms: e["ms"].as_u64().unwrap_or_default(),
        },
        _ => AttemptError::Internal {
            detail: text("detail"),
        },
    })
}

/// The last step: print, write, exit.
pub fn done(
    exit: Exit,
    stdout: &str,
    stderr: &str,
    writes: &[String],
    ledger: Option<&str>,
) -> String {
    Obj::default()
        .str("step", Some("done"))
        .num("exit", Some(u64::from(exit.code())))
        .num("process_exit", Some(u64::from(exit.code())))
        .str("stdout", Some(stdout))
        .str("stderr", Some(stderr).filter(|s| !s.is_empty()))
        .raw("writes", &format!("[{}]", writes.join(",")))
        .str("ledger", ledger)
        .end()
}

/// An error that stops a command before it has a result: `{"status":"error","error":{...}}`.
pub fn error_done(e: &AttemptError, stderr: &str) -> String {
    let line = Obj::default()
        .str("status", Some("error"))
        .raw(
            "error",
            &Obj::default()
                .str("code", Some(e.code()))
                .str("message", Some(&e.to_string()))
                .end(),
        )
        .end();
    done(e.exit(), &(line + "\n"), stderr, &[], None)
}

/// One crossing, over JSON text and the files' bytes.
pub fn run_json(input: &str, payload: &[u8]) -> String {
    match serde_json::from_str::<Value>(input) {
        Ok(v) => run(&v, payload),
        Err(e) => error_done(
            &AttemptError::InvalidAttempt {
                detail: format!("it is not JSON: {e}"),
            },
            "",
        ),
    }
}

/// One crossing (see the module docs).
pub fn run(v: &Value, payload: &[u8]) -> String {
    let files = match Files::from(v, payload) {
        Ok(f) => f,
        Err(e) => return error_done(&e, ""),
    };
    let failure = shell_error(v).or_else(|| files.too_large());
    let env = v["env"].as_object().cloned().unwrap_or_default();
    if v["surface"] == "action" {
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
        return if v["crossing"].as_u64().unwrap_or(0) == 0 {
            with_stdout_first(&step, &masks)
        } else {
            step
        };
    }
    let argv: Vec<String> = v["argv"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let Some(name) = argv.first() else {
        return error_done(&AttemptError::MissingCommand, &help::usage());
    };
    if matches!(name.as_str(), "--help" | "-h" | "help") {
        return done(Exit::Ok, &help::usage(), "", &[], None);
    }
    if name == "--version" {
        return done(Exit::Ok, &help::version(), "", &[], None);
    }
    let Some(command) = help::command(name) else {
        return error_done(&AttemptError::UnknownCommand { name: name.clone() }, "");
    };
    let parsed = match args::parse(&argv[1..], command) {
        Ok(p) => p,
        Err(e) => return error_done(&e, ""),
    };
    if parsed.help {
        return done(Exit::Ok, &format!("{}\n", command.help), "", &[], None);
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
    v: &Value,
    files: &Files,
    failure: Option<AttemptError>,
    resume: bool,
    inputs: Map<String, Value>,
    token_env: &str,
) -> String {
    let mut av = v.as_object().cloned().unwrap_or_default();
    let token = av["env"]
        .get(token_env)
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty());
    av.insert(
        "command".into(),
        (if resume { "resume" } else { "gate" }).into(),
    );
    av.insert("inputs".into(), Value::Object(inputs));
    av.insert("token".into(), token.into());
    av.insert("token_env".into(), token_env.into());
    av.insert("files".into(), Value::Object(files.text_map()));
    attempt::run_attempt(&Value::Object(av), failure)
}

/// Puts `text` first in a step's `stdout`.
fn with_stdout_first(step: &str, text: &str) -> String {
    if text.is_empty() {
        return step.to_string();
    }
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(step) else {
        return step.to_string();
    };
    let rest = map
        .get("stdout")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let joined = format!("{text}{rest}");
    map.insert("stdout".into(), joined.into());
    serde_json::to_string(&map).unwrap_or_default()
}
