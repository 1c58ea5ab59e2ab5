//! Why a GraphQL document could not be costed: one kind per failure, each with a stable
//! kebab-case code.

use super::{parse, MAX_NODES, MAX_PAGE};
use std::fmt;

/// Why a document could not be estimated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostErrorKind {
    Syntax {
        offset: usize,
        message: String,
    },
    TooDeep,
    NoOperation,
    OperationNameRequired,
    UnknownOperation {
        name: String,
    },
    UnsupportedOperation,
    DuplicateFragment {
        name: String,
    },
    UnknownFragment {
        name: String,
    },
    FragmentCycle {
        name: String,
    },
    InvalidVariables,
    MissingVariable {
        name: String,
    },
    InvalidArgument {
        field: String,
        argument: String,
    },
    ArgumentOutOfRange {
        field: String,
        argument: String,
        value: String,
    },
    TooManyNodes {
        nodes: u64,
    },
}

/// An estimate failure, with a stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostError {
    pub kind: CostErrorKind,
}

impl CostError {
    pub(crate) fn new(kind: CostErrorKind) -> Self {
        CostError { kind }
    }

    /// Stable machine code.
    pub fn code(&self) -> &'static str {
        match self.kind {
            CostErrorKind::Syntax { .. } => "syntax-error",
            CostErrorKind::TooDeep => "too-deep",
            CostErrorKind::NoOperation => "no-operation",
            CostErrorKind::OperationNameRequired => "operation-name-required",
            CostErrorKind::UnknownOperation { .. } => "unknown-operation",
            CostErrorKind::UnsupportedOperation => "unsupported-operation",
            CostErrorKind::DuplicateFragment { .. } => "duplicate-fragment",
            CostErrorKind::UnknownFragment { .. } => "unknown-fragment",
            CostErrorKind::FragmentCycle { .. } => "fragment-cycle",
            CostErrorKind::InvalidVariables => "invalid-variables",
            CostErrorKind::MissingVariable { .. } => "missing-variable",
            CostErrorKind::InvalidArgument { .. } => "invalid-argument",
            CostErrorKind::ArgumentOutOfRange { .. } => "argument-out-of-range",
            CostErrorKind::TooManyNodes { .. } => "too-many-nodes",
        }
    }
}

impl fmt::Display for CostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            CostErrorKind::Syntax { offset, message } => {
                write!(f, "graphql syntax error at byte {offset}: {message}")
            }
            CostErrorKind::TooDeep => write!(
                f,
                "the document nests deeper than {} levels",
                parse::MAX_DEPTH
            ),
            CostErrorKind::NoOperation => write!(f, "the document has no operation"),
            CostErrorKind::OperationNameRequired => {
                write!(
                    f,
                    "the document has several operations and no operation name was given"
                )
            }
            CostErrorKind::UnknownOperation { name } => {
                write!(f, "the document has no operation named {name}")
            }
            CostErrorKind::UnsupportedOperation => {
                write!(f, "subscriptions are not supported by github")
            }
            CostErrorKind::DuplicateFragment { name } => {
                write!(f, "fragment {name} is defined twice")
            }
            CostErrorKind::UnknownFragment { name } => {
                write!(f, "fragment {name} is used but not defined")
            }
            CostErrorKind::FragmentCycle { name } => write!(f, "fragment {name} spreads itself"),
            CostErrorKind::InvalidVariables => write!(f, "variables must be a json object"),
            CostErrorKind::MissingVariable { name } => {
                write!(f, "variable ${name} has no value and no default")
            }
            CostErrorKind::InvalidArgument { field, argument } => {
                write!(f, "{argument} on {field} is not an integer")
            }
            CostErrorKind::ArgumentOutOfRange {
                field,
                argument,
                value,
            } => {
                write!(f, "{argument} on {field} is {value}, outside 1..{MAX_PAGE}")
            }
            CostErrorKind::TooManyNodes { nodes } => {
                write!(
                    f,
                    "the call can request {nodes} nodes, more than {MAX_NODES}"
                )
            }
        }
    }
}

impl std::error::Error for CostError {}
