//! The webhook's worker: one thread the server owns, fed through a bounded queue, so a
//! delivery is answered at once and its work (GitHub calls, store writes) is done here.
//!
//! For each completed run:
//! * a run this host dispatched (its attempt still `dispatched`, found by repository and run
//!   id, or by workflow and `run-name` when the dispatch gave no id; a delivery naming another
//!   repository is never this host's attempt): its outcome written from its artifacts as `tick`
//!   would ([`follow::write_run_outcome`]), the run itself never asked for; the delivery already
//!   says it completed and how;
//! * else, for each configured watch of its repository whose rules trust it: its artifact
//!   ingested as `watch` would ([`ingest::ingest_artifact`]).
//!
//! With a GitHub App it also runs [`sweep`] at start and every ten minutes.
//!
//! Every write is a compare-and-set of `lifecycle::change`, so a `tick` following the same run at the
//! same moment records its outcome once. What fails here is logged and left to the reconciler
//! (`tick`'s follow step, `watch`).

use super::check_run::Press;
use super::payload::CompletedRun;
use super::sweep;
use super::{Intake, Watching};
use crate::github::api::{self, ApiError};
use crate::github::client::GithubClient;
use crate::github::options::{GithubArgs, GithubEnv};
use crate::github::trust::WORKFLOW_DIR;
use crate::ops::follow::{self, run_name};
use crate::ops::ingest::{self, WatchOptions};
use crate::ops::press::Pressed;
use crate::store::github::workflow_repo;
use crate::store::{Deferral, IntegrityCheck, Store, StoreUrl};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

/// Deliveries waiting for the worker at most; past this one is left to the reconciler.
pub const QUEUE: usize = 1024;
/// How often a GitHub App's failed deliveries are swept ([`sweep`]).
pub const SWEEP_EVERY: Duration = Duration::from_secs(600);
/// Dispatched attempts looked through for a delivery's run.
const DISPATCHED_LIMIT: usize = 100_000;

/// One verified delivery: a first-seen completed run, or a button pressed.
#[derive(Debug)]
pub struct Job {
    pub delivery: String,
    pub work: Work,
}

/// What a delivery asks the worker to do.
#[derive(Debug)]
pub enum Work {
    Run(Box<CompletedRun>),
    /// A check run's button: applied once ([`crate::ops::press`]), what it did sent back to
    /// the port, which answers GitHub with it (when it still waits).
    Press(Press, SyncSender<Pressed>),
}

/// What the worker needs: its own store connection and GitHub client are made in its thread.
pub struct Worker {
    pub store: StoreUrl,
    pub github: GithubArgs,
    pub env: GithubEnv,
    pub http_timeout: Duration,
    pub max_chain: u32,
    /// Called after each delivery is handled (`run` wakes its scheduler: a run that deferred
    /// again is due at once).
    pub handled: Option<std::sync::Arc<dyn Fn() + Send + Sync>>,
}

/// Starts the worker thread and answers the port's intake, which verifies with `secrets` and
/// queues for the worker; the worker ingests for the intake's watches (`watches` until
/// [`Intake::replace`]). It ends when every clone of the intake is dropped (the server stopped).
pub fn start(
    worker: Worker,
    secrets: Vec<Vec<u8>>,
    watches: Vec<WatchOptions>,
) -> std::io::Result<Intake> {
    let (send, receive) = sync_channel(QUEUE);
    let intake = Intake::new(secrets, watches, send);
    // The worker's clone must not keep the queue open: it holds the watches only.
    let watching = intake.watching();
    std::thread::Builder::new()
        .name("webhook-worker".into())
        .spawn(move || run(worker, &watching, &receive))?;
    Ok(intake)
}

fn run(worker: Worker, watching: &Watching, jobs: &Receiver<Job>) {
    let Worker {
        store,
        github,
        env,
        http_timeout,
        max_chain,
        handled,
    } = worker;
    let client = match github.client(env, http_timeout) {
        Ok(Some(client)) => client,
        Ok(None) => {
            return log_line("webhook worker: no GitHub credentials; deliveries are left to tick")
        }
        Err(err) => return log_line(&format!("webhook worker: {err}")),
    };
    let store = match store.open_existing(IntegrityCheck::Off) {
        Ok(store) => store,
        Err(err) => return log_line(&format!("webhook worker: cannot open the store: {err}")),
    };
    // A GitHub App also sweeps its failed deliveries: at start, then every SWEEP_EVERY.
    let sweeping = client.is_app();
    let mut next_sweep = Instant::now();
    loop {
        if sweeping && Instant::now() >= next_sweep {
            let swept = sweep::sweep(&client, crate::clock::now_ms());
            if !swept.redelivered.is_empty() || !swept.errors.is_empty() {
                log_line(&format!(
                    "webhook sweep: {} deliveries listed, redelivery asked for {:?}{}",
                    swept.listed,
                    swept.redelivered,
                    if swept.errors.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", swept.errors.join("; "))
                    }
                ));
            }
            next_sweep = Instant::now() + SWEEP_EVERY;
        }
        let wait = if sweeping {
            next_sweep.saturating_duration_since(Instant::now())
        } else {
            Duration::from_secs(3600)
        };
        let job = match jobs.recv_timeout(wait) {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        match job.work {
            Work::Run(run) => {
                let run = *run;
                let said = handle(&*store, &client, max_chain, &watching.now(), &run);
                log_line(&format!(
                    "webhook {}: run {} of {}: {said}",
                    job.delivery, run.run.id, run.repo
                ));
            }
            Work::Press(press, answer) => {
                let pressed =
                    crate::ops::press::apply(&*store, &client, &press, crate::clock::now_ms());
                log_line(&format!(
                    "webhook {}: {} pressed {:?} on check run {} of {}: {}",
                    job.delivery,
                    press.sender,
                    press.identifier,
                    press.check_run_id,
                    press.repo,
                    pressed.answer
                ));
                let _ = answer.try_send(pressed);
            }
        }
        if let Some(handled) = &handled {
            handled();
        }
    }
}

/// The `owner/repo/FILE` a dispatched attempt's run record names, for the delivery's run.
fn workflow_of(run: &CompletedRun) -> Option<String> {
    let path = run.origin.path.as_deref()?;
    let path = path.split_once('@').map_or(path, |(file, _)| file);
    Some(format!("{}/{}", run.repo, path.strip_prefix(WORKFLOW_DIR)?))
}

/// The dispatched attempt whose run this is, with its run record updated when it had no id.
fn own_attempt(store: &dyn Store, run: &CompletedRun) -> Result<Option<Deferral>, String> {
    let dispatched = store
        .dispatched(DISPATCHED_LIMIT)
        .map_err(|e| e.to_string())?;
    let workflow = workflow_of(run);
    for (deferral, record) in dispatched {
        let Some(mut record) = record else { continue };
        match record.run_id {
            // The run id and the repository: a delivery naming another repository with the
            // same run id finishes nothing here.
            Some(id) if id == run.run.id => {
                if workflow_repo(&record.workflow).eq_ignore_ascii_case(&run.repo) {
                    return Ok(Some(deferral));
                }
            }
            Some(_) => {}
            None => {
                let same_workflow = workflow
                    .as_deref()
                    .is_some_and(|w| w.eq_ignore_ascii_case(&record.workflow));
                if same_workflow
                    && run.run.display_title == run_name(&deferral.id, deferral.reentries)
                {
                    record.run_id = Some(run.run.id);
                    record.run_url = Some(run.run.url.clone()).filter(|u| !u.is_empty());
                    record.html_url = Some(run.run.html_url.clone()).filter(|u| !u.is_empty());
                    let _ = store.put_run(&record);
                    return Ok(Some(deferral));
                }
            }
        }
    }
    Ok(None)
}

/// Does the work of one delivery; answers a line for the log.
fn handle(
    store: &dyn Store,
    client: &GithubClient,
    max_chain: u32,
    watches: &[WatchOptions],
    run: &CompletedRun,
) -> String {
    let now = crate::clock::now_ms;
    match own_attempt(store, run) {
        Err(err) => return format!("store error: {err}"),
        Ok(Some(deferral)) => {
            let repo = workflow_of(run)
                .and_then(|w| w.rsplit_once('/').map(|(repo, _)| repo.to_string()))
                .unwrap_or_else(|| run.repo.clone());
            return match follow::write_run_outcome(
                store, client, &repo, &deferral, &run.run, max_chain, &now,
            ) {
                Ok(entry) => format!("followed {}", entry.to_json()),
                Err(err) => format!(
                    "not followed ({}: {}); tick will",
                    err.code(),
                    err.message()
                ),
            };
        }
        Ok(None) => {}
    }
    if store.is_own_run(&run.repo, run.run.id).unwrap_or(false) {
        return "already followed".into();
    }
    let mine: Vec<&WatchOptions> = watches
        .iter()
        .filter(|w| w.repo.eq_ignore_ascii_case(&run.repo))
        .collect();
    if mine.is_empty() {
        return "neither dispatched by this host nor watched: ignored".into();
    }
    let said: Vec<String> = mine
        .into_iter()
        .map(|watch| match ingest(store, client, watch, run) {
            Ok(said) => said,
            Err(err) => format!(
                "not ingested ({}: {}); watch will",
                err.code(),
                err.message()
            ),
        })
        .collect();
    said.join("; ")
}

/// Ingests the run's artifact for one watch whose rules trust it.
fn ingest(
    store: &dyn Store,
    client: &GithubClient,
    watch: &WatchOptions,
    run: &CompletedRun,
) -> Result<String, ApiError> {
    let branches = match (&run.default_branch, watch.trust.branches.is_empty()) {
        (Some(default), _) => watch.trust.branches_or(default),
        (None, false) => watch.trust.branches.clone(),
        (None, true) => {
            let repository = api::repository(client, store, &watch.repo, crate::clock::now_ms())?;
            watch.trust.branches_or(&repository.default_branch)
        }
    };
    if let Some(skip) = watch.trust.judge_run(&watch.repo, &run.origin, &branches) {
        return Ok(format!("not trusted: {} {}", skip.reason, skip.seen));
    }
    let artifacts = api::run_artifacts(client, &watch.repo, run.run.id, &watch.artifact_name)?;
    let mut said = Vec::new();
    for artifact in artifacts.iter().filter(|a| a.name == watch.artifact_name) {
        if let Ok(Some(id)) = store.find_by_artifact(artifact.id) {
            said.push(format!("artifact {} already ingested as {id}", artifact.id));
            continue;
        }
        if artifact.expired {
            said.push(format!("artifact {} expired", artifact.id));
            continue;
        }
        said.push(
            match ingest::ingest_artifact(store, client, watch, artifact, &crate::clock::now_ms) {
                Ok(entry) => format!("ingested {:?}", entry.id),
                Err(not) => format!(
                    "artifact {} not ingested: {} {}",
                    artifact.id, not.reason, not.seen
                ),
            },
        );
    }
    if said.is_empty() {
        said.push(format!("no {} artifact", watch.artifact_name));
    }
    Ok(said.join(", "))
}

/// One line on stderr for the operator, as the port's (the worker runs beside it).
fn log_line(message: &str) {
    let level = if message.starts_with("warning:") {
        "warn"
    } else {
        "info"
    };
    crate::logs::message(level, "serve", message);
}
