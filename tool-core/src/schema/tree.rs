//! A schema parsed into a typed tree: each node with its JSON Pointer, its listed types and its
//! subschemas by keyword, read under the rules of the schema's draft (draft-07's array `items`
//! is [`Object::prefix_items`], its `additionalItems` [`Object::items`]).
//!
//! The tree borrows the schema's JSON value; it never fails: a keyword whose value is not of
//! the keyword's shape (which meta-validation reports) is kept as data.

use serde_json::{Map, Number, Value};

use super::draft::{self, Draft};
use super::keywords::{Kind, Shape};
use super::pointer::{JsonPointer, percent_decode};
use super::walk;

/// A parsed schema: its draft and its root node.
#[derive(Debug)]
pub struct SchemaTree<'a> {
    /// The draft the schema is read in.
    pub draft: Draft,
    /// The root.
    pub root: Node<'a>,
}

impl<'a> SchemaTree<'a> {
    /// Parses `schema` in `draft`.
    pub fn parse(schema: &'a Value, draft: Draft) -> Self {
        SchemaTree {
            draft,
            root: Node::parse(schema, JsonPointer::root(), draft),
        }
    }

    /// The node a local reference (`#`, `#/$defs/a`, `#/definitions/a`, any `#/…` pointer)
    /// names, when it names a node of the tree.
    pub fn resolve(&self, reference: &str) -> Option<&Node<'a>> {
        let pointer = JsonPointer::from_escaped(percent_decode(reference.strip_prefix('#')?)?);
        let mut node = &self.root;
        let mut tokens = pointer.tokens();
        while let Some(keyword) = tokens.next() {
            let object = node.object()?;
            node = match object.child(&keyword)? {
                Child::One(child) => child,
                Child::List(children) => children.get(tokens.next()?.parse::<usize>().ok()?)?,
                Child::Map(children) => {
                    let name = tokens.next()?;
                    &children.iter().find(|(n, _)| *n == name)?.1
                }
            };
        }
        Some(node)
    }
}

/// One schema node.
#[derive(Debug)]
pub struct Node<'a> {
    /// Where it is in the schema.
    pub pointer: JsonPointer,
    /// Its JSON.
    pub value: &'a Value,
    /// `true`, `false` or an object.
    pub body: Body<'a>,
}

/// What a node is.
#[derive(Debug)]
pub enum Body<'a> {
    /// `true` (every value) or `false` (none).
    Bool(bool),
    /// A schema object.
    Object(Box<Object<'a>>),
    /// Not a schema (meta-validation reports it).
    Invalid,
}

/// The subschemas of one keyword.
#[derive(Debug)]
pub enum Child<'a> {
    /// One subschema.
    One(Node<'a>),
    /// A list of subschemas.
    List(Vec<Node<'a>>),
    /// Names to subschemas.
    Map(Vec<(&'a str, Node<'a>)>),
}

/// A schema object.
#[derive(Debug)]
pub struct Object<'a> {
    /// Its keywords as written.
    pub map: &'a Map<String, Value>,
    /// The types `type` lists, each once, in their order (`None` without a `type`).
    pub types: Option<Vec<Kind>>,
    /// Its subschemas, by keyword.
    pub children: Vec<(&'a str, Child<'a>)>,
    draft: Draft,
}

impl<'a> Node<'a> {
    fn parse(value: &'a Value, pointer: JsonPointer, draft: Draft) -> Self {
        let body = match value {
            Value::Bool(b) => Body::Bool(*b),
            Value::Object(map) => Body::Object(Box::new(Object::parse(map, &pointer, draft))),
            _ => Body::Invalid,
        };
        Node {
            pointer,
            value,
            body,
        }
    }

    /// The schema object, when the node is one.
    pub fn object(&self) -> Option<&Object<'a>> {
        match &self.body {
            Body::Object(object) => Some(object),
            _ => None,
        }
    }
}

impl<'a> Object<'a> {
    fn parse(map: &'a Map<String, Value>, pointer: &JsonPointer, draft: Draft) -> Self {
        let mut children = Vec::new();
        for (key, value) in map {
            let at = pointer.join(key);
            let child = match (draft::shape(draft, key), value) {
                (Some(Shape::Schema | Shape::SchemaOrList), Value::Object(_) | Value::Bool(_)) => {
                    Child::One(Node::parse(value, at, draft))
                }
                (Some(Shape::SchemaList | Shape::SchemaOrList), Value::Array(items)) => {
                    Child::List(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| Node::parse(item, at.index(i), draft))
                            .collect(),
                    )
                }
                (Some(Shape::SchemaMap | Shape::Dependencies), Value::Object(entries)) => {
                    Child::Map(
                        entries
                            .iter()
                            .filter(|(_, v)| v.is_object() || v.is_boolean())
                            .map(|(name, v)| (name.as_str(), Node::parse(v, at.join(name), draft)))
                            .collect(),
                    )
                }
                _ => continue,
            };
            children.push((key.as_str(), child));
        }
        Object {
            map,
            types: walk::types(map),
            children,
            draft,
        }
    }

    /// The subschemas of `keyword`.
    pub fn child(&self, keyword: &str) -> Option<&Child<'a>> {
        self.children
            .iter()
            .find(|(k, _)| *k == keyword)
            .map(|(_, c)| c)
    }

    fn one(&self, keyword: &str) -> Option<&Node<'a>> {
        match self.child(keyword)? {
            Child::One(node) => Some(node),
            _ => None,
        }
    }

    fn list(&self, keyword: &str) -> &[Node<'a>] {
        match self.child(keyword) {
            Some(Child::List(nodes)) => nodes,
            _ => &[],
        }
    }

    fn named(&self, keyword: &str) -> &[(&'a str, Node<'a>)] {
        match self.child(keyword) {
            Some(Child::Map(nodes)) => nodes,
            _ => &[],
        }
    }

    /// A keyword's value as written.
    pub fn get(&self, keyword: &str) -> Option<&'a Value> {
        self.map.get(keyword)
    }

    /// `properties`, in their order.
    pub fn properties(&self) -> &[(&'a str, Node<'a>)] {
        self.named("properties")
    }

    /// `patternProperties`.
    pub fn pattern_properties(&self) -> &[(&'a str, Node<'a>)] {
        self.named("patternProperties")
    }

    /// `additionalProperties`.
    pub fn additional_properties(&self) -> Option<&Node<'a>> {
        self.one("additionalProperties")
    }

    /// `required`: the names that are strings, each once.
    pub fn required(&self) -> Vec<&'a str> {
        walk::required(self.map)
    }

    /// The positional item schemas: `prefixItems`, or an array `items` before 2020-12.
    pub fn prefix_items(&self) -> &[Node<'a>] {
        if self.draft.has_array_items() {
            self.list("items")
        } else {
            self.list("prefixItems")
        }
    }

    /// The schema of the items after the positional ones (of every item when there are none):
    /// `items` in 2020-12 (or a single `items` before), `additionalItems` after an array
    /// `items`.
    pub fn items(&self) -> Option<&Node<'a>> {
        if self.draft.has_array_items() && matches!(self.child("items"), Some(Child::List(_))) {
            self.one("additionalItems")
        } else {
            self.one("items")
        }
    }

    /// Are there positional items (`prefixItems`, or draft-07's array `items`)?
    pub fn has_prefix_items(&self) -> bool {
        if self.draft.has_array_items() {
            matches!(self.child("items"), Some(Child::List(_)))
        } else {
            self.map.contains_key("prefixItems")
        }
    }

    /// `anyOf`.
    pub fn any_of(&self) -> &[Node<'a>] {
        self.list("anyOf")
    }

    /// `oneOf`.
    pub fn one_of(&self) -> &[Node<'a>] {
        self.list("oneOf")
    }

    /// `allOf`.
    pub fn all_of(&self) -> &[Node<'a>] {
        self.list("allOf")
    }

    /// `$ref`, when it is a string.
    pub fn reference(&self) -> Option<&'a str> {
        self.get("$ref").and_then(Value::as_str)
    }

    /// `enum`, when it is a list.
    pub fn enum_values(&self) -> Option<&'a [Value]> {
        self.get("enum")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
    }

    /// `const`.
    pub fn const_value(&self) -> Option<&'a Value> {
        self.get("const")
    }

    /// A string annotation (`description`, `title`).
    pub fn text(&self, keyword: &str) -> Option<&'a str> {
        self.get(keyword).and_then(Value::as_str)
    }

    /// A number keyword (`minimum`, `maximum`, …).
    pub fn number(&self, keyword: &str) -> Option<&'a Number> {
        match self.get(keyword)? {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// A count keyword (`minItems`, `maxItems`).
    pub fn count(&self, keyword: &str) -> Option<u64> {
        self.get(keyword).and_then(Value::as_u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nodes_know_their_pointer_and_draft_specific_children() {
        let schema = json!({
            "type": "object",
            "definitions": {"p": {"type": "array", "items": [{"type": "number"}], "additionalItems": {"type": "string"}}},
            "properties": {"a/b": {"$ref": "#/definitions/p"}}
        });
        let tree = SchemaTree::parse(&schema, Draft::Draft7);
        let root = tree.root.object().expect("an object");
        let (name, a) = &root.properties()[0];
        assert_eq!(*name, "a/b");
        assert_eq!(a.pointer.as_str(), "/properties/a~1b");
        let reference = a.object().and_then(Object::reference).expect("a $ref");
        let target = tree
            .resolve(reference)
            .and_then(Node::object)
            .expect("resolved");
        assert_eq!(target.prefix_items().len(), 1);
        assert_eq!(
            target.items().map(|n| n.pointer.as_str()),
            Some("/definitions/p/additionalItems")
        );
        // The same schema in 2020-12: `items` is one schema, here a list (not a schema).
        let tree = SchemaTree::parse(&schema, Draft::Draft202012);
        let p = tree
            .resolve("#/definitions/p")
            .and_then(Node::object)
            .expect("resolved");
        assert!(p.prefix_items().is_empty() && p.items().is_none());
    }
}
