//! A strict JSON reader for contract documents.
//!
//! `serde_json` accepts duplicate keys (the last wins) and forgets how a number was written, so
//! `1.0`, `1e3` and `-0` look like integers. A receipt must fail closed on all of those, so this
//! reader keeps every object as an ordered list of members, keeps the exact text of each number,
//! and reports a duplicate key with the JSON path where it occurs.

use std::borrow::Cow;
use std::fmt::Write as _;

/// A parsed JSON value that remembers what the document literally said. It borrows from the
/// document: numbers, and strings without escapes, are slices of it, so reading a receipt
/// allocates little (a few vectors, and only strings that hold escapes).
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    /// The number exactly as written (already checked against the JSON grammar).
    Number(&'a str),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// Members in document order; keys are unique (duplicates are a parse error).
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

impl Json<'_> {
    /// The JSON type name used in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }
}

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON: a syntax error, trailing data, invalid UTF-8 or a byte-order mark.
    Malformed { offset: usize, message: String },
    /// The same key twice in one object; `path` names the repeated member.
    DuplicateKey { path: String },
}

/// Parses one complete JSON document from bytes, rejecting anything around it but whitespace.
pub fn parse(bytes: &[u8]) -> Result<Json<'_>, ParseError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(malformed(0, "a byte-order mark is not allowed"));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| malformed(e.valid_up_to(), "the input is not valid UTF-8"))?;
    let mut reader = Reader {
        src: text,
        text: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    reader.skip_ws();
    let value = reader.value(&|| "$".to_string())?;
    reader.skip_ws();
    if reader.pos != reader.text.len() {
        return Err(malformed(reader.pos, "trailing data after the JSON value"));
    }
    Ok(value)
}

fn malformed(offset: usize, message: &str) -> ParseError {
    ParseError::Malformed {
        offset,
        message: message.to_string(),
    }
}

/// Appends a member name to a JSON path: `$.a` for plain names, `$["odd key"]` otherwise.
pub fn child_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{parent}.{key}")
    } else {
        let mut out = format!("{parent}[");
        write_json_string(&mut out, key);
        out.push(']');
        out
    }
}

/// Writes `s` as a JSON string literal (quotes included) with minimal escaping.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// Deep nesting could exhaust the stack of a wasm instance; contract documents are shallow.
const MAX_DEPTH: usize = 64;

struct Reader<'a> {
    src: &'a str,
    text: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Reader<'a> {
    #[inline(always)]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.get(self.pos) {
            self.pos += 1;
        }
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn expect_literal(&mut self, word: &str, value: Json<'a>) -> Result<Json<'a>, ParseError> {
        if self.text[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(malformed(self.pos, "unexpected token"))
        }
    }

    // Paths are built lazily (only a duplicate key needs one), which keeps parsing allocation-light.
    fn value(&mut self, path: &dyn Fn() -> String) -> Result<Json<'a>, ParseError> {
        match self.peek() {
            None => Err(malformed(self.pos, "unexpected end of input")),
            Some(b'{') => self.nested(|r| r.object(path)),
            Some(b'[') => self.nested(|r| r.array(path)),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.expect_literal("true", Json::Bool(true)),
            Some(b'f') => self.expect_literal("false", Json::Bool(false)),
            Some(b'n') => self.expect_literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(malformed(self.pos, "unexpected character")),
        }
    }

    fn nested(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<Json<'a>, ParseError>,
    ) -> Result<Json<'a>, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(malformed(self.pos, "nesting is too deep"));
        }
        let out = inner(self);
        self.depth -= 1;
        out
    }

    fn object(&mut self, path: &dyn Fn() -> String) -> Result<Json<'a>, ParseError> {
        self.pos += 1; // '{'
                       // Room for a receipt's ten members at once: growing 4, 8, 16 cost two copies.
        let mut members: Vec<(Cow<'a, str>, Json<'a>)> = Vec::with_capacity(16);
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(malformed(self.pos, "expected a member name"));
            }
            let key = self.string()?;
            if members.iter().any(|(k, _)| *k == key) {
                return Err(ParseError::DuplicateKey {
                    path: child_path(&path(), &key),
                });
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(malformed(self.pos, "expected ':' after a member name"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(&|| child_path(&path(), &key))?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(malformed(self.pos, "expected ',' or '}' in an object")),
            }
        }
    }

    fn array(&mut self, path: &dyn Fn() -> String) -> Result<Json<'a>, ParseError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            let index = items.len();
            items.push(self.value(&|| format!("{}[{index}]", path()))?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(malformed(self.pos, "expected ',' or ']' in an array")),
            }
        }
    }

    #[inline(always)]
    fn number(&mut self) -> Result<Json<'a>, ParseError> {
        let start = self.pos;
        let digits = |r: &mut Self| {
            let from = r.pos;
            while let Some(b'0'..=b'9') = r.peek() {
                r.pos += 1;
            }
            r.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(malformed(self.pos, "a number needs digits")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(malformed(self.pos, "a fraction needs digits"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(malformed(self.pos, "an exponent needs digits"));
            }
        }
        Ok(Json::Number(&self.src[start..self.pos]))
    }

    /// The position of the first byte from `from` on that ends a run of plain string
    /// characters: a quote, a backslash, a control character, or the end of the input.
    #[inline(always)]
    fn plain_run_end(&self, from: usize) -> usize {
        const ONES: u64 = u64::from_le_bytes([1; 8]);
        const HIGH: u64 = ONES << 7;
        let mut pos = from;
        // Eight bytes at a time: a byte equal to q makes (w ^ q*ONES) hold a zero byte, and
        // (x - ONES) & !x & HIGH is nonzero when x holds a byte below 1 (below 0x20 for the
        // control characters). It can only err towards stopping, and the loop below decides.
        while let Some(chunk) = self.text.get(pos..pos + 8) {
            let w = u64::from_le_bytes(chunk.try_into().unwrap_or_else(|_| unreachable!()));
            let quote = w ^ (ONES * u64::from(b'"'));
            let backslash = w ^ (ONES * u64::from(b'\\'));
            let stop = (quote.wrapping_sub(ONES) & !quote)
                | (backslash.wrapping_sub(ONES) & !backslash)
                | (w.wrapping_sub(ONES * 0x20) & !w);
            if stop & HIGH != 0 {
                break;
            }
            pos += 8;
        }
        while let Some(&b) = self.text.get(pos) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            pos += 1;
        }
        pos
    }

    #[inline(always)]
    fn string(&mut self) -> Result<Cow<'a, str>, ParseError> {
        self.pos += 1; // opening quote
                       // The common case, no escape: a slice of the document.
        let begin = self.pos;
        let end = self.plain_run_end(begin);
        if self.text.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Ok(Cow::Borrowed(&self.src[begin..end]));
        }
        let mut out = String::new();
        loop {
            let start = self.pos;
            self.pos = self.plain_run_end(start);
            // We stopped on an ASCII byte (or the end), so the slice is on character boundaries.
            out.push_str(&self.src[start..self.pos]);
            match self.peek() {
                None => return Err(malformed(self.pos, "unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(malformed(self.pos, "a control character inside a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let c = self
            .peek()
            .ok_or_else(|| malformed(self.pos, "unterminated escape"))?;
        self.pos += 1;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{08}'),
            b'f' => out.push('\u{0C}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let first = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&first) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    if !self.text[self.pos..].starts_with(b"\\u") {
                        return Err(malformed(self.pos, "a lone surrogate in a string"));
                    }
                    self.pos += 2;
                    let second = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&second) {
                        return Err(malformed(self.pos, "a lone surrogate in a string"));
                    }
                    0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                } else if (0xDC00..0xE000).contains(&first) {
                    return Err(malformed(self.pos, "a lone surrogate in a string"));
                } else {
                    first
                };
                out.push(char::from_u32(code).expect("valid scalar"));
            }
            _ => return Err(malformed(self.pos - 1, "an unknown escape in a string")),
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let chunk = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| malformed(self.pos, "a \\u escape needs four hex digits"))?;
        let text = std::str::from_utf8(chunk).map_err(|_| malformed(self.pos, "bad escape"))?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(malformed(self.pos, "a \\u escape needs four hex digits"));
        }
        self.pos += 4;
        Ok(u32::from_str_radix(text, 16).unwrap_or_else(|_| unreachable!("hex digits")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_number_text() {
        assert_eq!(parse(b"1.0").unwrap(), Json::Number("1.0"));
        assert_eq!(parse(b" -0 ").unwrap(), Json::Number("-0"));
        assert_eq!(parse(b"1e3").unwrap(), Json::Number("1e3"));
    }

    #[test]
    fn rejects_bad_numbers_and_trailing_data() {
        for bad in [
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "1 2",
            "{}x",
            "[1,]",
            "{\"a\":1,}",
        ] {
            assert!(
                matches!(parse(bad.as_bytes()), Err(ParseError::Malformed { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn duplicate_key_after_unescaping_names_its_path() {
        let err = parse(br#"{"a":{"b":1,"\u0062":2}}"#).unwrap_err();
        assert_eq!(
            err,
            ParseError::DuplicateKey {
                path: "$.a.b".into()
            }
        );
    }

    #[test]
    fn surrogates() {
        assert_eq!(
            parse(br#""\ud83d\ude00""#).unwrap(),
            Json::String("\u{1F600}".into())
        );
        assert!(parse(br#""\ud83d""#).is_err());
        assert!(parse(br#""\ude00""#).is_err());
    }

    #[test]
    fn odd_keys_get_bracket_paths() {
        assert_eq!(child_path("$", "a b"), "$[\"a b\"]");
        assert_eq!(child_path("$", "ok_1"), "$.ok_1");
    }

    #[test]
    fn plain_runs_end_where_a_byte_by_byte_scan_ends() {
        let bytewise = |text: &[u8], from: usize| {
            from + text[from..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(text.len() - from)
        };
        // Fillers on either side of the thresholds the eight-byte test uses.
        for filler in [b'a', b'!', b' ', 0x7F, 0x80, 0xC3, 0xFF] {
            for len in 0..=20 {
                for at in 0..len {
                    for byte in 0..=255u8 {
                        let mut text = vec![filler; len];
                        text[at] = byte;
                        let reader = Reader {
                            src: "",
                            text: &text,
                            pos: 0,
                            depth: 0,
                        };
                        for from in 0..3.min(len) {
                            assert_eq!(
                                reader.plain_run_end(from),
                                bytewise(&text, from),
                                "{text:?} from {from}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn too_deep_is_malformed() {
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(deep.as_bytes()).is_err());
    }
}
