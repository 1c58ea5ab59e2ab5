//! The command line's definitions: the clap structs of every subcommand and their help texts.

use crate::clock::parse_duration;
use crate::github::options::GithubArgs;
use clap::{Args, Parser, Subcommand, ValueEnum};
use deferral_core::lifecycle::{State, DEFAULT_MAX_REENTRIES};
use std::path::PathBuf;

pub(super) const AFTER_HELP: &str = "\
Exit codes:
  0  ok
  1  store or internal failure (cannot open, integrity check failed, I/O)
  2  invalid input: invalid receipt ({\"error\":{\"code\",\"path\",\"message\"}} on stdout),
     already-retained or expired receipt, bad launch target, launch-not-found,
     launch-not-executable, launch-conflict, retry-expired, store-not-found, unknown id,
     usage error
  3  unusable credentials: a GitHub App key that cannot sign (github-app-key-unusable)
  4  GitHub failure (watch): github-error, github-unreachable, github-quota
  5  refused: wrong handle, illegal transition, stale attempt, not-blocked, already-retried,
     conflicting write

Errors print one JSON line {\"error\":{...}} on stdout and a sentence on stderr.
See docs/host.md for the store, the launch protocol and the recipes.";

/// Durable host for deferred-receipt-v1: records a receipt, wakes at its resume time,
/// launches a fresh process, and records the outcome.
#[derive(Parser, Debug)]
#[command(name = "deferral-host", version, after_help = AFTER_HELP)]
pub struct Cli {
    /// The store: `sqlite:PATH` or a bare path to the SQLite file (absolute), or
    /// `postgres://USER[:PASSWORD]@HOST:PORT/DB` (also `postgresql://`) for several replicas and
    /// tickers sharing one database; TLS with `?sslmode=verify-full&sslrootcert=CA.pem` (also
    /// disable, prefer, require, verify-ca). It must exist: create it with `deferral-host init`
    /// (for init: created if missing, tables included; running init again is harmless); every
    /// other command, record, serve and run included, refuses a missing store (store-not-found).
    #[arg(long, global = true, env = "DEFERRAL_STORE", value_name = "URL")]
    pub(super) store: Option<String>,

    /// Check run when the store is opened (`full` reads every page; `quick` skips index cross-checks).
    #[arg(long, global = true, value_enum, default_value = "full")]
    pub(super) integrity: Integrity,

    #[command(subcommand)]
    pub(super) command: Command,
}

impl Cli {
    /// The arguments of `run`, when that is the command (for `cli::config`).
    pub fn run_args_mut(&mut self) -> Option<&mut crate::run::RunArgs> {
        match &mut self.command {
            Command::Run(args) => Some(args),
            _ => None,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(super) enum Integrity {
    Full,
    Quick,
    Off,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
    /// Record a handoff receipt; prints {"id","receipt","cancellation_handle"} (the handle only this once).
    Record(RecordArgs),
    /// List deferrals (a table, or --json).
    Status(StatusArgs),
    /// Print one deferral with all its receipts and events.
    Show(ShowArgs),
    /// Cancel a deferral with its cancellation handle.
    Cancel(CancelArgs),
    /// Start a blocked deferral again (a new deferral linked to it), e.g. with a corrected target.
    Retry(RetryArgs),
    /// Create the store (tables included) if it does not exist yet; running it again is harmless.
    /// The only command that creates a store: every other one refuses a missing store.
    Init,
    /// Expire, recover stale leases, then launch every due deferral once.
    Tick(TickArgs),
    /// Report the outcome of the current attempt (for workflow-dispatch runs and operators).
    Report(ReportArgs),
    /// Resolve a dispatch-unknown attempt after looking it up on GitHub.
    Resolve(ResolveArgs),
    /// Serve the durable port: an HTTP JSON API to record, inspect, cancel, claim and report.
    Serve(ServeArgs),
    /// Ingest a repository's deferred-receipt artifacts (one pass, for cron), each once.
    Watch(WatchArgs),
    /// The host as one service: the port of `serve`, the scheduler of `tick` and the ingestion
    /// of `watch` in one process that wakes when work is due (instead of cron).
    Run(crate::run::RunArgs),
    /// Remove ended deferrals (complete, blocked, cancelled) older than the retention, with
    /// their receipts, events and attempts, and webhook delivery ids older than 8 days.
    Prune(PruneArgs),
}

pub(super) const PRUNE_HELP: &str = "\
An ended deferral (complete, blocked, or cancelled, expired included) goes once its last change
is older than --older-than, with every row that names it: receipts, events, attempts' runs, its
process, receipt keys, artifact, links, cost, admissions and pool observations. It stays while a
deferral linked to it (the one it continues or that continues it, the one it retries or its
retry) has not ended or is newer, and while one of its admissions is open. A deferral that has
not ended is never removed. Also removed: runners' admissions released (or expired) and pool
observations of no deferral from before --older-than, and webhook delivery ids and cached GitHub
answers older than 8 days (GitHub redelivers a delivery for up to 3 days, 7 on GitHub Enterprise
Server). After that, `show` of a removed deferral answers not-found, and its receipt cannot be
recorded again (its window has closed: expired).

Works in batches of --batch deferrals, each its own short transaction, so it can run beside
`run`, `serve` and `tick` on the same store. `run --retention DURATION` does the same every hour.

Prints one JSON line with --json: {\"dry_run\",\"ended_before\",\"bookkeeping_before\",
\"deferrals\",\"rows\":{TABLE:N},\"batches\",\"stopped\"}; otherwise a sentence.

Example (cron, daily):
  deferral-host --store sqlite:/var/lib/deferral/host.db prune --older-than 30d --dry-run
  deferral-host --store sqlite:/var/lib/deferral/host.db prune --older-than 30d";

#[derive(Args, Debug)]
#[command(after_help = PRUNE_HELP)]
pub(super) struct PruneArgs {
    /// Remove ended deferrals whose last change is older than this (at least 2d: a receipt
    /// spans up to a day, and one removed sooner could be recorded again).
    #[arg(long, default_value = "30d", value_name = "DURATION", value_parser = crate::ops::prune::parse_retention)]
    pub(super) older_than: std::time::Duration,
    /// Count what would be removed; remove nothing.
    #[arg(long)]
    pub(super) dry_run: bool,
    /// One JSON line instead of a sentence.
    #[arg(long)]
    pub(super) json: bool,
    /// Deferrals removed per transaction.
    #[arg(long, default_value_t = crate::ops::prune::BATCH as u32, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(super) batch: u32,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Needs GITHUB_TOKEN (actions: read) or a GitHub App; GITHUB_API_URL for GitHub Enterprise Server.\n\nExample (cron):\n  deferral-host --store sqlite:/var/lib/deferral/host.db watch octo/app \\\n    --workflow gate.yml --launch workflow-dispatch:octo/app/resume.yml@main && deferral-host --store sqlite:/var/lib/deferral/host.db tick"
)]
pub(super) struct WatchArgs {
    /// The repository whose artifacts to ingest.
    #[arg(value_name = "OWNER/REPO")]
    pub(super) repo: String,
    /// Launch target of the deferrals it records.
    #[arg(long, value_name = "TARGET")]
    pub(super) launch: String,
    /// Artifact name the deferring runs upload their receipt under.
    #[arg(long, default_value = crate::github::DEFAULT_ARTIFACT, value_name = "NAME")]
    pub(super) artifact: String,
    /// Ingest only runs of this workflow (repeatable; default: every workflow): a file name in
    /// .github/workflows (`gate.yml`) or the run's whole path (`.github/workflows/gate.yml`).
    #[arg(long = "workflow", value_name = "FILE", value_parser = non_empty)]
    pub(super) workflows: Vec<String>,
    /// Ingest only runs on this branch (repeatable; default: the repository's default branch).
    #[arg(long = "branch", value_name = "NAME", value_parser = non_empty)]
    pub(super) branches: Vec<String>,
    /// Ingest only runs of this event (repeatable; default: every event but pull_request and
    /// pull_request_target). A fork's run is never ingested, whatever is named.
    #[arg(long = "event", value_name = "NAME", value_parser = non_empty)]
    pub(super) events: Vec<String>,
    /// Fresh-process launches allowed before a still-deferred deferral is blocked.
    #[arg(long, default_value_t = DEFAULT_MAX_REENTRIES)]
    pub(super) max_reentries: u32,
    /// The quota pool its deferrals wait in (default: `default`).
    #[arg(long, value_name = "NAME")]
    pub(super) pool: Option<String>,
    /// Timeout of each GitHub request.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub(super) http_timeout: std::time::Duration,
    #[command(flatten)]
    pub(super) github: GithubArgs,
}

/// A value that is not empty (an empty `--workflow`, `--branch` or `--event` names nothing).
pub(super) fn non_empty(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("an empty value names nothing".into())
    } else {
        Ok(text.to_string())
    }
}

#[derive(Args, Debug)]
#[command(
    after_help = "Example (the store made once by init: record refuses a missing one):\n  deferral-host --store sqlite:/var/lib/deferral/host.db init\n  deferral-host --store sqlite:/var/lib/deferral/host.db \\\n    record --launch 'exec:/usr/local/bin/resume-sync' receipt.json"
)]
pub(super) struct RecordArgs {
    /// Launch target: `exec:/ABSOLUTE/PROGRAM [ARGS]` (run directly, no shell; quote arguments
    /// with '...' or "...") or `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`.
    #[arg(long, value_name = "TARGET")]
    pub(super) launch: String,
    /// Fresh-process launches allowed before a still-deferred deferral is blocked.
    #[arg(long, default_value_t = DEFAULT_MAX_REENTRIES)]
    pub(super) max_reentries: u32,
    /// Artifact name the resume runs upload a new receipt under (followed by `tick`).
    #[arg(long, value_name = "NAME")]
    pub(super) artifact: Option<String>,
    /// Do not check that an `exec:` program exists here (it lives on the machine that runs tick).
    #[arg(long)]
    pub(super) no_check: bool,
    /// The quota pool it waits in (1 to 64 of A-Z a-z 0-9 . _ -; default: `default`).
    #[arg(long, value_name = "NAME")]
    pub(super) pool: Option<String>,
    /// Admitted before lower priorities of its pool; above 0 it may use the pool's urgent
    /// share (a whole number; default 0).
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub(super) priority: Option<i64>,
    /// Its pool takes turns between the fairness keys of one priority (default: OWNER/REPO/
    /// WORKFLOW of a workflow-dispatch target, `exec:PROGRAM` of an exec one).
    #[arg(long, value_name = "KEY")]
    pub(super) fairness_key: Option<String>,
    /// The gate's or resume's JSON line (`deferral gate ... > gate.json`), or a bare receipt;
    /// `-` for stdin.
    #[arg(value_name = "GATE_OR_RECEIPT_FILE|-")]
    pub(super) receipt: String,
}

#[derive(Args, Debug)]
pub(super) struct StatusArgs {
    /// One JSON document instead of a table.
    #[arg(long)]
    pub(super) json: bool,
    /// Only deferrals in this state.
    #[arg(long, value_parser = parse_state)]
    pub(super) state: Option<State>,
    /// At most this many rows.
    #[arg(long)]
    pub(super) limit: Option<usize>,
    /// Write a self-contained HTML page (counts per state, the 100 earliest pending windows,
    /// the 100 latest outcomes; --state and --limit narrow what it draws) to this file, as a
    /// new file (mode 0600) renamed over it: a symlink there is replaced, never written
    /// through. stdout then says what was written.
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
    /// Each pool's state instead (windows, what is admitted, what is held and why).
    #[arg(long, conflicts_with_all = ["html", "state", "id"])]
    pub(super) pools: bool,
    /// One deferral only.
    pub(super) id: Option<String>,
}

#[derive(Args, Debug)]
pub(super) struct ShowArgs {
    /// JSON instead of text.
    #[arg(long)]
    pub(super) json: bool,
    pub(super) id: String,
}

#[derive(Args, Debug)]
pub(super) struct CancelArgs {
    pub(super) id: String,
    /// The raw cancellation handle `record` printed.
    #[arg(long, env = "DEFERRAL_CANCELLATION_HANDLE", hide_env_values = true)]
    pub(super) handle: String,
}

#[derive(Args, Debug)]
#[command(
    after_help = "The blocked deferral stays as it was; the new one has the same receipt bindings and window,\na fresh re-entry count, and the same cancellation handle. An expired window cannot be retried:\nrun the gate again and record its new receipt.\n\nExample:\n  deferral-host --store sqlite:/var/lib/deferral/host.db retry d_0123 --handle \"$HANDLE\" \\\n    --launch 'exec:/usr/local/bin/resume-sync'"
)]
pub(super) struct RetryArgs {
    /// The blocked deferral.
    pub(super) id: String,
    /// The raw cancellation handle `record` printed.
    #[arg(long, env = "DEFERRAL_CANCELLATION_HANDLE", hide_env_values = true)]
    pub(super) handle: String,
    /// The launch target of the new deferral (default: the blocked one's).
    #[arg(long, value_name = "TARGET")]
    pub(super) launch: Option<String>,
    /// Fresh-process launches the new deferral allows (default: the blocked one's bound).
    #[arg(long)]
    pub(super) max_reentries: Option<u32>,
    /// Do not check that an `exec:` program exists here (it lives on the machine that runs tick).
    #[arg(long)]
    pub(super) no_check: bool,
}

#[derive(Args, Debug)]
pub(super) struct TickArgs {
    /// Print what would be expired, recovered and launched; change nothing.
    #[arg(long)]
    pub(super) dry_run: bool,
    #[command(flatten)]
    pub(super) scheduler: crate::flags::scheduler::SchedulerArgs,
    /// List a workflow's dispatched runs at most this often (default: every tick). With
    /// webhooks ending runs (serve --github-webhook-secret-file), `10m` makes polling the
    /// reconciler for a delivery that never came; a run gets this long for its delivery.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(super) follow_interval: Option<std::time::Duration>,
    /// No progress lines or summary on stderr (the JSON report on stdout stays).
    #[arg(long, short)]
    pub(super) quiet: bool,
    /// stderr as lines for people (`text`) or one JSON object a line (`json`).
    #[arg(long, value_enum, default_value = "text")]
    pub(super) log_format: crate::logs::LogFormat,
    /// After the tick (even a failed one; not with --dry-run), write its metrics to this file
    /// atomically, in Prometheus' text format, for node_exporter's textfile collector (name it
    /// `*.prom` in the collector's directory).
    #[arg(long, value_name = "PATH")]
    pub(super) metrics_file: Option<PathBuf>,
    /// Only these deferrals.
    pub(super) ids: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(super) enum OutcomeArg {
    Complete,
    Blocked,
    Deferred,
}

#[derive(Args, Debug)]
pub(super) struct ReportArgs {
    pub(super) id: String,
    /// The attempt number the launch was given (DEFERRAL_ATTEMPT / the `attempt` input).
    #[arg(long)]
    pub(super) attempt: u32,
    #[arg(long, value_enum)]
    pub(super) outcome: OutcomeArg,
    /// The attempt's wake-up handle, or the cancellation handle (operator).
    #[arg(long, env = "DEFERRAL_WAKEUP_HANDLE", hide_env_values = true)]
    pub(super) handle: String,
    /// With `--outcome deferred`: the new receipt file, or `-` for stdin.
    #[arg(value_name = "RECEIPT_FILE|-")]
    pub(super) receipt: Option<String>,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("answer").required(true).args(["dispatched", "not_dispatched"])))]
pub(super) struct ResolveArgs {
    pub(super) id: String,
    /// The cancellation handle.
    #[arg(long, env = "DEFERRAL_CANCELLATION_HANDLE", hide_env_values = true)]
    pub(super) handle: String,
    /// The run exists on GitHub: wait for its report.
    #[arg(long)]
    pub(super) dispatched: bool,
    /// No run was created: return the deferral to `deferred` (counts the re-entry).
    #[arg(long)]
    pub(super) not_dispatched: bool,
}

pub(super) const SERVE_HELP: &str = "\
The token comes from --token-file (first line) or DEFERRAL_SERVE_TOKEN, at least 16 characters;
every request must send `Authorization: Bearer TOKEN`. Bodies are JSON, at most 16 KiB.

Endpoints:
  POST /v1/deferrals                {\"receipt\",\"launch\",\"max_reentries\"?,\"pool\"?,\"cost\"?,\"rate\"?,\"priority\"?,\"fairness_key\"?}
                                    201 {\"id\",\"receipt\",\"cancellation_handle\"}
                                    200 {\"id\",\"already_recorded\":true,\"state\"} when recorded before
  POST /v1/admissions               {\"pool\",\"cost\",\"rate\"}  201 {\"admitted\":true,\"admission\",\"expires_ms\",\"window\"}
                                    200 {\"admitted\":false,\"reason\",\"window\"} (defer to the window's reset)
  POST /v1/admissions/SEQ/release   {\"rate\"?}  200 {\"released\":true} | {\"released\":false,\"already\":true}
  GET  /v1/pools                    200 each pool's state, as `status --pools --json` prints it
  GET  /                            200 the status page (HTML, as `status --html` writes it)
  GET  /metrics                     200 Prometheus' text format (docs/host-api.md, Metrics)
  GET  /healthz                     200 {\"alive\":true} (no token needed)
  GET  /readyz                      200 {\"ready\":true} when the store answers, else 503 (no token needed)
  GET  /v1/deferrals/ID             200 the deferral as `status --json ID` prints it
  GET  /v1/receipts/DIGEST          200 the same, found by a receipt's digest (recorded or issued)
  POST /v1/deferrals/ID/cancel      {\"handle\"}                                 200 {\"id\",\"state\",\"cause\"}
  POST /v1/deferrals/ID/retry       {\"handle\",\"launch\"?,\"max_reentries\"?}      201 {\"id\",\"retry_of\",...,\"receipt\"}
  POST /v1/deferrals/ID/claim       {\"wakeup_handle\"}                          200 {\"id\",\"state\",\"attempt\",...,\"receipt\"}
  POST /v1/deferrals/ID/outcome     {\"attempt\",\"outcome\",\"handle\",\"receipt\"?}  200 {\"id\",\"state\",\"cause\"[,\"receipt\"]}
  POST /v1/github/webhook           GitHub's deliveries (with --github-webhook-secret-file; signed,
                                    no token): 200 queued | already, 202 ignored, 401 bad-signature,
                                    413 over --webhook-max-body-bytes (1 MiB), 415 not
                                    application/json, 503 busy past --webhook-connections
                                    (docs/host-github.md, Webhooks; docs/security.md)

Errors: {\"error\":{\"code\",\"message\"[,\"path\"]}} with 400 invalid-request (and, from
/v1/admissions, invalid-pool | invalid-cost | invalid-rate-state), 401 unauthorized,
403 wrong-handle | launch-not-allowed, 404 not-found | unknown-route, 405 method-not-allowed,
409 illegal-transition | stale-attempt | not-resumable | lease-expired | conflict | pool-busy,
408 timeout, 411 length-required, 413 body-too-large, 422 receipt errors | already-retained |
expired | invalid-launch | missing-receipt | binding-mismatch | gate-not-deferred | invalid-cost |
invalid-rate-state | invalid-pool, 500 store failures,
501 unsupported-transfer-encoding, 503 busy | stopping.

Connections are kept alive; at --max-connections the oldest idle one is closed for a new one.
A request (head and body) must arrive within --request-timeout-ms of the connection's start or
its previous answer. Concurrent records are committed together (one transaction, one fsync).
Prints {\"listening\":\"ADDR\"} on stdout when ready; SIGTERM or SIGINT stops it within 5 s.
Example (the store made once by init: serve refuses a missing one and does not start):
  deferral-host --store sqlite:/var/lib/deferral/host.db init
  DEFERRAL_SERVE_TOKEN=$(cat /etc/deferral/token) deferral-host --store sqlite:/var/lib/deferral/host.db serve
See docs/host-api.md (serve) for curl examples.";

#[derive(Args, Debug)]
#[command(after_help = SERVE_HELP)]
pub(super) struct ServeArgs {
    #[command(flatten)]
    pub(super) port: crate::flags::port::PortArgs,
    /// stderr as lines for people (`text`) or one JSON object a line (`json`).
    #[arg(long, value_enum, default_value = "text")]
    pub(super) log_format: crate::logs::LogFormat,
    /// After a pool's window resets, admissions count the new window only this long after
    /// (as `tick --pool-buffer`; give both the same).
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub(super) pool_buffer: std::time::Duration,
    /// GitHub's webhooks (docs/host-github.md, Webhooks).
    #[command(flatten)]
    pub(super) webhook: crate::flags::webhook::WebhookArgs,
    /// The credentials webhooks follow runs with (GITHUB_TOKEN or the App's).
    #[command(flatten)]
    pub(super) github: GithubArgs,
    /// Timeout of each GitHub request (webhooks).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub(super) http_timeout: std::time::Duration,
    /// A fairness key's jobs per turn in a pool (repeatable; default 1 each).
    #[arg(long = "pool-weight", value_name = "POOL:KEY=N")]
    pub(super) pool_weights: Vec<String>,
    /// The fraction of each window of a pool (above its reserve) that only priority > 0 may
    /// use (repeatable; default 0; as `tick`'s:
    /// give both the same).
    #[arg(long = "pool-urgent-share", value_name = "POOL=F")]
    pub(super) pool_urgent_shares: Vec<String>,
}

pub(super) fn parse_state(text: &str) -> Result<State, String> {
    State::parse(text).ok_or_else(|| format!("{text:?} is not a state"))
}
