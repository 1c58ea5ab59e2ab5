//! Splits the text of an `exec:` target into a program and its arguments, once, with a small
//! documented subset of POSIX shell quoting and none of its expansions:
//!
//! * words are separated by spaces;
//! * `'...'` keeps everything inside as it is;
//! * `"..."` keeps everything inside, except that `\"` and `\\` stand for `"` and `\`;
//! * outside quotes, `\` makes the next character an ordinary one (`\ ` is a space in a word);
//! * outside quotes, the characters a shell would act on (`; & | < > ( ) $ `` ` `` * ? [ ] { } ~ # !`)
//!   are refused rather than passed on, so a target never silently means something other than
//!   what a shell reader expects: quote them to pass them literally;
//! * control characters (newline, tab, ...) are refused anywhere, quoted or not.

use std::fmt;

/// Characters a shell would interpret when unquoted.
const SHELL_SPECIAL: &str = ";&|<>()$`*?[]{}~#!";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordsError {
    Empty,
    ControlCharacter { at: usize },
    NeedsShell { at: usize, found: char },
    UnclosedQuote { quote: char },
    TrailingBackslash,
}

impl fmt::Display for WordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordsError::Empty => f.write_str("names no program"),
            WordsError::ControlCharacter { at } => write!(
                f,
                "holds a control character at byte {at} (newlines and tabs are refused too)"
            ),
            WordsError::NeedsShell { at, found } => write!(
                f,
                "would need a shell: {found:?} at byte {at} is shell syntax, and exec: targets run \
                 no shell (quote it to pass it literally, or put the pipeline in a script)"
            ),
            WordsError::UnclosedQuote { quote } => write!(f, "has an unclosed {quote} quote"),
            WordsError::TrailingBackslash => f.write_str("ends with a lone backslash"),
        }
    }
}

/// The words of `text` (see the module docs). Never empty on success.
pub fn split(text: &str) -> Result<Vec<String>, WordsError> {
    if let Some(at) = text.find(char::is_control) {
        return Err(WordsError::ControlCharacter { at });
    }
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            ' ' => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, inner)) => current.push(inner),
                        None => return Err(WordsError::UnclosedQuote { quote: '\'' }),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, escaped @ ('"' | '\\'))) => current.push(escaped),
                            Some((_, other)) => {
                                current.push('\\');
                                current.push(other);
                            }
                            None => return Err(WordsError::UnclosedQuote { quote: '"' }),
                        },
                        Some((_, inner)) => current.push(inner),
                        None => return Err(WordsError::UnclosedQuote { quote: '"' }),
                    }
                }
            }
            '\\' => match chars.next() {
                Some((_, escaped)) => word.get_or_insert_with(String::new).push(escaped),
                None => return Err(WordsError::TrailingBackslash),
            },
            c if SHELL_SPECIAL.contains(c) => return Err(WordsError::NeedsShell { at, found: c }),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(done) = word {
        words.push(done);
    }
    if words.is_empty() {
        return Err(WordsError::Empty);
    }
    Ok(words)
}

/// `words` written back in the quoting [`split`] reads: plain words as they are, others in
/// single quotes (a `'` inside as `'\''`).
pub fn join(words: &[String]) -> String {
    let plain = |w: &str| {
        !w.is_empty()
            && w.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || "-_./=:,+@%^".contains(c)
                    || (!c.is_ascii() && !c.is_control())
            })
    };
    words
        .iter()
        .map(|w| {
            if plain(w) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<String> {
        split(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    #[test]
    fn splits_words_with_quotes_and_escapes() {
        assert_eq!(ok("/bin/x"), ["/bin/x"]);
        assert_eq!(ok("  /bin/x   a  b "), ["/bin/x", "a", "b"]);
        assert_eq!(ok("/bin/x 'a b' \"c d\""), ["/bin/x", "a b", "c d"]);
        assert_eq!(ok(r#"/bin/x "q\"x\\y\n""#), ["/bin/x", r#"q"x\y\n"#]);
        assert_eq!(ok(r"/bin/x a\ b \$HOME"), ["/bin/x", "a b", "$HOME"]);
        assert_eq!(ok("/bin/x '$(id); `id`' ''"), ["/bin/x", "$(id); `id`", ""]);
        assert_eq!(ok("/bin/x a'b'\"c\""), ["/bin/x", "abc"]);
    }

    #[test]
    fn refuses_what_would_need_a_shell() {
        for (text, want) in [
            ("", WordsError::Empty),
            ("   ", WordsError::Empty),
            ("/bin/x; id", WordsError::NeedsShell { at: 6, found: ';' }),
            ("/bin/x $(id)", WordsError::NeedsShell { at: 7, found: '$' }),
            ("/bin/x `id`", WordsError::NeedsShell { at: 7, found: '`' }),
            ("/bin/x && id", WordsError::NeedsShell { at: 7, found: '&' }),
            ("/bin/x | id", WordsError::NeedsShell { at: 7, found: '|' }),
            ("/bin/x > f", WordsError::NeedsShell { at: 7, found: '>' }),
            ("/bin/x *", WordsError::NeedsShell { at: 7, found: '*' }),
            ("/bin/x\nid", WordsError::ControlCharacter { at: 6 }),
            ("/bin/x '\nid'", WordsError::ControlCharacter { at: 8 }),
            ("/bin/x\ta", WordsError::ControlCharacter { at: 6 }),
            ("/bin/x 'a", WordsError::UnclosedQuote { quote: '\'' }),
            ("/bin/x \"a", WordsError::UnclosedQuote { quote: '"' }),
            ("/bin/x a\\", WordsError::TrailingBackslash),
        ] {
            assert_eq!(split(text), Err(want), "{text:?}");
        }
    }

    #[test]
    fn join_reads_back_as_the_same_words() {
        let words: Vec<String> = [
            "/opt/my tools/run",
            "it's",
            "",
            "$(id)",
            "a\"b\\c",
            "plain-1.0",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(ok(&join(&words)), words);
    }
}
