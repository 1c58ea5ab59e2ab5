//! `record`: a receipt (or a gate's last line) recorded as a deferral, checked before the store is
//! opened, so invalid input stores nothing ([`crate::ops::record`]).

use crate::cli::args::{Cli, RecordArgs};
use crate::cli::input::read_input;
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::HostError;
use crate::launch::Launchers;
use crate::ops::record::{RecordRequest, Recorded};
use crate::store::RecordKeys;
use std::io::IsTerminal;

pub(in crate::cli) fn execute(cli: &Cli, args: &RecordArgs) -> Result<(), HostError> {
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
