//! RFC 8785 JSON Canonicalization Scheme (JCS).
//!
//! Digests must be recomputable by anyone with any JCS library, so this follows the RFC to the
//! letter: object members sorted by the UTF-16 code units of their names, strings escaped the
//! way ECMAScript's `JSON.stringify` does, and every number written as ECMAScript's
//! `Number.prototype.toString` writes the nearest IEEE-754 double.

use crate::json::write_json_string;
use serde_json::Value;

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JcsError(pub String);

impl std::fmt::Display for JcsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JcsError {}

/// The canonical JSON text of `value`.
///
/// Fails for a number outside the range of a double (`1e400` parses as JSON, but RFC 8785
/// defines canonical numbers only for finite IEEE-754 values).
pub fn canonicalize(value: &Value) -> Result<String, JcsError> {
    let mut out = String::new();
    write_value(&mut out, value)?;
    Ok(out)
}

fn write_value(out: &mut String, value: &Value) -> Result<(), JcsError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            // JCS treats every number as a double, even integers beyond 2^53.
            let f = n.as_f64().filter(|f| f.is_finite()).ok_or_else(|| {
                JcsError(format!("the number {n} is outside the range of a double"))
            })?;
            out.push_str(&format_number(f)?);
        }
        Value::String(s) => write_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            sort_by_utf16(&mut members);
            out.push('{');
            for (i, (key, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                write_value(out, item)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Sorts members by the UTF-16 code units of their names (RFC 8785 section 3.2.3). A plain
/// heapsort: names in one object are unique, so stability does not matter, and it is ~4 KB
/// less wasm than the standard library's sort while staying O(n log n) on hostile input.
fn sort_by_utf16(members: &mut [(&String, &Value)]) {
    let less = |a: &String, b: &String| a.encode_utf16().lt(b.encode_utf16());
    // Moves members[root] down the max-heap held in members[..end].
    let sift = |members: &mut [(&String, &Value)], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && less(members[child].0, members[child + 1].0) {
            child += 1;
        }
        if !less(members[root].0, members[child].0) {
            return;
        }
        members.swap(root, child);
        root = child;
    };
    for root in (0..members.len() / 2).rev() {
        sift(members, root, members.len());
    }
    for end in (1..members.len()).rev() {
        members.swap(0, end);
        sift(members, 0, end);
    }
}

/// Formats a double exactly as ECMAScript's `Number.prototype.toString` (radix 10) does.
pub fn format_number(x: f64) -> Result<String, JcsError> {
    if !x.is_finite() {
        return Err(JcsError("NaN and infinities have no JSON form".into()));
    }
    if x == 0.0 {
        return Ok("0".into()); // also -0
    }
    if x < 0.0 {
        return Ok(format!("-{}", format_number(-x)?));
    }
    if x < 9_007_199_254_740_992.0 && x.fract() == 0.0 {
        return Ok((x as u64).to_string()); // exact integers: the common case, and fast
    }
    let (digits, n) = shortest_digits(x);
    let k = digits.len() as i32;
    let out = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let sign = if n - 1 < 0 { '-' } else { '+' };
        let rest = if k == 1 {
            String::new()
        } else {
            format!(".{}", &digits[1..])
        };
        format!("{}{rest}e{sign}{}", &digits[..1], (n - 1).abs())
    };
    Ok(out)
}

/// The shortest decimal digits that read back as `x`, and the decimal exponent `n` such that
/// `x = 0.digits * 10^n`. Among equally short candidates ECMAScript takes the closest one and,
/// on an exact tie, the even one; Rust's `{:e}` rounds a tie up, so ties are settled here.
fn shortest_digits(x: f64) -> (String, i32) {
    // zmij (Schubfach) gives the shortest round-trip form, as "1.5", "1e21" or "1.2345e-7",
    // without std's float formatting machinery (which costs the wasm build about 10 KB).
    let mut buffer = zmij::Buffer::new();
    let (digits, n) = digits_and_exponent(buffer.format_finite(x));
    let k = digits.len() as i32;
    let last = digits.as_bytes()[digits.len() - 1];
    // Only an odd last digit can be the upper half of a tie; the lower one is then even.
    if last % 2 == 1 && k <= 17 {
        let value: u64 = digits.parse().unwrap_or_else(|_| unreachable!("digits"));
        if equals_decimal(x, value * 10 - 5, n - k - 1) {
            let mut low = digits.clone().into_bytes();
            *low.last_mut().expect("digit") -= 1;
            let low = String::from_utf8(low).unwrap_or_else(|_| unreachable!("ascii"));
            if format!("{low}e{}", n - k).parse::<f64>() == Ok(x) {
                return (low, n);
            }
        }
    }
    (digits, n)
}

/// Splits a positive decimal like `123.45`, `0.001` or `1.5e-7` into its significant digits
/// (no leading or trailing zeros) and `n` such that the value is `0.DIGITS * 10^n`.
fn digits_and_exponent(text: &str) -> (String, i32) {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (
            &text[..i],
            text[i + 1..]
                .parse::<i32>()
                .unwrap_or_else(|_| unreachable!("exponent")),
        ),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_string();
    // The point sits after `int.len()` digits of `all`; skipped leading zeros move it left.
    (digits, int.len() as i32 - leading as i32 + exp)
}

/// Whether the positive double `x` is exactly `digits * 10^exp10`, in integer arithmetic.
fn equals_decimal(x: f64, digits: u64, exp10: i32) -> bool {
    // x = m * 2^e exactly.
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (m, e) = if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), field - 1075)
    };
    // digits * 10^exp10 = odd * 2^p: 5^27 is the largest power whose product still fits u128.
    let (mut odd, mut p): (u128, i32) = if exp10 >= 0 {
        if exp10 > 27 {
            return false;
        }
        (u128::from(digits) * 5u128.pow(exp10 as u32), exp10)
    } else {
        let five = 5u128
            .checked_pow((-exp10) as u32)
            .filter(|f| *f <= u128::from(digits));
        match five {
            Some(f) if u128::from(digits) % f == 0 => (u128::from(digits) / f, exp10),
            _ => return false,
        }
    };
    let shift = odd.trailing_zeros() as i32;
    odd >>= shift;
    p += shift;
    let (mut m, mut e) = (u128::from(m), e);
    let shift = m.trailing_zeros() as i32;
    m >>= shift;
    e += shift;
    odd == m && p == e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number serialisation samples of RFC 8785, Appendix B (IEEE-754 bits -> text).
    #[test]
    fn rfc8785_appendix_b_numbers() {
        let samples: [(u64, &str); 19] = [
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for (bits, want) in samples {
            assert_eq!(
                format_number(f64::from_bits(bits)).unwrap(),
                want,
                "{bits:#x}"
            );
        }
        assert!(format_number(f64::NAN).is_err());
        assert!(format_number(f64::INFINITY).is_err());
    }

    /// The sorting example of RFC 8785 section 3.2.3: names ordered by UTF-16 code units.
    #[test]
    fn rfc8785_sorting_by_utf16() {
        let value: Value = serde_json::from_str(
            r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#,
        )
        .unwrap();
        let want = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\
            \"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\
            \"\u{1F600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}";
        assert_eq!(canonicalize(&value).unwrap(), want);
    }

    /// The heapsort agrees with the standard library's sort for every size up to 40 members,
    /// with names mixing ASCII, BMP characters above the surrogates and supplementary ones.
    #[test]
    fn heapsort_matches_std_sort() {
        let alphabet = ["a", "b", "\u{ff61}", "\u{1F600}", "\u{e000}", ""];
        let mut seed = 7u64;
        for len in 0..40 {
            let names: Vec<String> = (0..len)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let a = alphabet[(seed >> 33) as usize % alphabet.len()];
                    let b = alphabet[(seed >> 40) as usize % alphabet.len()];
                    format!("{a}{b}{i}")
                })
                .collect();
            let null = Value::Null;
            let mut ours: Vec<(&String, &Value)> = names.iter().map(|n| (n, &null)).collect();
            let mut std = ours.clone();
            sort_by_utf16(&mut ours);
            std.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            assert_eq!(ours, std, "{len} members");
        }
    }

    /// A number beyond the range of a double has no canonical form: an error, never a panic.
    #[test]
    fn out_of_range_numbers_are_errors() {
        for text in ["1e400", "[-1e400]", "{\"a\":{\"b\":1e999}}"] {
            let value: Value = serde_json::from_str(text).unwrap();
            let err = canonicalize(&value).unwrap_err();
            assert!(
                err.0.contains("outside the range of a double"),
                "{text}: {err}"
            );
        }
        let fine: Value = serde_json::from_str("1e308").unwrap();
        assert_eq!(canonicalize(&fine).unwrap(), "1e+308");
    }

    /// RFC 8785 section 3.2.2 example (with its numbers and escapes).
    #[test]
    fn rfc8785_sample_document() {
        let value: Value = serde_json::from_str(
            r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
                "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
                "literals": [null, true, false]}"#,
        )
        .unwrap();
        assert_eq!(
            canonicalize(&value).unwrap(),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }
}
