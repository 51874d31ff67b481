//! Two schemas compared keyword by keyword, in normal form: each change a kind with its effect
//! on the set of valid instances. What a keyword's change does on its own is read from the
//! keyword (a type dropped narrows, an enum value added widens); a claim is then checked
//! against the whole node (a narrowing the node proves it is not, because an `enum` beside the
//! `type` never let the dropped type through, is no change), and a composition (`anyOf`,
//! `oneOf`, `allOf`, `not`, `if`, …) is decided by meaning: a proved inclusion widens, an
//! instance valid before and invalid after narrows (it is reported as the witness), and what
//! neither settles is `undecided`, never silently safe.

use serde_json::{Map, Value};

use super::change::{Change, Effect, Kind, Severity};
use super::normal::{self, is_annotation};
use super::subset::{self, equal, instances};
use crate::schema::{Draft, Kind as Type, join};

/// Which schema of a tool: the severities of an output schema's changes turn around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Output,
}

/// Every change from `old` to `new` (draft 2020-12 schemas), at pointers below `base`.
pub(crate) fn compare(tool: &str, base: &str, old: &Value, new: &Value, side: Side) -> Vec<Change> {
    let mut old = normal::normalize(old);
    let mut new = normal::normalize(new);
    if side == Side::Input {
        // Arguments are a JSON object, whatever the schema says of other types.
        for schema in [&mut old, &mut new] {
            if let Value::Object(map) = schema
                && !map.contains_key("type")
            {
                map.insert("type".to_owned(), Value::Array(vec!["object".into()]));
            }
        }
    }
    if old == new {
        return Vec::new();
    }
    let mut walk = Walk {
        tool,
        found: Vec::new(),
    };
    walk.node(&old, &new, base);
    walk.found
        .into_iter()
        .map(|found| found.finish(side))
        .collect()
}

/// A change and what it does to the valid instances.
struct Found {
    change: Change,
    effect: Effect,
}

impl Found {
    fn finish(self, side: Side) -> Change {
        let Found { mut change, effect } = self;
        if side == Side::Output {
            let kind = change.kind.in_output(effect);
            if kind != change.kind {
                change.kind = kind;
                change.severity = kind.default_severity();
                change.parties = kind.parties();
            }
        }
        change
    }
}

struct Walk<'a> {
    tool: &'a str,
    found: Vec<Found>,
}

/// The keywords the walk compares one by one; any other keyword that rejects values is
/// decided for its whole node.
const COMPARED: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
    "uniqueItems",
    "pattern",
    "format",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
];

/// The keywords whose branches are paired by [`Walk::compositions`].
const COMPOSITIONS: &[&str] = &["anyOf", "oneOf", "allOf"];

/// Lower bounds: a larger value, or one added, narrows.
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Upper bounds: a smaller value, or one added, narrows.
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];

fn empty() -> Value {
    Value::Object(Map::new())
}

impl Walk<'_> {
    fn push(&mut self, effect: Effect, change: Change) {
        self.found.push(Found { change, effect });
    }

    fn change(&self, at: &str, kind: Kind, message: String) -> Change {
        Change::new(self.tool, at, kind, message)
    }

    /// Compares two nodes at `at`.
    fn node(&mut self, old: &Value, new: &Value, at: &str) {
        if old == new {
            return;
        }
        let (old_map, new_map) = match (old, new) {
            (Value::Object(a), Value::Object(b)) => (a, b),
            (_, Value::Bool(false)) => {
                let c = self.change(at, Kind::TypeNarrowed, "accepts no value any more".into());
                self.push(Effect::Narrows, c);
                return;
            }
            (Value::Bool(false), _) => {
                let c = self.change(
                    at,
                    Kind::TypeWidened,
                    "accepted no value, now accepts some".into(),
                );
                self.push(Effect::Widens, c);
                return;
            }
            _ => {
                let c = self.change(at, Kind::Undecided, "the schema is not an object".into());
                self.push(Effect::Neutral, c);
                return;
            }
        };
        let start = self.found.len();
        self.annotations(old_map, new_map, at);
        self.types(old_map, new_map, at);
        self.values(old_map, new_map, at);
        self.bounds(old_map, new_map, at);
        self.text_rules(old_map, new_map, at);
        self.object(old_map, new_map, at);
        self.array(old_map, new_map, at);
        self.dependencies(old_map, new_map, at);

        // The keywords decided for the whole node: compositions whose branches do not pair up,
        // conditionals, and any other.
        let mut pending: Vec<&str> = self.compositions(old_map, new_map, at);
        for key in old_map.keys().chain(new_map.keys()) {
            if is_annotation(key)
                || COMPARED.contains(&key.as_str())
                || COMPOSITIONS.contains(&key.as_str())
                || pending.contains(&key.as_str())
            {
                continue;
            }
            if old_map.get(key) != new_map.get(key) {
                pending.push(key);
            }
        }
        if !pending.is_empty() {
            self.decide(old, new, at, &pending, start);
        } else {
            self.check_claims(old, new, start);
        }
    }

    /// `anyOf`, `oneOf` and `allOf`: branches paired between the versions (equal ones, then
    /// ones that admit the same types, then the one left on each side) are compared one by one;
    /// the keywords whose branches do not all pair up are returned, to be decided for the
    /// whole node. `anyOf` and a `oneOf` whose branches no value matches twice are one union.
    fn compositions<'m>(
        &mut self,
        old: &'m Map<String, Value>,
        new: &'m Map<String, Value>,
        at: &str,
    ) -> Vec<&'m str> {
        let mut pending = Vec::new();
        let union = |m: &'m Map<String, Value>| -> Option<(&'m str, &'m [Value])> {
            match (m.get("anyOf"), m.get("oneOf")) {
                (Some(Value::Array(b)), None) => Some(("anyOf", b)),
                (None, Some(Value::Array(b))) => Some(("oneOf", b)),
                _ => None,
            }
        };
        let unions = [union(old), union(new)];
        let both_one = old.contains_key("anyOf") && old.contains_key("oneOf")
            || new.contains_key("anyOf") && new.contains_key("oneOf");
        let mut lists = vec![];
        match unions {
            [Some((ka, a)), Some((kb, b))] if !both_one => {
                let same = ka == kb
                    || (ka == "oneOf" && normal::disjoint(a))
                    || (kb == "oneOf" && normal::disjoint(b));
                if same {
                    lists.push((kb, a, b));
                } else {
                    pending.push(kb);
                }
            }
            _ => {
                for key in ["anyOf", "oneOf"] {
                    if old.get(key) != new.get(key) {
                        pending.push(key);
                    }
                }
            }
        }
        match (old.get("allOf"), new.get("allOf")) {
            (Some(Value::Array(a)), Some(Value::Array(b))) => lists.push(("allOf", a, b)),
            (a, b) if a != b => pending.push("allOf"),
            _ => {}
        }
        for (key, a, b) in lists {
            let (pairs, unpaired) = pair(a, b);
            for (i, j) in pairs {
                if a[i] != b[j] {
                    self.node(&a[i], &b[j], &format!("{}/{j}", join(at, key)));
                }
            }
            if unpaired {
                pending.push(key);
            }
        }
        pending
    }

    /// The claims made since `start` against what the whole node proves.
    fn check_claims(&mut self, old: &Value, new: &Value, start: usize) {
        let claims = &self.found[start..];
        let narrows = claims.iter().any(|f| f.effect == Effect::Narrows);
        let widens = claims.iter().any(|f| f.effect == Effect::Widens);
        let drop_narrows = narrows && subset::proved(old, new);
        let drop_widens = widens && subset::proved(new, old);
        if drop_narrows || drop_widens {
            let kept: Vec<Found> = self
                .found
                .drain(start..)
                .filter(|f| {
                    !(drop_narrows && f.effect == Effect::Narrows
                        || drop_widens && f.effect == Effect::Widens)
                })
                .collect();
            self.found.extend(kept);
        }
    }

    /// A node whose compositions (or other keywords compared as a whole) changed.
    fn decide(&mut self, old: &Value, new: &Value, at: &str, pending: &[&str], start: usize) {
        let key = pending[0];
        let at_key = join(at, key);
        let what = pending
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let how = |k: &str| match (old.get(k).is_some(), new.get(k).is_some()) {
            (false, true) => "added",
            (true, false) => "removed",
            _ => "changed",
        };
        let includes = subset::proved(old, new);
        if includes {
            // Nothing valid before is refused: the claims of narrowing at this node are wrong.
            let equivalent = subset::proved(new, old);
            let kept: Vec<Found> = self
                .found
                .drain(start..)
                .filter(|f| {
                    f.effect == Effect::Neutral || (f.effect == Effect::Widens && !equivalent)
                })
                .collect();
            self.found.extend(kept);
            if !equivalent {
                let c = self.change(
                    &at_key,
                    Kind::CompositionWidened,
                    format!(
                        "{what} {}: every value accepted before is still accepted",
                        how(key)
                    ),
                );
                self.push(Effect::Widens, c);
            }
            return;
        }
        if let Some(witness) = witness(old, new) {
            let mut c = self.change(
                &at_key,
                Kind::CompositionNarrowed,
                format!(
                    "{what} {}: a value accepted before is refused now (witness: {})",
                    how(key),
                    crate::schema::truncate(&witness.to_string(), 200)
                ),
            );
            c.witness = Some(witness);
            self.push(Effect::Narrows, c);
            return;
        }
        let c = self.change(
            &at_key,
            Kind::Undecided,
            format!(
                "{what} {}: whether a value accepted before is refused now could not be decided",
                how(key)
            ),
        );
        self.push(Effect::Neutral, c);
    }

    fn annotations(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        for (key, kind) in [
            ("description", Kind::DescriptionChanged),
            ("title", Kind::TitleChanged),
            ("default", Kind::DefaultChanged),
        ] {
            let (a, b) = (old.get(key), new.get(key));
            if a == b {
                continue;
            }
            let how = match (a, b) {
                (None, _) => "added",
                (_, None) => "removed",
                _ => "changed",
            };
            let c = self
                .change(&join(at, key), kind, format!("`{key}` {how}"))
                .values(a.cloned(), b.cloned());
            self.push(Effect::Neutral, c);
        }
    }

    fn types(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let (a, b) = (normal::type_set(old), normal::type_set(new));
        if a == b {
            return;
        }
        let all = Type::ALL.to_vec();
        let (a_set, b_set) = (a.clone().unwrap_or(all.clone()), b.clone().unwrap_or(all));
        let covered = |t: &Type, by: &[Type]| by.iter().any(|x| t.satisfies(*x));
        let lost: Vec<&str> = a_set
            .iter()
            .filter(|t| !covered(t, &b_set))
            .map(|t| t.as_str())
            .collect();
        let gained: Vec<&str> = b_set
            .iter()
            .filter(|t| !covered(t, &a_set))
            .map(|t| t.as_str())
            .collect();
        let shown = |t: &Option<Vec<Type>>| match t {
            None => "any type".to_owned(),
            Some(t) => t
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(" or "),
        };
        let message = format!("type {} → {}", shown(&a), shown(&b));
        let values = (old.get("type").cloned(), new.get("type").cloned());
        let at = join(at, "type");
        if !lost.is_empty() {
            let c = self
                .change(
                    &at,
                    Kind::TypeNarrowed,
                    format!("{message}: {} no longer accepted", lost.join(", ")),
                )
                .values(values.0, values.1);
            self.push(Effect::Narrows, c);
        } else if !gained.is_empty() {
            let c = self
                .change(
                    &at,
                    Kind::TypeWidened,
                    format!("{message}: {} now accepted", gained.join(", ")),
                )
                .values(values.0, values.1);
            self.push(Effect::Widens, c);
        }
    }

    fn values(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let listed = |m: &Map<String, Value>| -> Option<(Vec<Value>, &'static str)> {
            match (m.get("const"), m.get("enum")) {
                (Some(c), _) => Some((vec![c.clone()], "const")),
                (None, Some(Value::Array(v))) => Some((v.clone(), "enum")),
                _ => None,
            }
        };
        let (a, b) = (listed(old), listed(new));
        if old.get("enum") == new.get("enum") && old.get("const") == new.get("const") {
            return;
        }
        match (a, b) {
            (None, Some((values, key))) => {
                let c = self
                    .change(
                        &join(at, key),
                        Kind::EnumAdded,
                        format!("`{key}` added: only the listed values are accepted"),
                    )
                    .values(None, Some(Value::Array(values)));
                self.push(Effect::Narrows, c);
            }
            (Some((values, key)), None) => {
                let c = self
                    .change(
                        &join(at, key),
                        Kind::EnumRemoved,
                        format!("`{key}` removed: any value is accepted"),
                    )
                    .values(Some(Value::Array(values)), None);
                self.push(Effect::Widens, c);
            }
            (Some((a, _)), Some((b, key))) => {
                let removed: Vec<Value> = a
                    .iter()
                    .filter(|v| !b.iter().any(|w| equal(v, w)))
                    .cloned()
                    .collect();
                let added: Vec<Value> = b
                    .iter()
                    .filter(|v| !a.iter().any(|w| equal(v, w)))
                    .cloned()
                    .collect();
                let at = join(at, key);
                if !removed.is_empty() {
                    let c = self
                        .change(
                            &at,
                            Kind::EnumValueRemoved,
                            format!("{} no longer accepted", listing(&removed)),
                        )
                        .values(Some(Value::Array(removed)), None);
                    self.push(Effect::Narrows, c);
                }
                if !added.is_empty() {
                    let c = self
                        .change(
                            &at,
                            Kind::EnumValueAdded,
                            format!("{} now accepted", listing(&added)),
                        )
                        .values(None, Some(Value::Array(added)));
                    self.push(Effect::Widens, c);
                }
            }
            (None, None) => {}
        }
    }

    fn bounds(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        for key in LOWER
            .iter()
            .chain(UPPER)
            .chain(["multipleOf", "uniqueItems"].iter())
        {
            let (a, b) = (old.get(*key), new.get(*key));
            if a == b || a.zip(b).is_some_and(|(a, b)| equal(a, b)) {
                continue;
            }
            let number = |v: Option<&Value>| v.and_then(Value::as_f64);
            let (x, y) = (number(a), number(b));
            let tighter = if *key == "uniqueItems" {
                b == Some(&Value::Bool(true))
            } else if *key == "multipleOf" {
                match (x, y) {
                    (_, None) => false,
                    (Some(x), Some(y)) => !(x / y).fract().eq(&0.0) || y > x,
                    (None, Some(_)) => true,
                }
            } else {
                let lower = LOWER.contains(key);
                match (x, y) {
                    (None, _) => true,
                    (_, None) => false,
                    (Some(x), Some(y)) => {
                        if lower {
                            y > x
                        } else {
                            y < x
                        }
                    }
                }
            };
            let how = match (a, b) {
                (None, _) => "added".to_owned(),
                (_, None) => "removed".to_owned(),
                (Some(a), Some(b)) => format!("{a} → {b}"),
            };
            let (kind, effect) = if tighter {
                (Kind::BoundTightened, Effect::Narrows)
            } else {
                (Kind::BoundLoosened, Effect::Widens)
            };
            let c = self
                .change(&join(at, key), kind, format!("`{key}` {how}"))
                .values(a.cloned(), b.cloned());
            self.push(effect, c);
        }
    }

    fn text_rules(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let (a, b) = (old.get("pattern"), new.get("pattern"));
        if a != b {
            let (kind, effect, message) = match b {
                None => (
                    Kind::PatternRemoved,
                    Effect::Widens,
                    "`pattern` removed".to_owned(),
                ),
                Some(_) => (
                    Kind::PatternChanged,
                    Effect::Narrows,
                    format!(
                        "`pattern` {}: the new one is not proved to accept every value the old one did",
                        if a.is_none() { "added" } else { "changed" }
                    ),
                ),
            };
            let c = self
                .change(&join(at, "pattern"), kind, message)
                .values(a.cloned(), b.cloned());
            self.push(effect, c);
        }
        let (a, b) = (old.get("format"), new.get("format"));
        if a != b {
            let c = self
                .change(
                    &join(at, "format"),
                    Kind::FormatChanged,
                    "`format` changed: validators that assert formats accept other values"
                        .to_owned(),
                )
                .values(a.cloned(), b.cloned());
            self.push(Effect::Neutral, c);
        }
    }

    fn object(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let props = |m: &'_ Map<String, Value>| -> Map<String, Value> {
            m.get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let (a, b) = (props(old), props(new));
        let required = |m: &Map<String, Value>| -> Vec<String> {
            m.get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        let (ra, rb) = (required(old), required(new));
        let closed = new.get("additionalProperties") == Some(&Value::Bool(false));
        let base = join(at, "properties");
        for (name, schema) in &b {
            let here = join(&base, name);
            match a.get(name) {
                Some(before) => self.node(before, schema, &here),
                None if rb.contains(name) && !ra.contains(name) => {
                    let c = self
                        .change(
                            &here,
                            Kind::RequiredAdded,
                            format!("required property `{name}` added"),
                        )
                        .values(None, Some(schema.clone()));
                    self.push(Effect::Narrows, c);
                }
                None => {
                    let c = self
                        .change(
                            &here,
                            Kind::PropertyAdded,
                            format!("optional property `{name}` added"),
                        )
                        .values(None, Some(schema.clone()));
                    self.push(Effect::Neutral, c);
                }
            }
        }
        for (name, schema) in &a {
            if b.contains_key(name) {
                continue;
            }
            let here = join(&base, name);
            let (severity, effect, why) = if closed {
                (
                    Severity::Error,
                    Effect::Narrows,
                    "the object is closed: a call that sends it is refused",
                )
            } else {
                (
                    Severity::Warning,
                    Effect::Widens,
                    "the object is open: the argument is accepted and ignored",
                )
            };
            let c = self
                .change(
                    &here,
                    Kind::PropertyRemoved,
                    format!("property `{name}` removed ({why})"),
                )
                .values(Some(schema.clone()), None)
                .severity(severity);
            self.push(effect, c);
        }
        // Required in one version and not the other, for a property in both (a property added
        // or removed is reported as such above).
        for (had, has, before, after, kind, effect, became) in [
            (
                &ra,
                &rb,
                &a,
                &b,
                Kind::OptionalToRequired,
                Effect::Narrows,
                "required",
            ),
            (
                &rb,
                &ra,
                &b,
                &a,
                Kind::RequiredToOptional,
                Effect::Widens,
                "optional",
            ),
        ] {
            for name in has {
                if had.contains(name) || (after.contains_key(name) && !before.contains_key(name)) {
                    continue;
                }
                let c = self.change(
                    &join(&base, name),
                    kind,
                    format!("property `{name}` became {became}"),
                );
                self.push(effect, c);
            }
        }
        let (ao, an) = (
            old.get("additionalProperties"),
            new.get("additionalProperties"),
        );
        if ao != an {
            let here = join(at, "additionalProperties");
            let is_false = |v: Option<&Value>| v == Some(&Value::Bool(false));
            if is_false(an) {
                let c = self
                    .change(
                        &here,
                        Kind::AdditionalPropertiesClosed,
                        "closed: a property not declared is refused".into(),
                    )
                    .values(ao.cloned(), an.cloned());
                self.push(Effect::Narrows, c);
            } else if is_false(ao) && an.is_none() {
                let c = self
                    .change(
                        &here,
                        Kind::AdditionalPropertiesOpened,
                        "opened: a property not declared is accepted".into(),
                    )
                    .values(ao.cloned(), an.cloned());
                self.push(Effect::Widens, c);
            } else {
                let (x, y) = (
                    ao.cloned().unwrap_or_else(empty),
                    an.cloned().unwrap_or_else(empty),
                );
                self.node(&x, &y, &here);
            }
        }
        let patterns = |m: &Map<String, Value>| -> Map<String, Value> {
            m.get("patternProperties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let (pa, pb) = (patterns(old), patterns(new));
        if pa != pb {
            let base = join(at, "patternProperties");
            for name in pa.keys().chain(pb.keys().filter(|k| !pa.contains_key(*k))) {
                let x = pa.get(name).cloned().unwrap_or_else(empty);
                let y = pb.get(name).cloned().unwrap_or_else(empty);
                self.node(&x, &y, &join(&base, name));
            }
        }
    }

    fn array(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let (a, b) = (old.get("items"), new.get("items"));
        if a != b {
            let (x, y) = (
                a.cloned().unwrap_or_else(empty),
                b.cloned().unwrap_or_else(empty),
            );
            self.node(&x, &y, &join(at, "items"));
        }
        let list = |m: &Map<String, Value>| -> Vec<Value> {
            m.get("prefixItems")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let (pa, pb) = (list(old), list(new));
        if pa != pb {
            let base = join(at, "prefixItems");
            for i in 0..pa.len().max(pb.len()) {
                let x = pa.get(i).cloned().unwrap_or_else(empty);
                let y = pb.get(i).cloned().unwrap_or_else(empty);
                self.node(&x, &y, &format!("{base}/{i}"));
            }
        }
    }

    fn dependencies(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        for key in ["dependentRequired", "dependentSchemas"] {
            let get = |m: &Map<String, Value>| -> Map<String, Value> {
                m.get(key)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default()
            };
            let (a, b) = (get(old), get(new));
            if a == b {
                continue;
            }
            let base = join(at, key);
            for (name, value) in &b {
                let here = join(&base, name);
                match a.get(name) {
                    None => {
                        let c = self
                            .change(
                                &here,
                                Kind::DependencyAdded,
                                format!("a dependency of `{name}` added"),
                            )
                            .values(None, Some(value.clone()));
                        self.push(Effect::Narrows, c);
                    }
                    Some(before) if before != value => {
                        if key == "dependentSchemas" {
                            self.node(before, value, &here);
                        } else {
                            let c = self
                                .change(
                                    &here,
                                    Kind::DependencyAdded,
                                    format!("the dependency of `{name}` changed"),
                                )
                                .values(Some(before.clone()), Some(value.clone()));
                            self.push(Effect::Narrows, c);
                        }
                    }
                    Some(_) => {}
                }
            }
            for (name, value) in &a {
                if !b.contains_key(name) {
                    let c = self
                        .change(
                            &join(&base, name),
                            Kind::DependencyRemoved,
                            format!("the dependency of `{name}` removed"),
                        )
                        .values(Some(value.clone()), None);
                    self.push(Effect::Widens, c);
                }
            }
        }
    }
}

/// The branches of a composition, old and new, paired: equal ones first, then those that admit
/// the same types (when no other branch of either side does), then the one left on each side;
/// and whether some branch is left unpaired.
fn pair(old: &[Value], new: &[Value]) -> (Vec<(usize, usize)>, bool) {
    let mut pairs = Vec::new();
    let mut old_left: Vec<usize> = (0..old.len()).collect();
    let mut new_left: Vec<usize> = (0..new.len()).collect();
    let take = |same: &dyn Fn(&Value, &Value) -> bool,
                pairs: &mut Vec<(usize, usize)>,
                old_left: &mut Vec<usize>,
                new_left: &mut Vec<usize>| {
        let mut i = 0;
        while i < old_left.len() {
            let o = old_left[i];
            let matches: Vec<usize> = new_left
                .iter()
                .copied()
                .filter(|n| same(&old[o], &new[*n]))
                .collect();
            let rivals = old_left
                .iter()
                .filter(|other| {
                    matches
                        .first()
                        .is_some_and(|n| same(&old[**other], &new[*n]))
                })
                .count();
            if let [n] = matches[..]
                && rivals == 1
            {
                pairs.push((o, n));
                old_left.remove(i);
                new_left.retain(|x| *x != n);
            } else {
                i += 1;
            }
        }
    };
    take(&|a, b| a == b, &mut pairs, &mut old_left, &mut new_left);
    take(
        &|a, b| stripped(a) == stripped(b),
        &mut pairs,
        &mut old_left,
        &mut new_left,
    );
    let types = |v: &Value| v.as_object().and_then(normal::admitted_types);
    take(
        &|a, b| types(a).is_some() && types(a) == types(b),
        &mut pairs,
        &mut old_left,
        &mut new_left,
    );
    if let ([o], [n]) = (&old_left[..], &new_left[..]) {
        pairs.push((*o, *n));
        old_left.clear();
        new_left.clear();
    }
    (pairs, !(old_left.is_empty() && new_left.is_empty()))
}

/// The node without its annotations, recursively at the top only (what tells a change of a
/// branch's text from a change of its meaning).
fn stripped(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !is_annotation(k))
                .map(|(k, v)| (k.clone(), stripped_deep(k, v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn stripped_deep(key: &str, value: &Value) -> Value {
    match (key, value) {
        ("properties" | "patternProperties" | "dependentSchemas" | "$defs", Value::Object(m)) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), stripped(v))).collect())
        }
        (_, Value::Object(_)) => stripped(value),
        ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items)) => {
            Value::Array(items.iter().map(stripped).collect())
        }
        _ => value.clone(),
    }
}

/// The values of a list, for a message.
fn listing(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(Value::to_string).collect();
    let more = values.len().saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// An instance valid under `old` and invalid under `new` (nodes in normal form), tried among
/// the instances both declare; `None` when none is found or a node cannot be compiled on its
/// own (a recursive reference kept as text).
pub(crate) fn witness(old: &Value, new: &Value) -> Option<Value> {
    let compile = |schema: &Value| Draft::Draft202012.options().build(schema).ok();
    let (before, after) = (compile(old)?, compile(new)?);
    let mut candidates = instances(old);
    candidates.extend(instances(new));
    candidates
        .into_iter()
        .find(|c| before.is_valid(c) && !after.is_valid(c))
}
