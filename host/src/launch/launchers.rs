//! The set of launcher kinds a host knows, and the one way a target's text finds its kind.

use super::kind::{invalid, Launcher, Target};
use super::kinds;
use crate::error::HostError;
use crate::store::{launch_kind, Deferral, Store};
use std::fmt;

/// The launcher kinds a host knows: [`Launchers::builtin`] (`exec`, `workflow-dispatch`), to
/// which [`Launchers::with`] adds another.
#[derive(Clone)]
pub struct Launchers {
    kinds: Vec<&'static dyn Launcher>,
}

impl Launchers {
    /// The kinds this program has (see `launch/kinds/`).
    pub fn builtin() -> Launchers {
        Launchers {
            kinds: kinds::BUILTIN.to_vec(),
        }
    }

    /// These kinds and `kind` (which replaces a kind of the same name).
    #[must_use]
    pub fn with(mut self, kind: &'static dyn Launcher) -> Launchers {
        self.kinds.retain(|k| k.name() != kind.name());
        self.kinds.push(kind);
        self
    }

    pub fn iter(&self) -> impl Iterator<Item = &'static dyn Launcher> + '_ {
        self.kinds.iter().copied()
    }

    /// The kind named `name`.
    pub fn get(&self, name: &str) -> Option<&'static dyn Launcher> {
        self.iter().find(|k| k.name() == name)
    }

    /// The kind a target's text names (before its first colon), whether or not the rest parses.
    pub fn kind_of(&self, text: &str) -> Option<&'static dyn Launcher> {
        self.get(launch_kind(text))
    }

    /// Parses a launch target; every refusal is `invalid-launch` with a sentence saying why.
    pub fn parse(&self, text: &str) -> Result<Target, HostError> {
        let Some(kind) = self.kind_of(text) else {
            let forms: Vec<&str> = self.iter().map(|k| k.form()).collect();
            return Err(invalid(
                text,
                format!("is not a launch target: use {}", forms.join(" or ")),
            ));
        };
        let rest = &text[kind.name().len() + 1..];
        Ok(Target {
            kind,
            text: text.to_string(),
            parts: kind.parse(text, rest)?,
        })
    }

    /// Recovers a stale lease the way its kind does ([`Launcher::recover`]); a target no kind
    /// here names gets the default (back to `deferred`).
    pub fn recover(
        &self,
        store: &dyn Store,
        d: &Deferral,
        now_ms: u64,
    ) -> Result<Option<Deferral>, HostError> {
        match self.kind_of(&d.launch) {
            Some(kind) => kind.recover(store, d, now_ms),
            None => super::recover::returned(store, d, now_ms).map(Some),
        }
    }
}

impl fmt::Debug for Launchers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|k| k.name()))
            .finish()
    }
}
