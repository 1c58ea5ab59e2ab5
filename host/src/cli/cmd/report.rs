//! `report ID --attempt N --handle H --outcome O`: an attempt's outcome ([`crate::ops::report`]).

use crate::cli::args::{Cli, OutcomeArg, ReportArgs};
use crate::cli::input::read_input;
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::{HostError, HostErrorKind};
use crate::ops::report::Reported;

pub(in crate::cli) fn execute(cli: &Cli, args: &ReportArgs) -> Result<(), HostError> {
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
