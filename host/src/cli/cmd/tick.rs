//! `tick`: one scheduler pass for cron ([`crate::ops::tick`]), with progress on a terminal, the
//! report as one JSON line and, with `--metrics-file`, the metrics written.

use crate::cli::args::{Cli, TickArgs};
use crate::cli::github_env::github_env;
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::HostError;
use crate::ops::tick;
use crate::store::Store;
use std::io::IsTerminal;

pub(in crate::cli) fn execute(cli: &Cli, args: &TickArgs) -> Result<(), HostError> {
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
    let report = tick::tick_observed(store, &options, now_ms, &mut |step| progress.step(step));
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
