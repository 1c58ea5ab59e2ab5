//! A gate with a durable port (`coordinator-url`, `deferral-host serve`): on deferral the
//! receipt is handed to the port to be retained (`POST /v1/deferrals`); with a pool
//! (`coordinator-pool`) a gate whose decision is to proceed first asks the port to admit the
//! plan's cost there (`POST /v1/admissions`). Admitted, it proceeds. Refused, the pool's window
//! is folded into the rate state and the same decision runs again, which now defers, and the
//! receipt is retained with the pool beside it. Anything else (the port unreachable, an error,
//! an answer that cannot be used, a refusal the decision does not agree with) stops the gate
//! with `coordinator-failed`: with a pool, no work runs without an admission.
//!
//! Each request is one step the shell makes and answers into the next crossing
//! (`admission_answer` or `admission_error`, `port_answer` or `coordinator_error`), read against
//! the clock of the decision it follows, so every crossing repeats the same decision.

use super::order_inputs::Order;
use super::view::{CommitLink, Finished};
use super::{Attempt, AttemptError};
use crate::crossing::PortReply;
use crate::port_answer::{check_admission, check_retained};
use crate::step::{PortStep, Request, Step, Write};
use deferral_core::decision::{decide, Decision, DecisionInput, Diagnostic, Status};
use deferral_core::pool;
use deferral_core::rate_state::RateRead;
use deferral_core::receipt::Receipt;
use deferral_protocol::{
    AdmissionAnswer, Commit, Cost, PoolName, RateState, RecordRequest, MAX_CONTEXT,
};
use serde_json::Value;

/// Where the CLI reads the port's bearer token (never a flag: it would show in `ps`).
pub const CLI_TOKEN_ENV: &str = "DEFERRAL_COORDINATOR_TOKEN";
/// Where the Action's shell finds the `coordinator-token` input.
const ACTION_TOKEN_ENV: &str = "INPUT_COORDINATOR-TOKEN";

/// The durable port's settings, checked.
pub(super) struct Port<'a> {
    url: &'a str,
    launch: &'a str,
    pub(super) pool: Option<&'a str>,
    /// Its place in the pool (`coordinator-priority`, `coordinator-fairness-key`).
    order: Order,
    /// The commit whose status the host keeps for the deferral (`coordinator-commit`).
    /// The commit a deferral belongs to, beside the receipt (never in it): the host keeps one
    /// commit status for the deferral there, context `deferral/JOB`.
    commit: Option<Commit>,
    token_env: &'static str,
}

/// What the port is told about the work beside a receipt or an admission request: the pool,
/// the plan's cost and the rate state the gate read (before any pool's window was folded in).
pub(super) struct Told<'a> {
    pub(super) pool: &'a str,
    pub(super) cost: Cost,
    pub(super) rate: RateState,
}

impl Attempt<'_> {
    /// The durable port's settings (gate mode): checked before any request.
    pub(super) fn coordinator(&self) -> Result<Option<Port<'_>>, AttemptError> {
        let pool = self.input("coordinator-pool");
        if pool.is_some_and(|p| !PoolName::is_valid(p)) {
            return Err(AttemptError::InvalidCoordinatorPool);
        }
        let order = self.pool_order()?;
        let commit = self.commit()?;
        let Some(url) = self.input("coordinator-url") else {
            let given = pool
                .map(|_| "coordinator-pool")
                .or(order.first_given())
                .or(commit.as_ref().map(|_| "coordinator-commit"));
            return match given {
                Some(input) => Err(AttemptError::MissingCoordinatorUrl { input }),
                None => Ok(None),
            };
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() < 9 {
            return Err(AttemptError::InvalidCoordinatorUrl);
        }
        let (token, token_env, from) = if self.action {
            let given = self.input("coordinator-token").is_some();
            (given, ACTION_TOKEN_ENV, "coordinator-token")
        } else {
            let given = self
                .env
                .get(CLI_TOKEN_ENV)
                .and_then(Value::as_str)
                .is_some_and(|t| !t.trim().is_empty());
            (
                given,
                CLI_TOKEN_ENV,
                "the DEFERRAL_COORDINATOR_TOKEN variable",
            )
        };
        if !token {
            return Err(AttemptError::MissingCoordinatorToken { from });
        }
        let launch = self
            .input("coordinator-launch")
            .ok_or(AttemptError::MissingCoordinatorLaunch)?;
        Ok(Some(Port {
            url,
            launch,
            pool,
            order,
            commit,
            token_env,
        }))
    }

    /// The page of the commit a retained deferral's status is kept on: `GITHUB_SERVER_URL`
    /// (when it is a plain http(s) URL; else github.com), the repository, the SHA.
    fn commit_link(&self) -> Option<CommitLink> {
        let commit = self.commit().ok().flatten()?;
        let server = self
            .env
            .get("GITHUB_SERVER_URL")
            .and_then(Value::as_str)
            .map(|s| s.trim().trim_end_matches('/'))
            .filter(|s| {
                (s.starts_with("https://") || s.starts_with("http://"))
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b":/.-_".contains(&b))
            })
            .unwrap_or("https://github.com");
        Some(CommitLink {
            url: format!("{server}/{}/commit/{}", commit.repo, commit.sha),
            context: commit.context,
            sha: commit.sha,
        })
    }

    /// `coordinator-commit`: a full SHA of the repository `GITHUB_REPOSITORY` names; the
    /// status's context is `deferral/` and the job's id (`GITHUB_JOB`).
    fn commit(&self) -> Result<Option<Commit>, AttemptError> {
        let Some(sha) = self.input("coordinator-commit") else {
            return Ok(None);
        };
        let var = |name: &str| {
            self.env
                .get(name)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|v| !v.is_empty())
        };
        let repo = var("GITHUB_REPOSITORY").filter(|r| Commit::repo_ok(r));
        let (Some(repo), true) = (repo, Commit::sha_ok(sha)) else {
            return Err(AttemptError::InvalidCoordinatorCommit);
        };
        let job = var("GITHUB_JOB").unwrap_or("job");
        let context: String = format!("deferral/{job}")
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_CONTEXT)
            .collect();
        Ok(Some(Commit {
            repo: repo.to_string(),
            sha: sha.to_ascii_lowercase(),
            context,
        }))
    }

    /// A gate's decision with a port: admitted, deferred and retained, or stopped.
    pub(super) fn through_port(
        &self,
        port: &Port<'_>,
        mut finished: Finished,
        fresh: &DecisionInput,
        read: &RateRead,
        ledger: Option<String>,
    ) -> Step {
        let told = port
            .pool
            .zip(finished.decision.as_ref())
            .map(|(name, d)| Told {
                pool: name,
                cost: pool::cost_of(d.plan.as_ref()),
                rate: pool::rate_of(d, self.now),
            });
        // Past the first request to the port, the ledger was written (under its lock) already.
        let asked = self.v.admission_answer.is_some() || self.v.admission_error.is_some();
        let ledger = ledger.filter(|_| !asked);
        finished.pool = told.as_ref().map(|t| t.pool.to_string());
        if let (Some(told), Status::Ready) = (&told, finished.status) {
            let d = finished.decision.clone().unwrap_or_else(|| decide(fresh));
            match self.admission(told.pool) {
                None => return self.admit_step(port, told, &d, ledger.as_deref()),
                Some(Err(e)) => return self.refused_work(finished, &e),
                Some(Ok(AdmissionAnswer::Admitted { admission: id, .. })) => {
                    finished.admission = Some(id);
                    return self.done(&finished, None);
                }
                Some(Ok(AdmissionAnswer::Refused { reason, window, .. })) => {
                    let mut again = fresh.clone();
                    pool::fold(&mut again.rate, &window, d.clock_offset_ms, self.now);
                    let decision = decide(&again);
                    if decision.status == Status::Ready {
                        let e = AttemptError::AdmissionFailed {
                            pool: told.pool.to_string(),
                            detail: "it refused, yet its window leaves room for the plan above the reserves: the host and the gate disagree".into(),
                        };
                        return self.refused_work(finished, &e);
                    }
                    finished = Self::finished_gate(decision, Some(read));
                    finished.pool = Some(told.pool.to_string());
                    finished.pool_reason = Some(reason);
                }
            }
        }
        if finished.status != Status::Deferred {
            return self.done(&finished, ledger.as_deref());
        }
        match self.retained(&finished) {
            None => self.retain_step(&finished, port, told.as_ref(), ledger.as_deref()),
            Some(Ok((id, receipt, handle))) => self.retained_done(finished, id, receipt, &handle),
            Some(Err(e)) => {
                finished.status = Status::Error;
                finished.code = Some(e.code().to_string());
                finished.error = Some((e.to_string(), "$".into()));
                finished.exit = e.exit();
                self.done_kept(&finished)
            }
        }
    }

    /// One request to the port: the shell adds the bearer token from `token_env` and puts the
    /// answer under `into` (or its transport failure under `error_into`).
    fn port_request(
        &self,
        port: &Port<'_>,
        path: &str,
        body: String,
        into: &'static str,
        error_into: &'static str,
    ) -> Request {
        let url = format!("{}{path}", port.url.trim_end_matches('/'));
        let proxy = crate::proxy::proxy_for(&url, self.env).ok().flatten();
        Request {
            url,
            method: Some("POST"),
            headers: &[
                ["content-type", "application/json"],
                ["accept", "application/json"],
            ],
            body: Some(body),
            token_env: Some(port.token_env.to_string()),
            proxy,
            timeout_ms: super::limits::REQUEST_TIMEOUT_MS,
            max_bytes: super::limits::MAX_ANSWER_BYTES,
            into: Some(into),
            error_into: Some(error_into),
        }
    }

    /// Ready with a pool: ask the port to admit the plan's cost there first.
    pub(super) fn admit_step(
        &self,
        port: &Port<'_>,
        told: &Told<'_>,
        d: &Decision,
        ledger: Option<&str>,
    ) -> Step {
        let body = serde_json::to_string(&pool::admission_request(told.pool, d, self.now))
            .unwrap_or_default();
        let request = self.port_request(
            port,
            "/v1/admissions",
            body,
            "admission_answer",
            "admission_error",
        );
        Step::Admit(PortStep {
            request,
            same_clock: true,
            // The ledger was read for this crossing: write it now (the next repeats the decision).
            ledger: ledger.map(str::to_string),
            writes: Vec::new(),
            folders: Vec::new(),
            stdout: String::new(),
        })
    }

    /// Deferred with a durable port: keep the handoff receipt on disk (the Action), then hand it
    /// to the port (`POST /v1/deferrals`), with the pool, cost and rate state when there is a pool.
    fn retain_step(
        &self,
        f: &Finished,
        port: &Port<'_>,
        told: Option<&Told<'_>>,
        ledger: Option<&str>,
    ) -> Step {
        let r = f
            .receipt
            .as_ref()
            .map_or_else(|| "null".to_string(), Receipt::to_json);
        let writes = f
            .receipt
            .iter()
            .filter(|_| self.action)
            .map(|r| {
                let (path, text) = self.receipt_file(r);
                Write::private_file(&path, &text, 0o644, false)
            })
            .collect();
        let mut body = RecordRequest::new(&r, port.launch);
        if let Some(told) = told {
            body.pool = PoolName::parse(told.pool).ok();
            body.cost = Some(told.cost);
            body.rate = Some(told.rate);
        }
        body.priority = port.order.priority;
        body.fairness_key = port.order.fairness_key.clone();
        body.commit = port.commit.clone();
        let request = self.port_request(
            port,
            "/v1/deferrals",
            serde_json::to_string(&body).unwrap_or_default(),
            "port_answer",
            "coordinator_error",
        );
        Step::Retain(PortStep {
            request,
            // The port's answer is read against the clock of the decision it follows.
            same_clock: true,
            ledger: ledger.map(str::to_string),
            writes,
            // The folder the handle goes to, ready and private before the port keeps anything.
            folders: vec![self.temp()],
            stdout: String::new(),
        })
    }

    /// A port's reply (or why there was none): its JSON body on a 2xx, else why not, in words.
    fn reply(answer: Option<&PortReply>, error: Option<&String>) -> Option<Result<Value, String>> {
        if let Some(message) = error {
            return Some(Err(format!("port-unreachable: {message}")));
        }
        let answer = answer?;
        let status = answer.status;
        let body: Value = answer
            .body
            .as_deref()
            .and_then(|b| serde_json::from_str(b).ok())
            .unwrap_or(Value::Null);
        if (200..300).contains(&status) && body.is_object() {
            return Some(Ok(body));
        }
        let error = &body["error"];
        Some(Err(
            match (error["code"].as_str(), error["message"].as_str()) {
                (Some(code), message) => {
                    format!("HTTP {status} {code}: {}", message.unwrap_or(code))
                }
                _ => format!("HTTP {status} without a JSON error"),
            },
        ))
    }

    /// The port's answer to the admission request, checked: `None` before it was asked.
    pub(super) fn admission(&self, name: &str) -> Option<Result<AdmissionAnswer, AttemptError>> {
        let failed = |detail: String| AttemptError::AdmissionFailed {
            pool: name.to_string(),
            detail,
        };
        Some(
            match Self::reply(
                self.v.admission_answer.as_ref(),
                self.v.admission_error.as_ref(),
            )? {
                Err(detail) => Err(failed(detail)),
                Ok(answer) => check_admission(answer.as_object()?, name)
                    .map_err(|u| failed(format!("the port answered {u}"))),
            },
        )
    }

    /// The port's answer to the retain request, checked: `None` when there is none to check.
    fn retained(&self, f: &Finished) -> Option<Result<(String, Receipt, String), AttemptError>> {
        let answer = match Self::reply(
            self.v.port_answer.as_ref(),
            self.v.coordinator_error.as_ref(),
        )? {
            Ok(a) => a,
            Err(detail) => return Some(Err(AttemptError::CoordinatorFailed { detail })),
        };
        let answer = answer.as_object()?;
        let handoff = f.receipt.as_ref()?;
        // The one check of a port's answer, shared with the library's serve-backed port.
        Some(
            check_retained(answer, handoff)
                .map_err(|detail| AttemptError::InvalidCoordinatorAnswer { detail }),
        )
    }

    fn retained_done(&self, mut f: Finished, id: String, receipt: Receipt, handle: &str) -> Step {
        let (path, text) = self.receipt_file(&receipt);
        let handle_path = format!("{}/cancellation-handle-{id}", self.temp());
        let mut writes = Vec::new();
        if self.action {
            writes.push(Write::private_file(&path, &text, 0o644, false));
        }
        // Exclusive: never follow or reuse a file someone put there first.
        writes.push(Write::private_file(
            &handle_path,
            &format!("{handle}\n"),
            0o600,
            true,
        ));
        f.receipt = Some(receipt);
        f.deferral_id = Some(id);
        f.commit = self.commit_link();
        f.handle_path = Some(handle_path.clone());
        let receipt_path = if self.action { path } else { String::new() };
        self.render(&f, None, writes, &receipt_path, &handle_path)
    }

    /// A port failure after the handoff receipt was kept: status error, receipt outputs kept.
    fn done_kept(&self, f: &Finished) -> Step {
        let receipt_path = f
            .receipt
            .as_ref()
            .filter(|_| self.action)
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

    /// Ready, but not admitted: the work must not run. The figures the gate read stay shown.
    pub(super) fn refused_work(&self, mut f: Finished, e: &AttemptError) -> Step {
        f.status = Status::Error;
        f.code = Some(e.code().to_string());
        f.error = Some((e.to_string(), "$".into()));
        f.exit = e.exit();
        f.diagnostics.push(Diagnostic {
            code: e.code().to_string(),
            message: e.to_string(),
        });
        self.done(&f, None)
    }
}
