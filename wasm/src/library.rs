//! The JS library's one entry into the core (`library/` in the repository): an op and its
//! facts in, the answer or the error to throw out (see `deferral_driver::library`).

use wasm_bindgen::prelude::*;

/// `{"op", ...}` -> `{"ok":true,...}` or `{"ok":false,"error":{"class","message","props"}}`.
#[wasm_bindgen]
pub fn library(input: &str) -> String {
    deferral_driver::library::answer(input)
}
