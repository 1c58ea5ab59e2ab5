//! What the shell adds to two of the preflight's stops: the flags and Action inputs a person
//! changes. The domain's preflight says what failed (a binding differs, approval is missing)
//! and names no flag; the CLI's and the Action's words for the fix are here.

use deferral_core::decision::{Code, Diagnostic};
use deferral_core::preflight::Preflight;

/// Which inputs feed a binding, for the `binding-mismatch` message (the CLI flag, and the
/// Action input of the same name).
fn binding_inputs(field: &str) -> &'static str {
    match field {
        "scope_digest" => {
            "--scope (default: GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_WORKFLOW_REF and GITHUB_JOB)"
        }
        "request_digest" => {
            "--request, the scope, and the policy --rest-reserve, --graphql-reserve, \
             --resume-buffer and --resume-window: give the resume the same values as the gate"
        }
        _ => "--plan",
    }
}

/// The way out of a preflight stop, when the stop has one a person can take.
fn way_out(p: &Preflight) -> Option<String> {
    match Code::parse(p.code.as_deref()?)? {
        Code::BindingMismatch => {
            let field = p.field?;
            Some(format!("{field} comes from {}", binding_inputs(field)))
        }
        Code::ApprovalRequired => Some(
            "once this run has it, pass --approval granted (the Action's input approval: \
             granted), or have the gate emit receipts with --fresh-approval never"
                .into(),
        ),
        _ => None,
    }
}

/// The preflight's diagnostics with the way out appended to its stop's message.
pub fn worded(p: &Preflight) -> Vec<Diagnostic> {
    let mut diagnostics = p.diagnostics.clone();
    if let (Some(way), Some(code)) = (way_out(p), p.code.as_deref()) {
        if let Some(stop) = diagnostics.iter_mut().find(|d| d.code == code) {
            stop.message = format!("{}: {way}", stop.message);
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use deferral_core::decision::Status;

    fn stopped(code: &str, field: Option<&'static str>, message: &str) -> Preflight {
        Preflight {
            status: Status::Blocked,
            code: Some(code.into()),
            field,
            ownership: Some("handoff"),
            diagnostics: vec![Diagnostic {
                code: code.into(),
                message: message.into(),
            }],
            decision: None,
            receipt: None,
        }
    }

    #[test]
    fn the_way_out_follows_the_reason() {
        let p = stopped("binding-mismatch", Some("plan_digest"), "differs");
        assert_eq!(
            worded(&p)[0].message,
            "differs: plan_digest comes from --plan"
        );
        let p = stopped("binding-mismatch", Some("scope_digest"), "differs");
        assert!(worded(&p)[0]
            .message
            .starts_with("differs: scope_digest comes from --scope ("));
        let p = stopped("approval-required", None, "no approval");
        assert_eq!(
            worded(&p)[0].message,
            "no approval: once this run has it, pass --approval granted (the Action's input \
             approval: granted), or have the gate emit receipts with --fresh-approval never"
        );
        let p = stopped("not-yet-due", None, "wait");
        assert_eq!(worded(&p)[0].message, "wait");
    }
}
