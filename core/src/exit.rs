//! The exit classes every `deferral` command ends with (DESIGN.md section 7), defined once here
//! so the CLI, the Action and the host read the same numbers.

/// How an attempt ended, as a process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Ready, valid, complete or recorded.
    Ok,
    /// Invalid input, including an invalid receipt.
    Invalid,
    /// Authentication or authorization.
    Auth,
    /// Provider or transport failure.
    Provider,
    /// Blocked: this work must not run as it stands.
    Blocked,
    /// Deferred: stopped with a receipt.
    Deferred,
}

impl Exit {
    /// Every exit class, for tests that walk them.
    pub const ALL: [Exit; 6] = [
        Exit::Ok,
        Exit::Invalid,
        Exit::Auth,
        Exit::Provider,
        Exit::Blocked,
        Exit::Deferred,
    ];

    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Invalid => 2,
            Exit::Auth => 3,
            Exit::Provider => 4,
            Exit::Blocked => 5,
            Exit::Deferred => 6,
        }
    }
}
