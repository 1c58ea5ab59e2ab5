//! Outside words on stderr: what a port, GitHub or a receipt said, shown to a person in the
//! verdict or `explain`. The Actions runner reads workflow commands from a step's stderr as
//! from its stdout, and a terminal obeys escape sequences, so each outside word is made one
//! line with nothing a terminal or a runner acts on: [`one_line`] is the one function every
//! such word goes through.

use std::fmt::Write;

/// Bidirectional controls: they reorder what a person reads (U+202E shows `evil` as `live`).
fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// `text` as one line: every control character (C0 with line breaks and ESC, DEL, C1), every
/// bidi control and the line and paragraph separators written as `\u{..}`; the rest as is.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || is_bidi(c) || c == '\u{2028}' || c == '\u{2029}' {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn nothing_a_terminal_or_runner_acts_on_is_left() {
        let hostile =
            "a\n::warning::x\r\u{1b}[2J\u{7f}\u{85}\u{9b}\u{202e}b\u{2066}\u{200f}\u{61c}\u{2028}";
        let shown = one_line(hostile);
        assert_eq!(
            shown,
            "a\\u{a}::warning::x\\u{d}\\u{1b}[2J\\u{7f}\\u{85}\\u{9b}\\u{202e}b\\u{2066}\\u{200f}\\u{61c}\\u{2028}"
        );
        assert_eq!(
            one_line("plain words, é and 日本"),
            "plain words, é and 日本"
        );
    }
}
