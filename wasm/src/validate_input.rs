//! Receipt validation with nothing copied through wasm-bindgen: JS writes the receipt's bytes
//! straight into [`input_buffer`], and [`validate_input`] answers 0 for a valid receipt (nothing
//! is serialised back: the caller already holds the text) or where the refusal can be read.

use deferral_core::receipt;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

thread_local! {
    /// Where JS writes the bytes to validate; reused across calls.
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The last refusal's code, path and message, one after another.
    static REFUSAL_TEXT: RefCell<String> = const { RefCell::new(String::new()) };
    /// Where [`REFUSAL_TEXT`] starts and the byte length of each of its three parts.
    static REFUSAL: Cell<[u32; 4]> = const { Cell::new([0; 4]) };
}

/// A buffer of at least `len` bytes in wasm memory for [`validate_input`]. It moves only when
/// a larger one is asked for, so JS can ask once for the largest input it passes.
#[wasm_bindgen]
pub fn input_buffer(len: usize) -> *mut u8 {
    INPUT.with(|b| {
        let mut b = b.borrow_mut();
        if b.len() < len {
            b.resize(len, 0);
        }
        b.as_mut_ptr()
    })
}

/// Validates the first `len` bytes of the input buffer. Answers 0 when the receipt is valid;
/// when it is refused, the address of four `u32`: the address of the refusal's text, then the
/// byte lengths of its code, path and message, which follow one another in that text. Both stay
/// valid until the next call.
#[wasm_bindgen]
pub fn validate_input(len: usize) -> usize {
    INPUT.with(|b| {
        let b = b.borrow();
        let bytes = &b[..len.min(b.len())];
        match receipt::check(bytes) {
            Ok(()) => 0,
            Err(e) if e.code == receipt::ErrorCode::UnknownField && may_be_result(bytes) => {
                refusal(&deferral_core::receipt_hint::with_hint(bytes, e))
            }
            Err(e) => refusal(&e),
        }
    })
}

/// `with_hint` parses the whole document again (about 10 us) to tell a gate or resume result
/// from a receipt. A result names `deferredReceipt`: literally, or through an escape.
fn may_be_result(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .enumerate()
        .any(|(at, &b)| b == b'\\' || (b == b'd' && bytes[at..].starts_with(b"deferredReceipt")))
}

fn refusal(error: &receipt::ReceiptError) -> usize {
    REFUSAL_TEXT.with(|text| {
        let mut text = text.borrow_mut();
        text.clear();
        text.push_str(error.code());
        text.push_str(&error.path);
        text.push_str(&error.message);
        // Addresses and lengths of wasm32 memory fit in 32 bits.
        let parts = [
            text.as_ptr() as usize as u32,
            error.code().len() as u32,
            error.path.len() as u32,
            error.message.len() as u32,
        ];
        REFUSAL.with(|r| {
            r.set(parts);
            r.as_ptr() as usize
        })
    })
}
