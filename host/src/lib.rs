//! `deferral-host`: the durable host of Deferral. It records a `deferred-receipt-v1`, wakes at
//! the receipt's `resume_after_ms`, launches a fresh process, and records how it ended.
//!
//! * [`store`]: the [`store::Store`] trait (every change a compare-and-set on state and fence),
//!   the SQLite and PostgreSQL backends (the conformance suite every backend must pass is the
//!   dev-only crate `deferral-host-conformance`, in `host/conformance/`).
//! * [`lifecycle`]: each change as the core lifecycle's `transition` plus one compare-and-set:
//!   a receipt entered once, a claim for a launch, a launch's outcome written.
//! * [`ops`]: the operations, each once, for every entry to call: record, cancel, claim, retry,
//!   report, resolve, admit, release, follow (dispatched runs to their outcome), ingest (`watch`),
//!   the environment gate, and
//!   [`ops::tick`], the scheduler's pass (expire, recover stale leases, launch what is due).
//! * [`launch`]: launch targets and the launcher kinds (`exec:`, `workflow-dispatch:`), one
//!   [`launch::Launcher`] each.
//! * [`pools`]: quota pools, planned costs and admission at tick (DESIGN section 9).
//! * [`github`]: the GitHub client (ureq) and the REST calls the operations make.
//! * [`webhook`]: GitHub's signed `workflow_run` deliveries, taken by `serve` and `run`.
//! * [`handle`]: random 256-bit handles, stored only as SHA-256 digests.
//! * [`progress`], [`human_time`]: what `tick` and `status` tell a person on stderr and in tables.
//! * [`html`]: the self-contained status page (`status --html`, `GET /` on `serve`).
//! * [`serve`]: the durable port, an HTTP JSON API over the operations (hyper on tokio; records
//!   from concurrent requests group-committed).
//! * [`metrics`]: Prometheus metrics (`GET /metrics` on `serve`, `tick --metrics-file`).
//! * [`replace_file`]: replacing a file in a folder others may write, never through a link.
//! * [`private_file`]: reading a secret or settings file only when no other user can know or
//!   change it.
//! * [`sealed_process`]: the host's process made non-dumpable, so an `exec:` program of the
//!   same user cannot read its environment or memory.
//! * [`logs`]: `--log-format json` for `serve` and `tick`.
//! * [`view`]: the JSON views of a deferral that `cli` and `serve` both print.
//! * [`run`]: `deferral-host run`, the port, the scheduler and `watch` in one service.
//! * [`flags`]: the flags `tick` and `run` share (the scheduler's) and `serve` and `run` share
//!   (the port's), each turned into the library's options in one place.
//! * [`cli`]: the command line.
//!
//! ```
//! use deferral_core::receipt::{Bindings, Reason, Receipt};
//! use deferral_host::store::{sqlite::IntegrityCheck, SqliteStore, Store};
//! use deferral_host::{clock::now_ms, lifecycle::insert};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let store = SqliteStore::open(&dir.path().join("host.db"), IntegrityCheck::Full).unwrap();
//! let now = now_ms();
//! let bindings = Bindings { scope_digest: "a".repeat(64), request_digest: "b".repeat(64), plan_digest: None };
//! let handoff = Receipt::handoff(Reason::RestReserve, now, now, now + 3_600_000, bindings, true).unwrap();
//! let recorded = insert::insert_new(&store, handoff.to_json().as_bytes(), "exec:/bin/true", 2, now).unwrap();
//! assert!(recorded.receipt.is_retained());
//! assert_eq!(store.due(now, 10).unwrap()[0].id, recorded.deferral.id);
//! ```

pub mod abandon;
pub mod cli;
pub mod clock;
pub mod error;
pub mod flags;
pub mod github;
pub mod handle;
pub mod html;
pub mod human_time;
pub mod launch;
pub mod lifecycle;
pub mod logs;
pub mod metrics;
pub mod ops;
pub mod pools;
pub mod private_file;
pub mod progress;
pub mod replace_file;
pub mod run;
pub mod sealed_process;
pub mod serve;
pub mod store;
pub mod usage;
pub mod view;
pub mod webhook;

// Where they stood before `ops` held them.
pub use ops::{cancel, retry, tick};
