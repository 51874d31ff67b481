//! The specialized validator against the general one (`InputSchema::compile_general`, the
//! `jsonschema` crate's draft 2020-12 validator): on random schemas of the supported subset and on
//! the reference tool set's real schemas, with random and near-valid instances, both must give
//! the same verdict, the same list of field errors (pointers and messages) and the same report.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use tool_runtime::InputSchema;

/// The reference tool set as generated: every tool's input schema and examples.
const TOOLS: &str = include_str!("../../generated/tools.json");

/// Compares the two paths on one instance; the message says where they differ.
fn compare(schema: &Value, instance: &Value) -> Result<(), String> {
    let specialized = InputSchema::compile(schema).map_err(|e| format!("{schema}: {e}"))?;
    if !specialized.is_specialized() {
        return Err(format!("schema left to the general validator: {schema}"));
    }
    compare_specialized(schema, &specialized, instance)
}

fn compare_specialized(
    schema: &Value,
    specialized: &InputSchema,
    instance: &Value,
) -> Result<(), String> {
    let general = InputSchema::compile_general(schema).map_err(|e| format!("{schema}: {e}"))?;
    compare_compiled(specialized, &general, instance)
        .map_err(|why| format!("schema {schema}\ninstance {instance}\n{why}"))
}

/// Whether `schema` has a `pattern` under an `anyOf` or `oneOf` (through `$ref`s too): such
/// schemas are left to the general validator.
fn pattern_under_composition(root: &Value, schema: &Value, under: bool) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(keyword, value)| match keyword.as_str() {
            "pattern" => under,
            "anyOf" | "oneOf" => pattern_under_composition(root, value, true),
            "enum" | "const" | "$defs" => false,
            "$ref" => value
                .as_str()
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| root.get("$defs")?.get(name))
                .is_some_and(|target| pattern_under_composition(root, target, under)),
            _ => pattern_under_composition(root, value, under),
        }),
        Value::Array(items) => items
            .iter()
            .any(|item| pattern_under_composition(root, item, under)),
        _ => false,
    }
}

fn compare_compiled(
    specialized: &InputSchema,
    general: &InputSchema,
    instance: &Value,
) -> Result<(), String> {
    let (fast, slow) = (specialized.is_valid(instance), general.is_valid(instance));
    if fast != slow {
        return Err(format!("is_valid: specialized {fast}, general {slow}"));
    }
    match (specialized.check(instance), general.check(instance)) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(a), Err(b)) => {
            if a.errors() != b.errors() {
                return Err(format!(
                    "errors differ:\nspecialized {:#?}\ngeneral {:#?}",
                    a.errors(),
                    b.errors()
                ));
            }
            if a.report() != b.report() {
                return Err(format!("reports differ:\n{}\n{}", a.report(), b.report()));
            }
            if a != b {
                return Err("the two `InputErrors` compare unequal".to_owned());
            }
            Ok(())
        }
        (a, b) => Err(format!(
            "check: specialized {:?}, general {:?}",
            a.err().map(|e| e.report()),
            b.err().map(|e| e.report())
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Values

/// Property names: plain, escaped in pointers, index-like, empty, a keyword's name.
const KEYS: &[&str] = &[
    "a",
    "b",
    "c",
    "a/b",
    "~",
    "~1",
    "0",
    "2",
    "10",
    "+3",
    "",
    "additionalProperties",
    "é",
];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(KEYS).prop_map(str::to_owned),
        1 => "[a-c/~0-9]{0,3}",
    ]
}

/// Numbers where the rules are subtle: integer-valued floats, the ends of i64/u64, binary
/// fractions, signed zero, large magnitudes.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-12i64..12).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-100.0f64..100.0).prop_map(|n| json!(n)),
        (-24i32..24).prop_map(|n| json!(f64::from(n) / 2.0)),
        prop::sample::select(vec![
            json!(0.0),
            json!(-0.0),
            json!(1.0),
            json!(2.0),
            json!(0.1),
            json!(0.3),
            json!(0.30000000000000004),
            json!(1.5),
            json!(4.5),
            json!(1e300),
            json!(-1e300),
            json!(1e-300),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(9_007_199_254_740_993u64),
            json!(9_007_199_254_740_992.0),
            json!(18_446_744_073_709_551_616.0),
            json!(4_102_444_800u64),
            json!(1_738_281_600u64),
        ]),
    ]
}

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            "a",
            "ab",
            "abc",
            "ABC",
            "é",
            "éé",
            "🦀",
            "🦀🦀",
            "🦀🦀🦀",
            "#26a69a",
            "#ZZZZZZ",
            "#26a69",
            "12",
            "123",
            "x y",
            "a\nb",
            " ",
            "main",
            "trend_line",
            "solid",
            "1d",
        ])
        .prop_map(str::to_owned),
        "[a-c#0-9é🦀 ]{0,6}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        3 => number(),
        3 => string().prop_map(Value::String),
    ]
}

fn instance() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

// ---------------------------------------------------------------------------------------------
// Schemas of the subset

const TYPES: &[&str] = &[
    "null", "boolean", "integer", "number", "string", "array", "object",
];

fn type_keyword() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => prop::sample::select(TYPES).prop_map(|t| json!(t)),
        1 => prop::sample::subsequence(TYPES, 1..4)
            .prop_shuffle()
            .prop_map(|types| json!(types)),
    ]
}

/// Patterns through each of `jsonschema`'s matchers: prefixes, exact strings, alternations,
/// classes, Unicode classes, lookaheads, ECMA-262 escapes.
const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "^#[0-9a-fA-F]{6}$",
    "a",
    "^a",
    "^abc$",
    "^(a|ab)$",
    "x|y",
    "^\\d{2,}$",
    "\\w",
    "^\\S+$",
    "^\\p{L}+$",
    "^(?=.*\\d).+$",
    "é",
    "^.{2}$",
    "[^a]",
    "^$",
    "^[a-z_]{1,10}$",
];

fn positive() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(1),
        json!(2),
        json!(3),
        json!(7),
        json!(0.1),
        json!(0.5),
        json!(1.5),
        json!(0.01),
        json!(1e-3),
        json!(2.0),
        json!(1e-16),
        json!(4_294_967_296u64),
    ])
}

fn size() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..5).prop_map(|n| json!(n)),
        1 => Just(json!(2.0)),
    ]
}

/// A schema's keywords, each present or not.
fn keywords(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    let scalars = (
        prop::option::weighted(0.6, type_keyword()),
        prop::option::weighted(0.15, prop::collection::vec(scalar(), 1..5)),
        prop::option::weighted(0.08, scalar()),
        prop::option::weighted(0.2, number()),
        prop::option::weighted(0.2, number()),
        prop::option::weighted(0.1, number()),
        prop::option::weighted(0.1, number()),
        prop::option::weighted(0.15, positive()),
        prop::option::weighted(0.2, size()),
        prop::option::weighted(0.2, size()),
        prop::option::weighted(0.2, prop::sample::select(PATTERNS)),
        prop::option::weighted(0.1, prop::sample::select(vec!["date-time", "email", "uri"])),
    );
    let compounds = (
        prop::option::weighted(0.3, inner.clone()),
        prop::option::weighted(0.15, size()),
        prop::option::weighted(0.15, size()),
        prop::option::weighted(0.15, any::<bool>()),
        prop::option::weighted(0.4, prop::collection::btree_map(key(), inner.clone(), 0..4)),
        prop::option::weighted(0.3, prop::collection::btree_set(key(), 0..3)),
        prop::option::weighted(
            0.35,
            prop_oneof![any::<bool>().prop_map(Value::Bool), inner.clone()],
        ),
        prop::option::weighted(0.1, size()),
        prop::option::weighted(0.1, size()),
        prop::option::weighted(0.15, inner.clone()),
        prop::option::weighted(0.12, prop::collection::vec(inner.clone(), 1..4)),
        prop::option::weighted(0.12, prop::collection::vec(inner, 1..4)),
    );
    (scalars, compounds).prop_map(|(s, c)| {
        let mut map = Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                map.insert(k.to_owned(), v);
            }
        };
        put("type", s.0);
        put("enum", s.1.map(Value::Array));
        put("const", s.2);
        put("minimum", s.3);
        put("maximum", s.4);
        put("exclusiveMinimum", s.5);
        put("exclusiveMaximum", s.6);
        put("multipleOf", s.7);
        put("minLength", s.8);
        put("maxLength", s.9);
        put("pattern", s.10.map(|p| json!(p)));
        put("format", s.11.map(|f| json!(f)));
        put("items", c.0);
        put("minItems", c.1);
        put("maxItems", c.2);
        put("uniqueItems", c.3.map(Value::Bool));
        put(
            "properties",
            c.4.map(|p| Value::Object(p.into_iter().collect())),
        );
        put(
            "required",
            c.5.map(|r| Value::Array(r.into_iter().map(Value::String).collect())),
        );
        put("additionalProperties", c.6);
        put("minProperties", c.7);
        put("maxProperties", c.8);
        put("anyOf", c.10.map(Value::Array));
        put("oneOf", c.11.map(Value::Array));
        if let Some(definition) = c.9 {
            // A definition, used through `$ref` next to the other keywords.
            map.insert("$ref".to_owned(), json!("#/$defs/shared"));
            map.insert("$defs".to_owned(), json!({ "shared": definition }));
        }
        Value::Object(map)
    })
}

fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Value::Bool),
        6 => keywords(Just(json!(true)).boxed()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| keywords(inner.boxed()))
        .prop_map(hoist_defs)
}

/// Moves every `$defs` to the root under a unique name and points each `$ref` at it, so the
/// references resolve from the root as `#/$defs/<name>` requires.
fn hoist_defs(mut schema: Value) -> Value {
    let mut definitions = Map::new();
    hoist(&mut schema, &mut definitions);
    if !definitions.is_empty()
        && let Value::Object(map) = &mut schema
    {
        map.insert("$defs".to_owned(), Value::Object(definitions));
    }
    schema
}

fn hoist(node: &mut Value, definitions: &mut Map<String, Value>) {
    match node {
        Value::Object(map) => {
            for child in map.values_mut() {
                hoist(child, definitions);
            }
            if let Some(Value::Object(mut defs)) = map.remove("$defs")
                && let Some(shared) = defs.remove("shared")
            {
                let name = format!("d{}", definitions.len());
                map.insert("$ref".to_owned(), json!(format!("#/$defs/{name}")));
                definitions.insert(name, shared);
            }
        }
        Value::Array(items) => {
            for item in items {
                hoist(item, definitions);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Near-valid instances: a valid example with a few mutations

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the value at the n-th node (in walk order) with another value.
    Replace(usize, Value),
    /// Remove the n-th property found in walk order.
    Remove(usize),
    /// Add a property to the n-th object found in walk order.
    Insert(usize, String, Value),
    /// Duplicate the first item of the n-th array found in walk order.
    Duplicate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (0usize..16, instance()).prop_map(|(n, v)| Mutation::Replace(n, v)),
        2 => (0usize..16).prop_map(Mutation::Remove),
        2 => (0usize..16, key(), scalar()).prop_map(|(n, k, v)| Mutation::Insert(n, k, v)),
        1 => (0usize..16).prop_map(Mutation::Duplicate),
    ]
}

/// The JSON Pointer of every node of `value`, in walk order.
fn pointers(value: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_owned());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                pointers(child, &format!("{at}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The n-th (modulo their count) node of `value` that `kind` accepts.
fn pick(value: &mut Value, kind: fn(&Value) -> bool, n: usize) -> Option<&mut Value> {
    let mut all = Vec::new();
    pointers(value, "", &mut all);
    let matching: Vec<String> = all
        .into_iter()
        .filter(|p| value.pointer(p).is_some_and(kind))
        .collect();
    if matching.is_empty() {
        return None;
    }
    let pointer = &matching[n % matching.len()];
    value.pointer_mut(pointer)
}

fn apply(value: &mut Value, mutation: &Mutation) {
    match mutation {
        Mutation::Replace(n, v) => {
            if let Some(target) = pick(value, |_| true, *n) {
                *target = v.clone();
            }
        }
        Mutation::Remove(n) => {
            if let Some(Value::Object(map)) =
                pick(value, |v| v.as_object().is_some_and(|m| !m.is_empty()), *n)
                && let Some(key) = map.keys().nth(n % map.len()).cloned()
            {
                map.remove(&key);
            }
        }
        Mutation::Insert(n, k, v) => {
            if let Some(Value::Object(map)) = pick(value, Value::is_object, *n) {
                map.insert(k.clone(), v.clone());
            }
        }
        Mutation::Duplicate(n) => {
            if let Some(Value::Array(items)) =
                pick(value, |v| v.as_array().is_some_and(|a| !a.is_empty()), *n)
            {
                let first = items[0].clone();
                items.push(first);
            }
        }
    }
}

struct Tool {
    name: String,
    schema: Value,
    examples: Vec<Value>,
}

fn tools() -> Vec<Tool> {
    let tools: Vec<Value> = serde_json::from_str(TOOLS).expect("tools.json is JSON");
    tools
        .into_iter()
        .map(|tool| Tool {
            name: tool["name"].as_str().expect("a name").to_owned(),
            schema: tool["inputSchema"].clone(),
            examples: tool["examples"]
                .as_array()
                .map(|examples| examples.iter().map(|e| e["input"].clone()).collect())
                .unwrap_or_default(),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------

/// Runs `test` on `cases` values of `strategy` in a thread with room for the deep strategies
/// and the recursive validators of a debug build.
fn run<S: Strategy + 'static>(
    cases: u32,
    strategy: fn() -> S,
    test: fn(S::Value) -> Result<(), TestCaseError>,
) {
    let outcome = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut runner = TestRunner::new(Config {
                cases,
                ..Config::default()
            });
            runner.run(&strategy(), test).map_err(|e| e.to_string())
        })
        .expect("a test thread starts")
        .join()
        .expect("the test thread does not panic");
    if let Err(why) = outcome {
        panic!("{why}");
    }
}

#[test]
fn random_schemas_and_instances_agree() {
    run(
        2000,
        || (schema(), prop::collection::vec(instance(), 1..6)),
        |(schema, instances)| {
            let specialized = InputSchema::compile(&schema)
                .map_err(|e| TestCaseError::fail(format!("{schema}: {e}")))?;
            if !specialized.is_specialized() && !pattern_under_composition(&schema, &schema, false)
            {
                return Err(TestCaseError::fail(format!(
                    "schema left to the general validator: {schema}"
                )));
            }
            for instance in &instances {
                compare_specialized(&schema, &specialized, instance)
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        },
    );
}

#[test]
fn reference_tools_agree_on_near_valid_input() {
    run(
        1500,
        || {
            (
                0usize..64,
                0usize..8,
                prop::collection::vec(mutation(), 0..5),
            )
        },
        |(tool, example, mutations)| {
            let tools = tools();
            let tool = &tools[tool % tools.len()];
            let specialized = InputSchema::compile(&tool.schema).expect("the schema compiles");
            let general = InputSchema::compile_general(&tool.schema).expect("the schema compiles");
            prop_assert!(
                specialized.is_specialized(),
                "{} is not specialized",
                tool.name
            );
            let mut instance = match tool.examples.as_slice() {
                [] => json!({}),
                examples => examples[example % examples.len()].clone(),
            };
            for mutation in &mutations {
                apply(&mut instance, mutation);
            }
            compare_compiled(&specialized, &general, &instance).map_err(|why| {
                TestCaseError::fail(format!("{}: instance {instance}\n{why}", tool.name))
            })
        },
    );
}

#[test]
fn every_reference_tool_is_specialized_and_its_examples_are_valid() {
    for tool in tools() {
        let schema = InputSchema::compile(&tool.schema).expect("the schema compiles");
        assert!(schema.is_specialized(), "{}", tool.name);
        for example in &tool.examples {
            assert!(schema.check(example).is_ok(), "{}: {example}", tool.name);
        }
    }
}

/// Cases the random walk may miss, each once.
#[test]
fn edge_cases_agree() {
    let cases = [
        (json!({"type": "integer"}), json!(1.0)),
        (json!({"type": "integer"}), json!(1e300)),
        (json!({"type": ["integer", "string"]}), json!(1.5)),
        (json!({"enum": [1, "a", null]}), json!(1.0)),
        (json!({"enum": [[1], {"a": 1}]}), json!([1.0])),
        (json!({"const": {"a": [1, 2]}}), json!({"a": [1.0, 2]})),
        (json!({"uniqueItems": true}), json!([1, 1.0])),
        (json!({"uniqueItems": true}), json!([0, -0.0])),
        (
            json!({"uniqueItems": true}),
            json!((0..20).map(|i| json!({"k": i % 19})).collect::<Vec<_>>()),
        ),
        (json!({"multipleOf": 0.1}), json!(0.3)),
        (json!({"multipleOf": 0.01}), json!(1.1)),
        (
            json!({"multipleOf": 3}),
            json!(9_223_372_036_854_775_806u64),
        ),
        (json!({"multipleOf": 1e-16}), json!(1e-15)),
        (
            json!({"minimum": 9_007_199_254_740_993u64}),
            json!(9_007_199_254_740_992.0),
        ),
        (json!({"maximum": -1}), json!(u64::MAX)),
        (json!({"exclusiveMaximum": 1e300}), json!(i64::MIN)),
        (json!({"minLength": 2}), json!("🦀")),
        (json!({"maxLength": 2}), json!("éé")),
        (json!({"maxLength": 2}), json!("🦀🦀🦀")),
        (json!({"minLength": 2.0, "maxLength": 1}), json!("ab")),
        (json!({"pattern": "^\\p{L}+$"}), json!("éa")),
        (json!({"pattern": "^\\d+$"}), json!("١٢")),
        (json!({"pattern": "^\\w+$"}), json!("é")),
        (json!({"items": false}), json!([1, 2])),
        (
            json!({"properties": {"additionalProperties": false}}),
            json!({"additionalProperties": {"x": 1}}),
        ),
        (
            json!({"properties": {"additionalProperties": false}}),
            json!({"additionalProperties": {}}),
        ),
        (
            json!({"properties": {"a/b": false, "~": false}}),
            json!({"a/b": 1, "~": 2}),
        ),
        (
            json!({"additionalProperties": false}),
            json!({"": 1, "a": 2}),
        ),
        (json!({"required": [""]}), json!({})),
        // Index-like keys beside keys that start with a digit: the report order is not transitive
        // there (`10` < `1~0` < `2` < `10`), and the general validator's order is kept.
        (
            json!({"additionalProperties": false, "required": ["2"]}),
            json!({"10": null, "1~": null}),
        ),
        (
            json!({"items": {"type": "string"}, "properties": {"1a": {"type": "string"}}}),
            json!({"1a": 1, "0": [1, 2, 3]}),
        ),
        // One `required` name next to `properties` and `additionalProperties: false` is checked
        // among the declared properties only: present but undeclared, it is also reported missing.
        (
            json!({"additionalProperties": false, "properties": {}, "required": ["a"]}),
            json!({"a": null}),
        ),
        (
            json!({"additionalProperties": false, "properties": {"b": {}}, "required": ["a"]}),
            json!({"a": 1, "b": 2}),
        ),
        (
            json!({"additionalProperties": false, "properties": {"a": {}}, "required": ["a", "b"]}),
            json!({"b": 1}),
        ),
        (
            json!({"properties": {"": {"type": "string"}}}),
            json!({"": 1}),
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!("x"),
        ),
        (
            json!({"$defs": {"additionalProperties": false}, "properties": {"x": {"$ref": "#/$defs/additionalProperties"}}}),
            json!({"x": {"k": 1}}),
        ),
        (
            json!({"$defs": {"n": {"type": "number", "minimum": 0}}, "items": {"$ref": "#/$defs/n", "maximum": 1}}),
            json!([-1, 2, "x"]),
        ),
        (json!(false), json!({"a": 1})),
        // `anyOf`/`oneOf` as schemars writes them: nullable references, tagged variants.
        (
            json!({"$defs": {"S": {"type": "object", "properties": {"w": {"type": "integer"}}, "required": ["w"]}},
                   "properties": {"s": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}}}),
            json!({"s": {"w": 1.5}}),
        ),
        (
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "number"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"]}
            ]}),
            json!({"kind": "b", "y": 1}),
        ),
        (
            json!({"oneOf": [
                {"properties": {"kind": {"const": 1}}, "required": ["kind"]},
                {"properties": {"kind": {"const": 1.0}}, "required": ["kind"]}
            ]}),
            json!({"kind": 1}),
        ),
        (
            json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
            json!(2.0),
        ),
        (
            json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
            json!(2.5),
        ),
        (
            json!({"anyOf": [{"minimum": 3}, {"maximum": 1}], "type": "integer"}),
            json!(2),
        ),
        (json!({"anyOf": [false]}), json!(null)),
        (json!({"oneOf": [true, {}]}), json!(null)),
        (
            json!({"items": {"minLength": 1}}),
            json!((0..12).map(|_| "").collect::<Vec<_>>()),
        ),
    ];
    for (schema, instance) in cases {
        if let Err(why) = compare(&schema, &instance) {
            panic!("{why}");
        }
    }
}

#[test]
fn long_keys_are_cut_the_same_way() {
    let long = "k".repeat(100);
    let schema = json!({"additionalProperties": false, "required": [long.clone() + "x"]});
    let instance = json!({ long.clone(): 1, "a": {long: 2} });
    compare(&schema, &instance).expect("the same report");
}

/// A schema as schemars writes one for a code-first tool (definitions, references, a nullable
/// reference, a `oneOf` of constants): specialized, and in agreement on near-valid input.
#[test]
fn schemars_style_schemas_are_specialized_and_agree() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "Anchor": {
                "additionalProperties": false,
                "properties": {
                    "price": {"format": "double", "type": "number"},
                    "time": {"format": "int64", "type": "integer", "minimum": 0}
                },
                "required": ["time", "price"],
                "type": "object"
            },
            "Kind": {
                "oneOf": [
                    {"const": "trend_line", "type": "string"},
                    {"const": "horizontal_line", "type": "string"}
                ]
            },
            "Style": {
                "properties": {"width": {"format": "uint8", "minimum": 0, "maximum": 255, "type": "integer"}},
                "required": ["width"],
                "type": "object"
            }
        },
        "additionalProperties": false,
        "properties": {
            "anchors": {"items": {"$ref": "#/$defs/Anchor"}, "type": "array"},
            "kind": {"$ref": "#/$defs/Kind"},
            "pane_id": {"type": "string"},
            "style": {"anyOf": [{"$ref": "#/$defs/Style"}, {"type": "null"}]},
            "label": {"type": ["string", "null"]}
        },
        "required": ["pane_id", "kind", "anchors"],
        "title": "DrawArgs",
        "type": "object"
    });
    let instances = [
        json!({"pane_id": "main", "kind": "trend_line", "anchors": [{"time": 1, "price": 2.5}]}),
        json!({"pane_id": "main", "kind": "ray", "anchors": [{"time": -1, "price": "x", "z": 0}, {}]}),
        json!({"pane_id": 1, "kind": "horizontal_line", "anchors": [], "style": null, "label": null}),
        json!({"pane_id": "p", "kind": "trend_line", "anchors": [], "style": {"width": 256}}),
        json!({"pane_id": "p", "kind": "trend_line", "anchors": [], "style": {}, "label": 3}),
        json!({"kind": null, "anchors": {}, "extra": true}),
        json!([]),
    ];
    let specialized = InputSchema::compile(&schema).expect("the schema compiles");
    assert!(specialized.is_specialized());
    for instance in &instances {
        compare_specialized(&schema, &specialized, instance).unwrap_or_else(|why| panic!("{why}"));
    }
}
