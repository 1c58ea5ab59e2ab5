//! The `deferral-host` command line: parses arguments, opens the store, runs one command,
//! prints its result (one JSON line, or a table for people) and returns the exit code.

use crate::clock::{iso8601, now_ms, parse_duration};
use crate::coordinator::{self, Reported};
use crate::error::{HostError, HostErrorKind, EXIT_OK};
use crate::github::options::{GithubArgs, GithubEnv};
use crate::human_time::relative;
use crate::launch::{LaunchPolicy, Launchers};
use crate::store::{
    AttemptStatus, Deferral, IntegrityCheck, ListQuery, RecordKeys, Store, StoreUrl,
};
use crate::tick::{self, TickOptions};
use crate::view::answers::{ResolvedView, StateView};
pub use crate::view::deferral_json;
use crate::view::{self, deferral_with_run as with_run};
use clap::{Args, Parser, Subcommand, ValueEnum};
use deferral_core::lifecycle::{State, DEFAULT_MAX_REENTRIES};
use serde_json::{json, Value};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;

/// Prints one line on stdout. When the reader has gone away (`deferral-host show ID | head`)
/// the process ends quietly instead of panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

const AFTER_HELP: &str = "\
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
    /// The store: `sqlite:PATH` or a bare path to the SQLite file (created if missing), or
    /// `postgres://USER[:PASSWORD]@HOST:PORT/DB` (also `postgresql://`) for several replicas and
    /// tickers sharing one database; tables are created on first use; TLS with
    /// `?sslmode=verify-full&sslrootcert=CA.pem` (also disable, prefer, require, verify-ca).
    #[arg(long, global = true, env = "DEFERRAL_STORE", value_name = "URL")]
    store: Option<String>,

    /// Check run when the store is opened (`full` reads every page; `quick` skips index cross-checks).
    #[arg(long, global = true, value_enum, default_value = "full")]
    integrity: Integrity,

    #[command(subcommand)]
    command: Command,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Integrity {
    Full,
    Quick,
    Off,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    /// Create the store (tables included) if it does not exist yet; other commands refuse a missing one.
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
}

#[derive(Args, Debug)]
#[command(
    after_help = "Needs GITHUB_TOKEN (actions: read) or a GitHub App; GITHUB_API_URL for GitHub Enterprise Server.\n\nExample (cron):\n  deferral-host --store sqlite:/var/lib/deferral/host.db watch octo/app \\\n    --workflow gate.yml --launch workflow-dispatch:octo/app/resume.yml@main && deferral-host --store sqlite:/var/lib/deferral/host.db tick"
)]
struct WatchArgs {
    /// The repository whose artifacts to ingest.
    #[arg(value_name = "OWNER/REPO")]
    repo: String,
    /// Launch target of the deferrals it records.
    #[arg(long, value_name = "TARGET")]
    launch: String,
    /// Artifact name the deferring runs upload their receipt under.
    #[arg(long, default_value = crate::github::DEFAULT_ARTIFACT, value_name = "NAME")]
    artifact: String,
    /// Ingest only runs of this workflow (repeatable; default: every workflow): a file name in
    /// .github/workflows (`gate.yml`) or the run's whole path (`.github/workflows/gate.yml`).
    #[arg(long = "workflow", value_name = "FILE", value_parser = non_empty)]
    workflows: Vec<String>,
    /// Ingest only runs on this branch (repeatable; default: the repository's default branch).
    #[arg(long = "branch", value_name = "NAME", value_parser = non_empty)]
    branches: Vec<String>,
    /// Ingest only runs of this event (repeatable; default: every event but pull_request and
    /// pull_request_target). A fork's run is never ingested, whatever is named.
    #[arg(long = "event", value_name = "NAME", value_parser = non_empty)]
    events: Vec<String>,
    /// Fresh-process launches allowed before a still-deferred deferral is blocked.
    #[arg(long, default_value_t = DEFAULT_MAX_REENTRIES)]
    max_reentries: u32,
    /// The quota pool its deferrals wait in (default: `default`).
    #[arg(long, value_name = "NAME")]
    pool: Option<String>,
    /// Timeout of each GitHub request.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    http_timeout: std::time::Duration,
    #[command(flatten)]
    github: GithubArgs,
}

/// A value that is not empty (an empty `--workflow`, `--branch` or `--event` names nothing).
fn non_empty(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("an empty value names nothing".into())
    } else {
        Ok(text.to_string())
    }
}

#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  deferral-host --store sqlite:/var/lib/deferral/host.db \\\n    record --launch 'exec:/usr/local/bin/resume-sync' receipt.json"
)]
struct RecordArgs {
    /// Launch target: `exec:/ABSOLUTE/PROGRAM [ARGS]` (run directly, no shell; quote arguments
    /// with '...' or "...") or `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`.
    #[arg(long, value_name = "TARGET")]
    launch: String,
    /// Fresh-process launches allowed before a still-deferred deferral is blocked.
    #[arg(long, default_value_t = DEFAULT_MAX_REENTRIES)]
    max_reentries: u32,
    /// Artifact name the resume runs upload a new receipt under (followed by `tick`).
    #[arg(long, value_name = "NAME")]
    artifact: Option<String>,
    /// Do not check that an `exec:` program exists here (it lives on the machine that runs tick).
    #[arg(long)]
    no_check: bool,
    /// The quota pool it waits in (1 to 64 of A-Z a-z 0-9 . _ -; default: `default`).
    #[arg(long, value_name = "NAME")]
    pool: Option<String>,
    /// The gate's or resume's JSON line (`deferral gate ... > gate.json`), or a bare receipt;
    /// `-` for stdin.
    #[arg(value_name = "GATE_OR_RECEIPT_FILE|-")]
    receipt: String,
}

#[derive(Args, Debug)]
struct StatusArgs {
    /// One JSON document instead of a table.
    #[arg(long)]
    json: bool,
    /// Only deferrals in this state.
    #[arg(long, value_parser = parse_state)]
    state: Option<State>,
    /// At most this many rows.
    #[arg(long)]
    limit: Option<usize>,
    /// Write a self-contained HTML page (counts per state, the 100 earliest pending windows,
    /// the 100 latest outcomes; --state and --limit narrow what it draws) to this file, as a
    /// new file (mode 0600) renamed over it: a symlink there is replaced, never written
    /// through. stdout then says what was written.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Each pool's state instead (windows, what is admitted, what is held and why).
    #[arg(long, conflicts_with_all = ["html", "state", "id"])]
    pools: bool,
    /// One deferral only.
    id: Option<String>,
}

#[derive(Args, Debug)]
struct ShowArgs {
    /// JSON instead of text.
    #[arg(long)]
    json: bool,
    id: String,
}

#[derive(Args, Debug)]
struct CancelArgs {
    id: String,
    /// The raw cancellation handle `record` printed.
    #[arg(long, env = "DEFERRAL_CANCELLATION_HANDLE", hide_env_values = true)]
    handle: String,
}

#[derive(Args, Debug)]
#[command(
    after_help = "The blocked deferral stays as it was; the new one has the same receipt bindings and window,\na fresh re-entry count, and the same cancellation handle. An expired window cannot be retried:\nrun the gate again and record its new receipt.\n\nExample:\n  deferral-host --store sqlite:/var/lib/deferral/host.db retry d_0123 --handle \"$HANDLE\" \\\n    --launch 'exec:/usr/local/bin/resume-sync'"
)]
struct RetryArgs {
    /// The blocked deferral.
    id: String,
    /// The raw cancellation handle `record` printed.
    #[arg(long, env = "DEFERRAL_CANCELLATION_HANDLE", hide_env_values = true)]
    handle: String,
    /// The launch target of the new deferral (default: the blocked one's).
    #[arg(long, value_name = "TARGET")]
    launch: Option<String>,
    /// Fresh-process launches the new deferral allows (default: the blocked one's bound).
    #[arg(long)]
    max_reentries: Option<u32>,
    /// Do not check that an `exec:` program exists here (it lives on the machine that runs tick).
    #[arg(long)]
    no_check: bool,
}

#[derive(Args, Debug)]
struct TickArgs {
    /// Print what would be expired, recovered and launched; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// How long a launch may hold its lease (an exec process is killed before it ends).
    #[arg(long, default_value = "15m", value_parser = parse_duration)]
    lease_timeout: std::time::Duration,
    /// Timeout of each GitHub request.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    http_timeout: std::time::Duration,
    /// At most this many deferrals of each kind of work per tick.
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    /// Successors a chain of progress may have before it is blocked (`chain-limit`).
    #[arg(long, default_value_t = coordinator::DEFAULT_MAX_CHAIN)]
    max_chain: u32,
    /// After a pool's window resets, wait this long before admitting into the new one.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pool_buffer: std::time::Duration,
    /// Plus a random wait of up to this long (several hosts sharing a quota spread out).
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pool_jitter: std::time::Duration,
    /// Before admission, read GET /rate_limit with the host's GitHub credentials (free of
    /// primary quota) and teach this pool what is left: the pool those credentials spend.
    #[arg(long, value_name = "NAME")]
    rate_limit_pool: Option<String>,
    /// With a GitHub App: the repository (OWNER/REPO) whose installation's quota is that pool.
    #[arg(long, value_name = "OWNER/REPO")]
    rate_limit_repo: Option<String>,
    #[command(flatten)]
    github: GithubArgs,
    /// No progress lines or summary on stderr (the JSON report on stdout stays).
    #[arg(long, short)]
    quiet: bool,
    /// stderr as lines for people (`text`) or one JSON object a line (`json`).
    #[arg(long, value_enum, default_value = "text")]
    log_format: crate::logs::LogFormat,
    /// After the tick (even a failed one; not with --dry-run), write its metrics to this file
    /// atomically, in Prometheus' text format, for node_exporter's textfile collector (name it
    /// `*.prom` in the collector's directory).
    #[arg(long, value_name = "PATH")]
    metrics_file: Option<PathBuf>,
    /// Only these deferrals.
    ids: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum OutcomeArg {
    Complete,
    Blocked,
    Deferred,
}

#[derive(Args, Debug)]
struct ReportArgs {
    id: String,
    /// The attempt number the launch was given (DEFERRAL_ATTEMPT / the `attempt` input).
    #[arg(long)]
    attempt: u32,
    #[arg(long, value_enum)]
    outcome: OutcomeArg,
    /// The attempt's wake-up handle, or the cancellation handle (operator).
    #[arg(long, env = "DEFERRAL_WAKEUP_HANDLE", hide_env_values = true)]
    handle: String,
    /// With `--outcome deferred`: the new receipt file, or `-` for stdin.
    #[arg(value_name = "RECEIPT_FILE|-")]
    receipt: Option<String>,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("answer").required(true).args(["dispatched", "not_dispatched"])))]
struct ResolveArgs {
    id: String,
    /// The cancellation handle.
    #[arg(long, env = "DEFERRAL_CANCELLATION_HANDLE", hide_env_values = true)]
    handle: String,
    /// The run exists on GitHub: wait for its report.
    #[arg(long)]
    dispatched: bool,
    /// No run was created: return the deferral to `deferred` (counts the re-entry).
    #[arg(long)]
    not_dispatched: bool,
}

const SERVE_HELP: &str = "\
The token comes from --token-file (first line) or DEFERRAL_SERVE_TOKEN, at least 16 characters;
every request must send `Authorization: Bearer TOKEN`. Bodies are JSON, at most 16 KiB.

Endpoints:
  POST /v1/deferrals                {\"receipt\",\"launch\",\"max_reentries\"?,\"pool\"?,\"cost\"?,\"rate\"?}
                                    201 {\"id\",\"receipt\",\"cancellation_handle\"}
                                    200 {\"id\",\"already_recorded\":true,\"state\"} when recorded before
  POST /v1/admissions               {\"pool\",\"cost\",\"rate\"}  201 {\"admitted\":true,\"admission\",\"expires_ms\",\"window\"}
                                    200 {\"admitted\":false,\"reason\",\"window\"} (defer to the window's reset)
  POST /v1/admissions/SEQ/release   {\"rate\"?}  200 {\"released\":true} | {\"released\":false,\"already\":true}
  GET  /v1/pools                    200 each pool's state, as `status --pools --json` prints it
  GET  /                            200 the status page (HTML, as `status --html` writes it)
  GET  /metrics                     200 Prometheus' text format (docs/host.md, Metrics)
  GET  /v1/deferrals/ID             200 the deferral as `status --json ID` prints it
  GET  /v1/receipts/DIGEST          200 the same, found by a receipt's digest (recorded or issued)
  POST /v1/deferrals/ID/cancel      {\"handle\"}                                 200 {\"id\",\"state\",\"cause\"}
  POST /v1/deferrals/ID/retry       {\"handle\",\"launch\"?,\"max_reentries\"?}      201 {\"id\",\"retry_of\",...,\"receipt\"}
  POST /v1/deferrals/ID/claim       {\"wakeup_handle\"}                          200 {\"id\",\"state\",\"attempt\",...,\"receipt\"}
  POST /v1/deferrals/ID/outcome     {\"attempt\",\"outcome\",\"handle\",\"receipt\"?}  200 {\"id\",\"state\",\"cause\"[,\"receipt\"]}

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
Example:
  DEFERRAL_SERVE_TOKEN=$(cat /etc/deferral/token) deferral-host --store sqlite:/var/lib/deferral/host.db serve
See docs/host.md (serve) for curl examples.";

#[derive(Args, Debug)]
#[command(after_help = SERVE_HELP)]
struct ServeArgs {
    /// Address to listen on (port 0: any free port). Anything but loopback prints a warning.
    #[arg(long, default_value = "127.0.0.1:8787", value_name = "ADDR:PORT")]
    listen: String,
    /// File whose first line is the bearer token (instead of DEFERRAL_SERVE_TOKEN).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// A launch target a request may name (repeatable): `exec:/ABS/PROGRAM` (that program with
    /// any arguments), `exec:/ABS/PROGRAM ARGS` (exactly those), a full
    /// `workflow-dispatch:O/R/W@REF`, or `exec:` / `workflow-dispatch:` alone for any target of
    /// that kind. Never a prefix. Default: `workflow-dispatch:` only, since an `exec:` target
    /// runs a program on this host.
    #[arg(long, value_name = "TARGET")]
    allow_launch: Vec<String>,
    /// Open connections at most; at the cap a new connection sheds the oldest idle one.
    #[arg(long, default_value_t = 256, value_name = "N")]
    max_connections: usize,
    /// Milliseconds a client has, from connecting (or its previous answer), to send a whole
    /// request, head and body; also how long an idle kept-alive connection stays open.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    request_timeout_ms: u64,
    /// stderr as lines for people (`text`) or one JSON object a line (`json`).
    #[arg(long, value_enum, default_value = "text")]
    log_format: crate::logs::LogFormat,
    /// Do not check that `exec:` programs (allowed or requested) exist here (they live on the
    /// machine that runs tick).
    #[arg(long)]
    no_check: bool,
    /// After a pool's window resets, admissions count the new window only this long after
    /// (as `tick --pool-buffer`; give both the same).
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pool_buffer: std::time::Duration,
}

/// `tick --rate-limit-pool NAME [--rate-limit-repo OWNER/REPO]`, checked: a pool name, GitHub
/// credentials to read with, and with a GitHub App the repository whose installation it is.
fn rate_limit_pool(
    args: &TickArgs,
    credentials: bool,
) -> Result<Option<crate::tick::rate_limit::RateLimitPool>, HostError> {
    let bad = |message: &str| HostError::new(HostErrorKind::InvalidGithub, message);
    let Some(pool) = &args.rate_limit_pool else {
        if args.rate_limit_repo.is_some() {
            return Err(bad("--rate-limit-repo goes with --rate-limit-pool NAME"));
        }
        return Ok(None);
    };
    crate::pools::check_name(pool)?;
    if !credentials {
        return Err(HostError::new(
            HostErrorKind::NoGithubCredentials,
            "--rate-limit-pool reads GET /rate_limit: it needs GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key",
        ));
    }
    if let Some(repo) = &args.rate_limit_repo {
        crate::launch::github_names::check_repo(repo)?;
    } else if args.github.github_app_id.is_some() {
        return Err(bad(
            "--rate-limit-pool with a GitHub App needs --rate-limit-repo OWNER/REPO: the repository whose installation's quota the pool is",
        ));
    }
    let reserve = deferral_core::decision::Reserve::parse(&args.github.github_reserve)
        .ok_or_else(|| bad("--github-reserve is neither a count nor a percentage"))?;
    Ok(Some(crate::tick::rate_limit::RateLimitPool {
        pool: pool.clone(),
        repo: args.rate_limit_repo.clone(),
        reserve,
    }))
}

fn serve_token(args: &ServeArgs) -> Result<String, HostError> {
    let token = match &args.token_file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| {
                HostError::new(
                    HostErrorKind::NoToken,
                    format!("cannot read the token file {}: {e}", path.display()),
                )
            })?
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string(),
        None => std::env::var("DEFERRAL_SERVE_TOKEN")
            .unwrap_or_default()
            .trim()
            .to_string(),
    };
    if token.len() < crate::serve::MIN_TOKEN_LEN {
        return Err(HostError::new(
            HostErrorKind::NoToken,
            "serve needs a bearer token of at least 16 characters: --token-file FILE or DEFERRAL_SERVE_TOKEN",
        ));
    }
    Ok(token)
}

fn parse_state(text: &str) -> Result<State, String> {
    State::parse(text).ok_or_else(|| format!("{text:?} is not a state"))
}

fn store_url(cli: &Cli) -> Result<StoreUrl, HostError> {
    let url = cli.store.as_deref().ok_or_else(|| {
        HostError::new(
            HostErrorKind::NoStore,
            "give the store with --store sqlite:PATH or postgres://USER@HOST:PORT/DB (or DEFERRAL_STORE)",
        )
    })?;
    StoreUrl::parse(url).map_err(|message| {
        let kind = if url.contains("://") {
            HostErrorKind::UnsupportedStore
        } else {
            HostErrorKind::NoStore
        };
        HostError::new(kind, message)
    })
}

fn integrity(cli: &Cli) -> IntegrityCheck {
    match cli.integrity {
        Integrity::Full => IntegrityCheck::Full,
        Integrity::Quick => IntegrityCheck::Quick,
        Integrity::Off => IntegrityCheck::Off,
    }
}

/// Opens a store that exists (`store-not-found` otherwise): every command but those below.
fn open_store(cli: &Cli) -> Result<Box<dyn Store + Send>, HostError> {
    Ok(store_url(cli)?.open_existing(integrity(cli))?)
}

/// Opens the store, creating it if needed: `init`, `record` and `serve` only.
fn create_store(cli: &Cli) -> Result<Box<dyn Store + Send>, HostError> {
    Ok(store_url(cli)?.open(integrity(cli))?)
}

fn read_input(source: &str) -> Result<Vec<u8>, HostError> {
    let mut bytes = Vec::new();
    let limit = 1 << 20;
    let result = if source == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(source).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    result.map_err(|e| {
        HostError::new(
            HostErrorKind::UnreadableInput,
            format!("cannot read {source}: {e}"),
        )
    })?;
    Ok(bytes)
}

/// Runs the command line and returns the process exit code.
pub fn run() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return crate::usage::report(&err),
    };
    match execute(&cli) {
        Ok(()) => EXIT_OK,
        Err(err) => {
            out!("{}", err.to_json_value());
            if crate::logs::is_json() {
                let fields = err.to_json_value()["error"].clone();
                crate::logs::json("error", "host", "error", fields);
                return err.exit_code;
            }
            eprintln!(
                "deferral-host: {}{}",
                err,
                err.path
                    .as_ref()
                    .map(|p| format!(" (at {p})"))
                    .unwrap_or_default()
            );
            err.exit_code
        }
    }
}

fn execute(cli: &Cli) -> Result<(), HostError> {
    match &cli.command {
        Command::Record(args) => {
            // Read and check the input before touching the store: invalid input stores nothing.
            let text = read_input(&args.receipt)?;
            let input = crate::pools::line::record_input(&text)?;
            deferral_core::receipt::validate(&input.receipt)?;
            let tag = crate::pools::tag(args.pool.as_deref(), None, now_ms())?;
            let target = Launchers::builtin().parse(&args.launch)?;
            if !args.no_check {
                target.check_installed()?;
            }
            let store = create_store(cli)?;
            let keys = RecordKeys {
                artifact_name: args.artifact.clone(),
                pool: Some(tag),
                ..RecordKeys::default()
            };
            let recording = coordinator::record_with(
                &*store,
                &text,
                &args.launch,
                args.max_reentries,
                keys,
                now_ms(),
            )?;
            let rec = match recording {
                coordinator::Recording::New(rec) => rec,
                coordinator::Recording::Existing(d) => {
                    crate::retry::check_same_launch(&d, &args.launch)?;
                    out!(
                        "{}",
                        json!({"id": d.id, "already_recorded": true, "state": d.state.as_str()})
                    );
                    return Ok(());
                }
            };
            // Written by hand so the receipt keeps the contract's field order.
            out!(
                "{{\"id\":{},\"receipt\":{},\"cancellation_handle\":{}}}",
                Value::String(rec.deferral.id),
                rec.receipt.to_json(),
                Value::String(rec.cancellation_handle.clone())
            );
            if std::io::stderr().is_terminal() {
                eprintln!(
                    "\nkeep this cancellation handle: it is shown once\n{}\n",
                    rec.cancellation_handle
                );
            }
            Ok(())
        }
        Command::Status(args) => {
            let store = open_store(cli)?;
            if args.pools {
                if args.json {
                    out!("{}", crate::pools::view::pools_json(&*store, now_ms())?);
                } else {
                    print!("{}", crate::pools::view::pools_text(&*store, now_ms())?);
                }
                return Ok(());
            }
            if let Some(path) = &args.html {
                // Only what the page draws (as `GET /` reads it), whatever the store holds.
                let rows = match &args.id {
                    Some(id) => vec![coordinator::load(&*store, id)?],
                    None => crate::html::page_rows(
                        &*store,
                        args.state,
                        args.limit.unwrap_or(crate::html::MAX_ROWS),
                    )?,
                };
                let page = crate::html::status_page(&store.count_by_state()?, &rows, now_ms());
                let page = crate::pools::view::with_held_section(&*store, page, now_ms())?;
                crate::html::write_page_file(path, &page)?;
                out!(
                    "{}",
                    json!({"html": path.display().to_string(), "bytes": page.len(), "deferrals": rows.len()})
                );
                return Ok(());
            }
            let rows = match &args.id {
                Some(id) => vec![coordinator::load(&*store, id)?],
                None => store.list(&ListQuery {
                    state: args.state,
                    limit: args.limit,
                })?,
            };
            if args.json {
                let mut pools = crate::pools::view::Pools::default();
                let now = now_ms();
                let list: Vec<Value> = rows
                    .iter()
                    .map(|d| {
                        let mut view = with_run(&*store, d);
                        pools.annotate(&*store, d, &mut view, now);
                        view
                    })
                    .collect();
                match &args.id {
                    Some(_) => out!("{}", list[0]),
                    None => out!("{}", json!({ "deferrals": list })),
                }
            } else {
                let mut text = status_table(&rows, now_ms());
                // The workflow run of each current attempt that has one, below the table.
                let mut pools = crate::pools::view::Pools::default();
                for d in &rows {
                    if let Some(url) = run_url(&*store, d) {
                        text.push_str(&format!("run of {}: {}\n", d.id, printable(&url)));
                    }
                    if let Some(why) = pools.held_text(&*store, d, now_ms()) {
                        text.push_str(&format!("held {}: {}\n", d.id, printable(&why)));
                    }
                }
                print!("{text}");
            }
            Ok(())
        }
        Command::Show(args) => {
            let store = open_store(cli)?;
            let d = coordinator::load(&*store, &args.id)?;
            let receipts = store.receipts(&d.id)?;
            let events = store.events(&d.id)?;
            if args.json {
                let receipts: Vec<Value> = receipts
                    .iter()
                    .map(|r| {
                        json!({"seq": r.seq, "kind": r.kind, "sha256": r.sha256, "created_ms": r.created_ms,
                               "current": r.seq == d.receipt_seq, "receipt": serde_json::from_str::<Value>(&r.text).unwrap_or(Value::String(r.text.clone()))})
                    })
                    .collect();
                let events: Vec<Value> = events
                    .iter()
                    .map(|e| {
                        json!({"seq": e.seq, "at_ms": e.at_ms, "at": iso8601(e.at_ms), "event": e.event,
                               "from": e.from_state.map(State::as_str), "to": e.to_state.as_str(), "cause": e.cause,
                               "fence": e.fence, "reentries": e.reentries, "detail": e.detail})
                    })
                    .collect();
                let mut view = with_run(&*store, &d);
                crate::pools::view::Pools::default().annotate(&*store, &d, &mut view, now_ms());
                let observations = crate::pools::view::observations_json(&*store, &d.id)?;
                out!(
                    "{}",
                    json!({"deferral": view, "receipts": receipts, "events": events, "observations": observations})
                );
            } else {
                let mut text = show_text(&d, &receipts, &events, now_ms());
                if let Some(url) = run_url(&*store, &d) {
                    let url = printable(&url);
                    text = text.replacen("\nfence ", &format!("\nrun           {url}\nfence "), 1);
                }
                let link = store.retry_link(&d.id)?;
                for (name, other) in [("retry-of", link.retry_of), ("retried-by", link.retried_by)]
                {
                    if let Some(other) = other {
                        let line = format!("\n{name:<14}{}\nfence ", printable(&other));
                        text = text.replacen("\nfence ", &line, 1);
                    }
                }
                let mut pools = crate::pools::view::Pools::default();
                if let Some(why) = pools.held_text(&*store, &d, now_ms()) {
                    let why = printable(&why);
                    text = text.replacen("\nfence ", &format!("\nheld          {why}\nfence "), 1);
                }
                print!("{text}");
            }
            Ok(())
        }
        Command::Cancel(args) => {
            let store = open_store(cli)?;
            let cancelled = crate::cancel::cancel_once(&*store, &args.id, &args.handle, now_ms())?;
            if let Some(message) = &cancelled.already {
                eprintln!("{}: {message}", args.id);
            }
            out!("{}", cancelled.to_json());
            Ok(())
        }
        Command::Retry(args) => {
            let store = open_store(cli)?;
            let request = crate::retry::RetryRequest {
                id: &args.id,
                handle: &args.handle,
                launch: args.launch.as_deref(),
                max_reentries: args.max_reentries,
                check_program: !args.no_check,
            };
            let retried = crate::retry::retry(&*store, &request, now_ms())?;
            out!("{}", retried.to_json());
            if std::io::stderr().is_terminal() {
                eprintln!(
                    "\n{} retries {}; the same cancellation handle cancels it\n",
                    retried.deferral.id, retried.retry_of
                );
            }
            Ok(())
        }
        Command::Init => {
            let url = store_url(cli)?;
            let existed = url.exists()?;
            drop(url.open(integrity(cli))?);
            let store = match &url {
                StoreUrl::Sqlite(path) => format!("sqlite:{}", path.display()),
                StoreUrl::Postgres(_) => "postgres".to_string(),
            };
            out!("{}", json!({"store": store, "created": !existed}));
            Ok(())
        }
        Command::Tick(args) => {
            crate::logs::set_format(args.log_format);
            let github = args.github.client(github_env(), args.http_timeout)?;
            let rate_limit = rate_limit_pool(args, github.is_some())?;
            let metrics = crate::metrics::tick_file::TickMetrics::new();
            let metrics_file = args.metrics_file.as_ref().filter(|_| !args.dry_run);
            let store = open_store(cli).inspect_err(|err| {
                if let Some(path) = metrics_file {
                    metrics.count_error(err);
                    let _ = metrics.write(path, None, Err(err), None);
                }
            })?;
            let store = crate::metrics::CountingStore::new(&*store, metrics.store_errors());
            let store: &dyn Store = &store;
            let options = TickOptions {
                dry_run: args.dry_run,
                lease_timeout: args.lease_timeout,
                ids: args.ids.clone(),
                limit: args.limit,
                http_timeout: args.http_timeout,
                github: if args.dry_run { None } else { github },
                max_chain: args.max_chain,
                pools: crate::pools::PoolOptions {
                    buffer: args.pool_buffer,
                    jitter: args.pool_jitter,
                },
                rate_limit,
                launchers: Launchers::builtin(),
            };
            let mut progress =
                crate::progress::TickProgress::new(std::io::stderr().is_terminal(), args.quiet);
            let report =
                tick::tick_observed(store, &options, now_ms, &mut |step| progress.step(step));
            let written = metrics_file.map(|path| {
                let calls = options.github.as_ref().map(|client| client.calls());
                metrics.write(path, Some(store), report.as_ref(), calls.as_ref())
            });
            let report = report?;
            let now = now_ms();
            let next = store.next_wakeup(now)?;
            progress.summary(&report, next.as_ref(), now);
            let mut json = report.to_json();
            json["next"] = crate::progress::next_json(next.as_ref(), now);
            out!("{json}");
            written.unwrap_or(Ok(()))
        }
        Command::Report(args) => {
            let receipt = match &args.receipt {
                Some(source) => Some(String::from_utf8(read_input(source)?).map_err(|_| {
                    HostError::new(HostErrorKind::MalformedJson, "the receipt is not UTF-8")
                })?),
                None => None,
            };
            let outcome = match args.outcome {
                OutcomeArg::Complete => Reported::Complete,
                OutcomeArg::Blocked => Reported::Blocked,
                OutcomeArg::Deferred => Reported::Deferred,
            };
            let store = open_store(cli)?;
            let d = coordinator::report(
                &*store,
                &args.id,
                args.attempt,
                &args.handle,
                outcome,
                receipt.as_deref(),
                now_ms(),
            )?;
            out!("{}", view::value(&StateView::of(&d)));
            Ok(())
        }
        Command::Serve(args) => {
            crate::logs::set_format(args.log_format);
            let token = serve_token(args)?;
            // Opened once here to migrate and check it; each worker then opens its own connection.
            drop(create_store(cli)?);
            let launchers = Launchers::builtin();
            let launch_policy = if args.allow_launch.is_empty() {
                LaunchPolicy::by_default(&launchers)
            } else {
                LaunchPolicy::parse(&launchers, &args.allow_launch)?
            };
            if !args.no_check {
                for target in launch_policy.targets() {
                    target.check_installed()?;
                }
            }
            crate::serve::serve(crate::serve::ServeOptions {
                listen: args.listen.clone(),
                token,
                store: store_url(cli)?,
                policy: crate::serve::Policy {
                    launch_policy,
                    check_programs: !args.no_check,
                    pools: crate::pools::PoolOptions {
                        buffer: args.pool_buffer,
                        ..crate::pools::PoolOptions::default()
                    },
                },
                limits: crate::serve::Limits {
                    max_connections: args.max_connections,
                    request_timeout: std::time::Duration::from_millis(args.request_timeout_ms),
                    ..crate::serve::Limits::default()
                },
            })
        }
        Command::Watch(args) => {
            crate::launch::github_names::check_repo(&args.repo)?;
            Launchers::builtin().parse(&args.launch)?;
            if let Some(pool) = &args.pool {
                crate::pools::check_name(pool)?;
            }
            let client = args
                .github
                .client(github_env(), args.http_timeout)?
                .ok_or_else(|| {
                    HostError::new(
                        HostErrorKind::NoGithubCredentials,
                        "watch needs GITHUB_TOKEN (or GH_TOKEN) or --github-app-id with --github-app-key",
                    )
                })?;
            let store = open_store(cli)?;
            let options = crate::github::watch::WatchOptions {
                repo: args.repo.clone(),
                launch: args.launch.clone(),
                artifact_name: args.artifact.clone(),
                max_reentries: args.max_reentries,
                pool: args.pool.clone(),
                trust: crate::github::trust::Trust {
                    workflows: args.workflows.clone(),
                    branches: args.branches.clone(),
                    events: args.events.clone(),
                },
            };
            let answer = crate::github::watch::watch(&*store, &client, &options, &now_ms)
                .map_err(|e| HostError::new(e.kind(), e.message()))?;
            out!("{answer}");
            Ok(())
        }
        Command::Resolve(args) => {
            let store = open_store(cli)?;
            let d =
                coordinator::resolve(&*store, &args.id, &args.handle, args.dispatched, now_ms())?;
            out!("{}", view::value(&ResolvedView::of(&d)));
            Ok(())
        }
    }
}

/// The GitHub token, API URL and proxy: the only environment the GitHub client reads.
fn github_env() -> GithubEnv {
    GithubEnv {
        token: github_token(),
        api_url: std::env::var("GITHUB_API_URL").ok(),
        proxy: crate::github::client::proxy_from_env(),
    }
}

/// The token as the `deferral` CLI reads it: `GITHUB_TOKEN`, else `GH_TOKEN` (the first that
/// is set and not blank).
fn github_token() -> Option<String> {
    ["GITHUB_TOKEN", "GH_TOKEN"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|token| !token.trim().is_empty())
}

/// The page of the current attempt's workflow run, when it has one.
fn run_url(store: &dyn Store, d: &Deferral) -> Option<String> {
    store.run_of(&d.id, d.reentries).ok().flatten()?.html_url
}

/// Text from the store as it may be printed to a terminal: every control character (escape
/// sequences, carriage returns, newlines) written as `\u{..}`, so stored text can neither
/// restyle the terminal nor fake a line of output.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn table(rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| printable(cell)).collect())
        .collect();
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// When a deferral is due, as a person reads it: `in 23 min`, `due now`, `launched`.
fn due_text(d: &Deferral, now: u64) -> String {
    match d.state {
        State::Deferred if now < d.resume_after_ms => relative(d.resume_after_ms, now),
        State::Deferred if now <= d.resume_by_ms => "due now".to_string(),
        State::Deferred => "expires at the next tick".to_string(),
        State::Resumable => "launched".to_string(),
        _ => "-".to_string(),
    }
}

fn status_table(rows: &[Deferral], now: u64) -> String {
    let mut cells = vec![[
        "ID",
        "STATE",
        "DUE",
        "CAUSE",
        "REASON",
        "RESUME-AFTER",
        "RESUME-BY",
        "RE-ENTRIES",
        "ATTEMPT",
    ]
    .map(String::from)
    .to_vec()];
    for d in rows {
        cells.push(vec![
            d.id.clone(),
            d.state.as_str().to_string(),
            due_text(d, now),
            d.cause.clone(),
            d.reason.clone(),
            iso8601(d.resume_after_ms),
            iso8601(d.resume_by_ms),
            format!("{}/{}", d.reentries, d.max_reentries),
            d.attempt_status
                .map_or("-", AttemptStatus::as_str)
                .to_string(),
        ]);
    }
    let mut out = table(&cells);
    out.push_str(&format!("{} deferral(s)\n", rows.len()));
    out
}

fn show_text(
    d: &Deferral,
    receipts: &[crate::store::StoredReceipt],
    events: &[crate::store::EventRecord],
    now: u64,
) -> String {
    let mut out = String::new();
    let field = |out: &mut String, name: &str, value: String| {
        out.push_str(&format!("{name:<14}{}\n", printable(&value)));
    };
    field(&mut out, "id", d.id.clone());
    field(
        &mut out,
        "state",
        format!(
            "{} ({}{})",
            d.state,
            d.cause,
            d.detail
                .as_ref()
                .map(|x| format!(": {x}"))
                .unwrap_or_default()
        ),
    );
    field(&mut out, "due", due_text(d, now));
    field(&mut out, "reason", d.reason.clone());
    field(&mut out, "resume-after", iso8601(d.resume_after_ms));
    field(&mut out, "resume-by", iso8601(d.resume_by_ms));
    field(
        &mut out,
        "re-entries",
        format!("{}/{}", d.reentries, d.max_reentries),
    );
    field(
        &mut out,
        "attempt",
        d.attempt_status
            .map_or("-", AttemptStatus::as_str)
            .to_string(),
    );
    field(&mut out, "launch", d.launch.clone());
    field(&mut out, "fence", d.fence.to_string());
    if let (Some(owner), Some(until)) = (&d.lease_owner, d.lease_until_ms) {
        field(
            &mut out,
            "lease",
            format!("{owner} until {}", iso8601(until)),
        );
    }
    out.push_str(&format!("\nreceipts ({}, append-only):\n", receipts.len()));
    for r in receipts {
        let current = if r.seq == d.receipt_seq {
            " (current)"
        } else {
            ""
        };
        out.push_str(&format!(
            "  #{} {} {} sha256 {}{current}\n    {}\n",
            r.seq,
            iso8601(r.created_ms),
            printable(&r.kind),
            printable(&r.sha256),
            printable(&r.text)
        ));
    }
    out.push_str(&format!("\nevents ({}, append-only):\n", events.len()));
    let mut cells = vec![[
        "AT",
        "EVENT",
        "FROM",
        "TO",
        "CAUSE",
        "FENCE",
        "RE-ENTRIES",
        "DETAIL",
    ]
    .map(String::from)
    .to_vec()];
    for e in events {
        cells.push(vec![
            iso8601(e.at_ms),
            e.event.clone(),
            e.from_state.map_or("-", State::as_str).to_string(),
            e.to_state.as_str().to_string(),
            e.cause.clone(),
            e.fence.to_string(),
            e.reentries.to_string(),
            e.detail.clone().unwrap_or_default(),
        ]);
    }
    for line in table(&cells).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    out
}
