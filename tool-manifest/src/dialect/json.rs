//! Pretty JSON text written straight into one buffer, byte for byte what
//! `serde_json::to_string_pretty` writes for a [`Value`] (two-space indent, `": "` after keys,
//! `[]` and `{}` for empty containers, the same escapes and number forms).

use std::fmt::Write as _;

use serde_json::Value;

/// `value` as pretty JSON, followed by a newline.
pub(crate) fn pretty_line(value: &Value) -> String {
    let mut out = String::with_capacity(4096);
    write_pretty(&mut out, value, 0);
    out.push('\n');
    out
}

/// Appends `value` as pretty JSON, its nested lines indented one level deeper than `indent`.
pub(crate) fn write_pretty(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => push_decimal(out, u, false),
            (None, Some(i)) => push_decimal(out, i.unsigned_abs(), i < 0),
            // `Number`'s `Display` writes floats as `serde_json`'s serializer does.
            _ => {
                // Writing to a String cannot fail.
                let _ = write!(out, "{n}");
            }
        },
        Value::String(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                push_indent(out, indent + 1);
                write_pretty(out, item, indent + 1);
            }
            out.push('\n');
            push_indent(out, indent);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                push_indent(out, indent + 1);
                write_string(out, key);
                out.push_str(": ");
                write_pretty(out, item, indent + 1);
            }
            out.push('\n');
            push_indent(out, indent);
            out.push('}');
        }
    }
}

/// One field of an object written by [`write_object`].
#[derive(Debug, Clone)]
// The tools index (the `generator` feature) writes every kind of field.
#[cfg_attr(not(feature = "generator"), allow(dead_code))]
pub(crate) enum Field<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A string.
    Text(&'a str),
    /// Any JSON value.
    Json(&'a Value),
    /// A JSON value already written by [`write_pretty`] at the indent of this field's value.
    Written(&'a str),
    /// An array of objects.
    Objects(Vec<Vec<(&'a str, Field<'a>)>>),
}

/// Appends the object of `fields` as pretty JSON, the fields in the order given: exactly what
/// [`write_pretty`] writes for the same object held as a [`Value`] when they come in sorted
/// order, and what `serde_json::to_string_pretty` writes for a struct serialized field by field.
pub(crate) fn write_object(out: &mut String, indent: usize, fields: &[(&str, Field<'_>)]) {
    if fields.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push('{');
    for (i, (key, field)) in fields.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        push_indent(out, indent + 1);
        write_string(out, key);
        out.push_str(": ");
        match field {
            Field::Null => out.push_str("null"),
            Field::Bool(true) => out.push_str("true"),
            Field::Bool(false) => out.push_str("false"),
            Field::Text(text) => write_string(out, text),
            Field::Json(value) => write_pretty(out, value, indent + 1),
            Field::Written(text) => out.push_str(text),
            Field::Objects(items) if items.is_empty() => out.push_str("[]"),
            Field::Objects(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    push_indent(out, indent + 2);
                    write_object(out, indent + 2, item);
                }
                out.push('\n');
                push_indent(out, indent + 1);
                out.push(']');
            }
        }
    }
    out.push('\n');
    push_indent(out, indent);
    out.push('}');
}

fn push_indent(out: &mut String, level: usize) {
    const SPACES: &str = "                                                                ";
    let mut width = 2 * level;
    while width > 0 {
        let part = width.min(SPACES.len());
        out.push_str(&SPACES[..part]);
        width -= part;
    }
}

/// An integer in decimal, as `itoa` (and so `serde_json`) writes it.
fn push_decimal(out: &mut String, magnitude: u64, negative: bool) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut n = magnitude;
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        out.push('-');
    }
    for digit in &digits[start..] {
        out.push(char::from(*digit));
    }
}

/// Does a byte need an escape in a JSON string (a quote, a backslash, a control character)?
const fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Does any of the 8 bytes of `word` need an escape? (Bit tricks: a byte below 0x20, or equal
/// to `"` or `\`, sets the high bit of its lane.)
const fn any_needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * b'"' as u64);
    let backslash = word ^ (ONES * b'\\' as u64);
    let zero_quote = quote.wrapping_sub(ONES) & !quote;
    let zero_backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | zero_quote | zero_backslash) & HIGHS != 0
}

/// A JSON string literal with `serde_json`'s escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
/// `\t`, and `\u00xx` for the other control characters.
pub(crate) fn write_string(out: &mut String, text: &str) {
    out.push('"');
    // Most strings need no escape: eight bytes at a time until one might.
    let bytes = text.as_bytes();
    let mut clean = 0;
    while let Some(chunk) = bytes.get(clean..clean + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if any_needs_escape(u64::from_le_bytes(word)) {
            break;
        }
        clean += 8;
    }
    if !bytes[clean..].iter().any(|b| needs_escape(*b)) {
        out.push_str(text);
        out.push('"');
        return;
    }
    let mut start = 0;
    for (i, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::*;

    fn serde_pretty(value: &Value) -> String {
        let mut text = serde_json::to_string_pretty(value).expect("a Value serializes");
        text.push('\n');
        text
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let value = json!({
            "a": [], "b": {}, "c": [1, -2, 3.5, 1.0, 1e300, 0.1, u64::MAX, i64::MIN],
            "d": "quote \" slash \\ / tab \t nl \n cr \r bs \u{8} ff \u{c} nul \u{0} us \u{1f} del \u{7f} é 日本",
            "e": [{"x": null, "y": true, "z": false}, [[]]],
            "f\"g": {"h": {"i": []}}
        });
        assert_eq!(pretty_line(&value), serde_pretty(&value));
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((any::<String>(), inner), 0..4)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    #[test]
    fn the_word_test_finds_every_byte_that_needs_an_escape() {
        for byte in 0..=255u8 {
            for lane in 0..8 {
                let mut word = [b'a'; 8];
                word[lane] = byte;
                assert_eq!(
                    any_needs_escape(u64::from_le_bytes(word)),
                    needs_escape(byte),
                    "byte {byte:#x} in lane {lane}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn any_value_is_written_as_serde_json_writes_it(value in any_value()) {
            prop_assert_eq!(pretty_line(&value), serde_pretty(&value));
        }
    }
}
