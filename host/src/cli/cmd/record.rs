//! `record`: a receipt (or a gate's last line) recorded as a deferral, checked before the store is
//! opened, so invalid input stores nothing ([`crate::ops::record`]).

use crate::cli::args::{Cli, RecordArgs};
use crate::cli::input::read_input;
use crate::cli::store_open::open_store;
use crate::clock::now_ms;
use crate::error::{HostError, HostErrorKind};
use crate::launch::Launchers;
use crate::ops::record::{Allowed, Entry, Recorded};
use deferral_protocol::{FairnessKey, PoolName, Priority, RecordRequest};
use std::io::IsTerminal;

pub(in crate::cli) fn execute(cli: &Cli, args: &RecordArgs) -> Result<(), HostError> {
    let text = String::from_utf8(read_input(&args.receipt)?)
        .map_err(|_| HostError::new(HostErrorKind::MalformedJson, "the input is not UTF-8"))?;
    let refused = crate::pools::wire::refused;
    let mut request = RecordRequest::new(&text, &args.launch);
    request.max_reentries = Some(args.max_reentries);
    request.pool = args
        .pool
        .as_deref()
        .map(PoolName::parse)
        .transpose()
        .map_err(refused)?;
    request.priority = args.priority.map(Priority);
    request.fairness_key = args
        .fairness_key
        .as_deref()
        .map(FairnessKey::parse)
        .transpose()
        .map_err(refused)?;
    let launchers = Launchers::builtin();
    let entry = Entry {
        allowed: Allowed::Any(&launchers),
        check_programs: !args.no_check,
        artifact_name: args.artifact.clone(),
    };
    // Every check before the store is opened: invalid input stores nothing.
    let checked = crate::ops::record::check(request, entry, now_ms())?;
    let store = open_store(cli)?;
    let recorded = crate::ops::record::record(&*store, checked, &now_ms)?;
    let answer = serde_json::to_string(&recorded.answer()?)
        .map_err(|e| HostError::new(HostErrorKind::Backend, format!("the answer: {e}")))?;
    out!("{answer}");
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
