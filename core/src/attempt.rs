//! One attempt of a command, owned by the core: the shell reads inputs and files, makes the one
//! request, and writes what it is told; everything else happens here, in as few crossings as
//! the attempt needs.
//!
//! The shell calls [`attempt_json`] with the same input object, growing it as it is told:
//!
//! ```json
//! {"command": "gate" | "resume", "surface": "action" | "cli",
//!  "inputs": {"rest-reserve": "10%", "plan": "plan.json", ...},   // as given, text
//!  "env": {"GITHUB_API_URL": ..., "GITHUB_REPOSITORY": ..., "GITHUB_WORKFLOW_REF": ...,
//!          "GITHUB_JOB": ..., "DEFERRAL_WAKEUP_HANDLE": ...},
//!  "token": true, "now_ms": 1800000000000, "utc_offset_min": 60, "temp_dir": "/tmp",
//!  "files": {"plan": "<text>", "receipt": "<text>", "rate-state": "<text>", "ledger": null},
//!  "answer": {"status": 200, "headers": [[name, value]], "body": "<text>"},
//!  "transport_error": "ECONNREFUSED", "retained": {...}, "coordinator_error": "..."}
//! ```
//!
//! Each answer is a step: `read` (files to read, by input name) and/or `request` (the one
//! `GET /rate_limit` to make; the shell adds its token), `lock` (hold the ledger file's lock
//! and pass its text, or null, as `files.ledger` in the next call; write back the `ledger` text
//! an answer carries), `retain` (hand the receipt to the
//! durable port), or `done`: the exit code, the CLI's line and verdict or the Action's outputs,
//! summary and workflow commands, the ledger text to write, and files to write. A gate run
//! crosses twice (what to read and ask; the decision); a resume that needs fresh rate state
//! three times, because checks that need none come first and cost no request.

mod error;
mod inputs;
pub mod markdown;
pub mod view;

pub use error::AttemptError;
pub use inputs::{
    default_scope, parse_duration, RawInputs, DEFAULT_FRESH_APPROVAL, DEFAULT_ON_DEFERRAL, INPUTS,
};

use crate::decision::{decide, Decision, DecisionInput, Diagnostic, Status};
use crate::exit::Exit;
use crate::ledger::Ledger;
use crate::observe::{answer_of, error_value};
use crate::preflight::{preflight, PreflightInput};
use crate::rate_state::{read_file, read_response, RateRead, Source};
use crate::receipt::{validate, Receipt};
use crate::run::runner;
use crate::signals::RateSnapshot;
use inputs::Options;
use serde_json::{Map, Value};
use view::{Finished, Obj};

/// The API version header GitHub documents for the REST API.
pub const API_VERSION: &str = "2022-11-28";

/// Decision codes that come from what the caller gave (exit 2), not from the provider.
const INPUT_CODES: [&str; 6] = [
    "invalid-input",
    "invalid-policy",
    "invalid-ledger",
    "unsupported-ledger-version",
    "invalid-plan",
    "invalid-receipt",
];

/// Preflight stops decided from the receipt and inputs alone, before any rate state is read.
const OFFLINE_STOPS: [&str; 6] = [
    "invalid-receipt",
    "not-yet-due",
    "expired",
    "claim-unavailable",
    "binding-mismatch",
    "approval-required",
];

struct Attempt<'a> {
    v: &'a Value,
    resume: bool,
    action: bool,
    raw: RawInputs,
    env: Map<String, Value>,
    files: Map<String, Value>,
    now: u64,
    shell_error: Option<AttemptError>,
}

/// Runs one crossing of an attempt (see the module docs) over JSON text.
pub fn attempt_json(input: &str) -> String {
    match serde_json::from_str::<Value>(input) {
        Ok(v) => attempt(&v),
        Err(e) => serde_json::to_string(&error_value(
            "invalid-attempt",
            "$",
            &format!("the attempt input is not JSON: {e}"),
        ))
        .unwrap_or_default(),
    }
}

/// Runs one crossing of an attempt given as a JSON value.
pub fn attempt(v: &Value) -> String {
    run_attempt(v, None)
}

/// Runs one crossing of an attempt; `shell_error` is a failure of the shell's own I/O (a file
/// unreadable or too large, the ledger lock), rendered like any other stop.
pub fn run_attempt(v: &Value, shell_error: Option<AttemptError>) -> String {
    let object = |name: &str| v.get(name).and_then(Value::as_object).cloned();
    let a = Attempt {
        v,
        resume: v["command"] == "resume",
        action: v["surface"] == "action",
        raw: RawInputs::new(v.get("inputs").and_then(Value::as_object)),
        env: object("env").unwrap_or_default(),
        files: object("files").unwrap_or_default(),
        now: v["now_ms"].as_u64().unwrap_or(0),
        shell_error,
    };
    a.step()
}

impl Attempt<'_> {
    fn input(&self, name: &str) -> Option<&str> {
        self.raw.get(name)
    }

    fn file(&self, name: &str) -> Option<&str> {
        self.files.get(name).and_then(Value::as_str)
    }

    fn has_rate(&self) -> bool {
        self.v.get("answer").is_some_and(Value::is_object)
            || self.v["transport_error"].is_string()
            || self.file("rate-state").is_some()
    }

    /// Files still to read: input name -> path.
    fn to_read(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(path) = self.raw.plan_path() {
            out.push(("plan", path.to_string()));
        }
        if self.resume {
            if let Some(path) = self.receipt_path() {
                out.push(("receipt", path.to_string()));
            }
        }
        if let Some(path) = self.input("rate-state") {
            out.push(("rate-state", path.to_string()));
        }
        out.retain(|(name, _)| !self.files.contains_key(*name));
        out
    }

    /// The receipt input as a path: always on the CLI; in the Action unless it is inline JSON.
    fn receipt_path(&self) -> Option<&str> {
        self.input("receipt")
            .filter(|r| !self.action || !r.starts_with('{'))
    }

    fn receipt_text(&self) -> Option<&str> {
        match self.receipt_path() {
            Some(_) => self.file("receipt"),
            None => self.input("receipt"),
        }
    }

    /// The one `GET /rate_limit`: the shell adds the token from `token_env` and goes through
    /// `proxy` when there is one.
    fn request(&self) -> Result<String, AttemptError> {
        let base = self
            .input("api-url")
            .or_else(|| self.env.get("GITHUB_API_URL").and_then(Value::as_str))
            .filter(|b| !b.is_empty())
            .unwrap_or("https://api.github.com")
            .trim_end_matches('/');
        let url = format!("{base}/rate_limit");
        let proxy = crate::proxy::proxy_for(&url, &self.env)
            .map_err(|detail| AttemptError::InvalidProxy { detail })?;
        Ok(Obj::default()
            .str("url", Some(&url))
            .raw(
                "headers",
                &format!("[[\"accept\",\"application/vnd.github+json\"],[\"user-agent\",\"deferral\"],[\"x-github-api-version\",\"{API_VERSION}\"]]"),
            )
            .str("token_env", self.v["token_env"].as_str())
            .str("proxy", proxy.as_deref())
            .num("timeout_ms", Some(crate::run::REQUEST_TIMEOUT_MS))
            .num("max_bytes", Some(crate::run::MAX_ANSWER_BYTES))
            .end())
    }

    fn ledger_path(&self) -> Option<&str> {
        self.input("ledger-file")
    }

    fn step(&self) -> String {
        // A failure of the shell's own I/O: rendered here, so every surface shows it alike.
        if let Some(e) = &self.shell_error {
            return self.stop(e);
        }
        // Inputs are checked before anything is read or requested; a pending plan file is
        // stood in for by an empty plan until it is read.
        let pending_plan = self.raw.plan_path().is_some() && self.file("plan").is_none();
        let options = inputs::parse(
            &self.raw,
            &self.env,
            if pending_plan {
                Some("{}")
            } else {
                self.file("plan")
            },
        );
        let options = match options {
            Ok(o) => o,
            Err(e) => return self.stop(&e),
        };
        if let Err(e) = self.coordinator() {
            return self.stop(&e);
        }
        if self.resume && self.input("receipt").is_none() {
            return self.stop(&AttemptError::MissingInput {
                input: "receipt as a file path (--receipt FILE), or - for standard input",
            });
        }
        let read = self.to_read();
        let live = self.input("rate-state").is_none();
        if !read.is_empty() {
            let entries: Vec<String> = read
                .iter()
                .map(|(name, path)| crate::run::read_entry(name, path))
                .collect();
            let mut step = Obj::default()
                .str("step", Some("read"))
                .raw("read", &format!("[{}]", entries.join(",")));
            if !self.resume && live {
                if !self.token() {
                    return self.stop(&AttemptError::MissingToken);
                }
                match self.request() {
                    Ok(r) => step = step.raw("request", &r),
                    Err(e) => return self.stop(&e),
                }
            }
            if !self.resume || !live {
                step = self.with_ledger(step);
            }
            return step.end();
        }
        if !self.has_rate() {
            if self.resume {
                if let Some(done) = self.offline_stop(&options) {
                    return done;
                }
            }
            if !self.token() {
                return self.stop(&AttemptError::MissingToken);
            }
            let request = match self.request() {
                Ok(r) => r,
                Err(e) => return self.stop(&e),
            };
            let step = Obj::default()
                .str("step", Some("fetch"))
                .raw("request", &request);
            return self.with_ledger(step).end();
        }
        self.finish(&options)
    }

    fn token(&self) -> bool {
        self.v["token"].as_bool().unwrap_or(false)
    }

    fn with_ledger(&self, step: Obj) -> Obj {
        match self.ledger_path() {
            Some(path) => step.raw("lock", &crate::run::lock(path)),
            None => step,
        }
    }

    /// The durable port's settings (Action, gate mode): checked before any request.
    fn coordinator(&self) -> Result<Option<(&str, &str)>, AttemptError> {
        let Some(url) = self.input("coordinator-url") else {
            return Ok(None);
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() < 9 {
            return Err(AttemptError::InvalidCoordinatorUrl);
        }
        if self.input("coordinator-token").is_none() {
            return Err(AttemptError::MissingCoordinatorToken);
        }
        let launch = self
            .input("coordinator-launch")
            .ok_or(AttemptError::MissingCoordinatorLaunch)?;
        Ok(Some((url, launch)))
    }

    fn decision_input(
        &self,
        options: &Options,
        rate: RateSnapshot,
        read: Option<&RateRead>,
        ledger: Option<Ledger>,
    ) -> DecisionInput {
        DecisionInput {
            rate,
            ledger,
            policy: options.policy,
            plan: options.plan.clone(),
            scope: options.scope.clone(),
            request: options.request.clone(),
            fresh_approval_required: options.fresh_approval_required,
            now_ms: self.now,
            clock_offset_ms: read.and_then(|r| r.clock_offset_ms),
        }
    }

    fn preflight_input(&self, fresh: DecisionInput) -> PreflightInput {
        let handle = self.input("wakeup-handle").or_else(|| {
            self.env
                .get("DEFERRAL_WAKEUP_HANDLE")
                .and_then(Value::as_str)
                .filter(|h| !h.is_empty())
        });
        PreflightInput {
            receipt: self.receipt_text().unwrap_or_default().to_string(),
            wakeup_handle: handle.map(str::to_string),
            approval_granted: false,
            fresh,
        }
    }

    /// The resume checks that need no rate state; `Some(done)` when one of them stops it.
    fn offline_stop(&self, options: &Options) -> Option<String> {
        let fresh = self.decision_input(options, RateSnapshot::default(), None, None);
        let mut input = self.preflight_input(fresh);
        input.approval_granted = options.approval_granted;
        let p = preflight(&input);
        let code = p.code.as_deref()?;
        if p.status == Status::Ready
            || p.status == Status::Deferred
            || !OFFLINE_STOPS.contains(&code)
        {
            return None;
        }
        Some(self.done(&self.finished_resume(p, None), None))
    }

    fn finish(&self, options: &Options) -> String {
        let read = if let Some(error) = self.v["transport_error"].as_str() {
            Err(AttemptError::Transport {
                detail: error.to_string(),
            })
        } else {
            Ok(())
        };
        if let Err(e) = read {
            return self.stop(&e);
        }
        let read = match self.file("rate-state") {
            Some(text) => read_file(text.as_bytes(), self.now),
            None => match answer_of(&self.v["answer"]) {
                Ok((status, headers, body)) => {
                    read_response(Source::Live, status, &headers, &body, self.now)
                }
                Err(e) => {
                    return self.stop(&AttemptError::InvalidAttempt {
                        detail: e["error"]["message"].as_str().unwrap_or("").to_string(),
                    })
                }
            },
        };
        let read = match read {
            Ok(read) => read,
            Err(e) => {
                return self.done(
                    &self.stopped(e.code(), e.to_string(), e.path().to_string(), e.exit()),
                    None,
                )
            }
        };
        // The shared ledger (under the shell's lock): what it held, plus what this read saw.
        let (ledger, ledger_text) = match self.files.get("ledger") {
            Some(text) => {
                let current = match text.as_str().filter(|t| !t.trim().is_empty()) {
                    None => Ledger::new(),
                    Some(t) => match Ledger::from_json(t) {
                        Ok(l) => l,
                        Err(e) => {
                            let message = format!(
                                "the ledger file is not a deferral-ledger-v1 document: {e}"
                            );
                            return self.done(
                                &self.stopped("invalid-ledger", message, "$".into(), Exit::Invalid),
                                None,
                            );
                        }
                    },
                };
                let mut merged = current;
                for o in &read.observations {
                    merged.apply(o);
                }
                merged.prune(self.now);
                let text = serde_json::to_string(&merged.to_value()).unwrap_or_default() + "\n";
                (Some(merged), Some(text))
            }
            // No shared ledger: a strike on /rate_limit itself must still hold this decision.
            None if read.secondary.is_some() => {
                let mut l = Ledger::new();
                for o in &read.observations {
                    l.apply(o);
                }
                (Some(l), None)
            }
            None => (None, None),
        };
        let rate = read.snapshot.clone().unwrap_or_default();
        let fresh = self.decision_input(options, rate, Some(&read), ledger);
        let mut finished = if self.resume {
            let mut input = self.preflight_input(fresh);
            input.approval_granted = options.approval_granted;
            self.finished_resume(preflight(&input), Some(&read))
        } else {
            let decision = decide(&fresh);
            Self::finished_gate(decision, Some(&read))
        };
        if let Some(retained) = self.retained(&finished) {
            match retained {
                Ok((id, receipt, handle)) => {
                    return self.retained_done(finished, id, receipt, &handle)
                }
                Err(e) => {
                    finished.status = "error";
                    finished.code = Some(e.code().to_string());
                    finished.error = Some((e.to_string(), "$".into()));
                    finished.exit = e.exit();
                    return self.done_kept(&finished);
                }
            }
        }
        if finished.status == "deferred" && self.action && !self.resume {
            if let Ok(Some((url, launch))) = self.coordinator() {
                return self.retain_step(&finished, url, launch, ledger_text.as_deref());
            }
        }
        self.done(&finished, ledger_text.as_deref())
    }

    fn exit_of(status: Status, code: Option<&str>) -> Exit {
        match status {
            Status::Ready => Exit::Ok,
            Status::Deferred => Exit::Deferred,
            Status::Blocked => Exit::Blocked,
            Status::Error if code.is_some_and(|c| INPUT_CODES.contains(&c)) => Exit::Invalid,
            Status::Error => Exit::Provider,
        }
    }

    fn status_text(status: Status) -> &'static str {
        match status {
            Status::Ready => "ready",
            Status::Deferred => "deferred",
            Status::Blocked => "blocked",
            Status::Error => "error",
        }
    }

    fn settle(diagnostics: &mut Vec<Diagnostic>, read: Option<&RateRead>) {
        if let Some(r) = read.filter(|r| r.snapshot.is_none()) {
            if let Some(retry_after) = r.secondary {
                let message = match retry_after {
                    None => {
                        "GET /rate_limit answered with a secondary rate limit and no retry-after"
                            .to_string()
                    }
                    Some(s) => format!(
                        "GET /rate_limit answered with a secondary rate limit; retry-after {s} s"
                    ),
                };
                diagnostics.insert(
                    0,
                    Diagnostic {
                        code: "rate-endpoint-secondary-limit".into(),
                        message,
                    },
                );
            }
        }
    }

    fn finished_gate(mut d: Decision, read: Option<&RateRead>) -> Finished {
        Self::settle(&mut d.diagnostics, read);
        Finished {
            mode: "gate",
            status: Self::status_text(d.status),
            code: d.code.clone(),
            error: None,
            receipt: d.receipt.clone(),
            ownership: None,
            field: None,
            diagnostics: d.diagnostics.clone(),
            exit: Self::exit_of(d.status, d.code.as_deref()),
            deferral_id: None,
            decision: Some(d),
        }
    }

    fn finished_resume(&self, p: crate::preflight::Preflight, read: Option<&RateRead>) -> Finished {
        let mut decision = p.decision;
        let mut diagnostics = p.diagnostics;
        if let Some(d) = decision.as_mut() {
            Self::settle(&mut d.diagnostics, read);
            // The preflight's own stop reasons first, then the decision's notes.
            diagnostics.retain(|x| !d.diagnostics.contains(x));
            diagnostics.extend(d.diagnostics.iter().cloned());
        }
        let mut error = None;
        if p.code.as_deref() == Some("invalid-receipt") {
            let message = diagnostics
                .first()
                .map(|x| x.message.clone())
                .unwrap_or_default();
            let path = validate(self.receipt_text().unwrap_or_default().as_bytes())
                .err()
                .map(|e| e.path)
                .unwrap_or_default();
            error = Some((message, path));
        }
        Finished {
            mode: "resume",
            status: Self::status_text(p.status),
            code: p.code.clone(),
            error,
            receipt: p.receipt,
            ownership: p.ownership,
            field: p.field,
            diagnostics,
            exit: Self::exit_of(p.status, p.code.as_deref()),
            deferral_id: None,
            decision,
        }
    }

    fn stopped(&self, code: &str, message: String, path: String, exit: Exit) -> Finished {
        Finished {
            mode: if self.resume { "resume" } else { "gate" },
            status: "error",
            code: Some(code.to_string()),
            diagnostics: vec![Diagnostic {
                code: code.to_string(),
                message: message.clone(),
            }],
            error: Some((message, path)),
            decision: None,
            receipt: None,
            ownership: None,
            field: None,
            exit,
            deferral_id: None,
        }
    }

    fn stop(&self, e: &AttemptError) -> String {
        self.done(
            &self.stopped(e.code(), e.to_string(), "$".into(), e.exit()),
            None,
        )
    }

    fn temp(&self) -> String {
        let dir = [self.env.get("RUNNER_TEMP"), self.v.get("tmpdir")]
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|d| !d.is_empty())
            .unwrap_or("/tmp");
        format!("{}/deferral", dir.trim_end_matches(['/', '\\']))
    }

    fn receipt_file(&self, r: &Receipt) -> (String, String) {
        (
            format!("{}/deferred-receipt-{}.json", self.temp(), r.issued_at_ms),
            r.to_json() + "\n",
        )
    }

    fn write(path: &str, text: &str, mode: u32, exclusive: bool) -> String {
        Obj::default()
            .str("path", Some(path))
            .str("text", Some(text))
            .num("mode", Some(u64::from(mode)))
            .bool("exclusive", Some(exclusive))
            .end()
    }

    /// The last step: what to print, set, write and exit with.
    fn done(&self, f: &Finished, ledger: Option<&str>) -> String {
        let mut writes = Vec::new();
        let mut receipt_path = String::new();
        if self.action && f.status == "deferred" {
            if let Some(r) = &f.receipt {
                let (path, text) = self.receipt_file(r);
                writes.push(Self::write(&path, &text, 0o644, false));
                receipt_path = path;
            }
        }
        self.render(f, ledger, writes, &receipt_path, "")
    }

    fn render(
        &self,
        f: &Finished,
        ledger: Option<&str>,
        mut writes: Vec<String>,
        receipt_path: &str,
        handle_path: &str,
    ) -> String {
        let mut out = Obj::default()
            .str("step", Some("done"))
            .num("exit", Some(u64::from(f.exit.code())))
            .str("status", Some(f.status));
        let (stdout, stderr, process_exit) = if self.action {
            let succeed = self
                .input("on-deferral")
                .is_some_and(|v| v.eq_ignore_ascii_case("succeed"));
            let failed = f.status != "ready" && !(f.status == "deferred" && succeed);
            let outputs = f.outputs(receipt_path, handle_path);
            let var = |name: &str| {
                self.env
                    .get(name)
                    .and_then(Value::as_str)
                    .filter(|p| !p.is_empty())
            };
            let mut stdout = String::new();
            match var("GITHUB_OUTPUT") {
                Some(path) => {
                    writes.push(Self::append(path, &runner::outputs_text(&outputs, true)))
                }
                // Outside a runner: what would have been set, for a person to read.
                None => stdout.push_str(&runner::outputs_text(&outputs, false)),
            }
            if let Some(path) = var("GITHUB_STEP_SUMMARY") {
                writes.push(Self::append(path, &format!("{}\n", f.summary())));
            }
            for command in f.commands(failed) {
                stdout.push_str(&command);
                stdout.push('\n');
            }
            let outputs = outputs
                .into_iter()
                .fold(Obj::default(), |o, (k, v)| o.str(k, Some(&v)))
                .end();
            out = out.bool("failed", Some(failed)).raw("outputs", &outputs);
            (stdout, String::new(), u8::from(failed))
        } else {
            let offset = self.v["utc_offset_min"].as_i64().unwrap_or(0);
            let show = self.input("quiet").is_none()
                && (self.input("verdict").is_some() || self.v["stderr_tty"] == true);
            let verdict = if show {
                f.verdict(offset)
            } else {
                String::new()
            };
            (f.line() + "\n", verdict, f.exit.code())
        };
        out.num("process_exit", Some(u64::from(process_exit)))
            .str("stdout", Some(&stdout))
            .str("stderr", Some(stderr.as_str()).filter(|s| !s.is_empty()))
            .str("ledger", ledger)
            .raw("writes", &format!("[{}]", writes.join(",")))
            .end()
    }

    /// A text appended to a file the runner names.
    fn append(path: &str, text: &str) -> String {
        Obj::default()
            .str("path", Some(path))
            .str("text", Some(text))
            .bool("append", Some(true))
            .end()
    }

    /// Deferred in the Action's gate mode with a durable port: keep the handoff receipt on
    /// disk, then hand it to the port (`POST /v1/deferrals` of `deferral-host serve`).
    fn retain_step(&self, f: &Finished, url: &str, launch: &str, ledger: Option<&str>) -> String {
        let r = f.receipt.as_ref().map(Receipt::to_json).unwrap_or_default();
        let writes: Vec<String> = f
            .receipt
            .iter()
            .map(|r| {
                let (path, text) = self.receipt_file(r);
                Self::write(&path, &text, 0o644, false)
            })
            .collect();
        let url = format!("{}/v1/deferrals", url.trim_end_matches('/'));
        let proxy = crate::proxy::proxy_for(&url, &self.env).ok().flatten();
        let body = Obj::default()
            .raw("receipt", &r)
            .str("launch", Some(launch))
            .end();
        let request = Obj::default()
            .str("url", Some(&url))
            .str("method", Some("POST"))
            .raw(
                "headers",
                "[[\"content-type\",\"application/json\"],[\"accept\",\"application/json\"]]",
            )
            .str("body", Some(&body))
            .str("token_env", Some("INPUT_COORDINATOR-TOKEN"))
            .str("proxy", proxy.as_deref())
            .num("timeout_ms", Some(crate::run::REQUEST_TIMEOUT_MS))
            .num("max_bytes", Some(crate::run::MAX_ANSWER_BYTES))
            .str("into", Some("port_answer"))
            .str("error_into", Some("coordinator_error"))
            .end();
        Obj::default()
            .str("step", Some("retain"))
            .raw("request", &request)
            // The port's answer is read against the clock of the decision it follows.
            .bool("same_clock", Some(true))
            // The ledger was read for this crossing: write it now (the next repeats the decision).
            .str("ledger", ledger)
            .raw("writes", &format!("[{}]", writes.join(",")))
            .end()
    }

    /// The port's answer: its JSON body on a 2xx, else why it refused, as `coordinator-failed`.
    fn port_answer(&self) -> Option<Result<Value, AttemptError>> {
        if let Some(message) = self.v["coordinator_error"].as_str() {
            return Some(Err(AttemptError::CoordinatorFailed {
                detail: format!("port-unreachable: {message}"),
            }));
        }
        let answer = self.v.get("port_answer")?;
        let status = answer["status"].as_u64().unwrap_or(0);
        let body: Value = answer["body"]
            .as_str()
            .and_then(|b| serde_json::from_str(b).ok())
            .unwrap_or(Value::Null);
        if (200..300).contains(&status) && body.is_object() {
            return Some(Ok(body));
        }
        let error = &body["error"];
        let detail = match (error["code"].as_str(), error["message"].as_str()) {
            (Some(code), message) => {
                format!("HTTP {status} {code}: {}", message.unwrap_or(code))
            }
            _ => format!("HTTP {status} without a JSON error"),
        };
        Some(Err(AttemptError::CoordinatorFailed { detail }))
    }

    /// The port's answer, checked: `None` when there is none to check.
    fn retained(&self, f: &Finished) -> Option<Result<(String, Receipt, String), AttemptError>> {
        let answer = match self.port_answer()? {
            Ok(a) => a,
            Err(e) => return Some(Err(e)),
        };
        let answer = answer.as_object()?;
        let handoff = f.receipt.as_ref()?;
        // The one check of a port's answer, shared with the library's serve-backed port.
        Some(
            crate::port_answer::check_retained(answer, handoff)
                .map_err(|detail| AttemptError::InvalidCoordinatorAnswer { detail }),
        )
    }

    fn retained_done(&self, mut f: Finished, id: String, receipt: Receipt, handle: &str) -> String {
        let (path, text) = self.receipt_file(&receipt);
        let handle_path = format!("{}/cancellation-handle-{id}", self.temp());
        let writes = vec![
            Self::write(&path, &text, 0o644, false),
            // Exclusive: never follow or reuse a file someone put there first.
            Self::write(&handle_path, &format!("{handle}\n"), 0o600, true),
        ];
        f.receipt = Some(receipt);
        f.deferral_id = Some(id);
        self.render(&f, None, writes, &path, &handle_path)
    }

    /// A port failure after the handoff receipt was kept: status error, receipt outputs kept.
    fn done_kept(&self, f: &Finished) -> String {
        let receipt_path = f
            .receipt
            .as_ref()
            .map(|r| self.receipt_file(r).0)
            .unwrap_or_default();
        let mut kept = f.clone();
        kept.diagnostics = vec![Diagnostic {
            code: f.code.clone().unwrap_or_default(),
            message: f.error.as_ref().map(|e| e.0.clone()).unwrap_or_default(),
        }];
        kept.decision = None;
        self.render(&kept, None, Vec::new(), &receipt_path, "")
    }
}
