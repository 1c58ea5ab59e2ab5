//! One attempt of a command, owned by the core: the shell reads inputs and files, makes the one
//! request, and writes what it is told; everything else happens here, in as few crossings as
//! the attempt needs.
//!
//! [`crate::run`] starts it with an [`AttemptInput`]: the crossing the shell sent
//! ([`crate::crossing::Crossing`]: the environment, the clock, the files read so far, the answer
//! to `GET /rate_limit` or its transport failure, a durable port's answers), the command, the
//! inputs by name as given (text), and where the token is.
//!
//! Each answer is a [`Step`]: `read` (files to read, by input name) and/or a `request` (the one
//! `GET /rate_limit` to make; the shell adds its token), `fetch` (that request alone), a `lock`
//! (hold the ledger file's lock and pass its text, or null, as file `ledger` in the next
//! crossing; write back the `ledger` text an answer carries), `admit` (ask the durable port to
//! admit the plan in its pool before the work proceeds), `retain` (hand the receipt to the
//! durable port), or `done`: the exit code, the CLI's line and verdict or the Action's outputs,
//! summary and workflow commands, the ledger text to write, and files to write. A gate run
//! crosses twice (what to read and ask; the decision), once more for each request to the durable
//! port; a resume that needs fresh rate state three times, because checks that need none come
//! first and cost no request.

mod error;
mod inputs;
pub mod limits;
pub mod markdown;
mod order_inputs;
mod port;
mod preflight_words;
mod resume_pool;
pub mod view;

pub use error::AttemptError;
pub use inputs::{
    default_scope, parse_duration, RawInputs, DEFAULT_FRESH_APPROVAL, DEFAULT_ON_DEFERRAL, INPUTS,
};

use crate::crossing::{Crossing, Surface};
use crate::runner;
use crate::step::{Done, Lock, Outputs, Request, Step, Write};
use deferral_core::decision::{decide, Code, Decision, DecisionInput, Diagnostic, Status};
use deferral_core::exit::Exit;
use deferral_core::ledger::Ledger;
use deferral_core::observe::answer_of;
use deferral_core::preflight::{preflight, PreflightInput};
use deferral_core::rate_state::{read_file, read_response, RateRead, Source};
use deferral_core::receipt::{validate, Receipt};
use deferral_core::signals::RateSnapshot;
use inputs::Options;
use serde_json::{Map, Value};
use view::{Finished, Mode};

/// The API version header GitHub documents for the REST API.
pub const API_VERSION: &str = "2022-11-28";

/// A gate or resume as the CLI or the Action starts it: the crossing, the command, the inputs
/// by name (Action inputs or CLI flags), whether the token is there and where, the files read.
pub struct AttemptInput<'a> {
    pub crossing: &'a Crossing,
    pub resume: bool,
    pub inputs: Map<String, Value>,
    pub token: bool,
    pub token_env: &'static str,
    pub files: Map<String, Value>,
}

struct Attempt<'a> {
    v: &'a Crossing,
    resume: bool,
    action: bool,
    raw: RawInputs,
    env: &'a Map<String, Value>,
    files: &'a Map<String, Value>,
    now: u64,
    token: bool,
    token_env: &'static str,
    shell_error: Option<AttemptError>,
}

/// Runs one crossing of an attempt; `shell_error` is a failure of the shell's own I/O (a file
/// unreadable or too large, the ledger lock), rendered like any other stop.
pub fn run_attempt(input: &AttemptInput<'_>, shell_error: Option<AttemptError>) -> Step {
    let v = input.crossing;
    let a = Attempt {
        v,
        resume: input.resume,
        action: v.surface == Surface::Action,
        raw: RawInputs::new(Some(&input.inputs)),
        env: &v.env,
        files: &input.files,
        now: v.now_ms,
        token: input.token,
        token_env: input.token_env,
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
        self.v.answer.as_ref().is_some_and(Value::is_object)
            || self.v.transport_error.is_some()
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
    fn request(&self) -> Result<Request, AttemptError> {
        let base = self
            .input("api-url")
            .or_else(|| self.env.get("GITHUB_API_URL").and_then(Value::as_str))
            .filter(|b| !b.is_empty())
            .unwrap_or("https://api.github.com")
            .trim_end_matches('/');
        let url = format!("{base}/rate_limit");
        let proxy = crate::proxy::proxy_for(&url, self.env)
            .map_err(|detail| AttemptError::InvalidProxy { detail })?;
        Ok(Request {
            url,
            method: None,
            headers: &[
                ["accept", "application/vnd.github+json"],
                ["user-agent", "deferral"],
                ["x-github-api-version", API_VERSION],
            ],
            body: None,
            token_env: Some(self.token_env.to_string()),
            proxy,
            timeout_ms: limits::REQUEST_TIMEOUT_MS,
            max_bytes: limits::MAX_ANSWER_BYTES,
            into: None,
            error_into: None,
        })
    }

    /// `DEFERRAL_REPORT_FILE`: where deferral-host reads a launched process's gate or resume
    /// line (appended, one a line; the host takes the last). Empty: none.
    fn report_path(&self) -> Option<&str> {
        self.env
            .get("DEFERRAL_REPORT_FILE")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
    }

    fn ledger_path(&self) -> Option<&str> {
        self.input("ledger-file")
    }

    fn step(&self) -> Step {
        // A failure of the shell's own I/O: rendered here, so every surface shows it alike.
        if let Some(e) = &self.shell_error {
            return self.stop(e);
        }
        // Inputs are checked before anything is read or requested; a pending plan file is
        // stood in for by an empty plan until it is read.
        let pending_plan = self.raw.plan_path().is_some() && self.file("plan").is_none();
        let options = inputs::parse(
            &self.raw,
            self.env,
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
            let read = read
                .iter()
                .map(|(name, path)| limits::read_entry(name, path))
                .collect();
            let mut request = None;
            if !self.resume && live {
                if !self.token() {
                    return self.stop(&AttemptError::MissingToken);
                }
                match self.request() {
                    Ok(r) => request = Some(r),
                    Err(e) => return self.stop(&e),
                }
            }
            let lock = if !self.resume || !live {
                self.lock()
            } else {
                None
            };
            return Step::Read {
                read,
                request,
                lock,
                stdout: String::new(),
            };
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
            return Step::Fetch {
                request,
                lock: self.lock(),
                stdout: String::new(),
            };
        }
        self.decide_from_rate_state(&options)
    }

    fn token(&self) -> bool {
        self.token
    }

    /// The ledger's lock, when there is a shared ledger.
    fn lock(&self) -> Option<Lock> {
        self.ledger_path().map(limits::lock)
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
    fn offline_stop(&self, options: &Options) -> Option<Step> {
        let fresh = self.decision_input(options, RateSnapshot::default(), None, None);
        let mut input = self.preflight_input(fresh);
        input.approval_granted = options.approval_granted;
        let p = preflight(&input);
        let code = p.code.as_deref()?;
        if p.status == Status::Ready
            || p.status == Status::Deferred
            || !Code::parse(code).is_some_and(Code::is_offline_stop)
        {
            return None;
        }
        Some(self.done(&self.finished_resume(p, None), None))
    }

    /// With the rate state read (a saved file or GitHub's answer): merges it into the ledger
    /// and decides (the gate's decision, or the resume's preflight), through the pool's port
    /// when there is one.
    fn decide_from_rate_state(&self, options: &Options) -> Step {
        let read = if let Some(error) = &self.v.transport_error {
            Err(AttemptError::Transport {
                detail: error.clone(),
            })
        } else {
            Ok(())
        };
        if let Err(e) = read {
            return self.stop(&e);
        }
        let read = match self.file("rate-state") {
            Some(text) => read_file(text.as_bytes(), self.now),
            None => match answer_of(self.v.answer.as_ref().unwrap_or(&Value::Null)) {
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
        if self.resume {
            let mut input = self.preflight_input(fresh);
            input.approval_granted = options.approval_granted;
            let finished = self.finished_resume(preflight(&input), Some(&read));
            return match self.coordinator() {
                Ok(Some(port)) => {
                    self.resume_through_pool(&port, finished, &input, &read, ledger_text)
                }
                _ => self.done(&finished, ledger_text.as_deref()),
            };
        }
        let finished = Self::finished_gate(decide(&fresh), Some(&read));
        match self.coordinator() {
            Ok(Some(port)) => self.through_port(&port, finished, &fresh, &read, ledger_text),
            _ => self.done(&finished, ledger_text.as_deref()),
        }
    }

    fn exit_of(status: Status, code: Option<&str>) -> Exit {
        match status {
            Status::Ready => Exit::Ok,
            Status::Deferred => Exit::Deferred,
            Status::Blocked => Exit::Blocked,
            Status::Error if code.and_then(Code::parse).is_some_and(Code::is_input) => {
                Exit::Invalid
            }
            Status::Error => Exit::Provider,
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
            mode: Mode::Gate,
            status: d.status,
            code: d.code.clone(),
            error: None,
            receipt: d.receipt.clone(),
            ownership: None,
            field: None,
            diagnostics: d.diagnostics.clone(),
            exit: Self::exit_of(d.status, d.code.as_deref()),
            deferral_id: None,
            handle_path: None,
            pool: None,
            admission: None,
            pool_reason: None,
            commit: None,
            decision: Some(d),
        }
    }

    fn finished_resume(
        &self,
        p: deferral_core::preflight::Preflight,
        read: Option<&RateRead>,
    ) -> Finished {
        let mut diagnostics = preflight_words::worded(&p);
        let mut decision = p.decision;
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
            mode: Mode::Resume,
            status: p.status,
            code: p.code.clone(),
            error,
            receipt: p.receipt,
            ownership: p.ownership,
            field: p.field,
            diagnostics,
            exit: Self::exit_of(p.status, p.code.as_deref()),
            deferral_id: None,
            handle_path: None,
            pool: None,
            admission: None,
            pool_reason: None,
            commit: None,
            decision,
        }
    }

    fn stopped(&self, code: &str, message: String, path: String, exit: Exit) -> Finished {
        Finished {
            mode: if self.resume {
                Mode::Resume
            } else {
                Mode::Gate
            },
            status: Status::Error,
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
            handle_path: None,
            pool: None,
            admission: None,
            pool_reason: None,
            commit: None,
        }
    }

    fn stop(&self, e: &AttemptError) -> Step {
        self.done(
            &self.stopped(e.code(), e.to_string(), "$".into(), e.exit()),
            None,
        )
    }

    /// The gate's own folder for the receipt and the cancellation handle: `RUNNER_TEMP/deferral`
    /// on a runner (a folder of the job's own), else `TMPDIR/deferral-UID`, one per user, since
    /// `TMPDIR` is often shared (`/tmp`). The shell makes it `0700` and refuses it unless it is
    /// this user's and no one else may write it.
    pub(crate) fn temp(&self) -> String {
        let runner = self
            .env
            .get("RUNNER_TEMP")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty());
        if let Some(dir) = runner {
            return format!("{}/deferral", dir.trim_end_matches(['/', '\\']));
        }
        let dir = self
            .v
            .tmpdir
            .as_deref()
            .filter(|d| !d.is_empty())
            .unwrap_or("/tmp");
        let dir = dir.trim_end_matches(['/', '\\']);
        match self.v.uid {
            Some(uid) => format!("{dir}/deferral-{uid}"),
            None => format!("{dir}/deferral"),
        }
    }

    fn receipt_file(&self, r: &Receipt) -> (String, String) {
        (
            format!("{}/deferred-receipt-{}.json", self.temp(), r.issued_at_ms),
            r.to_json() + "\n",
        )
    }

    /// The last step: what to print, set, write and exit with.
    fn done(&self, f: &Finished, ledger: Option<&str>) -> Step {
        let mut writes = Vec::new();
        let mut receipt_path = String::new();
        if self.action && f.status == Status::Deferred {
            if let Some(r) = &f.receipt {
                let (path, text) = self.receipt_file(r);
                writes.push(Write::private_file(&path, &text, 0o644, false));
                receipt_path = path;
            }
        }
        self.render(f, ledger, writes, &receipt_path, "")
    }

    fn render(
        &self,
        f: &Finished,
        ledger: Option<&str>,
        mut writes: Vec<Write>,
        receipt_path: &str,
        handle_path: &str,
    ) -> Step {
        let mut out = Done {
            exit: f.exit.code(),
            status: Some(f.status.as_str()),
            ..Done::default()
        };
        let (stdout, stderr, process_exit) = if self.action {
            let succeed = self
                .input("on-deferral")
                .is_some_and(|v| v.eq_ignore_ascii_case("succeed"));
            let failed = f.status != Status::Ready && !(f.status == Status::Deferred && succeed);
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
                    writes.push(Write::append(path, &runner::outputs_text(&outputs, true)))
                }
                // Outside a runner: what would have been set, for a person to read.
                None => stdout.push_str(&runner::outputs_text(&outputs, false)),
            }
            if let Some(path) = var("GITHUB_STEP_SUMMARY") {
                writes.push(Write::append(path, &format!("{}\n", f.summary())));
            }
            for command in f.commands(failed) {
                stdout.push_str(&command);
                stdout.push('\n');
            }
            out.failed = Some(failed);
            out.outputs = Some(Outputs(outputs));
            (stdout, String::new(), u8::from(failed))
        } else {
            let offset = self.v.utc_offset_min;
            let show = self.input("quiet").is_none()
                && (self.input("verdict").is_some() || self.v.stderr_tty);
            let verdict = if show {
                f.verdict(offset)
            } else {
                String::new()
            };
            let line = f.line();
            // Launched by deferral-host: the whole line also goes to its report file, where a
            // work script's own output cannot hide it (see report_path).
            if let Some(path) = self.report_path() {
                writes.push(Write::report(path, &line));
            }
            (line + "\n", verdict, f.exit.code())
        };
        Step::Done(Done {
            process_exit,
            stdout,
            stderr,
            ledger: ledger.map(str::to_string),
            writes,
            ..out
        })
    }
}
