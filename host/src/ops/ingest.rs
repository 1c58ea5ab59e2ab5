//! `deferral-host watch OWNER/REPO --launch TARGET`: one pass for cron that ingests the
//! `deferred-receipt` artifacts of the runs the operator trusts, each once.
//!
//! One list call (`GET /repos/{o}/{r}/actions/artifacts?name=NAME&per_page=100`, with its
//! ETag), then for each artifact that is not expired, not ingested yet and not from a run this
//! host dispatched itself (those are followed by `tick`): the run's origin judged by
//! [`crate::github::trust`], one download (the 302 to blob storage is followed without the token), the
//! core's validation, and a record as a retained deferral with the given launch target. The
//! artifact id and the receipt digest are unique in the store, so a second pass, or a receipt
//! recorded by hand as well, ingests nothing twice.
//!
//! The judging costs, at most, per pass and only when an artifact needs it, all with ETags:
//! the repository (`GET /repos/{o}/{r}`, for its default branch, when no `--branch` is given),
//! the newest runs (`GET /repos/{o}/{r}/actions/runs?per_page=100`), and one run
//! (`GET /repos/{o}/{r}/actions/runs/{id}`) for each artifact whose run is older than those.

use crate::github::api::{self, ApiError};
use crate::github::api::{ArtifactInfo, RunOrigin};
use crate::github::artifact::{check_digest, receipt_text};
use crate::github::client::GithubClient;
use crate::github::trust::{Skip, Trust};
use crate::github::DEFAULT_ARTIFACT;
use crate::lifecycle::insert::{insert_once, Insertion};
use crate::store::{ArtifactRef, RecordKeys, Store};
use deferral_protocol::answers::Ingested;
use serde_json::{json, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// `owner/name`.
    pub repo: String,
    pub launch: String,
    pub artifact_name: String,
    pub max_reentries: u32,
    /// The pool its deferrals wait in (`None`: the store's default pool).
    pub pool: Option<String>,
    /// The workflows, branches and events whose runs are trusted.
    pub trust: Trust,
    /// Keep a commit status (or a check run) per ingested deferral on its run's commit
    /// (`ops::commit_status`).
    pub commit_status: Option<crate::store::Face>,
}

/// What GitHub said of runs in this pass, asked for only when an artifact needs it.
struct Origins<'a> {
    client: &'a GithubClient,
    store: &'a dyn Store,
    options: &'a WatchOptions,
    now_ms: &'a dyn Fn() -> u64,
    branches: Option<Result<Vec<String>, ApiError>>,
    listed: Option<Result<BTreeMap<u64, RunOrigin>, ApiError>>,
}

impl Origins<'_> {
    /// The branches trusted: those named, else the repository's default branch (one call).
    fn branches(&mut self) -> Result<Vec<String>, ApiError> {
        if self.branches.is_none() {
            let trust = &self.options.trust;
            self.branches = Some(if trust.branches.is_empty() {
                api::repository(self.client, self.store, &self.options.repo, (self.now_ms)())
                    .map(|r| trust.branches_or(&r.default_branch))
            } else {
                Ok(trust.branches.clone())
            });
        }
        self.branches.clone().unwrap_or_else(|| Ok(Vec::new()))
    }

    /// The run's origin: from the list of the newest runs, else asked for alone.
    fn run(&mut self, run_id: u64) -> Result<RunOrigin, ApiError> {
        if self.listed.is_none() {
            let (client, store, repo) = (self.client, self.store, &self.options.repo);
            self.listed = Some(
                api::repo_run_origins(client, store, repo, (self.now_ms)())
                    .map(|runs| runs.into_iter().map(|r| (r.id, r)).collect()),
            );
        }
        if let Some(Ok(listed)) = &self.listed {
            if let Some(run) = listed.get(&run_id) {
                return Ok(run.clone());
            }
        }
        api::run_origin(
            self.client,
            self.store,
            &self.options.repo,
            run_id,
            (self.now_ms)(),
        )
    }

    /// `Ok(None)` when the artifact's run is trusted, `Ok(Some(skip))` when it is not.
    fn judge(&mut self, artifact: &ArtifactInfo) -> Result<Option<Skip>, ApiError> {
        let trust = &self.options.trust;
        let Some(run_id) = artifact.run_id else {
            return Ok(Some(Skip {
                reason: "run-unknown",
                seen: json!({"message": "the artifact names no workflow run"}),
            }));
        };
        if let Some(skip) = trust.artifact_fork(artifact) {
            return Ok(Some(skip));
        }
        let branches = self.branches()?;
        if let Some(skip) = trust.artifact_branch(artifact, &branches) {
            return Ok(Some(skip));
        }
        let run = match self.run(run_id) {
            Ok(run) => run,
            Err(ApiError::Status { status: 404, .. }) => {
                return Ok(Some(Skip {
                    reason: "run-unknown",
                    seen: json!({"message": format!("run {run_id} is not found")}),
                }))
            }
            Err(err) => return Err(err),
        };
        Ok(self
            .options
            .trust
            .judge_run(&self.options.repo, &run, &branches))
    }
}

/// One pass. `Err` only when the list call fails: then nothing was changed.
pub fn watch(
    store: &dyn Store,
    client: &GithubClient,
    options: &WatchOptions,
    now_ms: &dyn Fn() -> u64,
) -> Result<Value, ApiError> {
    let artifacts = api::repo_artifacts(
        client,
        store,
        &options.repo,
        &options.artifact_name,
        now_ms(),
    )?;
    let mut origins = Origins {
        client,
        store,
        options,
        now_ms,
        branches: None,
        listed: None,
    };
    let mut ingested = Vec::new();
    let mut skipped = Vec::new();
    let mut stopped = None;
    for artifact in artifacts.iter().filter(|a| a.name == options.artifact_name) {
        let skip = |reason: &str, more: Value| {
            let mut entry = json!({"artifact_id": artifact.id, "reason": reason});
            if let (Some(entry), Value::Object(more)) = (entry.as_object_mut(), more) {
                entry.extend(more);
            }
            entry
        };
        if let Ok(Some(id)) = store.find_by_artifact(artifact.id) {
            skipped.push(skip("already-ingested", json!({"id": id})));
            continue;
        }
        if artifact.expired {
            skipped.push(skip("expired", Value::Null));
            continue;
        }
        if window_closed(artifact, now_ms()) {
            skipped.push(skip("window-closed", Value::Null));
            continue;
        }
        if let Some(run_id) = artifact.run_id {
            if store.is_own_run(&options.repo, run_id).unwrap_or(false) {
                skipped.push(skip("own-run", json!({"run_id": run_id})));
                continue;
            }
        }
        if stopped.is_some() {
            skipped.push(skip("quota", Value::Null));
            continue;
        }
        match origins.judge(artifact) {
            Ok(None) => {}
            Ok(Some(untrusted)) => {
                let mut seen = untrusted.seen;
                seen["run_id"] = json!(artifact.run_id);
                skipped.push(skip(untrusted.reason, seen));
                continue;
            }
            Err(err) => {
                if err.is_quota_stop() {
                    stopped = Some(err.message());
                }
                skipped.push(skip(err.code(), json!({"message": err.message()})));
                continue;
            }
        }
        match ingest_artifact(store, client, options, artifact, now_ms) {
            Ok(entry) => ingested.push(entry),
            Err(not) => {
                if not.quota_stop {
                    stopped = Some(not.message.clone());
                }
                skipped.push(skip(&not.reason, not.seen));
            }
        }
    }
    let stopped = stopped.or_else(|| client.quota.borrow().stopped().map(str::to_string));
    let calls = client.calls();
    Ok(json!({
        "repo": options.repo,
        "artifact": options.artifact_name,
        "ingested": ingested,
        "skipped": skipped,
        "github": {"requests": calls.requests, "not_modified": calls.not_modified, "blob": calls.blob, "stopped": stopped},
    }))
}

/// Why one trusted artifact was not ingested.
pub struct NotIngested {
    pub reason: String,
    pub seen: Value,
    pub message: String,
    /// GitHub calls stopped for this pass (the reserve or a limit).
    pub quota_stop: bool,
}

impl NotIngested {
    /// Not ingested for `reason`, seen as `{"message"}`.
    fn new(reason: &str, message: impl Into<String>) -> NotIngested {
        let message = message.into();
        NotIngested {
            reason: reason.to_string(),
            seen: json!({ "message": message }),
            message,
            quota_stop: false,
        }
    }
}

/// Ingests one artifact of a trusted run (`watch`'s pass, and a `workflow_run` webhook): one
/// download, its `digest` checked, the core's validation, a record. Answers `watch`'s
/// `ingested` entry.
pub fn ingest_artifact(
    store: &dyn Store,
    client: &GithubClient,
    options: &WatchOptions,
    artifact: &ArtifactInfo,
    now_ms: &dyn Fn() -> u64,
) -> Result<Ingested, NotIngested> {
    let zip = api::download_artifact(client, &options.repo, artifact.id).map_err(|err| {
        let mut not = NotIngested::new(err.code(), err.message());
        not.quota_stop = err.is_quota_stop();
        not
    })?;
    let unreadable = |why: String| NotIngested::new("artifact-unreadable", why);
    check_digest(artifact.digest.as_deref(), &zip).map_err(unreadable)?;
    let text = receipt_text(&zip).map_err(unreadable)?;
    let keys = RecordKeys {
        artifact: Some(ArtifactRef {
            artifact_id: artifact.id,
            repo: options.repo.clone(),
            run_id: artifact.run_id,
        }),
        artifact_name: (options.artifact_name != DEFAULT_ARTIFACT)
            .then(|| options.artifact_name.clone()),
        pool: Some(crate::store::pools::PoolTag {
            pool: options.pool.clone(),
            ..Default::default()
        }),
        ..RecordKeys::default()
    };
    match insert_once(
        store,
        text.as_bytes(),
        &options.launch,
        options.max_reentries,
        keys,
        now_ms(),
    ) {
        Ok(Insertion::New(rec)) => {
            commit_of_run(store, options, artifact, &rec.deferral.id);
            Ok(Ingested {
                artifact_id: artifact.id,
                cancellation_handle: rec.cancellation_handle,
                id: rec.deferral.id,
                run_id: artifact.run_id,
            })
        }
        Ok(Insertion::Existing(d)) => {
            // Recorded by another entry already: remember the artifact so it is not read again.
            let _ = store.add_artifact(
                &d.id,
                &ArtifactRef {
                    artifact_id: artifact.id,
                    repo: options.repo.clone(),
                    run_id: artifact.run_id,
                },
            );
            Err(NotIngested {
                reason: "already-recorded".to_string(),
                seen: json!({ "id": d.id }),
                message: String::new(),
                quota_stop: false,
            })
        }
        Err(err) => Err(NotIngested::new(&err.code, err.message)),
    }
}

/// With `commit_status`, the commit the artifact's run ran on, where the deferral's status goes
/// (context `deferral/ARTIFACT`). A store error is logged: the deferral is recorded already.
fn commit_of_run(store: &dyn Store, options: &WatchOptions, artifact: &ArtifactInfo, id: &str) {
    let (Some(face), Some(sha)) = (options.commit_status, artifact.head_sha.as_deref()) else {
        return;
    };
    if sha.len() != 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return;
    }
    let commit = crate::store::CommitRef {
        deferral_id: id.to_string(),
        repo: options.repo.clone(),
        sha: sha.to_ascii_lowercase(),
        context: format!("deferral/{}", options.artifact_name),
        face,
    };
    if let Err(err) = store.put_commit(&commit) {
        crate::logs::message(
            "warn",
            "watch",
            &format!("{id}: its commit is not kept, so it gets no status: {err}"),
        );
    }
}

/// An artifact uploaded more than two days ago holds a receipt whose window has closed (a
/// receipt spans at most 24 hours from its issue, before the upload; a day of margin for
/// clocks): recording it could only answer `expired`, so it is not downloaded. Such an
/// artifact is one that was never ingested in time, or one whose deferral `prune` removed.
fn window_closed(artifact: &ArtifactInfo, now_ms: u64) -> bool {
    artifact
        .created_ms
        .is_some_and(|at| at.saturating_add(crate::store::retention::MIN_RETENTION_MS) < now_ms)
}
