//! The launcher kinds this program has, one file each. A new kind is a new file here with its
//! type implementing [`super::Launcher`], and its line in [`BUILTIN`]; nothing else changes
//! (the store filters on the kind's name, see [`crate::store::launch_kind`]).

pub mod approval;
pub mod exec;
pub mod workflow_dispatch;

use super::Launcher;

/// The kinds of [`super::Launchers::builtin`].
pub static BUILTIN: [&dyn Launcher; 3] = [
    &exec::Exec,
    &workflow_dispatch::WorkflowDispatch,
    &approval::EnvironmentGate,
];
