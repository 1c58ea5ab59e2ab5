//! Splits a GraphQL document into tokens (GraphQL spec, October 2021, section 2.1), dropping
//! what the spec calls ignored: whitespace, commas, comments and the byte-order mark.

use super::{CostError, CostErrorKind};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    /// One of `! $ & ( ) ... : = @ [ ] { | }`; `...` is stored as `.`.
    Punct(char),
    Name(String),
    Int(String),
    Float(String),
    /// A string or block string, with escapes resolved.
    Str(String),
    End,
}

/// A token and the byte offset it starts at (for error messages).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spanned {
    pub token: Token,
    pub offset: usize,
}

pub(crate) fn tokenize(source: &str) -> Result<Vec<Spanned>, CostError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let syntax = |offset: usize, what: &str| {
        CostError::new(CostErrorKind::Syntax {
            offset,
            message: what.to_string(),
        })
    };
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
            // The UTF-8 byte-order mark is ignored like whitespace.
            0xEF if bytes[i..].starts_with(&[0xEF, 0xBB, 0xBF]) => i += 3,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
            }
            b'!' | b'$' | b'&' | b'(' | b')' | b':' | b'=' | b'@' | b'[' | b']' | b'{' | b'|'
            | b'}' => {
                tokens.push(Spanned {
                    token: Token::Punct(c as char),
                    offset: start,
                });
                i += 1;
            }
            b'.' => {
                if !bytes[i..].starts_with(b"...") {
                    return Err(syntax(start, "a lone '.' (only '...' is valid)"));
                }
                tokens.push(Spanned {
                    token: Token::Punct('.'),
                    offset: start,
                });
                i += 3;
            }
            b'_' | b'a'..=b'z' | b'A'..=b'Z' => {
                while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                tokens.push(Spanned {
                    token: Token::Name(source[start..i].to_string()),
                    offset: start,
                });
            }
            b'-' | b'0'..=b'9' => {
                let (token, end) =
                    number(source, start).ok_or_else(|| syntax(start, "a malformed number"))?;
                tokens.push(Spanned {
                    token,
                    offset: start,
                });
                i = end;
            }
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                let (text, end) = block_string(source, start)
                    .ok_or_else(|| syntax(start, "an unterminated block string"))?;
                tokens.push(Spanned {
                    token: Token::Str(text),
                    offset: start,
                });
                i = end;
            }
            b'"' => {
                let (text, end) = string(source, start).map_err(|m| syntax(start, m))?;
                tokens.push(Spanned {
                    token: Token::Str(text),
                    offset: start,
                });
                i = end;
            }
            _ => return Err(syntax(start, "an unexpected character")),
        }
    }
    tokens.push(Spanned {
        token: Token::End,
        offset: bytes.len(),
    });
    Ok(tokens)
}

/// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`, not followed by a name start or `.`.
fn number(source: &str, start: usize) -> Option<(Token, usize)> {
    let b = source.as_bytes();
    let mut i = start;
    let digits = |mut i: usize| {
        let from = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i > from).then_some(i)
    };
    if b[i] == b'-' {
        i += 1;
    }
    let int_start = i;
    i = digits(i)?;
    if b[int_start] == b'0' && i - int_start > 1 {
        return None;
    }
    let mut float = false;
    if i < b.len() && b[i] == b'.' {
        i = digits(i + 1)?;
        float = true;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        i = digits(i)?;
        float = true;
    }
    if i < b.len() && (b[i] == b'.' || b[i] == b'_' || b[i].is_ascii_alphabetic()) {
        return None;
    }
    let text = source[start..i].to_string();
    Some((
        if float {
            Token::Float(text)
        } else {
            Token::Int(text)
        },
        i,
    ))
}

/// A `"..."` string with its escapes resolved; returns the value and the end offset.
fn string(source: &str, start: usize) -> Result<(String, usize), &'static str> {
    let mut out = String::new();
    let mut chars = source[start + 1..].char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((out, start + 1 + at + 1)),
            '\n' | '\r' => return Err("a line break inside a string"),
            '\\' => {
                let (_, e) = chars.next().ok_or("an unterminated string")?;
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let hex: String = (0..4)
                            .filter_map(|_| chars.next().map(|(_, h)| h))
                            .collect();
                        let code =
                            u32::from_str_radix(&hex, 16).map_err(|_| "a malformed \\u escape")?;
                        // Surrogates are not scalar values; the estimate never needs string values,
                        // so a replacement character is enough.
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    _ => return Err("an unknown escape in a string"),
                }
            }
            c => out.push(c),
        }
    }
    Err("an unterminated string")
}

/// A `"""..."""` block string (only `\"""` is an escape); indentation is kept as is because the
/// estimate never looks at string values.
fn block_string(source: &str, start: usize) -> Option<(String, usize)> {
    let body = &source[start + 3..];
    let mut out = String::new();
    let mut i = 0;
    while i < body.len() {
        let rest = &body[i..];
        if rest.starts_with("\\\"\"\"") {
            out.push_str("\"\"\"");
            i += 4;
        } else if rest.starts_with("\"\"\"") {
            return Some((out, start + 3 + i + 3));
        } else {
            let c = rest.chars().next()?;
            out.push(c);
            i += c.len_utf8();
        }
    }
    None
}
