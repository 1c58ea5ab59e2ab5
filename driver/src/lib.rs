//! Deferral's driver: the shell over the domain crate (`deferral-core`), still without I/O.
//!
//! The domain decides (receipts, rate state, plans, the preflight, the ledger); this crate turns
//! a command line or a library call into those decisions and their answers back into what a
//! person or a runner sees. The JS shell (the Action, the CLI, the library) and the wasm module
//! built from this crate do the I/O it asks for.
//!
//! * [`attempt`]: one command's attempt (gate, resume) as the shell sees it: what to read and
//!   ask, then everything to print, set and write.
//! * [`run`]: the CLI's and the Action's arguments and help texts, dispatching each command.
//! * [`crossing`]: what the shell passes at each crossing, typed.
//! * [`step`]: the steps the driver answers the shell, one tagged enum.
//! * [`runner`]: the GitHub Actions runner protocol (masks, outputs, the escapes of workflow commands).
//! * [`commands`]: the small commands (`validate`, `explain`, `digest`), whole.
//! * [`port_answer`]: a durable port's answers.
//! * [`proxy`]: which proxy a request goes through.
//! * [`library`]: the JS library's checks, codes and defaults.

pub mod attempt;
pub mod commands;
pub mod crossing;
pub mod library;
pub mod port_answer;
pub mod proxy;
pub mod run;
pub mod runner;
pub mod step;
pub mod terminal;
