//! Words from outside (a plan's keys, a receipt's, a durable port's error code and message) in
//! the Markdown job summary. Every such word is written as one inline code span: CommonMark
//! and GFM read nothing inside a code span (no link, image, autolink, raw HTML, entity,
//! emphasis or heading), so only the span's own fence could end it early. The fence is one
//! backtick longer than the longest run of backticks in the text, and the text is padded with
//! a space when it starts or ends with a backtick or a space (CommonMark strips exactly one
//! space from each side). Line breaks become spaces, so the text cannot start a block of its
//! own (a heading, a list, an HTML block). In a table cell, `|` is written `\|`: GFM splits a
//! row on every unescaped pipe, even inside a code span, and gives `\|` back as `|`.

/// `text` as an inline code span, outside a table (an empty text as a space).
pub fn literal(text: &str) -> String {
    span(&text.replace(['\r', '\n'], " "))
}

/// `text` as an inline code span inside a GFM table cell.
pub fn cell(text: &str) -> String {
    span(&text.replace(['\r', '\n'], " ").replace('|', "\\|"))
}

fn span(flat: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in flat.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if flat.is_empty() {
        // No code span is empty: a space stands for nothing.
        return format!("{fence} {fence}");
    }
    // Spaces only are kept as they are; otherwise one space each side is stripped.
    let edge = |c: Option<char>| matches!(c, Some('`' | ' '));
    if !flat.bytes().all(|b| b == b' ') && (edge(flat.chars().next()) || edge(flat.chars().last()))
    {
        format!("{fence} {flat} {fence}")
    } else {
        format!("{fence}{flat}{fence}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spans of one line as CommonMark finds them: (content, where it ends), else `None`
    /// when the line's first backtick run opens no span.
    fn first_span(line: &str) -> Option<(String, usize)> {
        let open_at = line.find('`')?;
        let open = line[open_at..].chars().take_while(|&c| c == '`').count();
        let body = &line[open_at + open..];
        let mut i = 0;
        let bytes = body.as_bytes();
        while i < bytes.len() {
            if bytes[i] == b'`' {
                let n = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                if n == open {
                    let content = &body[..i];
                    let stripped = if content.len() >= 2
                        && content.starts_with(' ')
                        && content.ends_with(' ')
                        && !content.bytes().all(|b| b == b' ')
                    {
                        &content[1..content.len() - 1]
                    } else {
                        content
                    };
                    return Some((stripped.to_string(), open_at + open + i + n));
                }
                i += n;
            } else {
                i += 1;
            }
        }
        None
    }

    const HOSTILE: [&str; 9] = [
        "[x](http://evil.example/a) ![t](http://evil.example/i.png) <img src=x> *e* # h |",
        "` [x](http://evil.example/a) `",
        "a ``` b `` c ` d ````",
        "`",
        "``",
        " ",
        "",
        " lead and trail ",
        "line\n# heading\r\n<script>x</script>",
    ];

    #[test]
    fn a_span_holds_exactly_the_text_whatever_backticks_it_holds() {
        for text in HOSTILE {
            let written = literal(text);
            assert!(!written.contains(['\n', '\r']), "{written:?}");
            let (content, end) = first_span(&written).expect("a span");
            assert_eq!(end, written.len(), "the span ends at the end: {written:?}");
            let expected = text.replace(['\r', '\n'], " ");
            let expected = if expected.is_empty() {
                " ".into()
            } else {
                expected
            };
            assert_eq!(content, expected, "{written:?}");
        }
    }

    #[test]
    fn benign_words_read_as_before() {
        assert_eq!(literal("rest-reserve"), "`rest-reserve`");
        assert_eq!(literal("a `b` c"), "``a `b` c``");
        assert_eq!(literal("`b`"), "`` `b` ``");
        assert_eq!(literal(""), "` `");
    }

    #[test]
    fn a_cell_escapes_its_pipes_and_nothing_else() {
        assert_eq!(cell("d0|x"), "`d0\\|x`");
        assert_eq!(cell("a\nb"), "`a b`");
        assert_eq!(literal("d0|x"), "`d0|x`");
    }
}
