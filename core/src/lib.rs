//! Deferral core: the pure logic shared by the WebAssembly build and the native host.
//!
//! Nothing in this crate performs I/O: every function takes data and returns data, so the same
//! code gives the same answer natively, in Node through wasm, and in tests. It is the domain
//! only: the commands, their arguments, the runner protocol and the library's messages are the
//! shell's, in `deferral-driver` (driver/), which the wasm module is built from.
//!
//! * [`receipt`]: the `deferred-receipt-v1` contract: types, strict validation, builders.
//! * [`json`]: a strict JSON reader that keeps number text and rejects duplicate keys.
//! * [`jcs`] and [`digest`]: RFC 8785 canonical JSON and the SHA-256 bindings.
//! * [`lifecycle`]: the durable host's state machine.
//! * [`rate_state`]: what one `GET /rate_limit` answer (live or saved) tells an attempt.
//! * [`exit`]: the exit classes every command ends with.
//! * [`pool`]: one admission across runners.
//! * [`receipt_hint`]: a receipt refusal that says when the text is a whole result instead.
//! * [`signals`], [`graphql_cost`], [`plan`], [`ledger`], [`decision`], [`preflight`]: reading
//!   GitHub's rate state and deciding whether work may proceed.
//!
//! ```
//! let text = r#"{"schema":1,"version":"deferred-receipt-v1","status":"deferred",
//!   "reason":"rest-reserve","issued_at_ms":1800000000000,"resume_after_ms":1800000600000,
//!   "resume_by_ms":1800003600000,"bindings":{"scope_digest":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
//!   "request_digest":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","plan_digest":null},
//!   "ownership":{"disposition":"handoff","mode":"governed-handoff","wakeup_digest":null,
//!   "cancellation_digest":null},"fresh_approval_required":true}"#;
//! let receipt = deferral_core::receipt::validate(text.as_bytes()).unwrap();
//! assert_eq!(receipt.resume_after_ms, 1_800_000_600_000);
//! ```

pub mod decision;
pub mod digest;
pub mod exit;
pub mod graphql_cost;
pub mod jcs;
pub mod json;
pub mod ledger;
pub mod lifecycle;
pub mod observe;
pub mod plan;
pub mod pool;
pub mod preflight;
pub mod rate_state;
pub mod receipt_hint;
pub use deferral_receipt as receipt;
pub mod signals;
