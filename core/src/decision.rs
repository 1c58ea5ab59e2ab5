//! Placeholder: filled in by the rate-decision work.
