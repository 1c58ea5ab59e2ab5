//! Flags that several commands share, each group once with the one function that turns it into
//! what the library runs: the scheduler's (`tick`, `run`), the port's (`serve`, `run`) and
//! GitHub's webhooks' (`serve`, `run`).
//! Below `cli` and `run`, which both flatten them into their commands.

pub mod port;
pub mod scheduler;
pub mod webhook;
