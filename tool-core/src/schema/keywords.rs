//! The JSON Schema keywords, in one table: what each keyword's value is (a subschema, a list or
//! a map of them, or plain data), which JSON types it applies to, and in which drafts it has
//! that meaning. Every module that walks, checks, converts or describes a schema asks here.

crate::word_enum! {
    /// One JSON type, by its name in JSON Schema.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Kind {
        /// `string`.
        String => "string",
        /// `integer`.
        Integer => "integer",
        /// `number`.
        Number => "number",
        /// `boolean`.
        Boolean => "boolean",
        /// `array`.
        Array => "array",
        /// `object`.
        Object => "object",
        /// `null`.
        Null => "null",
    }
}

impl Kind {
    /// The type's name ([`Kind::as_str`]).
    pub const fn name(self) -> &'static str {
        self.as_str()
    }

    /// The type of a value: [`Kind::Integer`] for a number written without a fraction or an
    /// exponent.
    pub fn of(value: &serde_json::Value) -> Kind {
        use serde_json::Value;
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(n) if !n.is_f64() => Kind::Integer,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    /// Does a value of this type satisfy the schema type `wanted` (an integer is a number)?
    pub fn satisfies(self, wanted: Kind) -> bool {
        self == wanted || (wanted == Kind::Number && self == Kind::Integer)
    }
}

/// The shape of a keyword's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One subschema (`items` in 2020-12, `not`, `additionalProperties`).
    Schema,
    /// A list of subschemas (`anyOf`, `prefixItems`).
    SchemaList,
    /// A map of names to subschemas (`properties`, `$defs`).
    SchemaMap,
    /// One subschema or a list of them, by draft: draft-07 and 2019-09's `items`.
    SchemaOrList,
    /// A map whose values are subschemas or lists of names: draft-07's `dependencies`.
    Dependencies,
    /// Data: a number, a string, a list of names, any JSON value.
    Data,
}

/// What a keyword is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Identifies, references or declares (`$ref`, `$defs`, `$schema`).
    Core,
    /// Applies subschemas (`anyOf`, `properties`, `items`).
    Applicator,
    /// Rejects values (`minimum`, `pattern`, `required`, `type`, `enum`).
    Validation,
    /// Documents; never rejects a value (`description`, `default`).
    Annotation,
}

/// One keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyword {
    /// The keyword as written.
    pub name: &'static str,
    /// The shape of its value.
    pub shape: Shape,
    /// What it is for.
    pub role: Role,
    /// The JSON types it applies to (empty: every type).
    pub applies_to: &'static [&'static str],
}

const fn kw(
    name: &'static str,
    shape: Shape,
    role: Role,
    applies_to: &'static [&'static str],
) -> Keyword {
    Keyword {
        name,
        shape,
        role,
        applies_to,
    }
}

const STRING: &[&str] = &["string"];
const NUMBER: &[&str] = &["number", "integer"];
const ARRAY: &[&str] = &["array"];
const OBJECT: &[&str] = &["object"];
const ANY: &[&str] = &[];

use Role::{Annotation, Applicator, Core, Validation};
use Shape::{Data, Dependencies, Schema, SchemaList, SchemaMap, SchemaOrList};

/// Every keyword of drafts 07, 2019-09 and 2020-12 (with draft-07's `definitions`,
/// `dependencies` and `additionalItems`, and 2019-09's recursive references).
pub const KEYWORDS: &[Keyword] = &[
    kw("$schema", Data, Core, ANY),
    kw("$id", Data, Core, ANY),
    kw("$ref", Data, Core, ANY),
    kw("$anchor", Data, Core, ANY),
    kw("$dynamicRef", Data, Core, ANY),
    kw("$dynamicAnchor", Data, Core, ANY),
    kw("$recursiveRef", Data, Core, ANY),
    kw("$recursiveAnchor", Data, Core, ANY),
    kw("$vocabulary", Data, Core, ANY),
    kw("$comment", Data, Annotation, ANY),
    kw("$defs", SchemaMap, Core, ANY),
    kw("definitions", SchemaMap, Core, ANY),
    kw("allOf", SchemaList, Applicator, ANY),
    kw("anyOf", SchemaList, Applicator, ANY),
    kw("oneOf", SchemaList, Applicator, ANY),
    kw("not", Schema, Applicator, ANY),
    kw("if", Schema, Applicator, ANY),
    kw("then", Schema, Applicator, ANY),
    kw("else", Schema, Applicator, ANY),
    kw("dependentSchemas", SchemaMap, Applicator, OBJECT),
    kw("dependencies", Dependencies, Applicator, OBJECT),
    kw("prefixItems", SchemaList, Applicator, ARRAY),
    kw("items", SchemaOrList, Applicator, ARRAY),
    kw("additionalItems", Schema, Applicator, ARRAY),
    kw("contains", Schema, Applicator, ARRAY),
    kw("unevaluatedItems", Schema, Applicator, ARRAY),
    kw("properties", SchemaMap, Applicator, OBJECT),
    kw("patternProperties", SchemaMap, Applicator, OBJECT),
    kw("additionalProperties", Schema, Applicator, OBJECT),
    kw("propertyNames", Schema, Applicator, OBJECT),
    kw("unevaluatedProperties", Schema, Applicator, OBJECT),
    kw("type", Data, Validation, ANY),
    kw("enum", Data, Validation, ANY),
    kw("const", Data, Validation, ANY),
    kw("multipleOf", Data, Validation, NUMBER),
    kw("maximum", Data, Validation, NUMBER),
    kw("exclusiveMaximum", Data, Validation, NUMBER),
    kw("minimum", Data, Validation, NUMBER),
    kw("exclusiveMinimum", Data, Validation, NUMBER),
    kw("maxLength", Data, Validation, STRING),
    kw("minLength", Data, Validation, STRING),
    kw("pattern", Data, Validation, STRING),
    kw("maxItems", Data, Validation, ARRAY),
    kw("minItems", Data, Validation, ARRAY),
    kw("uniqueItems", Data, Validation, ARRAY),
    kw("maxContains", Data, Validation, ARRAY),
    kw("minContains", Data, Validation, ARRAY),
    kw("maxProperties", Data, Validation, OBJECT),
    kw("minProperties", Data, Validation, OBJECT),
    kw("required", Data, Validation, OBJECT),
    kw("dependentRequired", Data, Validation, OBJECT),
    // `format` is an annotation unless a validator is asked to assert it (the toolkit does not).
    kw("format", Data, Annotation, STRING),
    kw("contentEncoding", Data, Annotation, STRING),
    kw("contentMediaType", Data, Annotation, STRING),
    kw("contentSchema", Schema, Annotation, STRING),
    kw("title", Data, Annotation, ANY),
    kw("description", Data, Annotation, ANY),
    kw("default", Data, Annotation, ANY),
    kw("deprecated", Data, Annotation, ANY),
    kw("readOnly", Data, Annotation, ANY),
    kw("writeOnly", Data, Annotation, ANY),
    kw("examples", Data, Annotation, ANY),
];

/// The keyword named `name`, if JSON Schema has one.
pub fn keyword(name: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.name == name)
}

/// Keywords any schema node may carry that document and never reject a value (nor shape a
/// generated Rust type).
pub const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// The JSON type names, in the order messages list them.
pub const TYPE_NAMES: &[&str] = Kind::ACCEPTED;

/// The JSON types a keyword applies to, when it applies to some types only.
pub fn keyword_type(name: &str) -> Option<&'static [&'static str]> {
    keyword(name)
        .map(|k| k.applies_to)
        .filter(|types| !types.is_empty())
}

/// Is `name` a keyword whose meaning depends on where the schema sits in its document (an
/// identifier, an anchor, a reference, the dialect): a schema holding one cannot be moved into
/// another document unchanged.
pub fn is_positional(name: &str) -> bool {
    keyword(name).is_some_and(|k| k.role == Role::Core && k.shape == Shape::Data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_listed_once() {
        for (i, k) in KEYWORDS.iter().enumerate() {
            assert!(
                !KEYWORDS[..i].iter().any(|other| other.name == k.name),
                "{} twice",
                k.name
            );
        }
        for name in ANNOTATIONS {
            assert_eq!(
                keyword(name).map(|k| k.role),
                Some(Role::Annotation),
                "{name}"
            );
        }
    }

    #[test]
    fn subschema_keywords_have_their_shape() {
        let shape = |name| keyword(name).map(|k| k.shape);
        assert_eq!(shape("additionalProperties"), Some(Shape::Schema));
        assert_eq!(shape("prefixItems"), Some(Shape::SchemaList));
        assert_eq!(shape("definitions"), Some(Shape::SchemaMap));
        assert_eq!(
            shape("items"),
            Some(Shape::SchemaOrList),
            "items depends on the draft"
        );
        assert_eq!(keyword_type("minLength"), Some(&["string"][..]));
        assert_eq!(keyword_type("anyOf"), None);
    }

    #[test]
    fn identifiers_and_references_are_positional() {
        for name in [
            "$schema",
            "$ref",
            "$dynamicRef",
            "$recursiveRef",
            "$id",
            "$anchor",
        ] {
            assert!(is_positional(name), "{name}");
        }
        for name in ["$defs", "$comment", "properties", "title"] {
            assert!(!is_positional(name), "{name}");
        }
    }
}
