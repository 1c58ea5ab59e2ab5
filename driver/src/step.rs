//! The steps the driver answers its shell: one serde-tagged enum, written as `{"step": ...}`
//! with the members of each kind in the order below. The shell reads `step` and does that
//! step's I/O only: `read` files (and, for a gate, make the one request), `fetch` the rate
//! limit, hold the ledger's `lock`, ask a durable port to `admit` the plan or to `retain` a
//! receipt, or, `done`, print, write and exit. Any step may carry `stdout` and `stderr` text to
//! print at once and `writes` to make; `same_clock` asks the shell to keep `now_ms` for the next
//! crossing (a port's answer is read against the decision it follows).

use serde::{Serialize, Serializer};

/// The next thing the shell does.
#[derive(Debug, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Read these files (and, when there is one, make the request and hold the lock too).
    Read {
        read: Vec<ReadEntry>,
        #[serde(skip_serializing_if = "Option::is_none")]
        request: Option<Request>,
        #[serde(skip_serializing_if = "Option::is_none")]
        lock: Option<Lock>,
        #[serde(skip_serializing_if = "String::is_empty")]
        stdout: String,
    },
    /// Make the one `GET /rate_limit` (holding the ledger's lock when there is one).
    Fetch {
        request: Request,
        #[serde(skip_serializing_if = "Option::is_none")]
        lock: Option<Lock>,
        #[serde(skip_serializing_if = "String::is_empty")]
        stdout: String,
    },
    /// Hold the ledger's lock and read it as file `ledger`.
    Lock {
        lock: Lock,
        #[serde(skip_serializing_if = "String::is_empty")]
        stdout: String,
    },
    /// Ask the durable port to admit the plan in its pool.
    Admit(PortStep),
    /// Hand the receipt to the durable port.
    Retain(PortStep),
    /// The last step.
    Done(Done),
}

impl Step {
    /// The step's JSON text, as the shell reads it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Puts `text` first in the step's `stdout` (the Action's masks go out before anything).
    pub fn with_stdout_first(mut self, text: &str) -> Step {
        let stdout = match &mut self {
            Step::Read { stdout, .. } | Step::Fetch { stdout, .. } | Step::Lock { stdout, .. } => {
                stdout
            }
            Step::Admit(p) | Step::Retain(p) => &mut p.stdout,
            Step::Done(done) => &mut done.stdout,
        };
        stdout.insert_str(0, text);
        self
    }
}

/// A file to read: at most `limit + 1` bytes of `path` (`-` is standard input), as `name`.
#[derive(Debug, Serialize)]
pub struct ReadEntry {
    pub name: String,
    pub path: String,
    pub limit: u64,
}

/// The ledger to hold under its lock and read (at most `limit` bytes); the lock is waited for
/// `wait_ms` and taken over once `stale_ms` old with no live owner.
#[derive(Debug, Serialize)]
pub struct Lock {
    pub path: String,
    pub limit: u64,
    pub wait_ms: u64,
    pub stale_ms: u64,
}

/// One HTTP request: the shell adds the bearer token from `token_env`, goes through `proxy`
/// when there is one, and puts the answer under `into` (default `answer`) or its transport
/// failure's message under `error_into` (default `transport_error`).
#[derive(Debug, Serialize)]
pub struct Request {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'static str>,
    pub headers: &'static [[&'static str; 2]],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    pub token_env: Option<String>,
    pub proxy: Option<String>,
    pub timeout_ms: u64,
    pub max_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub into: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_into: Option<&'static str>,
}

/// A request to the durable port, the ledger text to write now, files to write, and private
/// folders to make ready (see [`Write::private_file`]) before the request is made, so that a
/// folder that cannot hold the cancellation handle stops the gate before the port keeps anything.
#[derive(Debug, Serialize)]
pub struct PortStep {
    pub request: Request,
    pub same_clock: bool,
    pub ledger: Option<String>,
    pub writes: Vec<Write>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folders: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stdout: String,
}

/// A file to write (`mode`, `exclusive`: never follow or reuse a file put there first) or to
/// append to (`append`); `best_effort`: a failure is warned about, not fatal.
#[derive(Debug, Clone, Serialize)]
pub struct Write {
    pub path: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
    /// A failure to write is a warning on stderr, not the command's failure (the report file:
    /// the line is on stdout too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_effort: Option<bool>,
    /// The file's folder must be private: the shell creates it `0700` when missing and refuses
    /// it unless it is a directory of this user that no one else may write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_folder: Option<bool>,
}

impl Write {
    /// A file written whole.
    pub fn file(path: &str, text: &str, mode: u32, exclusive: bool) -> Write {
        Write {
            path: path.to_string(),
            text: text.to_string(),
            mode: Some(mode),
            exclusive: Some(exclusive),
            append: None,
            best_effort: None,
            private_folder: None,
        }
    }

    /// A file written whole in a private folder (the receipt and the cancellation handle in
    /// the gate's temporary folder).
    pub fn private_file(path: &str, text: &str, mode: u32, exclusive: bool) -> Write {
        Write {
            private_folder: Some(true),
            ..Write::file(path, text, mode, exclusive)
        }
    }

    /// A text appended to a file the runner names.
    pub fn append(path: &str, text: &str) -> Write {
        Write {
            path: path.to_string(),
            text: text.to_string(),
            mode: None,
            exclusive: None,
            append: Some(true),
            best_effort: None,
            private_folder: None,
        }
    }

    /// The command's JSON line appended to the host's report file (`DEFERRAL_REPORT_FILE`).
    pub fn report(path: &str, line: &str) -> Write {
        Write {
            best_effort: Some(true),
            ..Write::append(path, &format!("{line}\n"))
        }
    }
}

/// The last step: `exit` (the class), `status` (gate and resume), the Action's `failed` and
/// `outputs`, `process_exit` (the code to exit with), what to print, the ledger text to write
/// and files to write.
#[derive(Debug, Default, Serialize)]
pub struct Done {
    pub exit: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Outputs>,
    pub process_exit: u8,
    pub stdout: String,
    #[serde(serialize_with = "empty_as_null")]
    pub stderr: String,
    pub ledger: Option<String>,
    pub writes: Vec<Write>,
}

/// The Action's outputs, in action.yml's order.
#[derive(Debug, Default)]
pub struct Outputs(pub Vec<(&'static str, String)>);

impl Serialize for Outputs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (*k, v)))
    }
}

fn empty_as_null<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    if text.is_empty() {
        s.serialize_none()
    } else {
        s.serialize_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_tagged_first_and_keeps_its_members_in_order() {
        let done = Step::Done(Done {
            exit: 3,
            stdout: "x\n".into(),
            ..Done::default()
        });
        assert_eq!(
            done.to_json(),
            r#"{"step":"done","exit":3,"process_exit":0,"stdout":"x\n","stderr":null,"ledger":null,"writes":[]}"#
        );
        let lock = Step::Lock {
            lock: Lock {
                path: "l.json".into(),
                limit: 1,
                wait_ms: 2,
                stale_ms: 3,
            },
            stdout: String::new(),
        };
        assert_eq!(
            lock.to_json(),
            r#"{"step":"lock","lock":{"path":"l.json","limit":1,"wait_ms":2,"stale_ms":3}}"#
        );
        let w = Write::append("o", "t");
        assert_eq!(
            serde_json::to_string(&w).unwrap(),
            r#"{"path":"o","text":"t","append":true}"#
        );
        assert_eq!(
            serde_json::to_string(&Write::report("r", "{}")).unwrap(),
            r#"{"path":"r","text":"{}\n","append":true,"best_effort":true}"#
        );
    }
}
