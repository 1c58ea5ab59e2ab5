//! The codes the decision and the resume preflight write themselves: one enum, one `ALL` list,
//! spelled as the JSON carries them (`code`, `diagnostics[].code`). A plan's or a receipt's own
//! refusal passes through under its own code (`PlanError`, the receipt's `ErrorCode`).

/// A code of the decision or the preflight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    // Stops on what the caller gave.
    InvalidInput,
    InvalidPolicy,
    InvalidLedger,
    UnsupportedLedgerVersion,
    InvalidPlan,
    // The rate state and the checks.
    MissingRateState,
    RateStateUnavailable,
    GraphqlStateMissing,
    Unlimited,
    WindowElapsed,
    CoreBelowReserve,
    GraphqlBelowReserve,
    SecondaryBudget,
    SecondaryHold,
    PlanExceedsWindow,
    WindowUnreachable,
    ReceiptError,
    // The resume preflight's own stops.
    InvalidReceipt,
    NotYetDue,
    Expired,
    ClaimUnavailable,
    BindingMismatch,
    ApprovalRequired,
}

impl Code {
    /// Every code, once.
    pub const ALL: [Code; 23] = [
        Code::InvalidInput,
        Code::InvalidPolicy,
        Code::InvalidLedger,
        Code::UnsupportedLedgerVersion,
        Code::InvalidPlan,
        Code::MissingRateState,
        Code::RateStateUnavailable,
        Code::GraphqlStateMissing,
        Code::Unlimited,
        Code::WindowElapsed,
        Code::CoreBelowReserve,
        Code::GraphqlBelowReserve,
        Code::SecondaryBudget,
        Code::SecondaryHold,
        Code::PlanExceedsWindow,
        Code::WindowUnreachable,
        Code::ReceiptError,
        Code::InvalidReceipt,
        Code::NotYetDue,
        Code::Expired,
        Code::ClaimUnavailable,
        Code::BindingMismatch,
        Code::ApprovalRequired,
    ];

    /// The code as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidInput => "invalid-input",
            Code::InvalidPolicy => "invalid-policy",
            Code::InvalidLedger => "invalid-ledger",
            Code::UnsupportedLedgerVersion => "unsupported-ledger-version",
            Code::InvalidPlan => "invalid-plan",
            Code::MissingRateState => "missing-rate-state",
            Code::RateStateUnavailable => "rate-state-unavailable",
            Code::GraphqlStateMissing => "graphql-state-missing",
            Code::Unlimited => "unlimited",
            Code::WindowElapsed => "window-elapsed",
            Code::CoreBelowReserve => "core-below-reserve",
            Code::GraphqlBelowReserve => "graphql-below-reserve",
            Code::SecondaryBudget => "secondary-budget",
            Code::SecondaryHold => "secondary-hold",
            Code::PlanExceedsWindow => "plan-exceeds-window",
            Code::WindowUnreachable => "window-unreachable",
            Code::ReceiptError => "receipt-error",
            Code::InvalidReceipt => "invalid-receipt",
            Code::NotYetDue => "not-yet-due",
            Code::Expired => "expired",
            Code::ClaimUnavailable => "claim-unavailable",
            Code::BindingMismatch => "binding-mismatch",
            Code::ApprovalRequired => "approval-required",
        }
    }

    /// The code `text` spells, if it is one of these.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == text)
    }

    /// A stop on what the caller gave (exit 2: fix the input), not on the provider.
    pub fn is_input(self) -> bool {
        matches!(
            self,
            Code::InvalidInput
                | Code::InvalidPolicy
                | Code::InvalidLedger
                | Code::UnsupportedLedgerVersion
                | Code::InvalidPlan
                | Code::InvalidReceipt
        )
    }

    /// A preflight stop decided from the receipt and the inputs alone, before any rate state.
    pub fn is_offline_stop(self) -> bool {
        matches!(
            self,
            Code::InvalidReceipt
                | Code::NotYetDue
                | Code::Expired
                | Code::ClaimUnavailable
                | Code::BindingMismatch
                | Code::ApprovalRequired
        )
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_reads_back_once() {
        for c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(c));
            assert_eq!(
                Code::ALL
                    .iter()
                    .filter(|o| o.as_str() == c.as_str())
                    .count(),
                1
            );
        }
        assert_eq!(Code::parse("rest-reserve"), None);
    }
}
