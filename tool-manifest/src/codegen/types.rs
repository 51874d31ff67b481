//! The Rust types of a schema, read from the schema model's tree (see the mapping table in the
//! module docs of [`crate::codegen`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Number, Value};

use super::rust::{
    EnumDef, FieldDef, Presence, StructDef, TupleDef, Ty, TypeDef, UnionDef, Variant,
};
use super::{field_idents, first_free, ident, pascal_case, singular, unique};
use crate::schema::keywords::{self, Role, Shape};
use crate::schema::{JsonPointer, Kind, Node, Object, SchemaTree};

/// Type names every tool module reserves: its own items and the std names the generated code
/// uses unqualified.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Input",
    "Error",
    "Meta",
    "String",
    "Vec",
    "Option",
    "Some",
    "None",
    "Box",
    "Result",
    "Ok",
    "Err",
    "Self",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Eq",
    "Hash",
    "PartialEq",
    "Sized",
];

/// Keywords never copied onto a field's schemars schema: they are the type itself (`type`,
/// `enum`, `required`), its doc comment (`description`) or not about the value.
const NOT_EXTENDED: &[&str] = &[
    "type",
    "enum",
    "required",
    "description",
    "$comment",
    "dependentRequired",
];

/// How deep a schema is followed before the rest becomes `serde_json::Value`.
const MAX_DEPTH: usize = 48;

/// Builds the types of one tool module.
pub(super) struct TypeGen<'t, 'a> {
    tool: &'a str,
    tree: &'t SchemaTree<'a>,
    /// Type names taken in the module, besides [`RESERVED_TYPE_NAMES`].
    taken: BTreeSet<String>,
    /// Nested type definitions, in the order they were first met (`None`: a struct whose
    /// fields are being built, which goes before the types of its fields).
    pub items: Vec<Option<TypeDef<'a>>>,
    /// The references being followed (a reference back to one of them is a recursive type:
    /// `Value`).
    following: Vec<&'a str>,
    /// The type of every reference already followed: one Rust type per referenced node.
    resolved: Vec<(&'a str, Ty)>,
    /// Why the node being typed falls back to `serde_json::Value`, set where it does and taken
    /// by [`TypeGen::ty`] for the node's pointer.
    reason: Option<String>,
    /// Every node typed `serde_json::Value` though its schema says more: `(pointer, why)`, once
    /// per node, in the order they were met.
    pub fallbacks: Vec<(String, String)>,
    /// Every `integer` node typed as a Rust integer, with that type.
    pub integers: Vec<(String, Ty)>,
    /// The generated types replaced by existing Rust types: name → Rust path, and the keys of
    /// the mappings that match it (see [`crate::codegen::Options::extern_types`]).
    externs: BTreeMap<&'a str, (&'a str, Vec<&'a str>)>,
    /// The keys of the mappings used.
    pub used_externs: BTreeSet<&'a str>,
}

impl<'t, 'a> TypeGen<'t, 'a> {
    pub fn new(
        tool: &'a str,
        tree: &'t SchemaTree<'a>,
        externs: BTreeMap<&'a str, (&'a str, Vec<&'a str>)>,
    ) -> Self {
        TypeGen {
            tool,
            tree,
            taken: BTreeSet::new(),
            items: Vec::new(),
            following: Vec::new(),
            resolved: Vec::new(),
            reason: None,
            fallbacks: Vec::new(),
            integers: Vec::new(),
            externs,
            used_externs: BTreeSet::new(),
        }
    }

    /// The existing Rust type that replaces the generated type `name`, when one does.
    fn external(&mut self, name: &str) -> Option<Ty> {
        let (path, keys) = self.externs.get(name)?;
        self.used_externs.extend(keys.iter().copied());
        Some(Ty::Extern((*path).to_owned()))
    }

    /// `serde_json::Value`, for `why` (recorded at the node being typed).
    fn fallback(&mut self, why: impl Into<String>) -> Ty {
        self.reason = Some(why.into());
        Ty::Value
    }

    /// `Input`: a struct when the root is an object schema, else an alias of its type.
    pub fn root(&mut self) -> TypeDef<'a> {
        let root = &self.tree.root;
        let mut doc = format!("The arguments of `{}`.", self.tool);
        if let Some(description) = root.object().and_then(|o| o.text("description"))
            && !description.trim().is_empty()
        {
            doc.push_str("\n\n");
            doc.push_str(description);
        }
        self.taken.insert("Input".to_owned());
        if let Some(ty) = self.external("Input") {
            let doc = doc.into();
            let name = "Input".to_owned();
            return TypeDef::Alias { doc, name, ty };
        }
        match root.object() {
            Some(object) if single_type(object) == Some(Kind::Object) => {
                TypeDef::Struct(self.object_struct(object, "Input", doc.into(), None, 0))
            }
            _ => {
                let ty = self.ty(root, "Value", "Input", 0);
                TypeDef::Alias {
                    doc: doc.into(),
                    name: "Input".to_owned(),
                    ty,
                }
            }
        }
    }

    /// The Rust type of a node. `hint` is the PascalCase name a named type would get, `parent`
    /// the name of the enclosing type (used on a name collision).
    fn ty(&mut self, node: &'t Node<'a>, hint: &str, parent: &str, depth: usize) -> Ty {
        let ty = self.node_type(node, hint, parent, depth);
        if let Some(why) = self.reason.take()
            && !self
                .fallbacks
                .iter()
                .any(|(p, _)| p == node.pointer.as_str())
        {
            self.fallbacks.push((node.pointer.as_str().to_owned(), why));
        }
        ty
    }

    fn node_type(&mut self, node: &'t Node<'a>, hint: &str, parent: &str, depth: usize) -> Ty {
        let Some(object) = node.object() else {
            // `true` holds every value and `false` none: `Value` is exact.
            return Ty::Value;
        };
        if depth > MAX_DEPTH {
            return self.fallback(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        if let Some(types) = &object.types {
            let nullable = types.contains(&Kind::Null);
            let others: Vec<Kind> = types.iter().copied().filter(|k| *k != Kind::Null).collect();
            let ty = match others.as_slice() {
                [] => return Ty::Unit,
                [kind] => self.single(&node.pointer, object, *kind, hint, parent, depth),
                // Typed as `anyOf` of one `{"type": …}` each, with the node's other keywords.
                kinds => {
                    let branches = kinds
                        .iter()
                        .map(|k| (*k, Branch::Kind(&node.pointer, object, *k)))
                        .collect();
                    match self.untagged_of(object, branches, hint, parent, depth) {
                        Some(ty) => ty,
                        None => return self.overlap(kinds),
                    }
                }
            };
            return optional_if(nullable, ty);
        }
        if let Some(reference) = object.reference() {
            return self.reference(reference, hint, parent, depth);
        }
        if let Some(values) = object.enum_values() {
            return self.enum_type(object, values, hint, parent);
        }
        if let Some(value) = object.const_value() {
            return match value {
                // A checked constant: an enum of its one word.
                Value::String(_) => {
                    self.enum_type(object, std::slice::from_ref(value), hint, parent)
                }
                Value::Bool(_) => Ty::Bool,
                Value::Null => Ty::Unit,
                // An integer constant is an integer of a type that holds it; another an `f64`.
                Value::Number(n) if n.as_f64().is_some_and(|v| v.fract() == 0.0) => {
                    integer_type(Some(n), Some(n)).unwrap_or(Ty::F64)
                }
                Value::Number(_) => Ty::F64,
                _ => self.fallback("a `const` object or array"),
            };
        }
        for (keyword, branches) in [("anyOf", object.any_of()), ("oneOf", object.one_of())] {
            if !branches.is_empty() {
                return self.union(object, keyword, branches, hint, parent, depth);
            }
        }
        // Every branch of `allOf` holds every valid value: the first with a type of its own
        // gives one that accepts them all (and the branches before it fall back to nothing).
        let mut untyped = Vec::new();
        for branch in object.all_of() {
            let before = self.fallbacks.len();
            let ty = self.ty(branch, hint, parent, depth + 1);
            if ty != Ty::Value {
                return ty;
            }
            untyped.extend(self.fallbacks.drain(before..));
        }
        self.fallbacks.extend(untyped);
        Ty::Value
    }

    /// `Value` for types of which two accept the same values (`integer` and `number`).
    fn overlap(&mut self, kinds: &[Kind]) -> Ty {
        let pair = kinds.iter().enumerate().find_map(|(i, a)| {
            kinds[..i]
                .iter()
                .find(|b| overlaps(*a, **b))
                .map(|b| (*b, *a))
        });
        match pair {
            Some((a, b)) => self.fallback(format!(
                "the types `{}` and `{}` overlap: no Rust enum tells their values apart",
                a.name(),
                b.name()
            )),
            None => self.fallback("the types listed are not told apart"),
        }
    }

    fn reference(&mut self, reference: &'a str, hint: &str, parent: &str, depth: usize) -> Ty {
        if self.following.contains(&reference) {
            return self.fallback(format!("a recursive reference to `{reference}`"));
        }
        if let Some((_, ty)) = self.resolved.iter().find(|(r, _)| *r == reference) {
            return ty.clone();
        }
        let Some(target) = self.tree.resolve(reference) else {
            return self.fallback(format!(
                "`$ref` names `{reference}`, which is no node of this schema"
            ));
        };
        let name_hint = reference
            .rsplit('/')
            .next()
            .map(pascal_case)
            .filter(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
            .unwrap_or_else(|| hint.to_owned());
        self.following.push(reference);
        let ty = self.ty(target, &name_hint, parent, depth + 1);
        self.following.pop();
        self.resolved.push((reference, ty.clone()));
        ty
    }

    /// The type of one JSON type, read from the keywords of the node at `at`.
    fn single(
        &mut self,
        at: &JsonPointer,
        object: &'t Object<'a>,
        kind: Kind,
        hint: &str,
        parent: &str,
        depth: usize,
    ) -> Ty {
        match kind {
            Kind::String => match (object.enum_values(), object.const_value()) {
                (Some(values), _) => self.enum_type(object, values, hint, parent),
                // A checked constant: an enum of its one word.
                (None, Some(word @ Value::String(_))) => {
                    self.enum_type(object, std::slice::from_ref(word), hint, parent)
                }
                (None, _) => Ty::String,
            },
            Kind::Integer => {
                let (low, high) = bounds(object);
                match integer_type(low.as_ref(), high.as_ref()) {
                    Some(ty) => {
                        if !self.integers.iter().any(|(p, _)| p == at.as_str()) {
                            self.integers.push((at.as_str().to_owned(), ty.clone()));
                        }
                        ty
                    }
                    None => self.fallback("an `integer` whose bounds no Rust integer type spans"),
                }
            }
            Kind::Number => Ty::F64,
            Kind::Boolean => Ty::Bool,
            Kind::Null => Ty::Unit,
            Kind::Array => self.array(object, hint, parent, depth),
            Kind::Object => self.object(object, hint, parent, depth),
        }
    }

    fn array(&mut self, object: &'t Object<'a>, hint: &str, parent: &str, depth: usize) -> Ty {
        if object.has_prefix_items() {
            let prefix = object.prefix_items();
            let rest_closed = object
                .items()
                .is_some_and(|rest| matches!(rest.body, crate::schema::Body::Bool(false)))
                || object
                    .count("maxItems")
                    .is_some_and(|max| max <= prefix.len() as u64);
            let all_present = object
                .count("minItems")
                .is_some_and(|min| min >= prefix.len() as u64);
            if !(rest_closed && all_present) || prefix.is_empty() {
                // Items may be missing or follow: no fixed Rust tuple holds every such array.
                if !prefix.is_empty() {
                    self.reason = Some(
                        "each item of a `prefixItems` array whose items may be missing or followed by more"
                            .to_owned(),
                    );
                }
                return Ty::Vec(Box::new(Ty::Value));
            }
            let name = self.claim_name(object, hint, parent);
            if let Some(ty) = self.external(&name) {
                return ty;
            }
            let slot = self.reserve();
            let elements = prefix
                .iter()
                .enumerate()
                .map(|(i, item)| self.ty(item, &format!("{name}{i}"), &name, depth + 1))
                .collect();
            self.fill(
                slot,
                TypeDef::Tuple(TupleDef {
                    doc: object.text("description").unwrap_or_default(),
                    name: ident(&name),
                    elements,
                }),
            );
            return Ty::Named(ident(&name));
        }
        match object.items() {
            Some(items) => {
                let item = self.ty(items, &singular(hint), parent, depth + 1);
                Ty::Vec(Box::new(item))
            }
            None => Ty::Vec(Box::new(Ty::Value)),
        }
    }

    fn object(&mut self, object: &'t Object<'a>, hint: &str, parent: &str, depth: usize) -> Ty {
        if !object.properties().is_empty() {
            let name = self.claim_name(object, hint, parent);
            if let Some(ty) = self.external(&name) {
                return ty;
            }
            let doc = object.text("description").unwrap_or_default().into();
            let slot = self.reserve();
            let def = self.object_struct(object, &name, doc, None, depth);
            self.fill(slot, TypeDef::Struct(def));
            return Ty::Named(ident(&name));
        }
        self.map_type(object, hint, parent, depth)
    }

    /// The map of an object without declared properties, or of the properties beyond them.
    fn map_type(&mut self, object: &'t Object<'a>, hint: &str, parent: &str, depth: usize) -> Ty {
        let patterns = object.pattern_properties();
        let additional = object.additional_properties();
        let closed = additional.is_some_and(|a| matches!(a.body, crate::schema::Body::Bool(false)));
        let value_hint = format!("{hint}Value");
        match (patterns, additional) {
            ([], Some(schema)) if !closed => {
                Ty::Map(Box::new(self.ty(schema, &value_hint, parent, depth + 1)))
            }
            ([(_, schema)], _) if closed => {
                Ty::Map(Box::new(self.ty(schema, &value_hint, parent, depth + 1)))
            }
            _ => Ty::Object,
        }
    }

    /// A struct for an object node; `without` is a property left out (the tag of a tagged
    /// enum's variant).
    fn object_struct(
        &mut self,
        object: &'t Object<'a>,
        name: &str,
        doc: std::borrow::Cow<'a, str>,
        without: Option<&str>,
        depth: usize,
    ) -> StructDef<'a> {
        let required = object.required();
        let properties: Vec<&(&'a str, Node<'a>)> = object
            .properties()
            .iter()
            .filter(|(p, _)| Some(*p) != without)
            .collect();
        let closed = object
            .additional_properties()
            .is_some_and(|a| matches!(a.body, crate::schema::Body::Bool(false)))
            && object.pattern_properties().is_empty();
        let idents = field_idents(properties.iter().map(|(p, _)| *p));
        let mut fields = Vec::with_capacity(properties.len() + 1);
        for (property, schema) in properties {
            let Some((field_ident, renamed)) = idents.get(property) else {
                continue;
            };
            let hint = match pascal_case(property) {
                p if p.is_empty() => "Field".to_owned(),
                p if p.starts_with(|c: char| c.is_ascii_digit()) => format!("{name}{p}"),
                p => p,
            };
            let ty = self.ty(schema, &hint, name, depth + 1);
            let is_required = required.contains(property);
            // `Value` holds `null` itself: as an optional field it keeps `null` apart from
            // absence like any nullable type.
            let nullable = matches!(ty, Ty::Option(_) | Ty::Value | Ty::Unit);
            let (presence, ty) = match (is_required, nullable) {
                (true, false) => (Presence::Required, ty),
                (true, true) => (Presence::RequiredNullable, ty),
                (false, true) => (Presence::OptionalNullable, Ty::Option(Box::new(ty))),
                (false, false) => (Presence::Optional, Ty::Option(Box::new(ty))),
            };
            let default = match presence {
                Presence::Optional => self.valid_default(schema),
                _ => None,
            };
            fields.push(FieldDef {
                default,
                doc: schema
                    .object()
                    .and_then(|o| o.text("description"))
                    .unwrap_or_default(),
                ident: field_ident.clone(),
                rename: renamed.then_some(*property),
                presence,
                extend: schema.object().map(schemars_extend).unwrap_or_default(),
                ty,
            });
        }
        let extra = (!closed).then(|| {
            let ty = match self.map_type(object, &format!("{name}Extra"), name, depth) {
                Ty::Object => Ty::Map(Box::new(Ty::Value)),
                ty => ty,
            };
            let mut taken: BTreeSet<String> = fields.iter().map(|f| f.ident.clone()).collect();
            (unique("extra", &mut taken), ty)
        });
        StructDef {
            doc,
            name: ident(name),
            deny_unknown_fields: closed,
            // With nothing required, the empty input is valid: `Default` builds it.
            default: required.is_empty(),
            fields,
            extra,
        }
    }

    /// An `enum` without a `type`: a Rust enum of its strings (the `None` of an `Option` for
    /// `null`), else `Value`.
    fn enum_type(
        &mut self,
        object: &Object<'a>,
        values: &'a [Value],
        hint: &str,
        parent: &str,
    ) -> Ty {
        let nullable = values.iter().any(Value::is_null);
        let mut words: Vec<&'a str> = Vec::new();
        for value in values {
            match value {
                Value::String(word) if !words.contains(&word.as_str()) => words.push(word),
                Value::String(_) | Value::Null => {}
                // Another type among the values: `type` (when written) keeps only strings.
                _ if object.types.is_some() => {}
                _ => return self.fallback("an `enum` of values other than strings"),
            }
        }
        if words.is_empty() {
            return if nullable { Ty::Unit } else { Ty::Value };
        }
        let name = self.claim_name(object, hint, parent);
        // `type: ["string", "null"]` already wraps the type in an `Option`.
        let nullable = nullable && object.types.is_none();
        if let Some(ty) = self.external(&name) {
            return optional_if(nullable, ty);
        }
        let mut taken = BTreeSet::new();
        let variants = words
            .iter()
            .map(|&word| {
                let base = match pascal_case(word) {
                    p if p.is_empty() => "Empty".to_owned(),
                    p if p.starts_with(|c: char| c.is_ascii_digit()) => format!("V{p}"),
                    p if p == "Self" => "SelfValue".to_owned(),
                    p => p,
                };
                let variant = unique(&base, &mut taken);
                let rename = (variant != word).then_some(word);
                (ident(&variant), rename)
            })
            .collect();
        let name = ident(&name);
        self.items.push(Some(TypeDef::Enum(EnumDef {
            doc: object.text("description").unwrap_or_default(),
            name: name.clone(),
            variants,
        })));
        optional_if(nullable, Ty::Named(name))
    }

    /// `anyOf` / `oneOf`: `Option<T>` for `T` or `null`; an internally tagged enum for objects
    /// told apart by a constant property; an untagged enum for branches of distinct JSON
    /// types; `Value` otherwise.
    fn union(
        &mut self,
        object: &'t Object<'a>,
        keyword: &str,
        branches: &'t [Node<'a>],
        hint: &str,
        parent: &str,
        depth: usize,
    ) -> Ty {
        let is_null = |n: &Node<'_>| {
            n.object()
                .and_then(|o| o.types.as_deref())
                .is_some_and(|t| t == [Kind::Null])
        };
        let nullable = branches.iter().any(is_null);
        let rest: Vec<&'t Node<'a>> = branches.iter().filter(|b| !is_null(b)).collect();
        let ty = match rest.as_slice() {
            [] => return Ty::Unit,
            [one] => self.ty(one, hint, parent, depth + 1),
            many => match self
                .tagged(object, many, hint, parent, depth)
                .or_else(|| self.untagged(object, many, hint, parent, depth))
            {
                Some(ty) => ty,
                None => return self.fallback(format!(
                    "the `{keyword}` branches are neither of distinct JSON types nor objects told apart by a constant property"
                )),
            },
        };
        optional_if(
            nullable && !matches!(ty, Ty::Value | Ty::Option(_) | Ty::Unit),
            ty,
        )
    }

    /// The object a branch stands for (through references).
    fn branch_object(&self, node: &'t Node<'a>) -> Option<&'t Object<'a>> {
        let object = node.object()?;
        match object.reference() {
            Some(reference) if object.types.is_none() => self.tree.resolve(reference)?.object(),
            _ => Some(object),
        }
    }

    fn tagged(
        &mut self,
        object: &Object<'a>,
        branches: &[&'t Node<'a>],
        hint: &str,
        parent: &str,
        depth: usize,
    ) -> Option<Ty> {
        let objects: Vec<&'t Object<'a>> = branches
            .iter()
            .map(|b| self.branch_object(b))
            .collect::<Option<_>>()?;
        if objects.iter().any(|o| single_type(o) != Some(Kind::Object)) {
            return None;
        }
        // The first property of the first branch that every branch fixes to a distinct string.
        let (tag, words) = objects[0].properties().iter().find_map(|(name, _)| {
            let words: Vec<&'a str> = objects
                .iter()
                .map(|o| {
                    let property = o.properties().iter().find(|(p, _)| p == name)?.1.object()?;
                    o.required().contains(name).then_some(())?;
                    constant_word(property)
                })
                .collect::<Option<_>>()?;
            let distinct = words
                .iter()
                .enumerate()
                .all(|(i, w)| !words[..i].contains(w));
            distinct.then_some((*name, words))
        })?;
        let name = self.claim_name(object, hint, parent);
        if let Some(ty) = self.external(&name) {
            return Some(ty);
        }
        let slot = self.reserve();
        let mut taken = BTreeSet::new();
        let mut variants = Vec::with_capacity(objects.len());
        for (branch, word) in objects.iter().zip(&words) {
            let base = match pascal_case(word) {
                p if p.is_empty() => "Empty".to_owned(),
                p if p.starts_with(|c: char| c.is_ascii_digit()) => format!("V{p}"),
                p if p == "Self" => "SelfValue".to_owned(),
                p => p,
            };
            let variant = unique(&base, &mut taken);
            let struct_name = self.claim_name_plain(&format!("{name}{variant}"));
            let doc = branch.text("description").unwrap_or_default().into();
            let inner_slot = self.reserve();
            let def = self.object_struct(branch, &struct_name, doc, Some(tag), depth + 1);
            self.fill(inner_slot, TypeDef::Struct(def));
            variants.push(Variant {
                ident: ident(&variant),
                rename: (variant != *word).then_some(*word),
                ty: Ty::Named(ident(&struct_name)),
            });
        }
        self.fill(
            slot,
            TypeDef::Union(UnionDef {
                doc: object.text("description").unwrap_or_default(),
                name: ident(&name),
                tag: Some(tag),
                variants,
            }),
        );
        Some(Ty::Named(ident(&name)))
    }

    fn untagged(
        &mut self,
        object: &Object<'a>,
        branches: &[&'t Node<'a>],
        hint: &str,
        parent: &str,
        depth: usize,
    ) -> Option<Ty> {
        let branches = branches
            .iter()
            .map(|b| {
                self.branch_object(b)
                    .and_then(single_type)
                    .map(|kind| (kind, Branch::Node(b)))
            })
            .collect::<Option<_>>()?;
        self.untagged_of(object, branches, hint, parent, depth)
    }

    /// An untagged enum of branches of distinct JSON types, one variant per type, named after
    /// it; `None` when two branches may accept the same value.
    fn untagged_of(
        &mut self,
        object: &Object<'a>,
        branches: Vec<(Kind, Branch<'t, 'a>)>,
        hint: &str,
        parent: &str,
        depth: usize,
    ) -> Option<Ty> {
        for (i, (a, _)) in branches.iter().enumerate() {
            if branches[..i].iter().any(|(b, _)| overlaps(*a, *b)) {
                return None;
            }
        }
        let name = self.claim_name(object, hint, parent);
        if let Some(ty) = self.external(&name) {
            return Some(ty);
        }
        let slot = self.reserve();
        let mut variants = Vec::with_capacity(branches.len());
        for (kind, branch) in branches {
            let variant = pascal_case(kind.name());
            let hint = format!("{name}{variant}");
            let ty = match branch {
                Branch::Node(node) => self.ty(node, &hint, &name, depth + 1),
                Branch::Kind(at, of, kind) => self.single(at, of, kind, &hint, &name, depth + 1),
            };
            variants.push(Variant {
                ident: variant,
                rename: None,
                ty,
            });
        }
        self.fill(
            slot,
            TypeDef::Union(UnionDef {
                doc: object.text("description").unwrap_or_default(),
                name: ident(&name),
                tag: None,
                variants,
            }),
        );
        Some(Ty::Named(ident(&name)))
    }

    /// A property's `default`, when its schema accepts it (JSON Schema does not require that:
    /// a `default` it refuses is left to the tool, as is one whose schema refers elsewhere and
    /// so does not compile alone).
    fn valid_default(&self, node: &Node<'a>) -> Option<&'a Value> {
        let default = node.object()?.get("default")?;
        let validator = self.tree.draft.options().build(node.value).ok()?;
        validator.is_valid(default).then_some(default)
    }

    /// A place for a type whose own nested types are built first but must come after it.
    fn reserve(&mut self) -> usize {
        self.items.push(None);
        self.items.len() - 1
    }

    fn fill(&mut self, slot: usize, def: TypeDef<'a>) {
        if let Some(place) = self.items.get_mut(slot) {
            *place = Some(def);
        }
    }

    /// Picks the name of a nested type: the schema's `title`, else `hint`; on a collision the
    /// parent's name is prefixed, then a number appended.
    fn claim_name(&mut self, object: &Object<'_>, hint: &str, parent: &str) -> String {
        let base = object
            .text("title")
            .map(pascal_case)
            .filter(|t| t.starts_with(|c: char| c.is_ascii_uppercase()))
            .unwrap_or_else(|| hint.to_owned());
        let is_free = |c: &str| !self.taken.contains(c) && !RESERVED_TYPE_NAMES.contains(&c);
        let base = if !is_free(&base) && !parent.is_empty() && !base.starts_with(parent) {
            format!("{parent}{base}")
        } else {
            base
        };
        self.claim_name_plain(&base)
    }

    fn claim_name_plain(&mut self, base: &str) -> String {
        let name = first_free(base, |c| {
            !self.taken.contains(c) && !RESERVED_TYPE_NAMES.contains(&c)
        });
        self.taken.insert(name.clone());
        name
    }
}

/// One branch of an untagged enum.
enum Branch<'t, 'a> {
    /// A subschema (of `anyOf`, `oneOf`).
    Node(&'t Node<'a>),
    /// One JSON type of a node's `type` list, read with the node's other keywords (the node's
    /// pointer, its object).
    Kind(&'t JsonPointer, &'t Object<'a>, Kind),
}

/// Branches of distinct JSON types never accept the same value (`integer` values are `number`s
/// too).
fn overlaps(a: Kind, b: Kind) -> bool {
    a == b
        || matches!(
            (a, b),
            (Kind::Integer, Kind::Number) | (Kind::Number, Kind::Integer)
        )
}

/// `Option<T>` when `nullable`.
fn optional_if(nullable: bool, ty: Ty) -> Ty {
    if nullable {
        Ty::Option(Box::new(ty))
    } else {
        ty
    }
}

/// The one non-null type a node lists, when it lists exactly one.
fn single_type(object: &Object<'_>) -> Option<Kind> {
    let types = object.types.as_ref()?;
    let mut others = types.iter().filter(|k| **k != Kind::Null);
    match (others.next(), others.next()) {
        (Some(kind), None) => Some(*kind),
        _ => None,
    }
}

/// The string a property is fixed to: `const`, or an `enum` of one string.
fn constant_word<'a>(property: &Object<'a>) -> Option<&'a str> {
    match (property.const_value(), property.enum_values()) {
        (Some(Value::String(word)), _) => Some(word),
        (None, Some([Value::String(word)])) => Some(word),
        _ => None,
    }
}

/// The lowest and highest integer an `integer` node accepts, as written (`None`: unbounded).
fn bounds(object: &Object<'_>) -> (Option<Number>, Option<Number>) {
    let pick = |inclusive: &str, exclusive: &str| {
        object
            .number(inclusive)
            .or_else(|| object.number(exclusive))
            .cloned()
    };
    let mut low = pick("minimum", "exclusiveMinimum");
    let mut high = pick("maximum", "exclusiveMaximum");
    if let Some(values) = object.enum_values() {
        let numbers: Vec<&Number> = values.iter().filter_map(|v| v.as_number()).collect();
        let as_f = |n: &Number| n.as_f64().unwrap_or(0.0);
        low = numbers
            .iter()
            .copied()
            .min_by(|a, b| as_f(a).total_cmp(&as_f(b)))
            .cloned()
            .or(low);
        high = numbers
            .iter()
            .copied()
            .max_by(|a, b| as_f(a).total_cmp(&as_f(b)))
            .cloned()
            .or(high);
    }
    (low, high)
}

/// The Rust integer for the integers between the bounds (`None`: unbounded on that side): `i64`
/// when each bound is within `i64` (an unbounded side then stops at `i64`'s end); `u64` from a
/// non-negative bound up to `u64::MAX`; `i128` when both bounds are within it; `None` beyond.
fn integer_type(low: Option<&Number>, high: Option<&Number>) -> Option<Ty> {
    let (low, high) = (
        low.map(|n| whole(n, f64::ceil)),
        high.map(|n| whole(n, f64::floor)),
    );
    let within = |bound: Option<Option<i128>>, min: i128, max: i128| {
        bound.is_none_or(|b| b.is_some_and(|v| (min..=max).contains(&v)))
    };
    let (i64_min, i64_max) = (i128::from(i64::MIN), i128::from(i64::MAX));
    if within(low, i64_min, i64_max) && within(high, i64_min, i64_max) {
        return Some(Ty::I64);
    }
    let u64_max = i128::from(u64::MAX);
    if low.is_some() && within(low, 0, u64_max) && within(high, 0, u64_max) {
        return Some(Ty::U64);
    }
    if low.is_some()
        && high.is_some()
        && within(low, i128::MIN, i128::MAX)
        && within(high, i128::MIN, i128::MAX)
    {
        return Some(Ty::I128);
    }
    None
}

/// The nearest integer of a bound on the side it bounds (`round` is `ceil` for a lower bound,
/// `floor` for an upper one), exactly; `None` past `i128`.
fn whole(n: &Number, round: fn(f64) -> f64) -> Option<i128> {
    if let Some(v) = n.as_i128() {
        return Some(v);
    }
    let v = round(n.as_f64()?);
    // `i128`'s bounds are powers of two, exact in `f64`; an integral `f64` within them converts
    // exactly.
    #[allow(clippy::cast_possible_truncation)]
    (v >= -(2f64.powi(127)) && v < 2f64.powi(127)).then_some(v as i128)
}

/// The validation keywords and annotations of a property, copied onto its schemars schema
/// (`#[schemars(extend(…))]`) so that the derived schema keeps them.
fn schemars_extend<'a>(object: &Object<'a>) -> Vec<(&'a str, &'a Value)> {
    object
        .map
        .iter()
        .filter(|(k, _)| {
            keywords::keyword(k).is_some_and(|kw| {
                kw.shape == Shape::Data
                    && matches!(kw.role, Role::Validation | Role::Annotation)
                    && !NOT_EXTENDED.contains(&kw.name)
            })
        })
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}
