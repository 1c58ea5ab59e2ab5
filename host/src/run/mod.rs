//! `deferral-host run`: the host as one long-running service over one store: the port of
//! `serve`, the scheduler of `tick` and, configured, the ingestion of `watch` (DESIGN section 10,
//! "One service"). The port and the scheduler call the same code as those commands do; what
//! this module adds is when a pass runs ([`scheduler`], [`wake`]), what wakes it (the port's
//! changes, PostgreSQL's notices in [`listen`], the signals in [`signals`]) and the
//! configuration file (read by `cli::config`, its `[[watch]]` tables in [`watches`]).

mod listen;
mod reload;
mod retention;
mod scheduler;
mod signals;
pub mod wake;
pub mod watches;

use crate::clock::parse_duration;
use crate::error::HostError;
use crate::flags::port::PortArgs;
use crate::flags::scheduler::SchedulerArgs;
use crate::flags::webhook::{Follow, WebhookSecretArgs};
use crate::github::options::GithubEnv;
use crate::serve::{Hooks, Port};
use crate::store::{IntegrityCheck, StoreUrl};
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use wake::Wake;

pub const RUN_HELP: &str = "\
One process instead of `serve`, `tick` from cron and `watch` from cron. It serves the port
(the endpoints of `serve --help`, and GET /healthz and GET /readyz without the token) and
launches each deferral within a second of its time: it sleeps until the next due deferral,
pool hold, lease end or follow, and wakes early when a request through the port changes
something or, on PostgreSQL, when another replica or command writes due work (LISTEN/NOTIFY).
Several `run` replicas on one PostgreSQL store launch each deferral once, with no leader.
With --github-webhook-secret-file it takes GitHub's webhooks at POST /v1/github/webhook (as
`serve` does): a completed run it dispatched ends at once, from its artifacts, and a run that
a [[watch]] table trusts has its receipt ingested; --follow-interval then defaults to 10m.
As a GitHub App with [[gate]] tables, a job waiting behind an environment whose protection
rule is the App is approved when its pool has room, rejected with why when it cannot start in
time (docs/environment-gate.md).
With --retention DURATION it removes ended deferrals older than that, with their rows, at start
and every hour, in small batches beside the scheduler (as `prune`; see `prune --help`).
On SQLite, a `record` from the command line (another process) is seen at the next pass, at
most --follow-interval later: record through the port to be launched on time.

Prints {\"listening\":\"ADDR\"} on stdout when ready; everything else goes to stderr.
SIGTERM or SIGINT: the port answers no more requests (503 stopping), the running pass ends
(an exec: launch runs until it exits, or is killed just before its lease ends), exit 0;
a second SIGTERM or SIGINT ends it at once (exit 1; the launch is recovered after its lease).
SIGHUP: reads --config again and applies what can change without a restart (the scheduler's
flags, --follow-interval, [[watch]], [[gate]], and the webhook's secrets, read again from their file, so a
secret is rotated without a restart); the secrets apply at once, even while a pass or a long
exec: launch runs, the scheduler's settings from its next pass. The port's flags, --store,
--retention and turning webhooks on or off need a restart. A configuration that does not check changes nothing.
A store file removed or replaced under `run` is refused from then on (`store-replaced`, and
GET /readyz answers 503) rather than written into a file no path names: restart on a store.

--config FILE (TOML): keys are the long flags without dashes in front, [[watch]] tables name
the repositories to ingest; a flag on the command line wins over the file:
  store = \"sqlite:/var/lib/deferral/host.db\"
  listen = \"127.0.0.1:8787\"
  token-file = \"/run/credentials/deferral-host.service/token\"
  allow-launch = [\"workflow-dispatch:\"]
  lease-timeout = \"15m\"
  github-webhook-secret-file = \"/run/credentials/deferral-host.service/webhook-secret\"
  retention = \"30d\"
  [[watch]]
  repo = \"octo/app\"
  launch = \"workflow-dispatch:octo/app/resume.yml@main\"
  workflow = \"gate.yml\"

Example (the store made once by init: run refuses a missing one and does not start):
  deferral-host --store sqlite:/var/lib/deferral/host.db init
  deferral-host run --config /etc/deferral/host.toml
See docs/host-service.md (run) for the systemd unit.";

#[derive(Args, Debug, Clone)]
#[command(after_help = RUN_HELP)]
pub struct RunArgs {
    /// A TOML file of flags (keys are the long flag names) [[watch]] and [[gate]] tables; flags given
    /// on the command line win. Read again on SIGHUP. This user's or root's, writable by no
    /// one else (`chmod go-w`): it chooses what the host runs.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub port: PortArgs,
    #[command(flatten)]
    pub scheduler: SchedulerArgs,
    /// GitHub's webhooks (docs/host-github.md); a delivery ingests for the [[watch]] tables.
    #[command(flatten)]
    pub webhook: WebhookSecretArgs,
    /// How often dispatched runs are followed and the [[watch]] repositories ingested (a pass
    /// runs at least this often even when nothing is due). Default: 60s, or 10m with
    /// --github-webhook-secret-file (polling then only catches what a webhook missed).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub follow_interval: Option<Duration>,
    /// Remove ended deferrals whose last change is older than this (at least 2d), with their
    /// rows, at start and every hour, in small batches beside the scheduler (as `prune
    /// --older-than`); also webhook delivery ids and cached answers older than 8 days.
    /// Default: keep everything. Read at start (a restart changes it).
    #[arg(long, value_name = "DURATION", value_parser = crate::ops::prune::parse_retention)]
    pub retention: Option<Duration>,
    /// Keep a commit status for each deferral recorded through the port with a commit (the
    /// Action's coordinator-commit; context deferral/JOB), from pending to its outcome. The
    /// GitHub credentials need statuses: write on those repositories.
    #[arg(long)]
    pub commit_status_port: bool,
    /// Commit statuses and check runs written at most per pass (each one REST request on the
    /// host's GitHub credentials, so this bounds what they take of that quota); what is left
    /// is written by the next passes. 0 writes none.
    #[arg(long, value_name = "N", default_value_t = crate::ops::commit_status::BUDGET)]
    pub commit_status_budget: usize,
    /// No progress lines on stderr (launches, outcomes, pass summaries).
    #[arg(long, short)]
    pub quiet: bool,
    /// stderr as lines for people (`text`) or one JSON object a line (`json`).
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: crate::logs::LogFormat,
    /// The [[watch]] tables of --config (no flag).
    #[arg(skip)]
    pub watches: Vec<watches::WatchConfig>,
    /// The [[gate]] tables of --config (no flag): environment gates (docs/environment-gate.md).
    #[arg(skip)]
    pub gates: Vec<crate::ops::gate::GateConfig>,
}

/// `--follow-interval`'s default without webhooks, and with them.
pub const FOLLOW_INTERVAL: Duration = Duration::from_secs(60);
pub const FOLLOW_INTERVAL_WITH_WEBHOOKS: Duration = Duration::from_secs(600);

impl RunArgs {
    /// `--follow-interval`, or its default: rarer when webhooks end runs.
    pub fn follow_interval(&self) -> Duration {
        self.follow_interval.unwrap_or(if self.webhook.is_set() {
            FOLLOW_INTERVAL_WITH_WEBHOOKS
        } else {
            FOLLOW_INTERVAL
        })
    }
}

/// What `run` asks of the command line above it: the environment the GitHub client reads, and
/// the `run` arguments as the command line and the configuration file give them now (SIGHUP).
#[derive(Clone, Copy)]
pub struct Outside {
    pub github_env: fn() -> GithubEnv,
    pub reload: fn() -> Result<RunArgs, HostError>,
}

/// With `--github-webhook-secret-file`: the port's intake, whose worker follows a delivery's
/// run (or ingests for the `[[watch]]` tables) and then wakes the scheduler, since what it
/// changed may be due now (a run that deferred again).
fn webhook_intake(
    args: &RunArgs,
    store: &StoreUrl,
    outside: Outside,
    wake: &Arc<Wake>,
) -> Result<Option<crate::webhook::Intake>, HostError> {
    let watches = args
        .watches
        .iter()
        .map(|w| w.options())
        .collect::<Result<Vec<_>, _>>()?;
    let ring = wake.clone();
    let follow = Follow {
        store,
        github: &args.scheduler.github,
        env: outside.github_env,
        http_timeout: args.scheduler.http_timeout,
        max_chain: args.scheduler.max_chain,
    };
    args.webhook
        .intake(follow, watches, Some(Arc::new(move || ring.changed())))
}

/// Runs until SIGTERM or SIGINT; exits 0 once the port and the running pass have stopped.
pub fn run(
    store: StoreUrl,
    integrity: IntegrityCheck,
    args: &RunArgs,
    outside: Outside,
) -> Result<(), HostError> {
    let token = args.port.token()?;
    // Checked here, before anything starts; built again on the scheduler's thread (a GitHub
    // client stays on the thread that made it).
    drop(scheduler::Settings::from_args(args, &outside)?);
    // Opened here, before the port listens, to migrate and check it (a missing store is
    // refused: only `init` creates one); the scheduler keeps this connection.
    let connection = store.open_existing(integrity)?;
    let pools = args.scheduler.pool_options()?;
    let mut options = args.port.serve_options(token, store.clone(), pools)?;
    let wake = Arc::new(Wake::default());
    options.webhook = webhook_intake(args, &store, outside, &wake)?;
    if let Some(intake) = &options.webhook {
        intake
            .gates()
            .replace(crate::ops::gate::config::check_all(&args.gates)?);
    }
    let intake = options.webhook.clone();
    let ring = wake.clone();
    let hooks = Hooks {
        changed: Some(Arc::new(move || ring.changed())),
    };
    let port = Port::bind(options, hooks)?;
    let runtime = crate::serve::runtime()?;
    let writer = port.writer_stopper();
    if let StoreUrl::Postgres(url) = &store {
        // Ends with the process (it looks at the stop flag twice a second).
        drop(listen::start(url.clone(), wake.clone()));
    }
    // Its own notice, rung once the scheduler has stopped (a stop is all it listens for).
    let retention_stop = Arc::new(Wake::default());
    let pruning = match args.retention {
        Some(retention) => Some(
            retention::start(store.clone(), retention, retention_stop.clone()).map_err(|e| {
                HostError::new(
                    crate::error::HostErrorKind::RuntimeFailed,
                    format!("cannot start the prune: {e}"),
                )
            })?,
        ),
        None => None,
    };
    let pending = scheduler::Pending::default();
    let hangup = reload::start(outside, intake, wake.clone(), pending.clone())?;
    let (for_thread, rung) = (args.clone(), wake.clone());
    let scheduling = std::thread::Builder::new()
        .name("deferral-scheduler".into())
        .spawn(
            move || match scheduler::Settings::from_args(&for_thread, &outside) {
                Ok(settings) => {
                    scheduler::Scheduler::new(connection, settings, rung, outside, pending).run()
                }
                Err(err) => crate::logs::message(
                    "error",
                    "run",
                    &format!("the scheduler cannot start: {err}"),
                ),
            },
        )
        .map_err(|e| {
            HostError::new(
                crate::error::HostErrorKind::RuntimeFailed,
                format!("cannot start the scheduler: {e}"),
            )
        })?;
    let served = runtime.block_on(async {
        let stop = signals::watch(wake.clone(), hangup)?;
        // Ready once the signals are watched: a SIGTERM from now on stops cleanly.
        port.announce();
        port.serve(stop).await
    });
    // The port stopped (a signal, or it failed): the scheduler stops after its pass.
    wake.stop();
    retention_stop.stop();
    let _ = scheduling.join();
    if let Some(pruning) = pruning {
        let _ = pruning.join();
    }
    runtime.shutdown_timeout(Duration::from_millis(200));
    writer.stop();
    served?;
    crate::logs::message("info", "run", "stopped");
    Ok(())
}
