//! What a keyword asks, in words: one table, read by the reference docs, by the notes a
//! provider export writes into a description for a keyword it cannot take, by the runtime's
//! validation messages and by the manifest's meta-schema messages.
//!
//! Each entry is a template: `{}` is the keyword's value as the reader writes it (a number, a
//! code span, a quoted value), `{one|many}` the noun in the value's number (`1 character`,
//! `2 characters`), `{name}` the name an entry of a map keyword is about, `{an}` the article of
//! the value. The validation messages keep the style SPEC section 3 fixes
//! (`Expected number to be greater or equal to 0`).

use crate::text::article;

/// The words of one keyword. Built by the table; see [`words`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Words {
    /// The keyword.
    pub keyword: &'static str,
    /// What it asks of a value, in the docs and in an export's notes (`at least {} {character|
    /// characters}`).
    pub constraint: Option<&'static str>,
    /// The notes' words, where they differ from the docs' `constraint` (`items are unique`).
    pub note: Option<&'static str>,
    /// The runtime's message for a value that fails it (`Expected string length greater or
    /// equal to {}`).
    pub expected: Option<&'static str>,
    /// The manifest's message for a schema value that fails the meta-schema, after "must"
    /// (`be at least {}`).
    pub must: Option<&'static str>,
    /// What the keyword counts, one and many (`character`, `characters`), for a range.
    pub unit: Option<(&'static str, &'static str)>,
}

impl Words {
    /// The notes' template: [`Words::note`], or else [`Words::constraint`].
    pub fn note_template(&self) -> Option<&'static str> {
        self.note.or(self.constraint)
    }
}

const fn w(
    keyword: &'static str,
    constraint: Option<&'static str>,
    expected: Option<&'static str>,
    must: Option<&'static str>,
) -> Words {
    Words {
        keyword,
        constraint,
        note: None,
        expected,
        must,
        unit: None,
    }
}

const fn counted(mut words: Words, one: &'static str, many: &'static str) -> Words {
    words.unit = Some((one, many));
    words
}

const fn noted(mut words: Words, note: &'static str) -> Words {
    words.note = Some(note);
    words
}

/// Every keyword with words, in the order notes are written (bounds read "at least …; at most
/// …").
pub const WORDS: &[Words] = &[
    w("type", None, Some("Expected {}"), Some("be {}")),
    w(
        "const",
        Some("always {}"),
        Some("Expected {}"),
        Some("be {}"),
    ),
    w(
        "enum",
        Some("one of {}"),
        Some("Expected one of {}"),
        Some("be one of {}"),
    ),
    w(
        "format",
        Some("format {}"),
        Some("Expected string in format {}"),
        Some("be {an} {}"),
    ),
    w(
        "pattern",
        Some("pattern {}"),
        Some("Expected string to match pattern {}"),
        Some("match `{}`"),
    ),
    counted(
        w(
            "minLength",
            Some("at least {} {character|characters}"),
            Some("Expected string length greater or equal to {}"),
            Some("be at least {} {character|characters} long"),
        ),
        "character",
        "characters",
    ),
    counted(
        w(
            "maxLength",
            Some("at most {} {character|characters}"),
            Some("Expected string length less or equal to {}"),
            Some("be at most {} {character|characters} long"),
        ),
        "character",
        "characters",
    ),
    w(
        "minimum",
        Some("minimum {}"),
        Some("Expected number to be greater or equal to {}"),
        Some("be at least {}"),
    ),
    w(
        "exclusiveMinimum",
        Some("greater than {}"),
        Some("Expected number to be greater than {}"),
        Some("be greater than {}"),
    ),
    w(
        "maximum",
        Some("maximum {}"),
        Some("Expected number to be less or equal to {}"),
        Some("be at most {}"),
    ),
    w(
        "exclusiveMaximum",
        Some("less than {}"),
        Some("Expected number to be less than {}"),
        Some("be less than {}"),
    ),
    w(
        "multipleOf",
        Some("a multiple of {}"),
        Some("Expected number to be a multiple of {}"),
        Some("be a multiple of {}"),
    ),
    counted(
        w(
            "minItems",
            Some("at least {} {item|items}"),
            Some("Expected at least {} {item|items}"),
            Some("list at least {} {item|items}"),
        ),
        "item",
        "items",
    ),
    counted(
        w(
            "maxItems",
            Some("at most {} {item|items}"),
            Some("Expected at most {} {item|items}"),
            Some("list at most {} {item|items}"),
        ),
        "item",
        "items",
    ),
    w(
        "additionalItems",
        None,
        Some("Expected at most {} {item|items}"),
        None,
    ),
    w(
        "unevaluatedItems",
        None,
        Some("Unexpected {} {item|items}"),
        None,
    ),
    noted(
        w(
            "uniqueItems",
            Some("unique items"),
            Some("Expected unique items"),
            Some("not list an item twice"),
        ),
        "items are unique",
    ),
    w(
        "contains",
        Some("contains an item matching {}"),
        Some("Expected array to contain a matching item"),
        None,
    ),
    w(
        "minContains",
        Some("at least {} {matching item|matching items}"),
        None,
        None,
    ),
    w(
        "maxContains",
        Some("at most {} {matching item|matching items}"),
        None,
        None,
    ),
    counted(
        w(
            "minProperties",
            Some("at least {} {property|properties}"),
            Some("Expected at least {} {property|properties}"),
            Some("have at least {} {key|keys}"),
        ),
        "property",
        "properties",
    ),
    counted(
        w(
            "maxProperties",
            Some("at most {} {property|properties}"),
            Some("Expected at most {} {property|properties}"),
            Some("have at most {} {key|keys}"),
        ),
        "property",
        "properties",
    ),
    w(
        "required",
        None,
        Some("Expected required property"),
        Some("have the key {}"),
    ),
    w(
        "propertyNames",
        Some("property names match {}"),
        Some("Unexpected property name {}"),
        None,
    ),
    w(
        "patternProperties",
        Some("properties named like `{name}` match {}"),
        None,
        None,
    ),
    w(
        "additionalProperties",
        Some("other properties match {}"),
        Some("Unexpected property"),
        None,
    ),
    w(
        "unevaluatedProperties",
        Some("other properties match {}"),
        Some("Unexpected property"),
        None,
    ),
    w(
        "dependentRequired",
        Some("`{name}` requires {}"),
        None,
        None,
    ),
    w(
        "dependentSchemas",
        Some("with `{name}` it also matches {}"),
        None,
        None,
    ),
    w(
        "anyOf",
        None,
        Some("Expected value to match at least one allowed schema"),
        None,
    ),
    w(
        "oneOf",
        None,
        Some("Expected value to match exactly one allowed schema, it matches {}"),
        None,
    ),
    w(
        "not",
        Some("must not match {}"),
        Some("Expected value not to match the excluded schema"),
        None,
    ),
    w("if", Some("if it matches {}"), None, None),
    w("then", Some("then it matches {}"), None, None),
    w("else", Some("otherwise it matches {}"), None, None),
    w(
        "contentEncoding",
        Some("encoded as {}"),
        Some("Expected string encoded as {}"),
        None,
    ),
    w(
        "contentMediaType",
        Some("media type {}"),
        Some("Expected string of media type {}"),
        None,
    ),
    noted(w("default", Some("default {}"), None, None), "default: {}"),
    w("examples", Some("for example {}"), None, None),
    w("deprecated", Some("deprecated"), None, None),
];

/// The words of `keyword`, if the table has them.
pub fn words(keyword: &str) -> Option<&'static Words> {
    WORDS.iter().find(|w| w.keyword == keyword)
}

/// Where `keyword` stands in [`WORDS`] (the order of notes); after every entry when it has no
/// words.
pub fn rank(keyword: &str) -> usize {
    WORDS
        .iter()
        .position(|w| w.keyword == keyword)
        .unwrap_or(WORDS.len())
}

/// What fills a template: the value as written, whether it counts one, and the name an entry
/// is about.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fill<'a> {
    /// The value as the reader writes it: `{}`.
    pub value: &'a str,
    /// Does the value count one (`1 character`)?
    pub one: bool,
    /// The name of a map entry: `{name}`.
    pub name: &'a str,
}

impl<'a> Fill<'a> {
    /// A value; it counts one when it is the number 1.
    pub fn value(value: &'a str) -> Self {
        Fill {
            value,
            one: value.parse::<f64>() == Ok(1.0),
            name: "",
        }
    }

    /// The value with the name of the entry it belongs to.
    #[must_use]
    pub fn named(self, name: &'a str) -> Self {
        Fill { name, ..self }
    }
}

/// `template` filled. Written by hand: the four slots need no template engine.
pub fn fill(template: &str, with: Fill<'_>) -> String {
    let mut out = String::with_capacity(template.len() + with.value.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let slot = &rest[open + 1..open + close];
        match slot {
            "" => out.push_str(with.value),
            "name" => out.push_str(with.name),
            "an" => out.push_str(article(with.value)),
            nouns => {
                let (one, many) = nouns.split_once('|').unwrap_or((nouns, nouns));
                out.push_str(if with.one { one } else { many });
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The words `form` gives `keyword`, filled; `None` when the table has none.
pub fn say(
    keyword: &str,
    form: fn(&Words) -> Option<&'static str>,
    with: Fill<'_>,
) -> Option<String> {
    words(keyword).and_then(form).map(|t| fill(t, with))
}

/// A bound pair in the docs' words: `1–10 items`, `exactly 2 characters`, `at least 1 item`;
/// `None` without either bound. `min` and `max` are the keywords (`minItems`, `maxItems`),
/// their values as written.
pub fn range(min: (&str, Option<&str>), max: (&str, Option<&str>)) -> Option<String> {
    let constraint =
        |keyword: &str, value: &str| say(keyword, |w| w.constraint, Fill::value(value));
    match (min.1, max.1) {
        (Some(low), Some(high)) => {
            let (one, many) = words(min.0).and_then(|w| w.unit).unwrap_or_default();
            Some(if low == high {
                format!(
                    "exactly {low} {}",
                    if Fill::value(low).one { one } else { many }
                )
            } else {
                format!("{low}–{high} {many}")
            })
        }
        (Some(low), None) => constraint(min.0, low),
        (None, Some(high)) => constraint(max.0, high),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_values_nouns_names_and_articles() {
        let say = |k, form: fn(&Words) -> Option<&'static str>, v| say(k, form, Fill::value(v));
        assert_eq!(
            say("minLength", |w| w.constraint, "1").as_deref(),
            Some("at least 1 character")
        );
        assert_eq!(
            say("maxLength", |w| w.constraint, "64").as_deref(),
            Some("at most 64 characters")
        );
        assert_eq!(
            say("minimum", |w| w.expected, "0").as_deref(),
            Some("Expected number to be greater or equal to 0")
        );
        assert_eq!(
            say("minLength", |w| w.must, "1").as_deref(),
            Some("be at least 1 character long")
        );
        assert_eq!(
            say("maxProperties", |w| w.must, "2").as_deref(),
            Some("have at most 2 keys")
        );
        assert_eq!(
            say("format", |w| w.must, "email").as_deref(),
            Some("be an email")
        );
        assert_eq!(
            say("uniqueItems", Words::note_template, "true").as_deref(),
            Some("items are unique")
        );
        assert_eq!(
            words("dependentRequired")
                .and_then(|w| w.constraint)
                .map(|t| fill(t, Fill::value("`b`").named("a"))),
            Some("`a` requires `b`".to_owned())
        );
        assert_eq!(say("title", |w| w.constraint, "x"), None);
    }

    #[test]
    fn ranges_read_as_one_phrase() {
        assert_eq!(
            range(("minItems", Some("1")), ("maxItems", Some("10"))).as_deref(),
            Some("1–10 items")
        );
        assert_eq!(
            range(("minLength", Some("2")), ("maxLength", Some("2"))).as_deref(),
            Some("exactly 2 characters")
        );
        assert_eq!(
            range(("minLength", Some("1")), ("maxLength", None)).as_deref(),
            Some("at least 1 character")
        );
        assert_eq!(
            range(("minProperties", None), ("maxProperties", Some("1"))).as_deref(),
            Some("at most 1 property")
        );
        assert_eq!(range(("minItems", None), ("maxItems", None)), None);
    }

    #[test]
    fn every_keyword_with_words_is_a_keyword_and_listed_once() {
        for (i, words) in WORDS.iter().enumerate() {
            assert!(
                super::super::keywords::keyword(words.keyword).is_some(),
                "{}",
                words.keyword
            );
            assert!(
                !WORDS[..i].iter().any(|w| w.keyword == words.keyword),
                "{}",
                words.keyword
            );
        }
    }
}
