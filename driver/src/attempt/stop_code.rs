//! The two sets of stop codes the attempt sorts by: the codes of bad input (exit 2, not the
//! provider's fault), and the preflight stops decided offline, before any rate state is read.
//! Each is an enum with one `ALL` list; the codes themselves are the domain's, spelled as JSON
//! carries them.

/// Decision codes that come from what the caller gave (exit 2), not from the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputCode {
    InvalidInput,
    InvalidPolicy,
    InvalidLedger,
    UnsupportedLedgerVersion,
    InvalidPlan,
    InvalidReceipt,
}

impl InputCode {
    pub const ALL: [InputCode; 6] = [
        InputCode::InvalidInput,
        InputCode::InvalidPolicy,
        InputCode::InvalidLedger,
        InputCode::UnsupportedLedgerVersion,
        InputCode::InvalidPlan,
        InputCode::InvalidReceipt,
    ];

    /// The code as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            InputCode::InvalidInput => "invalid-input",
            InputCode::InvalidPolicy => "invalid-policy",
            InputCode::InvalidLedger => "invalid-ledger",
            InputCode::UnsupportedLedgerVersion => "unsupported-ledger-version",
            InputCode::InvalidPlan => "invalid-plan",
            InputCode::InvalidReceipt => "invalid-receipt",
        }
    }

    /// The input code `code` is, if it is one.
    pub fn of(code: &str) -> Option<InputCode> {
        InputCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

/// Preflight stops decided from the receipt and inputs alone, before any rate state is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineStop {
    InvalidReceipt,
    NotYetDue,
    Expired,
    ClaimUnavailable,
    BindingMismatch,
    ApprovalRequired,
}

impl OfflineStop {
    pub const ALL: [OfflineStop; 6] = [
        OfflineStop::InvalidReceipt,
        OfflineStop::NotYetDue,
        OfflineStop::Expired,
        OfflineStop::ClaimUnavailable,
        OfflineStop::BindingMismatch,
        OfflineStop::ApprovalRequired,
    ];

    /// The code as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            OfflineStop::InvalidReceipt => "invalid-receipt",
            OfflineStop::NotYetDue => "not-yet-due",
            OfflineStop::Expired => "expired",
            OfflineStop::ClaimUnavailable => "claim-unavailable",
            OfflineStop::BindingMismatch => "binding-mismatch",
            OfflineStop::ApprovalRequired => "approval-required",
        }
    }

    /// The offline stop `code` is, if it is one.
    pub fn of(code: &str) -> Option<OfflineStop> {
        OfflineStop::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_reads_back_and_others_are_none() {
        for c in InputCode::ALL {
            assert_eq!(InputCode::of(c.as_str()), Some(c));
        }
        for c in OfflineStop::ALL {
            assert_eq!(OfflineStop::of(c.as_str()), Some(c));
        }
        assert_eq!(InputCode::of("rest-reserve"), None);
        assert_eq!(OfflineStop::of("rest-reserve"), None);
    }
}
