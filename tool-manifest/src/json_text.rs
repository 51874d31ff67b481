//! A JSON text as it is written: where each node is, and each number as written and whether
//! `serde_json` reads it exactly.
//!
//! `serde_json` (without `arbitrary_precision`, which this workspace keeps off: see the module
//! docs of the runtime's `validate`) reads an integer past 64 bits, or a decimal with more digits
//! than a 64-bit float keeps, as the nearest `f64`, and `-0` as the float `-0.0`, before anything
//! sees the number. A schema holding such a number would be validated, exported and documented
//! with another number than the one written, so the import and the schema files refuse it at its
//! place. `jsonc-parser` keeps each number's text and where it is written, which `serde_json`
//! does not.

use jsonc_parser::ast::Value as Node;
use jsonc_parser::common::Ranged;

use crate::schema::{JsonPointer, display_pointer, join, truncate};

/// How many characters of a number a message quotes.
const NUMBER_QUOTE_LIMIT: usize = 40;

/// One number of a JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Literal<'t> {
    /// The JSON Pointer of the number in the text's value.
    pub pointer: String,
    /// The byte offset where it is written.
    pub offset: usize,
    /// The number as written.
    pub text: &'t str,
}

/// `jsonc-parser` reading JSON strictly: no comments, trailing commas or other extensions.
fn strict() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The value of a JSON text as `jsonc-parser`'s tree, which keeps every node's range and every
/// number's text. `None` when the text is not one JSON value.
pub(crate) fn parse(text: &str) -> Option<Node<'_>> {
    jsonc_parser::parse_to_ast(text, &jsonc_parser::CollectOptions::default(), &strict())
        .ok()?
        .value
}

/// Where the node at `pointer` of a JSON text is written: its key when `key` and it has one,
/// else its value (the nearest ancestor when the pointer leads nowhere). `jsonc-parser` keeps
/// the ranges `serde_json` does not; it reads the text strictly, as JSON. `None` when it cannot.
pub(crate) fn offset(text: &str, pointer: &str, key: bool) -> Option<usize> {
    let mut node = parse(text)?;
    let mut found = (None, node.range().start);
    for token in JsonPointer::from_escaped(pointer).tokens() {
        let next = match node {
            Node::Object(object) => object
                .properties
                .into_iter()
                .find(|p| p.name.as_str() == token)
                .map(|p| (Some(p.range.start), p.value)),
            Node::Array(array) => token
                .parse::<usize>()
                .ok()
                .and_then(|i| array.elements.into_iter().nth(i))
                .map(|v| (None, v)),
            _ => None,
        };
        let Some((key_at, value)) = next else {
            break;
        };
        found = (key_at, value.range().start);
        node = value;
    }
    Some(if key {
        found.0.unwrap_or(found.1)
    } else {
        found.1
    })
}

/// Every number of a JSON text that `serde_json` does not read as written, in document order:
/// where it is written (a byte offset) and the message that says so, "the number … at `…` cannot
/// be {done} exactly: …" (`done` is what the caller does with it: `read`, `kept`). Empty when
/// the text is not one JSON value.
pub(crate) fn inexact_numbers(text: &str, done: &str) -> Vec<(usize, String)> {
    let literals = literals(text).unwrap_or_default();
    let inexact = literals.into_iter().filter_map(|literal| {
        let why = inexact(literal.text)?;
        let message = format!(
            "the number {} at `{}` cannot be {done} exactly: {why}",
            truncate(literal.text, NUMBER_QUOTE_LIMIT),
            display_pointer(&literal.pointer)
        );
        Some((literal.offset, message))
    });
    inexact.collect()
}

/// Every number of a JSON text (one value), in document order. `None` when the text is not one
/// JSON value.
fn literals(text: &str) -> Option<Vec<Literal<'_>>> {
    let root = parse(text)?;
    let mut found = Vec::new();
    collect(&root, String::new(), &mut found);
    Some(found)
}

fn collect<'t>(node: &Node<'t>, pointer: String, found: &mut Vec<Literal<'t>>) {
    match node {
        Node::NumberLit(number) => found.push(Literal {
            pointer,
            offset: number.range().start,
            text: number.value,
        }),
        Node::Object(object) => {
            for property in &object.properties {
                collect(
                    &property.value,
                    join(&pointer, property.name.as_str()),
                    found,
                );
            }
        }
        Node::Array(array) => {
            for (i, element) in array.elements.iter().enumerate() {
                collect(element, format!("{pointer}/{i}"), found);
            }
        }
        _ => {}
    }
}

/// Why `serde_json` does not read the JSON number written `text` as that number; `None` when it
/// does: an integer it holds as `i64` or `u64`, or a decimal whose `f64`, written back by
/// `serde_json`, is the same decimal number (`1e3` and `1000.0`, `0.1`).
fn inexact(text: &str) -> Option<String> {
    let integer = !text.contains(['.', 'e', 'E']);
    if integer {
        if text == "-0" {
            return Some("`-0` is read as the float -0.0 (write 0)".to_owned());
        }
        if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
            return None;
        }
    }
    let read = match serde_json::from_str::<serde_json::Number>(text) {
        Ok(number) => number.to_string(),
        Err(_) => return Some("it is past the range of a 64-bit float".to_owned()),
    };
    if integer {
        return Some(format!(
            "an integer past 64 bits is read as the float {read}"
        ));
    }
    (Decimal::parse(text) != Decimal::parse(&read))
        .then(|| format!("no 64-bit float holds it, it is read as {read}"))
}

/// A decimal number as `digits × 10^exponent`, without leading or trailing zeros in `digits`
/// (zero has none), for comparing two texts of a number by value. Hand-written: the comparison
/// is the whole use, and no dependency of the workspace reads decimal text exactly.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// A JSON number literal, or `serde_json`'s text of one (`1.5e-7`, `100.0`).
    fn parse(text: &str) -> Self {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => (
                mantissa,
                exponent
                    .strip_prefix('+')
                    .unwrap_or(exponent)
                    .parse::<i64>()
                    .unwrap_or(0),
            ),
            None => (rest, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all = format!("{whole}{fraction}");
        let trimmed = all.trim_start_matches('0');
        let digits = trimmed.trim_end_matches('0');
        let zeros = trimmed.len() - digits.len();
        let fraction_len = i64::try_from(fraction.len()).unwrap_or(i64::MAX);
        let zeros = i64::try_from(zeros).unwrap_or(i64::MAX);
        Decimal {
            negative,
            digits: digits.to_owned(),
            exponent: if digits.is_empty() {
                0
            } else {
                exponent.saturating_sub(fraction_len).saturating_add(zeros)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_is_found_with_its_pointer_and_offset() {
        let text = r#"{"a": [1, {"b/c": -0.50}], "d": 1E3}"#;
        let found = literals(text).expect("json");
        let summary: Vec<(&str, usize, &str)> = found
            .iter()
            .map(|l| (l.pointer.as_str(), l.offset, l.text))
            .collect();
        assert_eq!(
            summary,
            [
                ("/a/0", 7, "1"),
                ("/a/1/b~1c", 18, "-0.50"),
                ("/d", 32, "1E3")
            ]
        );
        assert_eq!(literals("{"), None);
    }

    #[test]
    fn numbers_serde_json_holds_are_exact() {
        for text in [
            "0",
            "-1",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551615",
            "0.1",
            "-1.50",
            "1e3",
            "1E+3",
            "2.5e-3",
            "0.30000000000000004",
            "1e300",
            "-0.0",
            "0.0",
            "1.7976931348623157e308",
        ] {
            assert_eq!(inexact(text), None, "{text}");
        }
    }

    #[test]
    fn numbers_serde_json_changes_are_inexact() {
        for (text, why) in [
            (
                "18446744073709551616",
                "an integer past 64 bits is read as the float 1.8446744073709552e+19",
            ),
            (
                "-9223372036854775809",
                "an integer past 64 bits is read as the float -9.223372036854776e+18",
            ),
            ("-0", "`-0` is read as the float -0.0 (write 0)"),
            (
                "0.10000000000000001",
                "no 64-bit float holds it, it is read as 0.1",
            ),
            ("1e-400", "no 64-bit float holds it, it is read as 0.0"),
            ("1e400", "it is past the range of a 64-bit float"),
        ] {
            assert_eq!(inexact(text).as_deref(), Some(why), "{text}");
        }
    }
}
