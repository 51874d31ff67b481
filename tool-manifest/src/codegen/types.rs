//! The Rust types of a schema, read from the schema model's tree (see the mapping table in the
//! module docs of [`crate::codegen`]).

use std::collections::BTreeSet;

use serde_json::{Number, Value};

use super::rust::{
    EnumDef, FieldDef, Presence, StructDef, TupleDef, Ty, TypeDef, UnionDef, Variant,
};
use super::{field_idents, first_free, ident, pascal_case, singular, unique};
use crate::schema::keywords::{self, Role, Shape};
use crate::schema::{Kind, Node, Object, SchemaTree};

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
}

impl<'t, 'a> TypeGen<'t, 'a> {
    pub fn new(tool: &'a str, tree: &'t SchemaTree<'a>) -> Self {
        TypeGen {
            tool,
            tree,
            taken: BTreeSet::new(),
            items: Vec::new(),
            following: Vec::new(),
            resolved: Vec::new(),
        }
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
        let Some(object) = node.object() else {
            return Ty::Value;
        };
        if depth > MAX_DEPTH {
            return Ty::Value;
        }
        if let Some(types) = &object.types {
            let nullable = types.contains(&Kind::Null);
            let others: Vec<Kind> = types.iter().copied().filter(|k| *k != Kind::Null).collect();
            let ty = match others.as_slice() {
                [] => return Ty::Unit,
                [kind] => self.single(object, *kind, hint, parent, depth),
                // `Value` holds `null` too.
                _ => return Ty::Value,
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
                Value::Number(n) => integer_type(Some(n), Some(n)).unwrap_or(Ty::F64),
                _ => Ty::Value,
            };
        }
        for branches in [object.any_of(), object.one_of()] {
            if !branches.is_empty() {
                return self.union(object, branches, hint, parent, depth);
            }
        }
        // Every branch of `allOf` holds every valid value: the first with a type of its own
        // gives one that accepts them all.
        for branch in object.all_of() {
            let ty = self.ty(branch, hint, parent, depth + 1);
            if ty != Ty::Value {
                return ty;
            }
        }
        Ty::Value
    }

    fn reference(&mut self, reference: &'a str, hint: &str, parent: &str, depth: usize) -> Ty {
        if self.following.contains(&reference) {
            return Ty::Value;
        }
        if let Some((_, ty)) = self.resolved.iter().find(|(r, _)| *r == reference) {
            return ty.clone();
        }
        let Some(target) = self.tree.resolve(reference) else {
            return Ty::Value;
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

    /// The type of one JSON type, read from the node's keywords.
    fn single(
        &mut self,
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
                integer_type(low.as_ref(), high.as_ref()).unwrap_or(Ty::Value)
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
                return Ty::Vec(Box::new(Ty::Value));
            }
            let name = self.claim_name(object, hint, parent);
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
                _ => return Ty::Value,
            }
        }
        if words.is_empty() {
            return if nullable { Ty::Unit } else { Ty::Value };
        }
        let name = self.claim_name(object, hint, parent);
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
        // `type: ["string", "null"]` already wraps the type in an `Option`.
        optional_if(nullable && object.types.is_none(), Ty::Named(name))
    }

    /// `anyOf` / `oneOf`: `Option<T>` for `T` or `null`; an internally tagged enum for objects
    /// told apart by a constant property; an untagged enum for branches of distinct JSON
    /// types; `Value` otherwise.
    fn union(
        &mut self,
        object: &'t Object<'a>,
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
            many => self
                .tagged(object, many, hint, parent, depth)
                .or_else(|| self.untagged(object, many, hint, parent, depth))
                .unwrap_or(Ty::Value),
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
        let kinds: Vec<Kind> = branches
            .iter()
            .map(|b| self.branch_object(b).and_then(single_type))
            .collect::<Option<_>>()?;
        // Branches of distinct JSON types never accept the same value (`integer` values are
        // `number`s too).
        let overlaps = |a: Kind, b: Kind| {
            a == b
                || matches!(
                    (a, b),
                    (Kind::Integer, Kind::Number) | (Kind::Number, Kind::Integer)
                )
        };
        for (i, a) in kinds.iter().enumerate() {
            if kinds[..i].iter().any(|b| overlaps(*a, *b)) {
                return None;
            }
        }
        let name = self.claim_name(object, hint, parent);
        let slot = self.reserve();
        let mut variants = Vec::with_capacity(branches.len());
        for (branch, kind) in branches.iter().zip(&kinds) {
            let variant = pascal_case(kind.name());
            let ty = self.ty(branch, &format!("{name}{variant}"), &name, depth + 1);
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

/// The Rust integer that holds every integer between the bounds: `i64` when both fit it (or
/// are absent), `u64` from a non-negative bound up to `u64::MAX`, `i128` within its range;
/// `None` beyond.
fn integer_type(low: Option<&Number>, high: Option<&Number>) -> Option<Ty> {
    let fits = |n: Option<&Number>, lo: f64, hi: f64| {
        n.is_none_or(|n| {
            if n.is_i64() || n.is_u64() {
                let v = n.as_i128().unwrap_or(0) as f64;
                v >= lo && v <= hi
            } else {
                n.as_f64().is_some_and(|v| v >= lo && v <= hi)
            }
        })
    };
    let exact = |n: Option<&Number>, check: &dyn Fn(i128) -> bool| {
        n.is_none_or(|n| {
            n.as_i128()
                .map_or_else(|| n.as_f64().is_some_and(|f| f.abs() < 9.2e18), check)
        })
    };
    if exact(low, &|v| v >= i128::from(i64::MIN)) && exact(high, &|v| v <= i128::from(i64::MAX)) {
        return Some(Ty::I64);
    }
    let non_negative = low.is_some_and(|n| n.as_f64().is_some_and(|v| v >= 0.0));
    if non_negative && high.is_some() && fits(high, 0.0, u64::MAX as f64) {
        return Some(Ty::U64);
    }
    if low.is_some()
        && high.is_some()
        && fits(low, i128::MIN as f64, i128::MAX as f64)
        && fits(high, i128::MIN as f64, i128::MAX as f64)
    {
        return Some(Ty::I128);
    }
    None
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
