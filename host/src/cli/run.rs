//! Runs one parsed command: opens the store, calls the coordinator, prints the answer.

use super::args::*;
use super::github_env::github_env;
use super::text::*;
use crate::clock::{iso8601, now_ms};
use crate::coordinator::{self, Reported};
use crate::error::{HostError, HostErrorKind, EXIT_OK};
use crate::launch::Launchers;
use crate::ops::record::{RecordRequest, Recorded};
use crate::ops::tick;
use crate::store::{Deferral, IntegrityCheck, ListQuery, RecordKeys, Store, StoreUrl};
use crate::view::answers::ResolvedView;
use crate::view::{self, deferral_with_run as with_run};
use deferral_core::lifecycle::State;
use serde_json::{json, Value};
use std::io::{IsTerminal, Read};

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

/// Opens a store that exists (`store-not-found` otherwise): every command but `init`, the
/// only one that creates a store.
fn open_store(cli: &Cli) -> Result<Box<dyn Store + Send>, HostError> {
    Ok(store_url(cli)?.open_existing(integrity(cli))?)
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
    // `run --config FILE` fills in what the command line leaves out (see `cli::config`).
    let cli = match super::config::parse(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(super::config::ParseError::Usage(err)) => return crate::usage::report(&err),
        Err(super::config::ParseError::Config(err)) => return fail(&err),
    };
    match execute(&cli) {
        Ok(()) => EXIT_OK,
        Err(err) => fail(&err),
    }
}

/// Prints an error as every command does (a JSON line on stdout, a sentence on stderr) and
/// returns its exit code.
fn fail(err: &HostError) -> u8 {
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

fn execute(cli: &Cli) -> Result<(), HostError> {
    match &cli.command {
        Command::Record(args) => {
            // Read and check the input before touching the store: invalid input stores nothing.
            let text = read_input(&args.receipt)?;
            let input = crate::pools::line::record_input(&text)?;
            deferral_core::receipt::validate(&input.receipt)?;
            let mut tag = crate::pools::tag(args.pool.as_deref(), None, now_ms())?;
            if let Some(key) = &args.fairness_key {
                crate::pools::fair::check_key(key)?;
            }
            tag.priority = args.priority;
            tag.fairness_key = args.fairness_key.clone();
            let target = Launchers::builtin().parse(&args.launch)?;
            if !args.no_check {
                target.check_installed()?;
            }
            let store = open_store(cli)?;
            let keys = RecordKeys {
                artifact_name: args.artifact.clone(),
                pool: Some(tag),
                ..RecordKeys::default()
            };
            let request = RecordRequest {
                text: &text,
                launch: &args.launch,
                max_reentries: args.max_reentries,
                keys,
            };
            let recorded = crate::ops::record::record(&*store, request, &now_ms)?;
            out!("{}", recorded.answer());
            let Recorded::New { record: rec, .. } = &recorded else {
                return Ok(());
            };
            if recorded.will_expire() {
                eprintln!(
                    "warning: will-expire: its pool's forecast starts it after its window ends \
                     (see status --pools)"
                );
            }
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
                    if let Some(start) = pools.expected_text(&*store, d, now_ms()) {
                        text.push_str(&format!("expected start {}: {start}\n", d.id));
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
                if let Some(start) = pools.expected_text(&*store, &d, now_ms()) {
                    let line = format!("\nexpected      {start}\nfence ");
                    text = text.replacen("\nfence ", &line, 1);
                }
                print!("{text}");
            }
            Ok(())
        }
        Command::Cancel(args) => {
            let store = open_store(cli)?;
            let cancelled =
                crate::ops::cancel::cancel_once(&*store, &args.id, &args.handle, now_ms())?;
            if let Some(message) = &cancelled.already {
                eprintln!("{}: {message}", args.id);
            }
            out!("{}", cancelled.to_json());
            Ok(())
        }
        Command::Retry(args) => {
            let store = open_store(cli)?;
            let request = crate::ops::retry::RetryRequest {
                id: &args.id,
                handle: &args.handle,
                launch: args.launch.as_deref(),
                max_reentries: args.max_reentries,
                check_program: !args.no_check,
            };
            let retried = crate::ops::retry::retry(&*store, &request, now_ms())?;
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
            let mut options = args.scheduler.tick_options(github_env())?;
            options.dry_run = args.dry_run;
            options.ids = args.ids.clone();
            options.follow_interval = args.follow_interval;
            if args.dry_run {
                options.github = None;
            }
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
            let request = crate::ops::report::ReportRequest {
                id: &args.id,
                attempt: args.attempt,
                handle: &args.handle,
                outcome,
                receipt: receipt.as_deref(),
            };
            let d = crate::ops::report::report(&*store, &request, now_ms())?;
            out!("{}", crate::ops::report::answer(&d));
            Ok(())
        }
        Command::Serve(args) => {
            crate::logs::set_format(args.log_format);
            let token = args.port.token()?;
            // Opened once here, before the port listens, to migrate and check it (a missing store
            // is refused: only `init` creates one); each worker then opens its own connection.
            drop(open_store(cli)?);
            let pools = crate::pools::PoolOptions {
                buffer: args.pool_buffer,
                fair: crate::pools::fair::rules(&args.pool_weights, &args.pool_urgent_shares)?,
                ..crate::pools::PoolOptions::default()
            };
            let mut options = args.port.serve_options(token, store_url(cli)?, pools)?;
            options.webhook = args.webhook.intake(crate::flags::webhook::Follow {
                store: &options.store,
                github: &args.github,
                env: github_env,
                http_timeout: args.http_timeout,
                max_chain: coordinator::DEFAULT_MAX_CHAIN,
            })?;
            crate::serve::serve(options)
        }
        Command::Run(args) => {
            crate::logs::set_format(args.log_format);
            let outside = crate::run::Outside {
                github_env,
                reload: super::config::reload,
            };
            crate::run::run(store_url(cli)?, integrity(cli), args, outside)
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

/// The page of the current attempt's workflow run, when it has one.
fn run_url(store: &dyn Store, d: &Deferral) -> Option<String> {
    store.run_of(&d.id, d.reentries).ok().flatten()?.html_url
}
