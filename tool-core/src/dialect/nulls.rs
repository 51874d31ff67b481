//! The `null`s OpenAI strict mode sends for absent optional properties, read back as absent.
//!
//! Strict mode makes every optional property required but nullable, so a model sends `null`
//! for a field it leaves out. [`NullStripper`] removes exactly those `null`s from a call's
//! arguments before they are validated against the canonical schema: where a property was
//! optional and its schema did not already accept `null` (following `$ref`, `allOf`, `anyOf`,
//! `oneOf`, `items` and `additionalProperties`). Every other value is left as it is.
//!
//! What to look at is read from the schema once ([`NullStripper::new`]); a call reads only the
//! parts of its arguments where such a property can be, and its arguments are copied only when
//! there is a `null` to remove.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::schema::walk::{DEPTH_LIMIT, accepts_null, required, walk};
use crate::schema::{Draft, join, pointer};

/// Removes the `null`s OpenAI strict mode sends for absent optional properties. Built once per
/// schema (the runtime keeps one per tool); [`NullStripper::strip`] per call.
#[derive(Debug, Clone, Default)]
pub struct NullStripper {
    /// The schema nodes that can lead to such a property; the first is the root. Empty when
    /// no property was made nullable.
    nodes: Vec<Node>,
}

/// What one schema node says about the `null`s below it. Edges go to other nodes (by index),
/// only to the ones that can lead to a `null` to remove.
#[derive(Debug, Clone, Default)]
struct Node {
    /// The other schemas that apply to the same value: the `$ref` target, then the branches of
    /// `allOf`, `anyOf` and `oneOf`.
    also: Vec<usize>,
    /// The properties: the name, whether a `null` there is removed, the property's node.
    properties: Vec<(String, bool, Option<usize>)>,
    /// The schema of the other properties.
    additional: Option<usize>,
    /// The schema of the items.
    items: Option<usize>,
}

impl NullStripper {
    /// Reads `schema` (a tool's canonical input schema).
    pub fn new(schema: &Value) -> Self {
        let mut build = Build {
            root: schema,
            read: HashMap::new(),
            nodes: Vec::new(),
        };
        build.node(schema, 0);
        let mut nodes = build.nodes;
        // Keep the edges to the nodes that can lead to a `null` to remove: those with such a
        // property, and those with an edge to one (a fixed point: references may be cyclic).
        let mut leads: Vec<bool> = nodes
            .iter()
            .map(|n| n.properties.iter().any(|(_, strip, _)| *strip))
            .collect();
        loop {
            let mut changed = false;
            for (i, node) in nodes.iter().enumerate() {
                if !leads[i] && node.edges().any(|to| leads[to]) {
                    leads[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if !leads.first().copied().unwrap_or(false) {
            return NullStripper::default();
        }
        for node in &mut nodes {
            node.also.retain(|to| leads[*to]);
            let keep = |to: &mut Option<usize>| *to = to.filter(|to| leads[*to]);
            keep(&mut node.additional);
            keep(&mut node.items);
            for (_, _, to) in &mut node.properties {
                keep(to);
            }
        }
        NullStripper { nodes }
    }

    /// Will no call ever have a `null` to remove (no property was made nullable)?
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// `arguments` without the `null`s strict mode sent for absent optional properties, ready
    /// to be validated against the canonical schema; borrowed when there is none.
    pub fn strip<'a>(&self, arguments: &'a Value) -> Cow<'a, Value> {
        if self.is_empty() || !self.finds(0, arguments, 0) {
            return Cow::Borrowed(arguments);
        }
        let mut stripped = arguments.clone();
        self.remove(0, &mut stripped, 0);
        Cow::Owned(stripped)
    }

    /// Is there a `null` to remove in `value`, read by node `at`?
    fn finds(&self, at: usize, value: &Value, depth: usize) -> bool {
        let Some(node) = self.nodes.get(at).filter(|_| depth <= DEPTH_LIMIT) else {
            return false;
        };
        if node.also.iter().any(|&to| self.finds(to, value, depth + 1)) {
            return true;
        }
        match value {
            Value::Object(object) => {
                node.properties.iter().any(|(name, strip, to)| {
                    object.get(name).is_some_and(|found| {
                        (*strip && found.is_null())
                            || to.is_some_and(|to| self.finds(to, found, depth + 1))
                    })
                }) || node.additional.is_some_and(|to| {
                    object.iter().any(|(name, found)| {
                        !node.declares(name) && self.finds(to, found, depth + 1)
                    })
                })
            }
            Value::Array(items) => node
                .items
                .is_some_and(|to| items.iter().any(|item| self.finds(to, item, depth + 1))),
            _ => false,
        }
    }

    /// Removes the `null`s to remove in `value`, read by node `at`.
    fn remove(&self, at: usize, value: &mut Value, depth: usize) {
        let Some(node) = self.nodes.get(at).filter(|_| depth <= DEPTH_LIMIT) else {
            return;
        };
        for &to in &node.also {
            self.remove(to, value, depth + 1);
        }
        match value {
            Value::Object(object) => {
                for (name, strip, to) in &node.properties {
                    match object.get_mut(name) {
                        Some(Value::Null) if *strip => {
                            object.remove(name);
                        }
                        Some(found) => {
                            if let Some(to) = to {
                                self.remove(*to, found, depth + 1);
                            }
                        }
                        None => {}
                    }
                }
                if let Some(to) = node.additional {
                    for (name, found) in object.iter_mut() {
                        if !node.declares(name) {
                            self.remove(to, found, depth + 1);
                        }
                    }
                }
            }
            Value::Array(items) => {
                if let Some(to) = node.items {
                    for item in items {
                        self.remove(to, item, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

impl Node {
    fn edges(&self) -> impl Iterator<Item = usize> + '_ {
        let properties = self.properties.iter().filter_map(|(_, _, to)| *to);
        self.also
            .iter()
            .copied()
            .chain(properties)
            .chain(self.additional)
            .chain(self.items)
    }

    /// Does the schema declare the property `name` (then `additionalProperties` does not apply)?
    fn declares(&self, name: &str) -> bool {
        self.properties.iter().any(|(n, _, _)| n == name)
    }
}

/// Reads a schema into [`Node`]s, each schema object once.
struct Build<'a> {
    root: &'a Value,
    /// The schema objects read, by address, with their node.
    read: HashMap<*const Value, usize>,
    nodes: Vec<Node>,
}

impl<'a> Build<'a> {
    /// The node of `schema`, read on first sight; `None` for what is not a schema object.
    fn node(&mut self, schema: &'a Value, depth: usize) -> Option<usize> {
        let Value::Object(map) = schema else {
            return None;
        };
        let address = std::ptr::from_ref(schema);
        if let Some(at) = self.read.get(&address) {
            return Some(*at);
        }
        let at = self.nodes.len();
        self.nodes.push(Node::default());
        self.read.insert(address, at);
        if depth > DEPTH_LIMIT {
            return Some(at);
        }
        let mut node = Node::default();
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| pointer::resolve(self.root, r))
        {
            node.also.extend(self.node(target, depth + 1));
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for branch in map.get(key).and_then(Value::as_array).into_iter().flatten() {
                node.also.extend(self.node(branch, depth + 1));
            }
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required = required(map);
            for (name, sub) in properties {
                let strip = !required.contains(&name.as_str()) && !self.nullable(sub);
                let to = self.node(sub, depth + 1);
                node.properties.push((name.clone(), strip, to));
            }
        }
        node.additional = map
            .get("additionalProperties")
            .and_then(|extra| self.node(extra, depth + 1));
        node.items = map
            .get("items")
            .and_then(|items| self.node(items, depth + 1));
        self.nodes[at] = node;
        Some(at)
    }

    /// Did the property's schema accept `null` already (then strict mode left it as it was)?
    fn nullable(&self, schema: &Value) -> bool {
        schema
            .as_object()
            .is_none_or(|s| accepts_null(s, self.root))
    }
}

/// The schema locations (JSON Pointers into the canonical input schema, e.g.
/// `/properties/style/properties/color`) of the properties that strict mode turns from optional
/// into required-but-nullable. At exactly these places a `null` from the model means "absent";
/// anywhere else `null` is as invalid as the canonical schema says.
pub fn openai_nullable_pointers(schema: &Value) -> Vec<String> {
    let mut pointers = Vec::new();
    walk(schema, "", Draft::Draft202012, &mut |node, ptr| {
        let Some(map) = node.as_object() else { return };
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let required = required(map);
        for (name, child) in properties {
            let nullable = child.as_object().is_none_or(|c| accepts_null(c, schema));
            if !required.contains(&name.as_str()) && !nullable {
                pointers.push(join(&join(ptr, "properties"), name));
            }
        }
    });
    pointers.sort();
    pointers
}

/// [`NullStripper::strip`] for one call: `arguments` without the `null`s strict mode sent for
/// absent optional properties of `schema`; borrowed when there is none. A caller with many
/// calls of one tool keeps a [`NullStripper`] instead.
pub fn strip_openai_nulls<'a>(schema: &Value, arguments: &'a Value) -> Cow<'a, Value> {
    NullStripper::new(schema).strip(arguments)
}
