//! `tick`'s follow step: what became of the workflow runs this host dispatched.
//!
//! Runs after expiry and recovery, before new launches. For each workflow with dispatched
//! attempts it makes one list call (with its ETag) of the completed `workflow_dispatch` runs
//! created since the oldest attempt's day; an attempt whose run id the dispatch did not return
//! (a server that answered 204) is matched by its run's `display_title`, which must be exactly
//! the `run-name` of docs/examples/resume.yml for that deferral and attempt
//! ([`run_name`]: `Resume ID #ATTEMPT`), in a list of all the workflow's runs: a title that only
//! holds it (`Resume ID #12` for attempt 1, a planted `... Resume ID #1`) is not the run, and
//! two runs with that exact title are not told apart (the attempt waits, and expires at
//! resume_by if nothing else settles it).
//! A completed run then costs one call for its artifacts and, when there is one, one download:
//!
//! * an artifact: its receipt, validated by the core, is the attempt's `deferred` outcome (same
//!   bindings: deferred again, re-entry counted; same scope, other plan or request: progress, a
//!   successor; anything else: blocked);
//! * no artifact, conclusion `success`: complete;
//! * no artifact, another conclusion: blocked, cause `run-CONCLUSION`, detail the run's URL.
//!
//! Every outcome is a compare-and-set of `lifecycle::change`: two tickers record it once.

use crate::github::api::{self, ApiError, ArtifactInfo, RunInfo};
use crate::github::artifact::{check_digest, receipt_text};
use crate::github::client::{CallError, GithubClient};
use crate::github::DEFAULT_ARTIFACT;
use crate::lifecycle;
use crate::lifecycle::change::Effects;
use crate::lifecycle::outcome::Outcome;
use followed::{FollowEnd, Followed};

pub mod followed;
pub mod interval;
use crate::error::HostError;
use crate::store::{ArtifactRef, Change, Deferral, RunRecord, Store};
use deferral_core::lifecycle::Event;
use deferral_core::receipt::validate_str;
use deferral_protocol::tick::{FollowError, Waiting};
use std::collections::BTreeMap;

/// What the follow step did; goes into the tick report.
#[derive(Debug, Default)]
pub struct FollowReport {
    /// Attempts whose run ended, with their new state.
    pub followed: Vec<Followed>,
    /// Attempts still running, or not yet matched to a run.
    pub waiting: Vec<Waiting>,
    /// Why calls stopped for this pass, if they did.
    pub stopped: Option<String>,
    /// GitHub errors met (the attempts stay as they are).
    pub errors: Vec<FollowError>,
}

/// `deferral`'s attempt waiting, and why.
fn waiting(deferral: &Deferral, why: impl Into<String>) -> Waiting {
    Waiting {
        attempt: deferral.reentries,
        id: deferral.id.clone(),
        run_id: None,
        run_ids: Vec::new(),
        why: why.into(),
    }
}

/// `owner/repo` and the workflow file of a `workflow-dispatch:` run record.
fn split_workflow(workflow: &str) -> Option<(String, String)> {
    let (repo, file) = workflow.rsplit_once('/')?;
    Some((repo.to_string(), file.to_string()))
}

/// The `created` bound of the list call: five minutes before the oldest dispatch (clocks
/// differ), floored to the minute, so the URL, and so its ETag, stay the same from one tick to
/// the next while that attempt is followed.
fn created_since(oldest_dispatch_ms: u64) -> String {
    let ms = oldest_dispatch_ms.saturating_sub(5 * 60_000) / 60_000 * 60_000;
    deferral_core::signals::time::format_iso8601(ms)
}

/// The title the resume workflow's `run-name` gives the run of one attempt
/// (`run-name: Resume ${{ inputs.deferral_id }} #${{ inputs.attempt }}`).
pub fn run_name(deferral_id: &str, attempt: u32) -> String {
    format!("Resume {deferral_id} #{attempt}")
}

struct Pending {
    deferral: Deferral,
    run: RunRecord,
}

/// One follow pass over at most `limit` dispatched attempts (only those of `ids`, unless empty).
/// With `every_ms` (`--follow-interval`), a workflow listed less than that ago is passed over
/// (see [`interval`]).
pub fn follow(
    store: &dyn Store,
    client: &GithubClient,
    ids: &[String],
    limit: usize,
    max_chain: u32,
    every_ms: Option<u64>,
    now_ms: &dyn Fn() -> u64,
) -> Result<FollowReport, HostError> {
    let mut report = FollowReport::default();
    let mut by_workflow: BTreeMap<String, Vec<Pending>> = BTreeMap::new();
    for (deferral, run) in store.dispatched(limit)? {
        if !ids.is_empty() && !ids.contains(&deferral.id) {
            continue;
        }
        let Some(run) = run else { continue };
        by_workflow
            .entry(run.workflow.clone())
            .or_default()
            .push(Pending { deferral, run });
    }
    for (workflow, pending) in by_workflow {
        if report.stopped.is_some() {
            break;
        }
        let Some((repo, file)) = split_workflow(&workflow) else {
            continue;
        };
        if let Some(every) = every_ms {
            let oldest = pending
                .iter()
                .map(|p| p.run.dispatched_ms)
                .min()
                .unwrap_or(0);
            let api = client.api_url();
            if !interval::due(store, api, &workflow, every, oldest, now_ms()) {
                for p in &pending {
                    report.waiting.push(waiting(
                        &p.deferral,
                        "followed less than --follow-interval ago (a webhook or a later pass ends it)",
                    ));
                }
                continue;
            }
            interval::passed(store, api, &workflow, now_ms());
        }
        if let Err(err) = follow_workflow(
            store,
            client,
            &repo,
            &file,
            pending,
            max_chain,
            now_ms,
            &mut report,
        ) {
            if err.is_quota_stop() {
                report.stopped = Some(err.message());
            } else {
                report.errors.push(FollowError {
                    code: err.code().to_string(),
                    message: err.message(),
                    workflow,
                });
            }
        }
    }
    if report.stopped.is_none() {
        report.stopped = client.quota.borrow().stopped().map(str::to_string);
    }
    Ok(report)
}

#[allow(clippy::too_many_arguments)]
fn follow_workflow(
    store: &dyn Store,
    client: &GithubClient,
    repo: &str,
    file: &str,
    pending: Vec<Pending>,
    max_chain: u32,
    now_ms: &dyn Fn() -> u64,
    report: &mut FollowReport,
) -> Result<(), ApiError> {
    let oldest = pending
        .iter()
        .map(|p| p.run.dispatched_ms)
        .min()
        .unwrap_or(0);
    let since = created_since(oldest);
    let unmatched = pending.iter().any(|p| p.run.run_id.is_none());
    // Attempts without a run id need every run (in progress too) to be matched by title.
    let (runs, full) = api::list_runs(client, store, repo, file, !unmatched, &since, now_ms())?;
    let by_id: BTreeMap<u64, &RunInfo> = runs.iter().map(|r| (r.id, r)).collect();
    for mut p in pending {
        if p.run.run_id.is_none() {
            let title = run_name(&p.deferral.id, p.deferral.reentries);
            let titled: Vec<&RunInfo> = runs.iter().filter(|r| r.display_title == title).collect();
            match titled[..] {
                [found] => {
                    p.run.run_id = Some(found.id);
                    p.run.run_url = Some(found.url.clone()).filter(|u| !u.is_empty());
                    p.run.html_url = Some(found.html_url.clone()).filter(|u| !u.is_empty());
                    let _ = store.put_run(&p.run);
                }
                [] => {
                    report
                        .waiting
                        .push(waiting(&p.deferral, "no run found yet"));
                    continue;
                }
                _ => {
                    let ids: Vec<u64> = titled.iter().map(|r| r.id).collect();
                    let why = format!("{} runs are titled {title:?}: none is taken", ids.len());
                    report.waiting.push(Waiting {
                        run_ids: ids,
                        ..waiting(&p.deferral, why)
                    });
                    continue;
                }
            }
        }
        let run_id = p.run.run_id.unwrap_or_default();
        let run = match by_id.get(&run_id) {
            Some(run) => (*run).clone(),
            // Beyond the first page of completed runs: ask for this one run.
            None if full => api::get_run(client, repo, run_id)?,
            None => {
                report.waiting.push(Waiting {
                    run_id: Some(run_id),
                    ..waiting(&p.deferral, "not completed")
                });
                continue;
            }
        };
        if run.status.as_deref() != Some("completed") {
            // `status: null` (not under way yet) waits like any status but completed.
            let why = run.status.as_deref().unwrap_or("no status yet");
            report.waiting.push(Waiting {
                run_id: Some(run_id),
                ..waiting(&p.deferral, why)
            });
            continue;
        }
        let entry = write_run_outcome(store, client, repo, &p.deferral, &run, max_chain, now_ms)?;
        report.followed.push(entry);
    }
    Ok(())
}

/// Why a completed run's artifact cannot be the attempt's outcome.
struct Refused {
    cause: &'static str,
    detail: String,
}

/// The receipt in a run's artifact, read and checked: the core validates it and its scope must
/// be the deferral's (`lifecycle::outcome` tells deferred-again from progress).
fn artifact_receipt(
    store: &dyn Store,
    client: &GithubClient,
    repo: &str,
    deferral: &Deferral,
    artifact: &ArtifactInfo,
) -> Result<Result<String, Refused>, ApiError> {
    if artifact.expired {
        return Ok(Err(Refused {
            cause: "artifact-expired",
            detail: format!("artifact {} expired before it was read", artifact.id),
        }));
    }
    let zip = match api::download_artifact(client, repo, artifact.id) {
        Ok(zip) => zip,
        Err(ApiError::Call(CallError::TooLarge(why))) => {
            return Ok(Err(Refused {
                cause: "artifact-unreadable",
                detail: format!("artifact {}: {why}", artifact.id),
            }))
        }
        Err(ApiError::Status { status: 410, .. }) => {
            return Ok(Err(Refused {
                cause: "artifact-expired",
                detail: format!("artifact {} is gone (HTTP 410)", artifact.id),
            }))
        }
        Err(err) => return Err(err),
    };
    if let Err(why) = check_digest(artifact.digest.as_deref(), &zip) {
        return Ok(Err(Refused {
            cause: "artifact-unreadable",
            detail: format!("artifact {}: {why}", artifact.id),
        }));
    }
    let text = match receipt_text(&zip) {
        Ok(text) => text,
        Err(why) => {
            return Ok(Err(Refused {
                cause: "artifact-unreadable",
                detail: format!("artifact {}: {why}", artifact.id),
            }))
        }
    };
    // The run's whole resume line: its deferredReceipt, and what it saw teaches the pool.
    let text = crate::pools::observe::from_artifact(store, deferral, artifact.id, text);
    let new = match validate_str(&text) {
        Ok(new) => new,
        Err(err) => {
            return Ok(Err(Refused {
                cause: "invalid-receipt",
                detail: format!(
                    "artifact {}: {} at {}: {}",
                    artifact.id,
                    err.code(),
                    err.path,
                    err.message
                ),
            }))
        }
    };
    let current = store
        .current_receipt(&deferral.id)
        .ok()
        .and_then(|r| validate_str(&r.text).ok());
    if current.is_some_and(|c| c.bindings.scope_digest != new.bindings.scope_digest) {
        return Ok(Err(Refused {
            cause: "binding-mismatch",
            detail: format!(
                "artifact {}: the receipt's scope_digest differs from the deferral's",
                artifact.id
            ),
        }));
    }
    Ok(Ok(text))
}

/// Writes the outcome of one completed run.
pub fn write_run_outcome(
    store: &dyn Store,
    client: &GithubClient,
    repo: &str,
    deferral: &Deferral,
    run: &RunInfo,
    max_chain: u32,
    now_ms: &dyn Fn() -> u64,
) -> Result<Followed, ApiError> {
    let name = store
        .artifact_name(&deferral.id)
        .ok()
        .flatten()
        .unwrap_or_else(|| DEFAULT_ARTIFACT.to_string());
    let artifacts = api::run_artifacts(client, repo, run.id, &name)?;
    let raw = run.conclusion.as_deref().unwrap_or("unknown");
    // What GitHub said, bounded and escaped, wherever it is shown or stored.
    let conclusion = crate::github::conclusion::shown(raw);
    let blocked = |cause: &str, detail: String| {
        let effects = Effects {
            detail: Some(detail),
            lease: Change::Clear,
            attempt_status: Change::Clear,
            ..Effects::default()
        };
        lifecycle::change::apply_caused(store, deferral, Event::Block, cause, effects, now_ms())
    };
    let written = match artifacts.iter().find(|a| a.name == name) {
        Some(artifact) => match artifact_receipt(store, client, repo, deferral, artifact)? {
            Ok(text) => {
                let _ = store.add_artifact(
                    &deferral.id,
                    &ArtifactRef {
                        artifact_id: artifact.id,
                        repo: repo.to_string(),
                        run_id: Some(run.id),
                    },
                );
                lifecycle::outcome::end_attempt_chained(
                    store,
                    deferral,
                    Outcome::Deferred {
                        receipt: text,
                        detail: Some(format!(
                            "run {} ({conclusion}) deferred again",
                            run.html_url
                        )),
                    },
                    max_chain,
                    now_ms(),
                )
            }
            Err(refused) => blocked(
                refused.cause,
                format!("{} ({})", refused.detail, run.html_url),
            ),
        },
        None if raw == "success" => lifecycle::outcome::end_attempt(
            store,
            deferral,
            Outcome::Complete {
                detail: Some(format!("run {} succeeded", run.html_url)),
            },
            now_ms(),
        ),
        None => {
            let (cause, detail) =
                crate::github::conclusion::blocked(run.conclusion.as_deref(), &run.html_url);
            blocked(&cause, detail)
        }
    };
    let end = match written {
        Ok(after) => FollowEnd::Written {
            conclusion,
            after: Box::new(after),
        },
        // Another ticker recorded this run's outcome first: nothing more to do.
        Err(err) if err.is_conflict() => FollowEnd::Skipped("recorded by another ticker"),
        Err(err) => FollowEnd::Failed(err),
    };
    Ok(Followed {
        id: deferral.id.clone(),
        attempt: deferral.reentries,
        run_id: run.id,
        end,
    })
}
