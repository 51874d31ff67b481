//! A validator specialized to one schema, for schemas inside the subset the manifests use.
//!
//! [`Tree::compile`] accepts a schema only when every keyword in it is one this module decides
//! exactly as the `jsonschema` crate does (`type`, `enum`, `const`, the numeric bounds,
//! `multipleOf`, the length bounds, `pattern`, `items`, `uniqueItems`, `properties`, `required`,
//! `additionalProperties`, the property-count bounds, boolean schemas, local `$ref`s into `$defs`,
//! `anyOf` and `oneOf` without a `pattern` under them, and annotations); anything else leaves the
//! schema to `jsonschema`. The number, equality and
//! uniqueness rules are the ones `jsonschema` itself runs (from `jsonschema-value`), and each
//! `pattern` is matched by a `jsonschema` validator compiled for that one keyword, so the regex
//! dialect and engine are the same.
//!
//! Validity is a walk over the instance that allocates nothing. Errors are gathered as (path as
//! segments, message) pairs whose messages were written when the schema was compiled, sorted and
//! deduplicated on the segments, and only then rendered as JSON Pointers.

use std::cmp::Ordering;

use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use jsonschema_value::{cmp, numeric, types::number_is_integer, unique::is_unique};
use serde_json::{Map, Number, Value};

use super::{limit_number, one_of, plural, quote, quote_str};

/// Index of a node in [`Tree::nodes`].
type NodeId = usize;

const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const INTEGER: u8 = 1 << 2;
const NUMBER: u8 = 1 << 3;
const STRING: u8 = 1 << 4;
const ARRAY: u8 = 1 << 5;
const OBJECT: u8 = 1 << 6;

/// The type names, in the order `jsonschema` lists a set of them.
const TYPE_ORDER: [(u8, &str); 7] = [
    (NULL, "null"),
    (BOOLEAN, "boolean"),
    (INTEGER, "integer"),
    (NUMBER, "number"),
    (STRING, "string"),
    (ARRAY, "array"),
    (OBJECT, "object"),
];

/// The dialect a root `$schema` may name for the schema to stay specialized.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Keywords that never reject a value (`format` is an annotation: formats are not asserted).
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "format",
];

/// A compiled schema: nodes in an arena, the root first.
pub(super) struct Tree {
    nodes: Vec<Node>,
    /// Objects iterate in key order (`serde_json` without `preserve_order`): their members and
    /// the declared properties are then walked side by side.
    sorted_maps: bool,
}

enum Node {
    /// `true` or `{}`: every value.
    True,
    /// `false`: no value. `per_key`: the schema sits at a keyword named `additionalProperties` or
    /// `propertyNames`, where an object is reported as one unexpected property per key.
    False {
        per_key: bool,
    },
    Keywords(Box<Keywords>),
}

/// The keywords of one schema object. What the valid path reads comes first; an absent bound
/// is the bound that admits everything (`0`, `u64::MAX`), and messages sit apart.
struct Keywords {
    /// The `type` bits; 0 without `type`.
    types: u8,
    unique_items: bool,
    /// `jsonschema` checks one `required` name next to `properties` and
    /// `additionalProperties: false` in the walk over the declared properties: an undeclared
    /// name is then reported missing even when present (besides unexpected).
    required_declared_only: bool,
    min_length: u64,
    max_length: u64,
    min_items: u64,
    max_items: u64,
    min_properties: u64,
    max_properties: u64,
    /// The bits of the required names that are declared properties (the first 64 of them).
    required_mask: u64,
    items: Option<NodeId>,
    /// `$ref`: another node applied to the same value.
    reference: Option<NodeId>,
    additional: Additional,
    /// Sorted by name (byte order, the order of `serde_json`'s map).
    properties: Vec<Property>,
    /// The required names not in `required_mask`, looked up one by one.
    required_lookup: Vec<String>,
    bounds: Vec<Bound>,
    multiple_of: Option<MultipleOf>,
    pattern: Option<Pattern>,
    /// `anyOf` branches; empty without it.
    any_of: Vec<NodeId>,
    /// `oneOf` branches; empty without it.
    one_of: Vec<NodeId>,
    enumeration: Option<Vec<Value>>,
    constant: Option<Value>,
    messages: Box<Messages>,
}

impl Default for Keywords {
    fn default() -> Self {
        Keywords {
            types: 0,
            unique_items: false,
            required_declared_only: false,
            min_length: 0,
            max_length: u64::MAX,
            min_items: 0,
            max_items: u64::MAX,
            min_properties: 0,
            max_properties: u64::MAX,
            required_mask: 0,
            items: None,
            reference: None,
            additional: Additional::Any,
            properties: Vec::new(),
            required_lookup: Vec::new(),
            bounds: Vec::new(),
            multiple_of: None,
            pattern: None,
            any_of: Vec::new(),
            one_of: Vec::new(),
            enumeration: None,
            constant: None,
            messages: Box::default(),
        }
    }
}

/// The messages of the keywords of [`Keywords`] whose messages depend on the schema alone.
#[derive(Default)]
struct Messages {
    types: Box<str>,
    enumeration: Box<str>,
    constant: Box<str>,
    min_length: Box<str>,
    max_length: Box<str>,
    min_items: Box<str>,
    max_items: Box<str>,
    min_properties: Box<str>,
    max_properties: Box<str>,
}

struct Property {
    name: String,
    /// The first eight bytes of `name` (see [`head`]).
    head: u64,
    node: NodeId,
    /// This property's bit in [`Keywords::required_mask`], when it is required.
    required_bit: u64,
}

#[derive(Default)]
enum Additional {
    #[default]
    Any,
    /// `additionalProperties: false`.
    Closed,
    Schema(NodeId),
}

#[derive(Clone, Copy)]
enum Op {
    Ge,
    Le,
    Gt,
    Lt,
}

#[derive(Clone, Copy)]
enum Limit {
    U64(u64),
    I64(i64),
    F64(f64),
}

struct Bound {
    op: Op,
    limit: Limit,
    message: Box<str>,
}

impl Bound {
    fn holds(&self, value: &Number) -> bool {
        match (self.op, self.limit) {
            (Op::Ge, Limit::U64(l)) => numeric::ge(value, l),
            (Op::Ge, Limit::I64(l)) => numeric::ge(value, l),
            (Op::Ge, Limit::F64(l)) => numeric::ge(value, l),
            (Op::Le, Limit::U64(l)) => numeric::le(value, l),
            (Op::Le, Limit::I64(l)) => numeric::le(value, l),
            (Op::Le, Limit::F64(l)) => numeric::le(value, l),
            (Op::Gt, Limit::U64(l)) => numeric::gt(value, l),
            (Op::Gt, Limit::I64(l)) => numeric::gt(value, l),
            (Op::Gt, Limit::F64(l)) => numeric::gt(value, l),
            (Op::Lt, Limit::U64(l)) => numeric::lt(value, l),
            (Op::Lt, Limit::I64(l)) => numeric::lt(value, l),
            (Op::Lt, Limit::F64(l)) => numeric::lt(value, l),
        }
    }
}

struct MultipleOf {
    divisor: f64,
    /// A divisor without a fraction takes the integer arithmetic, as in `jsonschema`.
    whole: bool,
    message: Box<str>,
}

impl MultipleOf {
    fn holds(&self, value: &Number) -> bool {
        if self.whole {
            numeric::is_multiple_of_integer(value, self.divisor)
        } else {
            numeric::is_multiple_of_float(value, self.divisor)
        }
    }
}

/// `pattern`, matched by a `jsonschema` validator of that one keyword.
struct Pattern {
    validator: Validator,
    message: Box<str>,
}

/// What a failing `pattern` reports.
enum PatternVerdict {
    Match,
    Mismatch,
    /// The regex engine could not decide (a backtracking limit): only the whole-schema
    /// validator reports this the way the report must show it.
    Undecided,
}

impl Pattern {
    fn verdict(&self, value: &Value) -> PatternVerdict {
        match self.validator.validate(value) {
            Ok(()) => PatternVerdict::Match,
            Err(error) if matches!(error.kind(), ValidationErrorKind::Pattern { .. }) => {
                PatternVerdict::Mismatch
            }
            Err(_) => PatternVerdict::Undecided,
        }
    }
}

/// Does `value` have one of the types in `set`? Integers (`1.0` too) are numbers as well.
fn has_type(set: u8, value: &Value) -> bool {
    let bit = match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
        Value::Number(number) => {
            return set & NUMBER != 0 || (set & INTEGER != 0 && number_is_integer(number));
        }
    };
    set & bit != 0
}

/// The number of code points of `text` is within `min..=max`.
fn length_within(text: &str, min: u64, max: u64) -> bool {
    let bytes = text.len() as u64;
    // A code point takes one to four bytes.
    let fewest = bytes.div_ceil(4);
    if bytes < min || fewest > max {
        return false;
    }
    if min <= fewest && bytes <= max {
        return true;
    }
    (min..=max).contains(&(text.chars().count() as u64))
}

/// A collection-size keyword as `jsonschema` reads it (integer-valued numbers, saturating).
fn size_limit(value: &Value) -> Option<u64> {
    if let Some(limit) = value.as_u64() {
        return Some(limit);
    }
    let float = value.as_f64()?;
    if float >= 18_446_744_073_709_551_616.0 {
        return Some(u64::MAX);
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (float >= 0.0 && float.trunc() == float).then_some(float as u64)
}

fn type_bit(name: &str) -> Option<u8> {
    TYPE_ORDER
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(bit, _)| *bit)
}

fn type_message(set: u8) -> String {
    let names: Vec<&str> = TYPE_ORDER
        .iter()
        .filter(|(bit, _)| set & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    match names.split_last() {
        None => "Expected a value".to_owned(),
        Some((last, [])) => format!("Expected {last}"),
        Some((last, rest)) => format!("Expected {} or {last}", rest.join(", ")),
    }
}

/// RFC 6901 escaping of one reference token.
fn escape(token: &str) -> String {
    super::escape_pointer_segment(token)
}

/// Builds a [`Tree`] from a schema; `None` leaves the schema to `jsonschema`.
struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// `$ref` targets already compiled, by reference string.
    refs: Vec<(&'s str, NodeId)>,
    /// References being compiled: a `$ref` chain back to one of them never reaches a child
    /// value, so such schemas are left to `jsonschema`.
    resolving: Vec<&'s str>,
}

impl Tree {
    /// The specialized validator of `schema`, when every part of it is inside the subset.
    pub(super) fn compile(schema: &Value) -> Option<Tree> {
        let mut compiler = Compiler {
            root: schema,
            nodes: Vec::new(),
            refs: Vec::new(),
            resolving: Vec::new(),
        };
        if let Value::Object(map) = schema {
            match map.get("$schema") {
                None => {}
                Some(Value::String(uri)) if uri == DRAFT_2020_12 => {}
                Some(_) => return None,
            }
        }
        let root = compiler.node(schema, "", true)?;
        debug_assert_eq!(root, 0);
        Some(Tree {
            nodes: compiler.nodes,
            sorted_maps: maps_are_sorted(),
        })
    }
}

impl<'s> Compiler<'s> {
    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Compiles `schema`, which sits at a keyword or property whose escaped name is `keyword`.
    fn node(&mut self, schema: &'s Value, keyword: &str, root: bool) -> Option<NodeId> {
        let map = match schema {
            Value::Bool(true) => return Some(self.push(Node::True)),
            Value::Bool(false) => {
                let per_key = matches!(keyword, "additionalProperties" | "propertyNames");
                return Some(self.push(Node::False { per_key }));
            }
            Value::Object(map) => map,
            _ => return None,
        };
        // Reserve the slot first, so the root is node 0 and children come after their parent.
        let id = self.push(Node::True);
        let keywords = self.keywords(map, root)?;
        self.nodes[id] = Node::Keywords(Box::new(keywords));
        Some(id)
    }

    fn keywords(&mut self, map: &'s Map<String, Value>, root: bool) -> Option<Keywords> {
        let mut k = Keywords::default();
        let mut required: Vec<&str> = Vec::new();
        for (keyword, value) in map {
            match keyword.as_str() {
                "type" => (k.types, k.messages.types) = types(value)?,
                "enum" => {
                    let options = value.as_array()?;
                    k.enumeration = Some(options.clone());
                    k.messages.enumeration = one_of(value).into();
                }
                "const" => {
                    k.constant = Some(value.clone());
                    k.messages.constant = format!("Expected {}", quote(value)).into();
                }
                "minimum" => k.bounds.push(bound(Op::Ge, value)?),
                "maximum" => k.bounds.push(bound(Op::Le, value)?),
                "exclusiveMinimum" => k.bounds.push(bound(Op::Gt, value)?),
                "exclusiveMaximum" => k.bounds.push(bound(Op::Lt, value)?),
                "multipleOf" => k.multiple_of = multiple_of(value)?,
                "minLength" => {
                    let limit = size_limit(value)?;
                    let message = format!("Expected string length greater or equal to {limit}");
                    (k.min_length, k.messages.min_length) = (limit, message.into());
                }
                "maxLength" => {
                    let limit = size_limit(value)?;
                    let message = format!("Expected string length less or equal to {limit}");
                    (k.max_length, k.messages.max_length) = (limit, message.into());
                }
                "pattern" => k.pattern = Some(pattern(value)?),
                "items" => k.items = Some(self.node(value, "items", false)?),
                "minItems" => {
                    let limit = size_limit(value)?;
                    let message = format!("Expected at least {}", plural(limit, "item", "items"));
                    (k.min_items, k.messages.min_items) = (limit, message.into());
                }
                "maxItems" => {
                    let limit = size_limit(value)?;
                    let message = format!("Expected at most {}", plural(limit, "item", "items"));
                    (k.max_items, k.messages.max_items) = (limit, message.into());
                }
                "uniqueItems" => k.unique_items = value.as_bool()?,
                "properties" => {
                    let properties = value.as_object()?;
                    for (name, schema) in properties {
                        let node = self.node(schema, &escape(name), false)?;
                        k.properties.push(Property {
                            head: head(name.as_bytes()),
                            name: name.clone(),
                            node,
                            required_bit: 0,
                        });
                    }
                    k.properties.sort_by(|a, b| a.name.cmp(&b.name));
                }
                "required" => {
                    for name in value.as_array()? {
                        required.push(name.as_str()?);
                    }
                }
                "additionalProperties" => {
                    k.additional = match value {
                        Value::Bool(true) => Additional::Any,
                        Value::Bool(false) => Additional::Closed,
                        Value::Object(_) => {
                            Additional::Schema(self.node(value, "additionalProperties", false)?)
                        }
                        _ => return None,
                    };
                }
                "minProperties" => {
                    let limit = size_limit(value)?;
                    let message = format!(
                        "Expected at least {}",
                        plural(limit, "property", "properties")
                    );
                    (k.min_properties, k.messages.min_properties) = (limit, message.into());
                }
                "maxProperties" => {
                    let limit = size_limit(value)?;
                    let message = format!(
                        "Expected at most {}",
                        plural(limit, "property", "properties")
                    );
                    (k.max_properties, k.messages.max_properties) = (limit, message.into());
                }
                "$ref" => k.reference = Some(self.reference(value.as_str()?)?),
                "anyOf" => k.any_of = self.branches(value, "anyOf")?,
                "oneOf" => k.one_of = self.branches(value, "oneOf")?,
                // Compiled when a `$ref` names them.
                "$defs" if value.is_object() => {}
                // Checked by `Tree::compile`.
                "$schema" if root => {}
                other if ANNOTATIONS.contains(&other) => {}
                _ => return None,
            }
        }
        k.required_declared_only = matches!(k.additional, Additional::Closed)
            && map.contains_key("properties")
            && required.len() == 1;
        let mut bits = 0;
        for name in required {
            match k.properties.iter_mut().find(|p| p.name == name) {
                Some(property) if bits < 64 && property.required_bit == 0 => {
                    property.required_bit = 1 << bits;
                    k.required_mask |= property.required_bit;
                    bits += 1;
                }
                _ => k.required_lookup.push(name.to_owned()),
            }
        }
        Some(k)
    }

    /// The branches of `anyOf` or `oneOf`. A branch that reaches a `pattern` leaves the schema to
    /// `jsonschema`: a match the regex engine cannot decide is resolved over the whole schema
    /// there, which a branch's verdict alone cannot reproduce.
    fn branches(&mut self, value: &'s Value, keyword: &str) -> Option<Vec<NodeId>> {
        let schemas = value.as_array().filter(|schemas| !schemas.is_empty())?;
        let mut branches = Vec::with_capacity(schemas.len());
        for schema in schemas {
            let branch = self.node(schema, keyword, false)?;
            if reaches_pattern(&self.nodes, branch) {
                return None;
            }
            branches.push(branch);
        }
        Some(branches)
    }

    /// A `$ref` of the form `#` or `#/$defs/<name>` (the only ones resolved here).
    fn reference(&mut self, reference: &'s str) -> Option<NodeId> {
        if let Some((_, id)) = self.refs.iter().find(|(r, _)| *r == reference) {
            return Some(*id);
        }
        if self.resolving.contains(&reference) {
            return None;
        }
        let target = if reference == "#" {
            self.root
        } else {
            let name = reference.strip_prefix("#/$defs/")?;
            // Names that a URI fragment could encode or escape (and nested pointers) are left to
            // `jsonschema`.
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            {
                return None;
            }
            self.root.get("$defs")?.get(name)?
        };
        if reference == "#" {
            // The root is node 0; a reference to it from inside is a recursion through a child
            // value only when that path passes a child keyword, which the walk cannot tell here.
            return None;
        }
        self.resolving.push(reference);
        // A `false` target reports at its own location: its error names the definition.
        let keyword = reference.rsplit('/').next().unwrap_or_default();
        let id = self.node(target, keyword, false);
        self.resolving.pop();
        let id = id?;
        self.refs.push((reference, id));
        Some(id)
    }
}

fn types(value: &Value) -> Option<(u8, Box<str>)> {
    let set = match value {
        Value::String(name) => type_bit(name)?,
        Value::Array(names) => {
            let mut set = 0;
            for name in names {
                let bit = type_bit(name.as_str()?)?;
                if set & bit != 0 {
                    return None;
                }
                set |= bit;
            }
            if set == 0 {
                return None;
            }
            set
        }
        _ => return None,
    };
    Some((set, type_message(set).into()))
}

fn bound(op: Op, value: &Value) -> Option<Bound> {
    let Value::Number(number) = value else {
        return None;
    };
    let limit = if let Some(l) = number.as_u64() {
        Limit::U64(l)
    } else if let Some(l) = number.as_i64() {
        Limit::I64(l)
    } else {
        Limit::F64(number.as_f64()?)
    };
    let text = limit_number(value);
    let message = match op {
        Op::Ge => format!("Expected number to be greater or equal to {text}"),
        Op::Le => format!("Expected number to be less or equal to {text}"),
        Op::Gt => format!("Expected number to be greater than {text}"),
        Op::Lt => format!("Expected number to be less than {text}"),
    };
    Some(Bound {
        op,
        limit,
        message: message.into(),
    })
}

/// `Some(None)`: a divisor `jsonschema` skips (none with these numbers, but kept exact).
fn multiple_of(value: &Value) -> Option<Option<MultipleOf>> {
    let Value::Number(number) = value else {
        return None;
    };
    let Some(divisor) = number.as_f64() else {
        return Some(None);
    };
    Some(Some(MultipleOf {
        divisor,
        whole: divisor.fract() == 0.0,
        message: format!("Expected number to be a multiple of {divisor}").into(),
    }))
}

fn pattern(value: &Value) -> Option<Pattern> {
    let Value::String(text) = value else {
        return None;
    };
    let mut schema = Map::new();
    schema.insert("pattern".to_owned(), value.clone());
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(false)
        .build(&Value::Object(schema))
        .ok()?;
    Some(Pattern {
        validator,
        message: format!("Expected string to match pattern {}", quote_str(text)).into(),
    })
}

/// Whether node `id` or a schema under it has a `pattern` (the graph has no cycles: recursive
/// references are refused).
fn reaches_pattern(nodes: &[Node], id: NodeId) -> bool {
    let Node::Keywords(k) = &nodes[id] else {
        return false;
    };
    k.pattern.is_some()
        || k.items.is_some_and(|child| reaches_pattern(nodes, child))
        || k.reference
            .is_some_and(|child| reaches_pattern(nodes, child))
        || matches!(k.additional, Additional::Schema(child) if reaches_pattern(nodes, child))
        || k.properties.iter().any(|p| reaches_pattern(nodes, p.node))
        || k.any_of.iter().any(|&child| reaches_pattern(nodes, child))
        || k.one_of.iter().any(|&child| reaches_pattern(nodes, child))
}

impl Tree {
    /// How many of `branches` accept `value`, counting no further than 2.
    fn count_valid(&self, branches: &[NodeId], value: &Value) -> usize {
        let mut count = 0;
        for &branch in branches {
            if self.valid(branch, value) {
                count += 1;
                if count > 1 {
                    break;
                }
            }
        }
        count
    }

    /// True when `value` matches the schema.
    pub(super) fn is_valid(&self, value: &Value) -> bool {
        self.valid(0, value)
    }

    fn valid(&self, id: NodeId, value: &Value) -> bool {
        match &self.nodes[id] {
            Node::True => true,
            Node::False { .. } => false,
            Node::Keywords(k) => self.keywords_valid(k, value),
        }
    }

    fn keywords_valid(&self, k: &Keywords, value: &Value) -> bool {
        if k.types != 0 && !has_type(k.types, value) {
            return false;
        }
        if let Some(options) = &k.enumeration
            && !options.iter().any(|option| cmp::equal(value, option))
        {
            return false;
        }
        if let Some(expected) = &k.constant
            && !cmp::equal(value, expected)
        {
            return false;
        }
        if let Some(target) = k.reference
            && !self.valid(target, value)
        {
            return false;
        }
        if !k.any_of.is_empty() && !k.any_of.iter().any(|&b| self.valid(b, value)) {
            return false;
        }
        if !k.one_of.is_empty() && self.count_valid(&k.one_of, value) != 1 {
            return false;
        }
        match value {
            Value::Number(number) => {
                k.bounds.iter().all(|b| b.holds(number))
                    && k.multiple_of.as_ref().is_none_or(|m| m.holds(number))
            }
            Value::String(text) => {
                let (min, max) = (k.min_length, k.max_length);
                (min == 0 && max == u64::MAX || length_within(text, min, max))
                    && k.pattern
                        .as_ref()
                        .is_none_or(|p| p.validator.is_valid(value))
            }
            Value::Array(items) => {
                let count = items.len() as u64;
                count >= k.min_items
                    && count <= k.max_items
                    && (!k.unique_items || is_unique(items))
                    && k.items
                        .is_none_or(|child| items.iter().all(|item| self.valid(child, item)))
            }
            Value::Object(object) => self.object_valid(k, object),
            Value::Null | Value::Bool(_) => true,
        }
    }

    fn object_valid(&self, k: &Keywords, object: &Map<String, Value>) -> bool {
        let count = object.len() as u64;
        if count < k.min_properties || count > k.max_properties {
            return false;
        }
        if !k
            .required_lookup
            .iter()
            .all(|name| object.contains_key(name))
        {
            return false;
        }
        if k.properties.is_empty() && matches!(k.additional, Additional::Any) {
            return true;
        }
        let mut found = 0;
        let mut members = Members::new(self.sorted_maps, &k.properties);
        for (name, value) in object {
            let child = match members.find(name) {
                Some(property) => {
                    found |= property.required_bit;
                    property.node
                }
                None => match k.additional {
                    Additional::Any => continue,
                    Additional::Closed => return false,
                    Additional::Schema(child) => child,
                },
            };
            if !self.valid(child, value) {
                return false;
            }
        }
        found == k.required_mask
    }
}

/// Finds the declared property of each member of an object, in one pass over both when the
/// members come in key order.
struct Members<'k> {
    sorted: bool,
    properties: &'k [Property],
    /// With sorted members: the first property not yet passed.
    next: usize,
}

impl<'k> Members<'k> {
    fn new(sorted: bool, properties: &'k [Property]) -> Self {
        Members {
            sorted,
            properties,
            next: 0,
        }
    }

    #[inline(always)]
    fn find(&mut self, name: &str) -> Option<&'k Property> {
        if !self.sorted {
            return self
                .properties
                .binary_search_by(|p| compare_keys(&p.name, name))
                .ok()
                .map(|i| &self.properties[i]);
        }
        let name_head = head(name.as_bytes());
        while let Some(property) = self.properties.get(self.next) {
            let order = match property.head.cmp(&name_head) {
                Ordering::Equal => compare_after_head(&property.name, name),
                order => order,
            };
            match order {
                Ordering::Less => self.next += 1,
                Ordering::Equal => {
                    self.next += 1;
                    return Some(property);
                }
                Ordering::Greater => return None,
            }
        }
        None
    }
}

/// The first eight bytes of a key as a big-endian word, zero-padded: words compare as the bytes
/// do, and equal words leave only the rest (or the lengths) to compare.
#[inline]
fn head(bytes: &[u8]) -> u64 {
    let mut word = 0u64;
    for (i, byte) in bytes.iter().take(8).enumerate() {
        word |= u64::from(*byte) << (56 - 8 * i);
    }
    word
}

/// The byte order of two keys whose [`head`]s are equal.
#[inline]
fn compare_after_head(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() >= 8 && b.len() >= 8 {
        compare_keys_bytes(&a[8..], &b[8..])
    } else {
        // The shorter key is the longer one's prefix (the padding is zeros).
        a.len().cmp(&b.len())
    }
}

/// Byte order of two keys; property names are short, and a loop beats a call to `memcmp`.
#[inline]
fn compare_keys(a: &str, b: &str) -> Ordering {
    compare_keys_bytes(a.as_bytes(), b.as_bytes())
}

#[inline]
fn compare_keys_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let common = a.len().min(b.len());
    let mut at = 0;
    // Eight bytes at a time, as big-endian words: their order is the order of the bytes.
    while at + 8 <= common {
        let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
        x.copy_from_slice(&a[at..at + 8]);
        y.copy_from_slice(&b[at..at + 8]);
        if x != y {
            return u64::from_be_bytes(x).cmp(&u64::from_be_bytes(y));
        }
        at += 8;
    }
    for (x, y) in a[at..common].iter().zip(&b[at..common]) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Whether `serde_json` maps iterate in key order in this build.
fn maps_are_sorted() -> bool {
    let mut map = Map::new();
    map.insert("b".to_owned(), Value::Null);
    map.insert("a".to_owned(), Value::Null);
    map.keys().next().is_some_and(|key| key == "a")
}

/// One segment of an instance path.
#[derive(Clone, Copy)]
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// One error before rendering: its path (a range of [`Collector::paths`]) and message.
struct Raw<'a> {
    start: usize,
    end: usize,
    message: &'a str,
}

const UNEXPECTED_PROPERTY: &str = "Unexpected property";
const REQUIRED_PROPERTY: &str = "Expected required property";
const UNEXPECTED_VALUE: &str = "Unexpected value";

struct Collector<'a> {
    /// The path of the value being checked.
    path: Vec<Segment<'a>>,
    /// The paths of every error, one after the other.
    paths: Vec<Segment<'a>>,
    errors: Vec<Raw<'a>>,
    /// A `pattern` the regex engine could not decide: the caller must ask `jsonschema`.
    undecided: bool,
}

impl<'a> Collector<'a> {
    fn error(&mut self, message: &'a str) {
        let start = self.paths.len();
        self.paths.extend_from_slice(&self.path);
        self.errors.push(Raw {
            start,
            end: self.paths.len(),
            message,
        });
    }

    fn child_error(&mut self, key: &'a str, message: &'a str) {
        let start = self.paths.len();
        self.paths.extend_from_slice(&self.path);
        self.paths.push(Segment::Key(key));
        self.errors.push(Raw {
            start,
            end: self.paths.len(),
            message,
        });
    }
}

/// The errors of one invalid value: pointers and messages, in report order, deduplicated.
#[derive(Clone)]
pub(super) struct Rendered {
    /// Every pointer and message, one after the other.
    pub(super) text: String,
    /// Where each pointer ends and its message ends in `text` (each pointer starts where the
    /// previous message ends).
    pub(super) ends: Vec<(usize, usize)>,
}

impl Rendered {
    /// The pointer and message of error `index`.
    pub(super) fn pair(&self, index: usize) -> (&str, &str) {
        let start = match index {
            0 => 0,
            i => self.ends[i - 1].1,
        };
        let (pointer_end, end) = self.ends[index];
        (&self.text[start..pointer_end], &self.text[pointer_end..end])
    }
}

impl Tree {
    /// Every error of `value`; `None` when only `jsonschema` can tell (an undecided pattern).
    pub(super) fn errors(&self, value: &Value) -> Option<Rendered> {
        let mut collector = Collector {
            path: Vec::with_capacity(8),
            paths: Vec::with_capacity(64),
            errors: Vec::with_capacity(16),
            undecided: false,
        };
        self.collect(0, value, &mut collector);
        if collector.undecided {
            return None;
        }
        let Collector { paths, errors, .. } = collector;
        if order_is_ambiguous(&paths, &errors) {
            return None;
        }
        let mut errors = errors;
        errors.sort_by(|a, b| {
            compare_paths(&paths[a.start..a.end], &paths[b.start..b.end])
                .then_with(|| a.message.cmp(b.message))
        });
        errors.dedup_by(|a, b| {
            a.message == b.message
                && compare_paths(&paths[a.start..a.end], &paths[b.start..b.end]) == Ordering::Equal
        });
        let mut text = String::with_capacity(errors.len() * 64);
        let mut ends = Vec::with_capacity(errors.len());
        for error in &errors {
            let start = text.len();
            write_pointer(&mut text, &paths[error.start..error.end]);
            if text.len() - start > super::SEGMENT_LIMIT {
                let bounded = super::bounded_pointer(&text[start..]);
                text.truncate(start);
                text.push_str(&bounded);
            }
            let pointer_end = text.len();
            text.push_str(error.message);
            ends.push((pointer_end, text.len()));
        }
        Some(Rendered { text, ends })
    }

    fn collect<'a>(&'a self, id: NodeId, value: &'a Value, out: &mut Collector<'a>) {
        match &self.nodes[id] {
            Node::True => {}
            Node::False { per_key } => match value {
                Value::Object(object) if *per_key && !object.is_empty() => {
                    for name in object.keys() {
                        out.child_error(name, UNEXPECTED_PROPERTY);
                    }
                }
                _ => out.error(UNEXPECTED_VALUE),
            },
            Node::Keywords(k) => self.collect_keywords(k, value, out),
        }
    }

    fn collect_keywords<'a>(&'a self, k: &'a Keywords, value: &'a Value, out: &mut Collector<'a>) {
        if k.types != 0 && !has_type(k.types, value) {
            out.error(&k.messages.types);
        }
        if let Some(options) = &k.enumeration
            && !options.iter().any(|option| cmp::equal(value, option))
        {
            out.error(&k.messages.enumeration);
        }
        if let Some(expected) = &k.constant
            && !cmp::equal(value, expected)
        {
            out.error(&k.messages.constant);
        }
        if let Some(target) = k.reference {
            self.collect(target, value, out);
        }
        if !k.any_of.is_empty() && !k.any_of.iter().any(|&b| self.valid(b, value)) {
            out.error("Expected value to match at least one allowed schema");
        }
        if !k.one_of.is_empty() {
            match self.count_valid(&k.one_of, value) {
                0 => {
                    out.error("Expected value to match exactly one allowed schema, it matches none")
                }
                1 => {}
                _ => out.error(
                    "Expected value to match exactly one allowed schema, it matches several",
                ),
            }
        }
        match value {
            Value::Number(number) => {
                for bound in &k.bounds {
                    if !bound.holds(number) {
                        out.error(&bound.message);
                    }
                }
                if let Some(multiple) = &k.multiple_of
                    && !multiple.holds(number)
                {
                    out.error(&multiple.message);
                }
            }
            Value::String(text) => {
                if k.min_length > 0 && !length_within(text, k.min_length, u64::MAX) {
                    out.error(&k.messages.min_length);
                }
                if k.max_length < u64::MAX && !length_within(text, 0, k.max_length) {
                    out.error(&k.messages.max_length);
                }
                if let Some(pattern) = &k.pattern {
                    match pattern.verdict(value) {
                        PatternVerdict::Match => {}
                        PatternVerdict::Mismatch => out.error(&pattern.message),
                        PatternVerdict::Undecided => out.undecided = true,
                    }
                }
            }
            Value::Array(items) => {
                let count = items.len() as u64;
                if count < k.min_items {
                    out.error(&k.messages.min_items);
                }
                if count > k.max_items {
                    out.error(&k.messages.max_items);
                }
                if k.unique_items && !is_unique(items) {
                    out.error("Expected unique items");
                }
                if let Some(child) = k.items {
                    for (i, item) in items.iter().enumerate() {
                        out.path.push(Segment::Index(i));
                        self.collect(child, item, out);
                        out.path.pop();
                    }
                }
            }
            Value::Object(object) => self.collect_object(k, object, out),
            Value::Null | Value::Bool(_) => {}
        }
    }

    fn collect_object<'a>(
        &'a self,
        k: &'a Keywords,
        object: &'a Map<String, Value>,
        out: &mut Collector<'a>,
    ) {
        let count = object.len() as u64;
        if count < k.min_properties {
            out.error(&k.messages.min_properties);
        }
        if count > k.max_properties {
            out.error(&k.messages.max_properties);
        }
        let mut found = 0;
        if !(k.properties.is_empty() && matches!(k.additional, Additional::Any)) {
            let mut members = Members::new(self.sorted_maps, &k.properties);
            for (name, value) in object {
                let child = match members.find(name) {
                    Some(property) => {
                        found |= property.required_bit;
                        property.node
                    }
                    None => match k.additional {
                        Additional::Any => continue,
                        Additional::Closed => {
                            out.child_error(name, UNEXPECTED_PROPERTY);
                            continue;
                        }
                        Additional::Schema(child) => child,
                    },
                };
                out.path.push(Segment::Key(name));
                self.collect(child, value, out);
                out.path.pop();
            }
        }
        if found != k.required_mask {
            for property in &k.properties {
                if property.required_bit & !found != 0 {
                    out.child_error(&property.name, REQUIRED_PROPERTY);
                }
            }
        }
        for name in &k.required_lookup {
            // See `Keywords::required_declared_only`: only a declared name is ever in the mask.
            if k.required_declared_only || !object.contains_key(name) {
                out.child_error(name, REQUIRED_PROPERTY);
            }
        }
    }
}

/// Writes the JSON Pointer of `path` (`/` for the root).
fn write_pointer(out: &mut String, path: &[Segment<'_>]) {
    if path.is_empty() {
        out.push('/');
        return;
    }
    for segment in path {
        out.push('/');
        match segment {
            Segment::Key(key) => super::push_escaped(out, key),
            Segment::Index(i) => push_decimal(out, *i),
        }
    }
}

/// Appends `n` in decimal.
pub(super) fn push_decimal(out: &mut String, n: usize) {
    if n < 10 {
        // A digit is below 10.
        #[allow(clippy::cast_possible_truncation)]
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut buffer = [0u8; 20];
    out.push_str(decimal(n, &mut buffer));
}

/// `n` in decimal, written into the end of `buffer`.
fn decimal(mut n: usize, buffer: &mut [u8; 20]) -> &str {
    let mut at = buffer.len();
    loop {
        at -= 1;
        // A digit is below 10.
        #[allow(clippy::cast_possible_truncation)]
        let digit = (n % 10) as u8;
        buffer[at] = b'0' + digit;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buffer[at..]).unwrap_or("0")
}

/// The order of [`super::compare_pointers`] on the pointers these paths render to, without
/// rendering them: segment by segment, indices as numbers, the rest as escaped text.
fn compare_paths(a: &[Segment<'_>], b: &[Segment<'_>]) -> Ordering {
    // The root renders as `/`, the pointer of one empty key.
    const ROOT: &[Segment<'static>] = &[Segment::Key("")];
    let a = if a.is_empty() { ROOT } else { a };
    let b = if b.is_empty() { ROOT } else { b };
    for (x, y) in a.iter().zip(b) {
        let order = compare_segments(*x, *y);
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

fn compare_segments(x: Segment<'_>, y: Segment<'_>) -> Ordering {
    match (x, y) {
        // Equal indices render alike; different ones compare as numbers.
        (Segment::Index(i), Segment::Index(j)) => i.cmp(&j),
        (Segment::Key(a), Segment::Key(b)) => {
            // Most paths share their keys with the instance itself.
            if std::ptr::eq(a, b) || a == b {
                return Ordering::Equal;
            }
            match (index_like(a), index_like(b)) {
                // A number has nothing to escape.
                (Some(i), Some(j)) => i.cmp(&j).then_with(|| compare_keys(a, b)),
                _ => compare_escaped(a, b),
            }
        }
        (Segment::Key(key), Segment::Index(i)) => compare_key_index(key, i),
        (Segment::Index(i), Segment::Key(key)) => compare_key_index(key, i).reverse(),
    }
}

/// The segment as an array index, as [`super::number`] reads it; most keys are rejected by
/// their first byte.
#[inline]
fn index_like(key: &str) -> Option<u64> {
    match key.as_bytes().first() {
        Some(b'0'..=b'9' | b'+') => super::number(key.as_bytes()),
        _ => None,
    }
}

fn compare_key_index(key: &str, index: usize) -> Ordering {
    let mut buffer = [0u8; 20];
    let digits = decimal(index, &mut buffer);
    match index_like(key) {
        Some(n) => n
            .cmp(&(index as u64))
            .then_with(|| compare_keys(key, digits)),
        None => compare_escaped(key, digits),
    }
}

/// Whether the report order of these paths depends on the order the errors were found in.
///
/// The report order compares two index-like segments as numbers and any other pair as text,
/// which is not transitive when index-like segments meet, at the same depth, other segments
/// whose text starts at or below `9` (`10` < `1~0` < `2` < `10`). Such errors are left to the
/// general validator, whose sort of its own error sequence is the reference.
fn order_is_ambiguous(paths: &[Segment<'_>], errors: &[Raw<'_>]) -> bool {
    // Bit `d`: a segment of that class at depth `d` (depths past 63 share the last bit, which
    // can only flag more often).
    let (mut numbers, mut low) = (0u64, 0u64);
    for error in errors {
        for (depth, segment) in paths[error.start..error.end].iter().enumerate() {
            let bit = 1u64 << depth.min(63);
            match segment {
                Segment::Index(_) => numbers |= bit,
                Segment::Key(key) => {
                    if super::number(key.as_bytes()).is_some() {
                        numbers |= bit;
                    } else if key.as_bytes().first().is_some_and(|b| *b <= b'9') {
                        low |= bit;
                    }
                }
            }
        }
    }
    numbers & low != 0
}

/// Compares two pointer segments by the bytes of their RFC 6901 escaped forms.
fn compare_escaped(x: &str, y: &str) -> Ordering {
    let (a, b) = (x.as_bytes(), y.as_bytes());
    let Some(at) = a.iter().zip(b).position(|(p, q)| p != q) else {
        // One is a prefix of the other, in escaped form too.
        return a.len().cmp(&b.len());
    };
    let special = |byte: u8| byte == b'~' || byte == b'/';
    if !special(a[at]) && !special(b[at]) {
        // The escaped forms share the escaped prefix and differ at these same bytes.
        return a[at].cmp(&b[at]);
    }
    escaped_bytes(&a[at..]).cmp(escaped_bytes(&b[at..]))
}

fn escaped_bytes(text: &[u8]) -> impl Iterator<Item = u8> + '_ {
    text.iter().flat_map(|&byte| {
        let (first, second) = match byte {
            b'~' => (b'~', Some(b'0')),
            b'/' => (b'~', Some(b'1')),
            other => (other, None),
        };
        std::iter::once(first).chain(second)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointer(path: &[Segment<'_>]) -> String {
        let mut out = String::new();
        write_pointer(&mut out, path);
        out
    }

    #[test]
    fn segment_order_is_the_order_of_the_rendered_pointers() {
        let keys = [
            "",
            "0",
            "1",
            "2",
            "10",
            "+2",
            "02",
            "a",
            "a/b",
            "a~b",
            "a~",
            "~",
            "/",
            "z",
            "é",
            "-1",
            "18446744073709551616",
        ];
        let mut segments: Vec<Segment<'_>> = keys.iter().map(|k| Segment::Key(k)).collect();
        segments.extend([0, 1, 2, 9, 10, 100].map(Segment::Index));
        let mut paths: Vec<Vec<Segment<'_>>> = vec![Vec::new()];
        for x in &segments {
            paths.push(vec![*x]);
            for y in &segments {
                paths.push(vec![*x, *y]);
            }
        }
        for a in &paths {
            for b in &paths {
                let (pa, pb) = (pointer(a), pointer(b));
                assert_eq!(
                    compare_paths(a, b),
                    super::super::compare_pointers(&pa, &pb),
                    "{pa} vs {pb}"
                );
            }
        }
    }

    /// The walk over members in key order and the lookup of each member agree.
    #[test]
    fn sorted_and_unsorted_member_walks_agree() {
        use serde_json::json;
        assert!(maps_are_sorted(), "this build's maps iterate in key order");
        let schema = json!({
            "properties": {
                "b": {"type": "integer"}, "d": {"minLength": 2}, "a/b": false, "": {"type": "null"}
            },
            "required": ["b", "d", "x"],
            "additionalProperties": {"type": "string"}
        });
        let instances = [
            json!({}),
            json!({"b": 1, "d": "dd", "x": "s"}),
            json!({"a": 1, "b": "1", "c": "s", "d": "", "e": 2, "a/b": 0, "": null}),
            json!({"d": "ok", "z": "z"}),
            json!({"x": 1}),
        ];
        let sorted = Tree::compile(&schema).expect("inside the subset");
        let mut unsorted = Tree::compile(&schema).expect("inside the subset");
        unsorted.sorted_maps = false;
        for instance in &instances {
            assert_eq!(
                sorted.is_valid(instance),
                unsorted.is_valid(instance),
                "{instance}"
            );
            let (a, b) = (
                sorted.errors(instance).expect("decided"),
                unsorted.errors(instance).expect("decided"),
            );
            assert_eq!((a.text, a.ends), (b.text, b.ends), "{instance}");
        }
    }

    #[test]
    fn key_order_is_byte_order() {
        let keys = [
            "",
            "a",
            "ab",
            "abcdefgh",
            "abcdefghi",
            "abcdefgi",
            "abcdefgh\u{0}",
            "é",
            "z",
            "pane_id",
            "pane_idx",
            "line_style",
            "line_styles",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(compare_keys(a, b), a.cmp(b), "{a:?} vs {b:?}");
                let by_head = match head(a.as_bytes()).cmp(&head(b.as_bytes())) {
                    Ordering::Equal => compare_after_head(a, b),
                    order => order,
                };
                assert_eq!(by_head, a.cmp(b), "{a:?} vs {b:?} by head");
            }
        }
    }

    #[test]
    fn decimal_writes_every_width() {
        let mut buffer = [0u8; 20];
        for n in [0, 7, 10, 99, 12345, usize::MAX] {
            assert_eq!(decimal(n, &mut buffer), n.to_string());
            let mut out = String::from("/");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("/{n}"));
        }
    }

    #[test]
    fn outside_the_subset_is_left_to_jsonschema() {
        for schema in [
            serde_json::json!({"anyOf": [{"pattern": "^a"}, {"type": "null"}]}),
            serde_json::json!({"$ref": "#/$defs/a/b"}),
            serde_json::json!({"$defs": {"a b": {}}, "$ref": "#/$defs/a b"}),
            serde_json::json!({"$defs": {"a%20b": {}}, "$ref": "#/$defs/a%20b"}),
            serde_json::json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            serde_json::json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
            serde_json::json!({"unknownKeyword": 1}),
            serde_json::json!({"items": [{"type": "string"}]}),
        ] {
            assert!(Tree::compile(&schema).is_none(), "{schema}");
        }
        for schema in [
            serde_json::json!(true),
            serde_json::json!({"type": ["string", "null"], "format": "date", "title": "t"}),
            serde_json::json!({"$defs": {"a": {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}),
        ] {
            assert!(Tree::compile(&schema).is_some(), "{schema}");
        }
    }
}
