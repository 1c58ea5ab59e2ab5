//! `prune [--older-than 30d] [--dry-run] [--json]`: ended deferrals past the retention removed
//! with their rows ([`crate::ops::prune`]).

use crate::cli::args::{Cli, PruneArgs};
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::HostError;
use crate::ops::prune::{prune, PruneOptions, PAUSE};

pub(in crate::cli) fn execute(cli: &Cli, args: &PruneArgs) -> Result<(), HostError> {
    let store = open_store(cli)?;
    let options = PruneOptions {
        retention: args.older_than,
        dry_run: args.dry_run,
        batch: usize::try_from(args.batch).unwrap_or(crate::ops::prune::BATCH),
        pause: PAUSE,
    };
    let pruned = prune(&*store, &options, now_ms(), &|| false)?;
    if args.json {
        out!("{}", crate::view::value(&pruned));
    } else {
        out!("{}", pruned.sentence());
    }
    Ok(())
}
