//! One file per command: each reads its arguments, calls the operation (`crate::ops`, or the
//! store and views for the read-only ones) and prints the answer. `super::run` picks the file.

pub(super) mod cancel;
pub(super) mod init;
pub(super) mod prune;
pub(super) mod record;
pub(super) mod report;
pub(super) mod resolve;
pub(super) mod retry;
pub(super) mod serve;
pub(super) mod service;
pub(super) mod show;
pub(super) mod status;
pub(super) mod tick;
pub(super) mod watch;

use crate::store::{Deferral, Store};

/// The page of the current attempt's workflow run, when it has one (`status`, `show`).
fn run_url(store: &dyn Store, d: &Deferral) -> Option<String> {
    store.run_of(&d.id, d.reentries).ok().flatten()?.html_url
}
