//! The store a command works on: `--store` (or `DEFERRAL_STORE`) and `--integrity`.

use super::args::{Cli, Integrity};
use crate::error::{HostError, HostErrorKind};
use crate::store::{IntegrityCheck, Store, StoreUrl};

/// The parsed `--store` URL; `no-store` when none is given or it is not a store URL,
/// `unsupported-store` for a URL of another kind.
pub(super) fn store_url(cli: &Cli) -> Result<StoreUrl, HostError> {
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

/// `--integrity`: the check a SQLite store gets when it is opened.
pub(super) fn integrity(cli: &Cli) -> IntegrityCheck {
    match cli.integrity {
        Integrity::Full => IntegrityCheck::Full,
        Integrity::Quick => IntegrityCheck::Quick,
        Integrity::Off => IntegrityCheck::Off,
    }
}

/// Opens a store that exists (`store-not-found` otherwise): every command but `init`, the
/// only one that creates a store.
pub(super) fn open_store(cli: &Cli) -> Result<Box<dyn Store + Send>, HostError> {
    Ok(store_url(cli)?.open_existing(integrity(cli))?)
}
