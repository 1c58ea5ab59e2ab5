//! `retry ID --handle H`: a blocked deferral started again as a new one ([`crate::ops::retry`]).

use crate::cli::args::{Cli, RetryArgs};
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::HostError;
use std::io::IsTerminal;

pub(in crate::cli) fn execute(cli: &Cli, args: &RetryArgs) -> Result<(), HostError> {
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
