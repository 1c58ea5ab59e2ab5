//! What the shell passes the driver at each crossing, typed: how it was started, the clock, the
//! files read so far (their sizes; the bytes come beside the JSON) and the answers to the
//! requests it was told to make (see [`crate::run`] for the whole protocol, [`crate::step`] for
//! the answers). Every member may be missing: the first crossing has only the start.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// Which shell runs: the `deferral` CLI (argv) or the Action (its `INPUT_*` variables).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Surface {
    #[default]
    Cli,
    Action,
}

/// One crossing's input.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Crossing {
    #[serde(deserialize_with = "or_default")]
    pub surface: Surface,
    /// The CLI's arguments, the command first.
    #[serde(deserialize_with = "or_default")]
    pub argv: Vec<String>,
    /// The variables the shell passes on (`INPUT_*`, `GITHUB_*`, `RUNNER_*`, `DEFERRAL_*`, the
    /// proxy variables and `GH_TOKEN`).
    #[serde(deserialize_with = "or_default")]
    pub env: Map<String, Value>,
    #[serde(deserialize_with = "or_default")]
    pub now_ms: u64,
    /// Minutes east of UTC, for the times a person reads.
    #[serde(deserialize_with = "or_default")]
    pub utc_offset_min: i64,
    pub tmpdir: Option<String>,
    /// The user the shell runs as (`process.getuid()`; none on Windows): names the gate's own
    /// temporary folder.
    pub uid: Option<u64>,
    #[serde(deserialize_with = "or_default")]
    pub stderr_tty: bool,
    /// 0 on the first call of a run.
    #[serde(deserialize_with = "or_default")]
    pub crossing: u64,
    /// Each file read, in the order of the bytes: name, size (`null`: it does not exist), path.
    #[serde(deserialize_with = "or_default")]
    pub file_sizes: Vec<(String, Option<u64>, String)>,
    /// Files as text instead of bytes (native callers and tests).
    pub files: Option<Map<String, Value>>,
    /// The answer to `GET /rate_limit`: `{status, headers, body}`.
    pub answer: Option<Value>,
    /// Why that request got no answer.
    pub transport_error: Option<String>,
    /// The durable port's answer to a retain request, or why there was none.
    pub port_answer: Option<PortReply>,
    pub coordinator_error: Option<String>,
    /// The durable port's answer to an admission request, or why there was none.
    pub admission_answer: Option<PortReply>,
    pub admission_error: Option<String>,
    /// A failure of the shell's own I/O.
    pub io_error: Option<IoFailure>,
}

/// A member given as `null` reads as if it were missing.
fn or_default<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(
    d: D,
) -> Result<T, D::Error> {
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

/// An HTTP answer of the durable port.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PortReply {
    pub status: u64,
    pub body: Option<String>,
}

/// What of the shell's own I/O failed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IoOp {
    /// Reading a file the step named.
    Read,
    /// Reading the ledger under its lock.
    Ledger,
    /// Taking the ledger's lock.
    Lock,
    /// Waiting for the ledger's lock too long.
    LockTimeout,
    /// Making ready a private folder (`path`): not this user's, or others may write it.
    Folder,
    /// Writing a file the step named (`path`).
    Write,
    /// Anything else (a bug of the shell).
    #[default]
    #[serde(other)]
    Internal,
}

/// A failure of the shell's own I/O: `{op, path, detail, ms}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct IoFailure {
    pub op: IoOp,
    pub path: String,
    pub detail: String,
    pub ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crossing_reads_what_the_shell_sends_and_defaults_the_rest() {
        let c: Crossing = serde_json::from_str(
            r#"{"surface":"action","crossing":2,"file_sizes":[["plan",3,"p.json"],["ledger",null,"l"]],
                "io_error":{"op":"lock-timeout","ms":9},"admission_answer":{"status":201,"headers":[],"body":"{}"}}"#,
        )
        .unwrap();
        assert_eq!(c.surface, Surface::Action);
        assert_eq!(c.file_sizes[1], ("ledger".into(), None, "l".into()));
        let io = c.io_error.unwrap();
        assert_eq!((io.op, io.ms), (IoOp::LockTimeout, 9));
        assert_eq!(c.admission_answer.unwrap().status, 201);
        let odd: IoFailure = serde_json::from_str(r#"{"op":"what","detail":"x"}"#).unwrap();
        assert_eq!(odd.op, IoOp::Internal);
        assert_eq!(Crossing::default().surface, Surface::Cli);
        let nulls: Crossing =
            serde_json::from_str(r#"{"env":null,"argv":null,"now_ms":null}"#).unwrap();
        assert!(nulls.env.is_empty() && nulls.argv.is_empty() && nulls.now_ms == 0);
    }
}
