//! A deferral's changes in the store, the rules every operation and launcher goes through:
//!
//! * [`change`]: each change one lifecycle `transition` and one compare-and-set ([`change::apply`],
//!   [`change::note`]), and the loads and handle checks they start from.
//! * [`insert`]: a handoff receipt entered as a deferral once, by its digest or artifact.
//! * [`claim`]: a due deferral claimed for one launch, or given back when it never left.
//! * [`outcome`]: how a launch ended, written (with progress as a successor deferral).
//!
//! The operations a caller names (`record`, `cancel`, `report`, `resolve`, `claim`, ...) live
//! in [`crate::ops`]; this module has no entry of its own.

pub mod change;
pub mod claim;
pub mod insert;
pub mod outcome;
