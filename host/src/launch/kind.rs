//! The seam every launcher kind plugs into: [`Launcher`], and the [`Target`] its parse makes.
//!
//! A launch target is `KIND:REST`. The text before the first colon names the kind (the store
//! records it in the `launch_kind` column, see [`crate::store::launch_kind`]); the kind's
//! [`Launcher`] parses the rest and does everything that differs by kind: what it needs to be
//! ready, how it launches, how an attempt that lost its ticker is recovered, whether its outcome
//! is followed later, and how `--allow-launch` and the `installed` check see its targets. No
//! other code tests which kind a target is.

use super::attempt::{Attempt, LaunchPass};
use super::launched::Launched;
use super::recover;
use crate::error::{HostError, HostErrorKind};
use crate::store::{AttemptStatus, Deferral, Store};
use std::fmt;

/// One kind of launch target. Each kind is one type in its own file (`launch/kinds/`), and a
/// [`super::Launchers`] set holds the kinds a host knows. Every method but [`Launcher::name`],
/// [`Launcher::form`], [`Launcher::parse`] and [`Launcher::launch`] has the plain answer as
/// its default.
pub trait Launcher: Sync {
    /// The kind's name: its targets are `NAME:...`, and the store records `NAME`.
    fn name(&self) -> &'static str;

    /// The form of a target, for the sentence that refuses one that does not parse
    /// (`exec:/ABSOLUTE/PROGRAM [ARGS]`).
    fn form(&self) -> &'static str;

    /// The parts of a target (`text` whole, `rest` after `NAME:`), in the kind's own order;
    /// a refusal is `invalid-launch` ([`invalid`]) with a sentence saying why.
    fn parse(&self, text: &str, rest: &str) -> Result<Vec<String>, HostError>;

    /// Whether the `--allow-launch` entry `entry` lets `target` be recorded (both of this
    /// kind). Default: exactly the same target.
    fn allows(&self, entry: &Target, target: &Target) -> bool {
        entry.parts == target.parts
    }

    /// How the refusal names an `--allow-launch` entry of this kind.
    fn describe_entry(&self, entry: &Target) -> String {
        format!("exactly {}", entry.text)
    }

    /// How the refusal names the entry `NAME:` alone (any target of this kind).
    fn describe_any(&self) -> String {
        format!("any {}: target", self.name())
    }

    /// Whether `serve` accepts any target of this kind when no `--allow-launch` is given.
    fn allowed_by_default(&self) -> bool {
        false
    }

    /// Checked where a target is given (`record`, `serve`, `retry`; not with `--no-check`),
    /// so a target that cannot run here is refused at the door. Default: nothing to check.
    fn check_installed(&self, _target: &Target) -> Result<(), HostError> {
        Ok(())
    }

    /// Why targets of this kind cannot be claimed in this pass, if they cannot (they stay due
    /// and use no re-entry). Default: always ready.
    fn not_ready(&self, _pass: &LaunchPass<'_>) -> Option<String> {
        None
    }

    /// The attempt status a claim of this kind writes.
    fn claimed_status(&self) -> AttemptStatus {
        AttemptStatus::Launching
    }

    /// Runs the claimed launch and records how it ended, or what it waits for.
    fn launch(&self, target: &Target, attempt: &Attempt<'_>) -> Launched;

    /// A claimed attempt whose lease ended without an outcome. Default: whatever it left
    /// running is ended, and it goes back to `deferred` ([`recover::returned`]). `None`: left
    /// as it is.
    fn recover(
        &self,
        store: &dyn Store,
        d: &Deferral,
        now_ms: u64,
    ) -> Result<Option<Deferral>, HostError> {
        recover::returned(store, d, now_ms).map(Some)
    }

    /// Whether this kind's attempts end on GitHub after `launch` returned (a dispatched run),
    /// so that the pass's follow step ([`crate::ops::follow`]) reads their runs before new
    /// launches. Default: `false`, the launch itself records the outcome.
    fn ends_on_github(&self) -> bool {
        false
    }
}

/// The refusal of a target that does not parse (`invalid-launch`).
pub fn invalid(text: &str, why: impl fmt::Display) -> HostError {
    HostError::new(
        HostErrorKind::InvalidLaunch,
        format!("launch target {text:?} {why}"),
    )
}

/// A parsed launch target: its kind, its text as given, and the parts its kind found.
#[derive(Clone)]
pub struct Target {
    pub(super) kind: &'static dyn Launcher,
    pub(super) text: String,
    pub(super) parts: Vec<String>,
}

impl Target {
    pub fn kind(&self) -> &'static dyn Launcher {
        self.kind
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// What the kind's parse found (`exec`: the program, then its arguments).
    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// The kind's door check ([`Launcher::check_installed`]).
    pub fn check_installed(&self) -> Result<(), HostError> {
        self.kind.check_installed(self)
    }
}

/// Two targets are the same when they are of one kind and have the same parts.
impl PartialEq for Target {
    fn eq(&self, other: &Target) -> bool {
        self.kind.name() == other.kind.name() && self.parts == other.parts
    }
}

impl Eq for Target {}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Target")
            .field("kind", &self.kind.name())
            .field("parts", &self.parts)
            .finish()
    }
}
