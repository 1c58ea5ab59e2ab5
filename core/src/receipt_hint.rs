//! A receipt refusal that points the way when the text handed in is a whole result (whose
//! `deferredReceipt` is the receipt) rather than a receipt: every place that validates a receipt
//! handed in by a person (the preflight, the small commands, the library, the wasm surface)
//! words the refusal the same.

use crate::receipt::ReceiptError;
use serde_json::Value;

/// A receipt error, with the message pointing the way when the input is a whole gate or resume
/// result (its `deferredReceipt` is the receipt) rather than a receipt. The code and path stay
/// the contract's: a result is not a receipt, and is not accepted as one.
pub fn with_hint(bytes: &[u8], mut error: ReceiptError) -> ReceiptError {
    // A result always has fields the contract lacks: only such a refusal can be one, and the
    // document is parsed again only then.
    let is_result = error.code == crate::receipt::ErrorCode::UnknownField
        && serde_json::from_slice::<Value>(bytes)
            .ok()
            .is_some_and(|v| v.get("deferredReceipt").is_some());
    if is_result {
        error.message.push_str(
            ": this is a gate or resume result, not a receipt; its deferredReceipt is the receipt (jq -c .deferredReceipt)",
        );
    }
    error
}
