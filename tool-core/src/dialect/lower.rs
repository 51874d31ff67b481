//! The one lowering pass: a canonical schema rewritten into what a provider accepts, driven by
//! the provider's [`Profile`] (which keywords stay and which move into the description, how
//! `null` is written, whether references are kept or inlined, whether objects are closed).
//!
//! One node at a time, top down: the combinators are rewritten (a `$ref` inlined, `allOf`
//! merged, `oneOf` renamed `anyOf`, a list of types split into an `anyOf`), the profile adjusts
//! the node, every keyword the provider does not take is removed and what it says is written
//! into the description ([`Notes`], in the words of [`crate::schema::words`]), then the
//! subschemas are lowered, and the object is closed when the profile closes objects. The
//! provider modules keep their rule tables, their profile and their checkers.

use serde_json::{Map, Value, json};

use super::report::Report;
use crate::schema::draft::{self, Draft};
use crate::schema::keywords::{ANNOTATIONS, Kind, keyword_type};
use crate::schema::walk::{DEPTH_LIMIT, accepts_null, has_type, required, type_names};
use crate::schema::words::{self, Fill, Words};
use crate::schema::{join, pointer};
use crate::text::backticked;

/// How a provider takes a schema.
#[derive(Debug)]
pub(crate) struct Profile {
    /// The rule a boolean schema breaks (`None`: booleans are left as they are).
    pub typed: Option<&'static str>,
    /// The rule of keywords the provider does not take (tuples, conflicts in `allOf`).
    pub keywords_rule: &'static str,
    /// The rule of references.
    pub refs_rule: &'static str,
    /// The rule of the root (a root `allOf` that cannot be merged).
    pub root_rule: &'static str,
    /// The keywords the provider takes; every other one moves into the description (`None`:
    /// every keyword stays).
    pub keywords: Option<&'static [&'static str]>,
    /// Keywords that stay although the provider does not take them: a later step handles them.
    pub kept: &'static [&'static str],
    /// The formats the provider takes on a node (the others move into the description).
    pub formats: fn(&Map<String, Value>) -> &'static [&'static str],
    /// How positional items are refused: the keywords that make a tuple and the message
    /// (`{}` the keyword).
    pub tuples: (&'static [&'static str], &'static str),
    /// `examples` becomes the provider's one `example`.
    pub example: bool,
    /// How references are taken.
    pub references: References,
    /// Whether combinators are rewritten on every node, or only a root `allOf` merged.
    pub combinators: Combinators,
    /// How a node that may be `null` says so.
    pub nulls: Nulls,
    /// Whether every object is closed, its optional properties required but nullable (the
    /// rule objects that cannot be closed break).
    pub closed: Option<&'static str>,
    /// An array schema without an `items` schema gets `items: {}`; the root gets `properties`.
    pub items_written: bool,
    /// After the combinators: what only this provider rewrites.
    pub adjust: fn(&mut Map<String, Value>, &str, &mut Report),
    /// After the notes: what only this provider rewrites.
    pub finish: fn(&mut Map<String, Value>, &str, &mut Report),
}

/// How references are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum References {
    /// Kept, but a `$ref` with sibling keywords is inlined (its siblings win); a recursive one
    /// stays alone.
    Alone,
    /// Every `$ref` inlined and `$defs` dropped, before anything else; a recursive one is
    /// refused (the subset cannot express it).
    Inlined,
    /// Kept as written.
    Kept,
}

/// Where combinators are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Combinators {
    /// On every node: `allOf` merged, `oneOf` renamed, lists of types split.
    Everywhere,
    /// A root `allOf` merged into the root (what every function needs), nothing else.
    RootAllOf,
}

/// How a node that may be `null` says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nulls {
    /// JSON Schema's way: `null` in `type`, in `enum`, or a `{"type": "null"}` branch.
    Listed,
    /// OpenAPI's: `nullable: true`, no `null` branch.
    Flag,
}

/// No step of the profile's own.
pub(crate) fn no_step(_: &mut Map<String, Value>, _: &str, _: &mut Report) {}

/// `schema` (a tool's canonical schema, at `base` in the definition) lowered for `profile`;
/// what cannot be expressed is reported.
pub(crate) fn lower(schema: &Value, base: &str, profile: &Profile, report: &mut Report) -> Value {
    let mut lowered = schema.clone();
    let mut pass = Pass {
        root: schema,
        profile,
        report,
        inlining: Vec::new(),
        inlined: 0,
    };
    if profile.references == References::Inlined {
        pass.inline(&mut lowered, base);
    }
    if profile.combinators == Combinators::RootAllOf {
        merge_root_all_of(&mut lowered, base, profile.root_rule, pass.report);
    }
    pass.node(&mut lowered, base, true);
    lowered
}

/// Bounds the size of an inlined schema (every `$ref` copies its target).
const MAX_INLINED_NODES: usize = 10_000;

struct Pass<'a> {
    root: &'a Value,
    profile: &'a Profile,
    report: &'a mut Report,
    /// The references being inlined on the current path (a recursive one is not inlined again).
    inlining: Vec<String>,
    /// How many schemas inlining has visited.
    inlined: usize,
}

impl Pass<'_> {
    fn node(&mut self, node: &mut Value, ptr: &str, is_root: bool) {
        let profile = self.profile;
        let Value::Object(map) = node else {
            if let Some(rule) = profile.typed {
                self.report.push(
                    ptr,
                    rule,
                    "a boolean schema cannot be expressed; write a schema with a `type`",
                );
            }
            return;
        };
        let on_path = self.inlining.len();
        if profile.combinators == Combinators::Everywhere {
            self.rewrite(map, ptr);
        }
        (profile.adjust)(map, ptr, self.report);
        if let Some(keywords) = profile.keywords {
            self.move_to_notes(map, ptr, keywords);
        }
        (profile.finish)(map, ptr, self.report);
        if profile.items_written {
            if has_type(map, Kind::Array) && !map.get("items").is_some_and(Value::is_object) {
                map.insert("items".to_owned(), Value::Object(Map::new()));
            }
            if is_root && !map.contains_key("properties") {
                map.insert("properties".to_owned(), Value::Object(Map::new()));
            }
        }
        self.children(map, ptr);
        if let Some(rule) = profile.closed {
            self.close_object(map, ptr, is_root, rule);
        }
        self.inlining.truncate(on_path);
    }

    /// Lowers the subschemas: every one when every keyword stays, else the ones the providers
    /// take (`properties`, `items`, `anyOf`, `$defs`).
    fn children(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        if self.profile.keywords.is_none() {
            draft::for_each_subschema_mut(map, Draft::Draft202012, ptr, &mut |child, here| {
                if child.is_object() {
                    self.node(child, &here, false);
                }
            });
            return;
        }
        for key in ["properties", "$defs", "definitions"] {
            if let Some(Value::Object(entries)) = map.get_mut(key) {
                for (name, child) in entries.iter_mut() {
                    self.node(child, &join(&join(ptr, key), name), false);
                }
            }
            if key == "properties" {
                if let Some(items) = map.get_mut("items")
                    && items.is_object()
                {
                    self.node(items, &join(ptr, "items"), false);
                }
                if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
                    for (i, branch) in branches.iter_mut().enumerate() {
                        self.node(branch, &format!("{ptr}/anyOf/{i}"), false);
                    }
                }
            }
        }
    }

    /// Removes the keywords the provider does not take, their meaning kept in the description.
    fn move_to_notes(&mut self, map: &mut Map<String, Value>, ptr: &str, keywords: &[&str]) {
        let profile = self.profile;
        let mut notes = Notes::default();
        let formats = (profile.formats)(map);
        let (tuples, tuple_message) = profile.tuples;
        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            let tuple = tuples.contains(&key.as_str())
                && (key == "prefixItems" || map.get(&key).is_some_and(Value::is_array));
            if key == "format" {
                notes.format(map, formats);
            } else if profile.example && key == "examples" {
                if let Some(Value::Array(values)) = map.remove("examples")
                    && let Some(first) = values.into_iter().next()
                    && !map.contains_key("example")
                {
                    map.insert("example".to_owned(), first);
                }
            } else if tuple {
                let message = words::fill(tuple_message, Fill::value(&key));
                self.report
                    .push(&join(ptr, &key), profile.keywords_rule, message);
            } else if !keywords.contains(&key.as_str())
                && !profile.kept.contains(&key.as_str())
                && let Some(value) = map.remove(&key)
            {
                notes.keyword(&key, &value);
            }
        }
        notes.write(map);
    }

    /// Inlines a `$ref` with siblings, merges `allOf`, renames `oneOf`, splits type unions;
    /// pushes the references it inlines on `inlining`.
    fn rewrite(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        let (keywords, refs) = (self.profile.keywords_rule, self.profile.refs_rule);
        for _ in 0..DEPTH_LIMIT {
            if self.profile.references == References::Alone
                && let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned)
                && map.len() > 1
            {
                if self.inlining.contains(&reference) {
                    // Recursion: inlining again would never end. The reference stays alone;
                    // its siblings only annotate or restate what the registry enforces anyway.
                    map.retain(|key, _| key == "$ref");
                    return;
                }
                match inline_ref(self.root, &reference, map) {
                    Some(merged) => {
                        *map = merged;
                        self.inlining.push(reference);
                        continue;
                    }
                    None => {
                        self.report.push(
                            &join(ptr, "$ref"),
                            refs,
                            format!(
                                "`$ref` `{reference}` is not a local reference to a schema object"
                            ),
                        );
                        return;
                    }
                }
            }
            if let Some(all_of) = map.remove("allOf") {
                self.merge_all_of(map, ptr, &all_of);
                continue;
            }
            if rename_one_of(map, ptr, keywords, self.report) {
                continue;
            }
            if let Some(mut split) = split_type_union(map) {
                if self.profile.nulls == Nulls::Flag {
                    strip_null_branches(&mut split);
                }
                *map = split;
                continue;
            }
            return;
        }
        self.report
            .push(ptr, refs, "the `$ref`/`allOf` chain here does not end");
    }

    /// Merges the entries of an `allOf` into the node; an entry that is a reference is inlined
    /// first.
    fn merge_all_of(&mut self, map: &mut Map<String, Value>, ptr: &str, all_of: &Value) {
        let (keywords, refs) = (self.profile.keywords_rule, self.profile.refs_rule);
        for (i, entry) in all_of.as_array().into_iter().flatten().enumerate() {
            let at = format!("{ptr}/allOf/{i}");
            let entry = match entry {
                Value::Object(e) => match e.get("$ref").and_then(Value::as_str) {
                    Some(r) if self.inlining.iter().any(|on_path| on_path == r) => {
                        self.report.push(
                            &format!("{at}/$ref"),
                            refs,
                            format!("`allOf` with the recursive `$ref` `{r}` cannot be merged"),
                        );
                        continue;
                    }
                    Some(r) => match inline_ref(self.root, r, e) {
                        Some(merged) => {
                            self.inlining.push(r.to_owned());
                            merged
                        }
                        None => {
                            self.report.push(
                                &format!("{at}/$ref"),
                                refs,
                                format!("`$ref` `{r}` is not a local reference to a schema object"),
                            );
                            continue;
                        }
                    },
                    None => e.clone(),
                },
                _ => {
                    self.report.push(
                        &at,
                        keywords,
                        "a boolean schema in `allOf` cannot be expressed",
                    );
                    continue;
                }
            };
            if let Err(key) = merge_into(map, &entry) {
                self.report.push(
                    &at,
                    keywords,
                    format!("`allOf` is not supported and this entry cannot be merged: `{key}` conflicts"),
                );
            }
        }
    }

    /// Inlines every `$ref` below `node` and drops `$defs` (before the pass: the provider takes
    /// no reference).
    fn inline(&mut self, node: &mut Value, ptr: &str) {
        let rule = self.profile.refs_rule;
        self.inlined += 1;
        if self.inlined == MAX_INLINED_NODES {
            self.report.push(
                ptr,
                rule,
                format!(
                    "inlining the references grows the schema past {MAX_INLINED_NODES} schemas"
                ),
            );
        }
        if self.inlined >= MAX_INLINED_NODES {
            return;
        }
        let Value::Object(map) = node else { return };
        map.remove("$defs");
        map.remove("definitions");
        let on_path = self.inlining.len();
        while let Some(reference) = map
            .get("$ref")
            .map(|r| r.as_str().unwrap_or_default().to_owned())
        {
            map.remove("$ref");
            if self.inlining.contains(&reference) {
                self.report.push(
                    &join(ptr, "$ref"),
                    rule,
                    format!("recursive `$ref` `{reference}` cannot be inlined"),
                );
                break;
            }
            match inline_ref(self.root, &reference, map) {
                Some(mut merged) => {
                    merged.remove("$defs");
                    merged.remove("definitions");
                    *map = merged;
                    self.inlining.push(reference);
                }
                None => {
                    self.report.push(
                        &join(ptr, "$ref"),
                        rule,
                        format!("`$ref` `{reference}` is not a local reference to a schema object"),
                    );
                    break;
                }
            }
        }
        draft::for_each_subschema_mut(map, Draft::Draft202012, ptr, &mut |child, here| {
            if child.is_object() {
                self.inline(child, &here);
            }
        });
        self.inlining.truncate(on_path);
    }

    /// Closes an object and makes its optional properties required-but-nullable.
    fn close_object(
        &mut self,
        map: &mut Map<String, Value>,
        ptr: &str,
        is_root: bool,
        rule: &'static str,
    ) {
        if !is_object_node(map) {
            return;
        }
        let has_properties = map
            .get("properties")
            .is_some_and(|p| p.as_object().is_some_and(|p| !p.is_empty()));
        let extra = map.get("additionalProperties");
        let free_keys = extra.is_some_and(|e| e.is_object() || e == &Value::Bool(true))
            || map.contains_key("patternProperties");
        // Closing an object that declares other keys (a map, `additionalProperties: true`)
        // would take them away; closing one without declared properties, every argument (the
        // root without properties is a tool without arguments, and is closed).
        if free_keys {
            self.report.push(
                ptr,
                rule,
                "an object that accepts other keys (`additionalProperties`, `patternProperties`: a map) cannot be expressed in strict mode",
            );
            return;
        }
        if !has_properties && extra.is_none() && !is_root {
            self.report.push(
                ptr,
                rule,
                "an object without declared `properties` (a free-form object) cannot be expressed in strict mode",
            );
            return;
        }
        map.remove("patternProperties");
        map.insert("additionalProperties".to_owned(), Value::Bool(false));

        let required: Vec<String> = required(map).into_iter().map(str::to_owned).collect();
        let mut names = Vec::new();
        let properties = map
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(properties) = properties {
            for (name, child) in properties.iter_mut() {
                names.push(Value::String(name.clone()));
                if !required.contains(name) {
                    make_nullable(child);
                }
            }
        }
        map.insert("required".to_owned(), Value::Array(names));
    }
}

/// Is this schema object an object: `type: "object"`, or `properties`?
pub(crate) fn is_object_node(map: &Map<String, Value>) -> bool {
    has_type(map, Kind::Object) || map.contains_key("properties")
}

/// Makes a lowered property schema accept `null`, the JSON Schema way.
fn make_nullable(child: &mut Value) {
    let Value::Object(map) = child else { return };
    if accepts_null(map, &Value::Null) {
        return;
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return;
    }
    let is_object = has_type(map, Kind::Object);
    if map.contains_key("$ref") || map.contains_key("const") || is_object {
        let mut outer = Map::new();
        for key in ANNOTATIONS {
            if let Some(value) = map.remove(*key) {
                outer.insert((*key).to_owned(), value);
            }
        }
        let inner = std::mem::take(map);
        outer.insert(
            "anyOf".to_owned(),
            Value::Array(vec![Value::Object(inner), json!({"type": "null"})]),
        );
        *map = outer;
        return;
    }
    match map.get_mut("type") {
        Some(t @ Value::String(_)) => *t = json!([t.take(), "null"]),
        Some(Value::Array(list)) => list.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
}

/// Says `nullable: true`, the OpenAPI way.
pub(crate) fn set_nullable(map: &mut Map<String, Value>) {
    map.insert("nullable".to_owned(), Value::Bool(true));
}

/// Removes `{"type": "null"}` branches of an `anyOf`, making the node nullable instead (the
/// OpenAPI way). A single remaining branch replaces the `anyOf`.
pub(crate) fn strip_null_branches(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get_mut("anyOf") else {
        return;
    };
    let before = branches.len();
    branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
    if branches.len() == before {
        return;
    }
    if branches.len() == 1
        && let Some(Value::Object(only)) = branches.pop()
    {
        map.remove("anyOf");
        let mut single = only;
        if merge_into(&mut single, map).is_ok() {
            // The property's own words win over those of the type it refers to.
            for key in ["description", "title"] {
                if let Some(own) = map.get(key) {
                    single.insert(key.to_owned(), own.clone());
                }
            }
            *map = single;
        } else {
            map.insert(
                "anyOf".to_owned(),
                Value::Array(vec![Value::Object(single)]),
            );
        }
    }
    set_nullable(map);
}

/// The schema object the local `reference` names, with the keywords of `node` but its `$ref`
/// added (they win); `None` when the reference does not name a local schema object.
pub(crate) fn inline_ref(
    root: &Value,
    reference: &str,
    node: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let Some(Value::Object(target)) = pointer::resolve(root, reference) else {
        return None;
    };
    let mut merged = target.clone();
    let own = node.iter().filter(|(key, _)| *key != "$ref");
    merged.extend(own.map(|(key, value)| (key.clone(), value.clone())));
    Some(merged)
}

/// Turns a node's `oneOf` into `anyOf` (a provider without `oneOf` gets its branches as
/// `anyOf`), unless the node has an `anyOf` already: that is reported under `rule`. Returns
/// whether the node had a `oneOf`.
fn rename_one_of(
    map: &mut Map<String, Value>,
    ptr: &str,
    rule: &'static str,
    report: &mut Report,
) -> bool {
    let Some(one_of) = map.remove("oneOf") else {
        return false;
    };
    if map.contains_key("anyOf") {
        report.push(
            &join(ptr, "oneOf"),
            rule,
            "`oneOf` next to `anyOf` cannot be expressed",
        );
    } else {
        map.insert("anyOf".to_owned(), one_of);
    }
    true
}

/// Does a value of JSON type `actual` satisfy the schema type `wanted`?
fn type_matches(wanted: &str, actual: &str) -> bool {
    wanted == actual || (wanted == "number" && actual == "integer")
}

/// Splits a node whose `type` lists two or more non-null types into an `anyOf` with one branch
/// per type, each carrying the keywords that apply to its type (and the `enum`/`const` values of
/// its type). Annotations stay on the outer node. A `null` in the list becomes a `{"type":
/// "null"}` branch. Returns `None` when the node lists fewer than two non-null types.
pub(crate) fn split_type_union(node: &Map<String, Value>) -> Option<Map<String, Value>> {
    // One type name lists no union.
    if !node.get("type").is_some_and(Value::is_array) {
        return None;
    }
    let types = type_names(node);
    let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
    if non_null.len() < 2 || node.contains_key("anyOf") || node.contains_key("oneOf") {
        return None;
    }
    let mut outer = Map::new();
    let mut branches = Vec::new();
    for t in &non_null {
        let mut branch = Map::new();
        branch.insert("type".to_owned(), Value::String((*t).to_owned()));
        // A branch none of whose `enum`/`const` values has its type accepts nothing: left out.
        let mut possible = true;
        for (key, value) in node {
            if let Some(applies) = keyword_type(key) {
                if applies.iter().any(|a| type_matches(a, t)) {
                    branch.insert(key.clone(), value.clone());
                }
            } else if key == "enum" {
                let mine: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|v| type_matches(t, Kind::of(v).name()))
                    .cloned()
                    .collect();
                possible &= !mine.is_empty();
                branch.insert(key.clone(), Value::Array(mine));
            } else if key == "const" {
                possible &= type_matches(t, Kind::of(value).name());
                branch.insert(key.clone(), value.clone());
            }
        }
        if possible {
            branches.push(Value::Object(branch));
        }
    }
    if branches.is_empty() {
        return None;
    }
    if types.contains(&"null")
        && node
            .get("enum")
            .is_none_or(|e| e.as_array().is_some_and(|v| v.contains(&Value::Null)))
    {
        branches.push(json!({"type": "null"}));
    }
    for (key, value) in node {
        let typed =
            keyword_type(key).is_some() || matches!(key.as_str(), "type" | "enum" | "const");
        if !typed {
            outer.insert(key.clone(), value.clone());
        }
    }
    outer.insert("anyOf".to_owned(), Value::Array(branches));
    Some(outer)
}

/// Merges the keywords of `from` into `into` (an `allOf` entry into its parent, or a parent's
/// keywords into an `anyOf` branch). `properties` are united, `required` lists joined; any other
/// keyword present on both sides with different values is a conflict, returned by name.
pub(crate) fn merge_into(
    into: &mut Map<String, Value>,
    from: &Map<String, Value>,
) -> Result<(), String> {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(key)) {
            (_, None) => {
                into.insert(key.clone(), value.clone());
            }
            (_, Some(existing)) if existing == value => {}
            ("properties", Some(Value::Object(mine))) => {
                let Value::Object(theirs) = value else {
                    return Err(key.clone());
                };
                for (name, schema) in theirs {
                    match mine.get(name) {
                        None => {
                            mine.insert(name.clone(), schema.clone());
                        }
                        Some(same) if same == schema => {}
                        Some(_) => return Err(format!("properties/{name}")),
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                let Value::Array(theirs) = value else {
                    return Err(key.clone());
                };
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            ("description" | "title" | "$comment" | "examples", Some(_)) => {}
            (_, Some(_)) => return Err(key.clone()),
        }
    }
    Ok(())
}

/// A root `allOf` of plain schemas merged into the root (providers refuse combinators there;
/// the merged root accepts at least what the `allOf` did). Entries that are references or that
/// conflict are refused under `rule`, at `base/allOf/<i>`.
pub(crate) fn merge_root_all_of(
    schema: &mut Value,
    base: &str,
    rule: &'static str,
    report: &mut Report,
) {
    let Value::Object(root) = schema else { return };
    let Some(Value::Array(entries)) = root.remove("allOf") else {
        return;
    };
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("{base}/allOf/{i}");
        match entry {
            Value::Object(entry) if !entry.contains_key("$ref") => {
                if let Err(key) = merge_into(root, entry) {
                    report.push(
                        &at,
                        rule,
                        format!("a root `allOf` is refused and this entry cannot be merged: `{key}` conflicts"),
                    );
                }
            }
            _ => report.push(
                &at,
                rule,
                "a root `allOf` is refused and this entry cannot be merged into the root",
            ),
        }
    }
}

/// What a keyword a provider cannot take says, in the notes' words of the keyword table, to
/// keep in the description; `None` for keywords that can be dropped without telling the model
/// anything.
pub(crate) fn describe_keyword(key: &str, value: &Value) -> Option<String> {
    let template = words::words(key).and_then(Words::note_template)?;
    // A value's compact JSON text: for a number, the number as written.
    let n = value.to_string();
    let text = value.as_str().unwrap_or_default();
    let one = value.as_f64() == Some(1.0);
    let say = |value: &str| {
        words::fill(
            template,
            Fill {
                value,
                one,
                name: "",
            },
        )
    };
    let list = || {
        let values: Vec<String> = value
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string)
            .collect();
        values.join(", ")
    };
    // One part per entry of a keyword that maps names to something, joined by `; `.
    let each = |part: &dyn Fn(&Value) -> String| {
        let parts: Vec<String> = value
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, v)| words::fill(template, Fill::value(&part(v)).named(name)))
            .collect();
        parts.join("; ")
    };
    Some(match key {
        "uniqueItems" | "deprecated" if value != &Value::Bool(true) => return None,
        "additionalProperties" | "unevaluatedProperties" if !value.is_object() => return None,
        "examples" if value.as_array().is_none_or(Vec::is_empty) => return None,
        "pattern" | "format" => say(&format!("`{text}`")),
        "contentEncoding" | "contentMediaType" => say(text),
        "enum" | "examples" => say(&list()),
        "dependentRequired" => each(&|needs| {
            let needs = needs.as_array().into_iter().flatten();
            backticked(needs.filter_map(Value::as_str))
        }),
        "dependentSchemas" | "patternProperties" => each(&Value::to_string),
        _ => say(&n),
    })
}

/// Notes about removed keywords, written into the description in the order of the keyword
/// table (bounds read "at least …; at most …").
#[derive(Debug, Default)]
pub(crate) struct Notes(Vec<(usize, String)>);

impl Notes {
    /// Describes `key: value` if it says anything the model should know.
    pub(crate) fn keyword(&mut self, key: &str, value: &Value) {
        if let Some(text) = describe_keyword(key, value) {
            self.0.push((words::rank(key), text));
        }
    }

    /// Removes a `format` outside `accepted`, noting it unless it only restates the width of a
    /// number.
    fn format(&mut self, node: &mut Map<String, Value>, accepted: &[&str]) {
        let format = node
            .get("format")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (kept, width) = (
            accepted.contains(&format),
            NUMBER_WIDTH_FORMATS.contains(&format),
        );
        if !kept
            && let Some(value) = node.remove("format")
            && !width
        {
            self.keyword("format", &value);
        }
    }

    /// Appends the notes to the node's description.
    pub(crate) fn write(mut self, node: &mut Map<String, Value>) {
        self.0.sort_by_key(|(rank, _)| *rank);
        let texts: Vec<String> = self.0.into_iter().map(|(_, text)| text).collect();
        append_notes(node, &texts);
    }
}

/// Appends `(note; note)` to the node's description.
pub(crate) fn append_notes(node: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let text = format!("({})", notes.join("; "));
    let description = match node.get("description").and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => format!("{} {text}", d.trim_end()),
        _ => text,
    };
    node.insert("description".to_owned(), Value::String(description));
}

/// Formats that only restate the width of a Rust number (schemars writes them); dropping them
/// tells the model nothing it needs.
const NUMBER_WIDTH_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn merging_unites_properties_and_required_and_names_conflicts() {
        let mut into =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let from = json!({"properties": {"b": {"type": "integer"}}, "required": ["b", "a"], "description": "x"});
        let (Value::Object(into_map), Value::Object(from_map)) = (&mut into, &from) else {
            panic!("objects");
        };
        assert_eq!(merge_into(into_map, from_map), Ok(()));
        assert_eq!(
            into,
            json!({"type": "object", "description": "x", "required": ["a", "b"],
                   "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})
        );
        let Value::Object(into_map) = &mut into else {
            panic!("object")
        };
        let clash = json!({"properties": {"a": {"type": "integer"}}});
        let Value::Object(clash) = &clash else {
            panic!("object")
        };
        assert_eq!(merge_into(into_map, clash), Err("properties/a".to_owned()));
        let other_type = json!({"type": "string"});
        let Value::Object(other_type) = &other_type else {
            panic!("object")
        };
        assert_eq!(merge_into(into_map, other_type), Err("type".to_owned()));
    }

    #[test]
    fn removed_keywords_are_described_in_words() {
        assert_eq!(
            describe_keyword("minLength", &json!(1)).as_deref(),
            Some("at least 1 character")
        );
        assert_eq!(
            describe_keyword("maxLength", &json!(64)).as_deref(),
            Some("at most 64 characters")
        );
        assert_eq!(
            describe_keyword("exclusiveMinimum", &json!(0.5)).as_deref(),
            Some("greater than 0.5")
        );
        assert_eq!(
            describe_keyword("maxProperties", &json!(1)).as_deref(),
            Some("at most 1 property")
        );
        assert_eq!(
            describe_keyword("dependentRequired", &json!({"a": ["b", "c"]})).as_deref(),
            Some("`a` requires `b`, `c`")
        );
        assert_eq!(describe_keyword("uniqueItems", &json!(false)), None);
        assert_eq!(describe_keyword("$comment", &json!("x")), None);
        let mut node = Map::new();
        append_notes(&mut node, &["a".to_owned(), "b".to_owned()]);
        assert_eq!(node.get("description"), Some(&json!("(a; b)")));
        append_notes(&mut node, &["c".to_owned()]);
        assert_eq!(node.get("description"), Some(&json!("(a; b) (c)")));
    }

    #[test]
    fn type_unions_split_keywords_by_type() {
        let node = json!({"type": ["string", "integer", "null"], "minLength": 1, "minimum": 0,
                          "enum": ["a", 1, null], "description": "d"});
        let Value::Object(node) = node else {
            panic!("object")
        };
        let split = split_type_union(&node).expect("two types");
        assert_eq!(
            Value::Object(split),
            json!({"description": "d", "anyOf": [
                {"type": "string", "minLength": 1, "enum": ["a"]},
                {"type": "integer", "minimum": 0, "enum": [1]},
                {"type": "null"}
            ]})
        );
        let single = json!({"type": ["string", "null"]});
        let Value::Object(single) = single else {
            panic!("object")
        };
        assert_eq!(split_type_union(&single), None);
    }
}
