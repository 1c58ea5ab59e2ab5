//! `resolve ID --handle H --dispatched yes|no`: an operator settles a `dispatch-unknown` attempt.

use crate::cli::args::{Cli, ResolveArgs};
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::HostError;
use crate::ops;
use crate::view::answers::resolved_view;
use crate::view::{self};

pub(in crate::cli) fn execute(cli: &Cli, args: &ResolveArgs) -> Result<(), HostError> {
    let store = open_store(cli)?;
    let d = ops::resolve::resolve(&*store, &args.id, &args.handle, args.dispatched, now_ms())?;
    out!("{}", view::value(&resolved_view(&d)));
    Ok(())
}
