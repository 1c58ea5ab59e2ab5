//! The durable host's state machine, as one pure transition function.
//!
//! ```text
//! ready --record--> deferred --claim--> resumable --complete--> complete
//!                      ^                    |------block------> blocked
//!                      +------defer---------+   (last allowed re-entry: blocked, reentry-limit)
//! ready | deferred | resumable --cancel / expire--> cancelled
//! ```
//! A re-entry is one fresh-process launch; `claim` counts it. Complete, blocked and cancelled
//! are terminal: every event there is an `illegal-transition`.

use std::fmt;

/// Default number of fresh-process launches a deferral may have.
pub const DEFAULT_MAX_REENTRIES: u32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    Ready,
    Deferred,
    Resumable,
    Complete,
    Blocked,
    Cancelled,
}

impl State {
    pub const ALL: [State; 6] = [
        State::Ready,
        State::Deferred,
        State::Resumable,
        State::Complete,
        State::Blocked,
        State::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Ready => "ready",
            State::Deferred => "deferred",
            State::Resumable => "resumable",
            State::Complete => "complete",
            State::Blocked => "blocked",
            State::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Terminal states end the deferral and invalidate its wake-up.
    pub fn is_terminal(self) -> bool {
        matches!(self, State::Complete | State::Blocked | State::Cancelled)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// A receipt was recorded.
    Record,
    /// The wake-up is due and a launcher claimed it (one re-entry).
    Claim,
    /// The fresh process finished the work.
    Complete,
    /// The fresh process was still limited and issued a new receipt.
    Defer,
    /// The fresh process (or its preflight) refused to go on.
    Block,
    /// An operator cancelled it.
    Cancel,
    /// `resume_by_ms` passed before it was resumed.
    Expire,
}

impl Event {
    pub const ALL: [Event; 7] = [
        Event::Record,
        Event::Claim,
        Event::Complete,
        Event::Defer,
        Event::Block,
        Event::Cancel,
        Event::Expire,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Event::Record => "record",
            Event::Claim => "claim",
            Event::Complete => "complete",
            Event::Defer => "defer",
            Event::Block => "block",
            Event::Cancel => "cancel",
            Event::Expire => "expire",
        }
    }

    pub fn parse(text: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.as_str() == text)
    }
}

/// Why a deferral reached its state, recorded with the transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    Recorded,
    Claimed,
    Completed,
    Deferred,
    Blocked,
    ReentryLimit,
    Operator,
    Expired,
}

impl Cause {
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Recorded => "recorded",
            Cause::Claimed => "claimed",
            Cause::Completed => "completed",
            Cause::Deferred => "deferred",
            Cause::Blocked => "blocked",
            Cause::ReentryLimit => "reentry-limit",
            Cause::Operator => "operator",
            Cause::Expired => "expired",
        }
    }
}

/// What the state machine knows about one deferral.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub state: State,
    /// Fresh-process launches made so far.
    pub reentries: u32,
    pub max_reentries: u32,
}

impl Position {
    /// A deferral that has nothing recorded yet.
    pub fn new(max_reentries: u32) -> Position {
        Position {
            state: State::Ready,
            reentries: 0,
            max_reentries,
        }
    }
}

/// The result of a legal transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub to: Position,
    pub cause: Cause,
}

/// An event that is not allowed in the current state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalTransition {
    pub from: State,
    pub event: Event,
}

impl IllegalTransition {
    pub fn code(&self) -> &'static str {
        "illegal-transition"
    }
}

impl fmt::Display for IllegalTransition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event {} is not allowed in state {}",
            self.event.as_str(),
            self.from
        )
    }
}

impl std::error::Error for IllegalTransition {}

/// Applies `event` to `at`. Pure: the caller stores the result with a compare-and-set.
pub fn transition(at: Position, event: Event) -> Result<Step, IllegalTransition> {
    use {Event as E, State as S};
    let go = |state, reentries, cause| {
        Ok(Step {
            to: Position {
                state,
                reentries,
                ..at
            },
            cause,
        })
    };
    match (at.state, event) {
        (S::Ready, E::Record) => go(S::Deferred, at.reentries, Cause::Recorded),
        (S::Deferred, E::Claim) if at.reentries < at.max_reentries => {
            go(S::Resumable, at.reentries + 1, Cause::Claimed)
        }
        (S::Resumable, E::Complete) => go(S::Complete, at.reentries, Cause::Completed),
        (S::Resumable, E::Block) => go(S::Blocked, at.reentries, Cause::Blocked),
        (S::Resumable, E::Defer) if at.reentries >= at.max_reentries => {
            go(S::Blocked, at.reentries, Cause::ReentryLimit)
        }
        (S::Resumable, E::Defer) => go(S::Deferred, at.reentries, Cause::Deferred),
        (S::Ready | S::Deferred | S::Resumable, E::Cancel) => {
            go(S::Cancelled, at.reentries, Cause::Operator)
        }
        (S::Ready | S::Deferred | S::Resumable, E::Expire) => {
            go(S::Cancelled, at.reentries, Cause::Expired)
        }
        (from, event) => Err(IllegalTransition { from, event }),
    }
}
