//! `cancel ID --handle H`: a deferral cancelled with its handle ([`crate::ops::cancel`]).

use crate::cli::args::{CancelArgs, Cli};
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::HostError;

pub(in crate::cli) fn execute(cli: &Cli, args: &CancelArgs) -> Result<(), HostError> {
    let store = open_store(cli)?;
    let cancelled = crate::ops::cancel::cancel_once(&*store, &args.id, &args.handle, now_ms())?;
    if let Some(message) = &cancelled.already {
        eprintln!("{}: {message}", args.id);
    }
    out!("{}", crate::view::value(&cancelled.answer()));
    Ok(())
}
