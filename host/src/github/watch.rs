//! `deferral-host watch OWNER/REPO --launch TARGET`: one pass for cron that ingests the
//! repository's `deferred-receipt` artifacts, each once.
//!
//! One list call (`GET /repos/{o}/{r}/actions/artifacts?name=NAME&per_page=100`, with its
//! ETag), then for each artifact that is not expired, not ingested yet and not from a run this
//! host dispatched itself (those are followed by `tick`): one download (the 302 to blob
//! storage is followed without the token), the core's validation, and a record as a retained
//! deferral with the given launch target. The artifact id and the receipt digest are unique in
//! the store, so a second pass, or a receipt recorded by hand as well, ingests nothing twice.

use super::api::{self, ApiError};
use super::artifact::receipt_text;
use super::client::GithubClient;
use super::DEFAULT_ARTIFACT;
use crate::coordinator::{self, Recording};
use crate::store::{ArtifactRef, RecordKeys, Store};
use serde_json::{json, Value};

pub struct WatchOptions {
    /// `owner/name`.
    pub repo: String,
    pub launch: String,
    pub artifact_name: String,
    pub max_reentries: u32,
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
        if let Some(run_id) = artifact.run_id {
            if store.is_own_run(run_id).unwrap_or(false) {
                skipped.push(skip("own-run", json!({"run_id": run_id})));
                continue;
            }
        }
        if stopped.is_some() {
            skipped.push(skip("quota", Value::Null));
            continue;
        }
        let zip = match api::download_artifact(client, &options.repo, artifact.id) {
            Ok(zip) => zip,
            Err(err) => {
                if err.is_quota_stop() {
                    stopped = Some(err.message());
                }
                skipped.push(skip(err.code(), json!({"message": err.message()})));
                continue;
            }
        };
        let text = match receipt_text(&zip) {
            Ok(text) => text,
            Err(why) => {
                skipped.push(skip("artifact-unreadable", json!({"message": why})));
                continue;
            }
        };
        let keys = RecordKeys {
            artifact: Some(ArtifactRef {
                artifact_id: artifact.id,
                repo: options.repo.clone(),
                run_id: artifact.run_id,
            }),
            artifact_name: (options.artifact_name != DEFAULT_ARTIFACT)
                .then(|| options.artifact_name.clone()),
            ..RecordKeys::default()
        };
        match coordinator::record_with(
            store,
            text.as_bytes(),
            &options.launch,
            options.max_reentries,
            keys,
            now_ms(),
        ) {
            Ok(Recording::New(rec)) => ingested.push(json!({
                "artifact_id": artifact.id,
                "run_id": artifact.run_id,
                "id": rec.deferral.id,
                "cancellation_handle": rec.cancellation_handle,
            })),
            Ok(Recording::Existing(d)) => {
                // Recorded by another entry already: remember the artifact so it is not read again.
                let _ = store.add_artifact(
                    &d.id,
                    &ArtifactRef {
                        artifact_id: artifact.id,
                        repo: options.repo.clone(),
                        run_id: artifact.run_id,
                    },
                );
                skipped.push(skip("already-recorded", json!({"id": d.id})));
            }
            Err(err) => skipped.push(skip(&err.code, json!({"message": err.message}))),
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
