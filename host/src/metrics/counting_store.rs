//! A store that counts its errors: every call goes to the store it wraps (see
//! `store::forward`), and each one that fails with a store failure (not a conflict, an unknown
//! id or a duplicate, which are answers the callers expect) adds one to
//! `deferral_host_store_errors_total{code}` (serve), or to the tick's
//! `deferral_host_tick_store_errors{code}`. What failed is in the log.

use crate::store::forward::{Forward, Forwarded};
use crate::store::{Store, StoreError};
use prometheus::IntCounterVec;

/// `inner`, with every store failure counted in `errors` by code.
pub struct CountingStore<'a> {
    inner: &'a dyn Store,
    errors: &'a IntCounterVec,
}

impl<'a> CountingStore<'a> {
    /// `errors` has one label, `code` (the store error's code). The store to use is the one
    /// returned.
    pub fn new(inner: &'a dyn Store, errors: &'a IntCounterVec) -> Forwarded<CountingStore<'a>> {
        Forwarded(CountingStore { inner, errors })
    }
}

impl Forward for CountingStore<'_> {
    fn inner(&self) -> &dyn Store {
        self.inner
    }

    fn seen(&self, err: &StoreError) {
        count(self.errors, err);
    }
}

/// Counts `err` under its code when it is a failure of the store.
pub fn count(errors: &IntCounterVec, err: &StoreError) {
    if !matches!(
        err,
        StoreError::Conflict { .. } | StoreError::NotFound(_) | StoreError::Duplicate(_)
    ) {
        errors.with_label_values(&[err.code()]).inc();
    }
}
