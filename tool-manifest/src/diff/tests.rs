//! One old/new pair per kind of change, in both directions; compositions; the no-change cases;
//! the policy; and the property that no narrowing is ever reported as `info` alone.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::model::{ErrorSpec, Mode, Safety, ToolSpec};

fn tool(input: Value) -> Value {
    json!({"name": "t", "description": "d", "inputSchema": input})
}

fn set(tool: Value) -> ToolSet {
    ToolSet::from_mcp(&[(String::new(), tool)]).expect("a tool")
}

fn changes(old: Value, new: Value) -> Vec<(Kind, Severity, String)> {
    diff(&set(old), &set(new), &Policy::default())
        .changes
        .into_iter()
        .map(|c| (c.kind, c.severity, c.pointer))
        .collect()
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// `(old input, new input, the change forward, the change backward)`, each `(kind, severity,
/// pointer)`.
#[allow(clippy::type_complexity)]
fn schema_pairs() -> Vec<(
    Value,
    Value,
    (Kind, Severity, &'static str),
    (Kind, Severity, &'static str),
)> {
    use Kind::*;
    use Severity::*;
    let p = "/inputSchema/properties/a";
    vec![
        (
            object(json!({}), &[]),
            object(json!({"a": {"type": "string"}}), &["a"]),
            (RequiredAdded, Error, p),
            (PropertyRemoved, Warning, p),
        ),
        (
            object(json!({"a": {"type": "string"}}), &[]),
            object(json!({"a": {"type": "string"}}), &["a"]),
            (OptionalToRequired, Error, p),
            (RequiredToOptional, Info, p),
        ),
        (
            object(json!({}), &[]),
            object(json!({"a": {"type": "string"}}), &[]),
            (PropertyAdded, Info, p),
            (PropertyRemoved, Warning, p),
        ),
        (
            object(json!({"a": {"type": "number"}}), &[]),
            object(json!({"a": {"type": "integer"}}), &[]),
            (TypeNarrowed, Error, "/inputSchema/properties/a/type"),
            (TypeWidened, Info, "/inputSchema/properties/a/type"),
        ),
        (
            object(json!({"a": {"type": "string"}}), &[]),
            object(json!({"a": {"type": "string", "enum": ["x", "y"]}}), &[]),
            (EnumAdded, Error, "/inputSchema/properties/a/enum"),
            (EnumRemoved, Info, "/inputSchema/properties/a/enum"),
        ),
        (
            object(json!({"a": {"enum": ["x", "y", "z"]}}), &[]),
            object(json!({"a": {"enum": ["x", "y"]}}), &[]),
            (EnumValueRemoved, Error, "/inputSchema/properties/a/enum"),
            (EnumValueAdded, Info, "/inputSchema/properties/a/enum"),
        ),
        (
            object(json!({"a": {"type": "string", "maxLength": 200}}), &[]),
            object(json!({"a": {"type": "string", "maxLength": 100}}), &[]),
            (BoundTightened, Error, "/inputSchema/properties/a/maxLength"),
            (BoundLoosened, Info, "/inputSchema/properties/a/maxLength"),
        ),
        (
            object(json!({"a": {"type": "integer"}}), &[]),
            object(json!({"a": {"type": "integer", "minimum": 1}}), &[]),
            (BoundTightened, Error, "/inputSchema/properties/a/minimum"),
            (BoundLoosened, Info, "/inputSchema/properties/a/minimum"),
        ),
        (
            object(json!({"a": {"type": "string"}}), &[]),
            object(
                json!({"a": {"type": "string", "pattern": "^#[0-9a-f]{6}$"}}),
                &[],
            ),
            (PatternChanged, Error, "/inputSchema/properties/a/pattern"),
            (PatternRemoved, Info, "/inputSchema/properties/a/pattern"),
        ),
        (
            object(json!({"a": {"type": "string"}}), &[]),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            (
                AdditionalPropertiesClosed,
                Error,
                "/inputSchema/additionalProperties",
            ),
            (
                AdditionalPropertiesOpened,
                Info,
                "/inputSchema/additionalProperties",
            ),
        ),
        (
            object(
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                &[],
            ),
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "dependentRequired": {"a": ["b"]}}),
            (DependencyAdded, Error, "/inputSchema/dependentRequired/a"),
            (DependencyRemoved, Info, "/inputSchema/dependentRequired/a"),
        ),
        (
            object(json!({"a": {"type": "string"}}), &[]),
            object(json!({"a": {"type": "string", "default": "x"}}), &[]),
            (DefaultChanged, Warning, "/inputSchema/properties/a/default"),
            (DefaultChanged, Warning, "/inputSchema/properties/a/default"),
        ),
        (
            object(json!({"a": {"type": "string", "description": "old"}}), &[]),
            object(json!({"a": {"type": "string", "description": "new"}}), &[]),
            (
                DescriptionChanged,
                Warning,
                "/inputSchema/properties/a/description",
            ),
            (
                DescriptionChanged,
                Warning,
                "/inputSchema/properties/a/description",
            ),
        ),
        (
            object(json!({"a": {"type": "string"}}), &[]),
            object(json!({"a": {"type": "string", "format": "date"}}), &[]),
            (FormatChanged, Warning, "/inputSchema/properties/a/format"),
            (FormatChanged, Warning, "/inputSchema/properties/a/format"),
        ),
        (
            object(
                json!({"a": {"type": "array", "items": {"type": "string"}}}),
                &[],
            ),
            object(
                json!({"a": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}),
                &[],
            ),
            (
                BoundTightened,
                Error,
                "/inputSchema/properties/a/uniqueItems",
            ),
            (BoundLoosened, Info, "/inputSchema/properties/a/uniqueItems"),
        ),
    ]
}

#[test]
fn each_kind_of_schema_change_both_ways() {
    for (old, new, forward, backward) in schema_pairs() {
        let found = changes(tool(old.clone()), tool(new.clone()));
        let (kind, severity, pointer) = forward;
        assert_eq!(
            found,
            [(kind, severity, pointer.to_owned())],
            "{old} → {new}"
        );
        let found = changes(tool(new.clone()), tool(old.clone()));
        let (kind, severity, pointer) = backward;
        assert_eq!(
            found,
            [(kind, severity, pointer.to_owned())],
            "{new} → {old}"
        );
    }
}

#[test]
fn a_property_removed_from_a_closed_object_is_an_error() {
    let closed =
        |p: Value| json!({"type": "object", "properties": p, "additionalProperties": false});
    let found = changes(
        tool(closed(json!({"a": {"type": "string"}, "b": {}}))),
        tool(closed(json!({"b": {}}))),
    );
    assert_eq!(
        found,
        [(
            Kind::PropertyRemoved,
            Severity::Error,
            "/inputSchema/properties/a".to_owned()
        )]
    );
}

#[test]
fn output_changes_turn_around() {
    let with_output = |output: Value| json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output});
    let narrow = object(
        json!({"kind": {"enum": ["a", "b"]}, "title": {"type": "string"}}),
        &[],
    );
    let wider = object(
        json!({"kind": {"enum": ["a", "b", "c"]}, "title": {"type": "string"}}),
        &[],
    );
    assert_eq!(
        changes(with_output(narrow.clone()), with_output(wider.clone())),
        [(
            Kind::OutputEnumValueAdded,
            Severity::Error,
            "/outputSchema/properties/kind/enum".to_owned()
        )]
    );
    assert_eq!(
        changes(with_output(wider), with_output(narrow.clone())),
        [(
            Kind::OutputEnumValueRemoved,
            Severity::Info,
            "/outputSchema/properties/kind/enum".to_owned()
        )]
    );
    let fewer = object(json!({"kind": {"enum": ["a", "b"]}}), &[]);
    assert_eq!(
        changes(with_output(narrow.clone()), with_output(fewer.clone())),
        [(
            Kind::OutputPropertyRemoved,
            Severity::Error,
            "/outputSchema/properties/title".to_owned()
        )]
    );
    assert_eq!(
        changes(with_output(fewer), with_output(narrow.clone())),
        [(
            Kind::OutputPropertyAdded,
            Severity::Info,
            "/outputSchema/properties/title".to_owned()
        )]
    );
    let nullable = object(
        json!({"kind": {"enum": ["a", "b"]}, "title": {"type": ["string", "null"]}}),
        &[],
    );
    assert_eq!(
        changes(with_output(narrow.clone()), with_output(nullable)),
        [(
            Kind::OutputTypeWidened,
            Severity::Error,
            "/outputSchema/properties/title/type".to_owned()
        )]
    );
    let no_output = json!({"name": "t", "inputSchema": {"type": "object"}});
    assert_eq!(
        changes(with_output(narrow.clone()), no_output.clone()),
        [(
            Kind::OutputSchemaRemoved,
            Severity::Error,
            "/outputSchema".to_owned()
        )]
    );
    assert_eq!(
        changes(no_output, with_output(narrow)),
        [(
            Kind::OutputSchemaAdded,
            Severity::Info,
            "/outputSchema".to_owned()
        )]
    );
}

#[test]
fn compositions_are_decided_by_meaning() {
    let symbol = |branches: Value| object(json!({"s": {"anyOf": branches}}), &[]);
    let one = json!([{"type": "string"}]);
    let two = json!([{"type": "string"}, {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}]);
    // A branch gained: wider; lost: narrower, with a witness.
    let found = changes(tool(symbol(one.clone())), tool(symbol(two.clone())));
    assert!(
        found.iter().all(|(_, s, _)| *s == Severity::Info) && !found.is_empty(),
        "{found:?}"
    );
    let report = diff(
        &set(tool(symbol(two))),
        &set(tool(symbol(one))),
        &Policy::default(),
    );
    let narrowed = report
        .changes
        .iter()
        .find(|c| c.severity == Severity::Error)
        .unwrap_or_else(|| panic!("{:?}", report.changes));
    assert_eq!(narrowed.kind, Kind::CompositionNarrowed);
    let witness = narrowed.witness.as_ref().expect("a witness");
    assert!(witness.is_object(), "{witness}");

    // A `$ref` target narrowed: reported inside the inlined target.
    let with_ref = |max: u64| {
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/name"}},
               "$defs": {"name": {"type": "string", "maxLength": max}}})
    };
    assert_eq!(
        changes(tool(with_ref(10)), tool(with_ref(5))),
        [(
            Kind::BoundTightened,
            Severity::Error,
            "/inputSchema/properties/a/maxLength".to_owned()
        )]
    );

    // `oneOf` made of overlapping branches: never reported as safe.
    let overlapping = |key: &str| {
        object(
            json!({"a": {key: [{"type": "string"}, {"type": "string", "maxLength": 3}]}}),
            &[],
        )
    };
    let found = changes(tool(overlapping("anyOf")), tool(overlapping("oneOf")));
    assert!(
        found.iter().any(|(k, s, _)| *s != Severity::Info
            && matches!(k, Kind::CompositionNarrowed | Kind::Undecided)),
        "{found:?}"
    );

    // `allOf` gaining a conjunct that every old value meets is no narrowing.
    let base = json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5}}});
    let conj = json!({"type": "object", "allOf": [{"properties": {"a": {"type": "integer", "minimum": 5}}}], "properties": {"a": {"type": "integer", "minimum": 5}}});
    let found = changes(tool(base), tool(conj));
    assert!(
        found.iter().all(|(_, s, _)| *s != Severity::Error),
        "{found:?}"
    );
}

#[test]
fn equivalent_spellings_are_no_change() {
    let same = |a: Value, b: Value| {
        assert_eq!(changes(tool(a.clone()), tool(b.clone())), [], "{a} vs {b}");
    };
    same(
        object(json!({"a": {"type": ["string"]}}), &[]),
        object(json!({"a": {"type": "string"}}), &[]),
    );
    same(
        object(json!({"a": {"type": ["string", "null"]}}), &[]),
        object(
            json!({"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}),
            &[],
        ),
    );
    same(
        object(
            json!({"a": {"anyOf": [{"type": "string"}, {"type": "object"}]}}),
            &[],
        ),
        object(
            json!({"a": {"oneOf": [{"type": "object"}, {"type": "string"}]}}),
            &[],
        ),
    );
    same(
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["b", "a"]}),
        serde_json::from_str(
            r#"{"required": ["a", "b"], "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "type": "object"}"#,
        )
        .expect("JSON"),
    );
    same(
        object(
            json!({"a": {"type": "string", "description": "one  two\n three"}}),
            &[],
        ),
        object(
            json!({"a": {"type": "string", "description": "one two three"}}),
            &[],
        ),
    );
    same(
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": true}),
        json!({"type": "object"}),
    );
    // The arguments are an object: an input schema without `type` says the same.
    same(json!({}), json!({"type": "object"}));
}

fn spec(name: &str) -> ToolSpec {
    let mut spec = ToolSpec::new(
        name,
        Safety::ReadOnly,
        Mode::Parallel,
        json!({"type": "object", "properties": {"id": {"type": "string"}}}),
    );
    spec.description = format!("The {name} tool.");
    spec.errors = vec![ErrorSpec::new(
        "NOT_FOUND",
        "No such item.",
        true,
        "List them.",
    )];
    spec
}

fn spec_changes(old: ToolSpec, new: ToolSpec) -> Vec<(Kind, Severity, String)> {
    diff(
        &ToolSet::from_specs(&[old]),
        &ToolSet::from_specs(&[new]),
        &Policy::default(),
    )
    .changes
    .into_iter()
    .map(|c| (c.kind, c.severity, c.pointer))
    .collect()
}

#[test]
fn each_kind_of_declaration_change_both_ways() {
    use Kind::*;
    use Severity::*;
    type Edit = fn(&mut ToolSpec);
    type Expected = (Kind, Severity, &'static str);
    let cases: Vec<(Edit, Expected, Expected)> = vec![
        (
            |s| s.safety = Safety::Destructive,
            (SafetyLoosened, Error, "/annotations/readOnlyHint"),
            (SafetyTightened, Error, "/annotations/readOnlyHint"),
        ),
        (
            |s| s.mode = Mode::Sequential,
            (ModeParallelToSequential, Info, "/mode"),
            (ModeSequentialToParallel, Error, "/mode"),
        ),
        (
            |s| s.errors[0].code = "MISSING".into(),
            (ErrorCodeRenamed, Error, "/errors/NOT_FOUND/code"),
            (ErrorCodeRenamed, Error, "/errors/MISSING/code"),
        ),
        (
            |s| s.errors[0].retryable = false,
            (RetryableFlipped, Error, "/errors/NOT_FOUND/retryable"),
            (RetryableFlipped, Error, "/errors/NOT_FOUND/retryable"),
        ),
        (
            |s| s.errors[0].recommended_action = "Call `items_list` first.".into(),
            (
                ErrorTextChanged,
                Warning,
                "/errors/NOT_FOUND/recommended_action",
            ),
            (
                ErrorTextChanged,
                Warning,
                "/errors/NOT_FOUND/recommended_action",
            ),
        ),
        (
            |s| s.timeout_ms = Some(10_000),
            (TimeoutChanged, Warning, "/timeout"),
            (TimeoutChanged, Warning, "/timeout"),
        ),
        (
            |s| s.max_output_bytes = Some(1024),
            (OutputBudgetChanged, Warning, "/max_output_bytes"),
            (OutputBudgetChanged, Warning, "/max_output_bytes"),
        ),
        (
            |s| s.open_world = Some(false),
            (OpenWorldChanged, Warning, "/annotations/openWorldHint"),
            (OpenWorldChanged, Warning, "/annotations/openWorldHint"),
        ),
        (
            |s| s.idempotent = Some(true),
            (AnnotationNoop, Info, "/annotations/idempotentHint"),
            (AnnotationNoop, Info, "/annotations/idempotentHint"),
        ),
        (
            |s| s.category = Some("items".into()),
            (CategoryChanged, Info, "/category"),
            (CategoryChanged, Info, "/category"),
        ),
        (
            |s| s.defer_loading = true,
            (DeferLoadingChanged, Info, "/defer_loading"),
            (DeferLoadingChanged, Info, "/defer_loading"),
        ),
        (
            |s| s.title = "Another title".into(),
            (TitleChanged, Warning, "/title"),
            (TitleChanged, Warning, "/title"),
        ),
    ];
    for (edit, forward, backward) in cases {
        let old = spec("items_get");
        let mut new = spec("items_get");
        edit(&mut new);
        let (k, s, p) = forward;
        assert_eq!(
            spec_changes(old.clone(), new.clone()),
            [(k, s, p.to_owned())],
            "{k}"
        );
        let (k, s, p) = backward;
        assert_eq!(spec_changes(new, old), [(k, s, p.to_owned())], "{k}");
    }
    // An error code removed, and added back.
    let old = spec("items_get");
    let mut new = spec("items_get");
    new.errors.clear();
    assert_eq!(
        spec_changes(old.clone(), new.clone()),
        [(ErrorCodeRemoved, Error, "/errors/NOT_FOUND".to_owned())]
    );
    assert_eq!(
        spec_changes(new, old),
        [(ErrorCodeAdded, Info, "/errors/NOT_FOUND".to_owned())]
    );
    // A mode that MCP does not carry is not compared with a manifest's.
    let mut from_mcp = set(
        json!({"name": "items_get", "description": "The items_get tool.", "annotations": {"readOnlyHint": true, "openWorldHint": true},
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}),
    );
    from_mcp.tools.get_mut("items_get").expect("the tool").title = Some("items_get".into());
    let report = diff(
        &from_mcp,
        &ToolSet::from_specs(&[spec("items_get")]),
        &Policy::default(),
    );
    assert_eq!(report.changes, [], "{:?}", report.changes);
}

#[test]
fn a_deferral_changes_when_the_tool_is_loaded_and_breaks_no_one() {
    let mut old = spec("items_get");
    old.version = Some("1.0.0".into());
    let mut new = old.clone();
    new.defer_loading = true;
    new.version = Some("1.0.1".into());
    let report = diff(
        &ToolSet::from_specs(&[old.clone()]),
        &ToolSet::from_specs(&[new.clone()]),
        &Policy::default(),
    );
    let [change] = &report.changes[..] else {
        panic!("one change: {:?}", report.changes);
    };
    assert_eq!(change.kind.as_str(), "defer-loading-changed");
    assert_eq!(change.severity, Severity::Info);
    assert_eq!(change.parties, [Party::Model]);
    assert_eq!(
        change.message,
        "loading eager → deferred: when the tool is loaded, not what it accepts or does"
    );
    assert_eq!(
        (change.from.clone(), change.to.clone()),
        (Some(json!(false)), Some(json!(true)))
    );
    // An MCP `Tool` carries no deferral: it is not compared with a manifest's.
    let mut from_mcp = set(
        json!({"name": "items_get", "description": "The items_get tool.", "annotations": {"readOnlyHint": true, "openWorldHint": true},
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}),
    );
    from_mcp.tools.get_mut("items_get").expect("the tool").title = Some("items_get".into());
    let report = diff(&from_mcp, &ToolSet::from_specs(&[new]), &Policy::default());
    assert_eq!(report.changes, [], "{:?}", report.changes);
}

#[test]
fn tools_removed_added_and_renamed() {
    let old = ToolSet::from_specs(&[spec("a_get"), spec("b_get")]);
    let mut renamed = spec("b_fetch");
    renamed.description = "The b_get tool.".into();
    let new = ToolSet::from_specs(&[renamed, spec("c_get")]);
    let found: Vec<(String, Kind)> = diff(&old, &new, &Policy::default())
        .changes
        .into_iter()
        .map(|c| (c.tool, c.kind))
        .collect();
    // `a_get` and `b_get` have the same schema: neither is taken for a rename of the other.
    assert!(
        found.contains(&("a_get".into(), Kind::ToolRemoved)),
        "{found:?}"
    );
    assert!(
        found.contains(&("c_get".into(), Kind::ToolAdded)),
        "{found:?}"
    );

    let old = ToolSet::from_specs(&[spec("b_get")]);
    let mut renamed = spec("b_fetch");
    renamed.description = "The b_get tool.".into();
    renamed.title = "b_get".into();
    let new = ToolSet::from_specs(&[renamed]);
    let report = diff(&old, &new, &Policy::default());
    assert_eq!(report.changes.len(), 1, "{:?}", report.changes);
    assert_eq!(report.changes[0].kind, Kind::ToolRenamed);
    assert_eq!(report.changes[0].tool, "b_fetch");
    assert_eq!(report.changes[0].from, Some(json!("b_get")));
}

#[test]
fn a_deprecated_tool_removed_after_its_sunset_is_info() {
    let mut old = ToolSet::from_specs(&[spec("a_get")]);
    let mut deprecation = crate::model::Deprecation::new("1.2.0");
    deprecation.sunset = Some("2026-06-30".into());
    old.tools.get_mut("a_get").expect("a_get").deprecated = Some(deprecation);
    let mut other = spec("z_get");
    other.input_schema = json!({"type": "object"});
    let new = ToolSet::from_specs(&[other]);
    let severity = |today: &str| {
        diff(&old, &new, &Policy::default().on(today))
            .changes
            .into_iter()
            .find(|c| c.kind == Kind::ToolRemoved)
            .map(|c| c.severity)
    };
    assert_eq!(severity("2026-07-01"), Some(Severity::Info));
    assert_eq!(severity("2026-06-01"), Some(Severity::Error));
}

#[test]
fn the_policy_adjusts_severities_and_never_silently() {
    let old = ToolSet::from_specs(&[spec("a_get")]);
    let mut changed = spec("a_get");
    changed.safety = Safety::Destructive;
    changed.description = "Reworded.".into();
    let new = ToolSet::from_specs(&[changed]);
    let config: DiffConfig = toml::from_str(
        r#"severity = { description-changed = "info" }
accept = [{ tool = "a_get", kind = "safety-loosened", reason = "it now clears the cache it reads" }]"#,
    )
    .expect("a [diff] table");
    let report = diff(&old, &new, &Policy::new(config).expect("a policy"));
    let by_kind = |k: Kind| {
        report
            .changes
            .iter()
            .find(|c| c.kind == k)
            .unwrap_or_else(|| panic!("{k}"))
    };
    assert_eq!(by_kind(Kind::DescriptionChanged).severity, Severity::Info);
    assert_eq!(
        by_kind(Kind::DescriptionChanged).adjusted,
        Some(Adjustment::Severity {
            default: Severity::Warning
        })
    );
    assert_eq!(by_kind(Kind::SafetyLoosened).severity, Severity::Info);
    assert!(matches!(
        by_kind(Kind::SafetyLoosened).adjusted,
        Some(Adjustment::Accepted {
            default: Severity::Error,
            ..
        })
    ));
    assert!(
        report
            .render(Format::Text)
            .contains("accepted by `[diff] accept`")
    );

    // A safety loosening cannot be lowered for every tool.
    let config: DiffConfig =
        toml::from_str(r#"severity = { safety-loosened = "warning" }"#).expect("a [diff] table");
    let error = Policy::new(config).expect_err("refused");
    assert!(error.0.contains("accept it for one tool"), "{error}");
    // A kind that does not exist is named, with the closest one.
    let error = toml::from_str::<DiffConfig>(r#"severity = { descripton-changed = "info" }"#)
        .expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("did you mean `description-changed`?"),
        "{error}"
    );
}

#[test]
fn a_breaking_change_needs_a_major_version() {
    let versioned = |version: &str, safety: Safety| {
        let mut s = spec("a_get");
        s.safety = safety;
        let mut set = ToolSet::from_specs(&[s]);
        set.tools.get_mut("a_get").expect("a_get").version = Some(version.into());
        set
    };
    let kinds = |old: &ToolSet, new: &ToolSet| -> Vec<Kind> {
        diff(old, new, &Policy::default())
            .changes
            .into_iter()
            .map(|c| c.kind)
            .collect()
    };
    let old = versioned("1.4.0", Safety::ReadOnly);
    assert!(
        kinds(&old, &versioned("1.5.0", Safety::Destructive))
            .contains(&Kind::MajorVersionNotBumped)
    );
    assert!(
        !kinds(&old, &versioned("2.0.0", Safety::Destructive))
            .contains(&Kind::MajorVersionNotBumped)
    );
    let old = versioned("0.3.1", Safety::ReadOnly);
    assert!(
        !kinds(&old, &versioned("0.4.0", Safety::Destructive))
            .contains(&Kind::MajorVersionNotBumped),
        "below 1.0.0 a minor bump is the major one"
    );
}

#[test]
fn the_report_is_the_same_bytes_every_run() {
    let old = ToolSet::from_specs(&[spec("a_get"), spec("b_get")]);
    let mut b = spec("b_get");
    b.safety = Safety::Destructive;
    b.errors.clear();
    b.input_schema = json!({"type": "object", "properties": {"id": {"type": "integer"}, "n": {"type": "string"}}, "required": ["n"]});
    let new = ToolSet::from_specs(&[spec("a_get"), b, spec("c_get")]);
    let first = diff(&old, &new, &Policy::default().on("2026-01-01"));
    for format in [Format::Json, Format::Text, Format::Github] {
        let text = first.render(format);
        for _ in 0..10 {
            assert_eq!(
                diff(&old, &new, &Policy::default().on("2026-01-01")).render(format),
                text
            );
        }
    }
    // Worst first: the tool with errors before the tool that was only added.
    assert_eq!(first.changes[0].tool, "b_get");
    assert_eq!(first.changes.last().map(|c| c.kind), Some(Kind::ToolAdded));
}

#[test]
fn github_annotations_escape_what_the_runner_reads() {
    let mut old = spec("a_get");
    old.description = "x".into();
    let mut new = old.clone();
    new.errors[0].message = "50% off,\nnow".into();
    let report = diff(
        &ToolSet::from_specs(&[old]),
        &ToolSet::from_specs(&[new]),
        &Policy::default(),
    );
    let text = report.render(Format::Github);
    let line = text.lines().next().expect("a line");
    assert!(
        line.starts_with("::warning title=a_get%3A error-text-changed::"),
        "{line}"
    );
    assert!(!text.lines().next().unwrap_or("").contains('\n'));
}

/// A small schema: an object of a few properties, each a type with an optional bound, enum or
/// composition.
fn property_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "maxLength": 3})),
        Just(json!({"type": "string", "minLength": 2})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "integer", "minimum": 0})),
        Just(json!({"type": "integer", "maximum": 10})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"enum": ["a", "b"]})),
        Just(json!({"enum": ["a", "b", "c"]})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
        Just(json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]})),
        Just(json!({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]})),
        Just(json!({"type": "array", "items": {"type": "string"}})),
        Just(json!({"type": "array", "items": {"type": "integer"}, "maxItems": 2})),
        Just(json!({})),
    ]
}

fn object_schema() -> impl Strategy<Value = Value> {
    (
        proptest::collection::btree_map("[abc]", property_schema(), 0..4),
        proptest::collection::vec("[abc]", 0..3),
        any::<bool>(),
    )
        .prop_map(|(properties, mut required, closed)| {
            required.sort();
            required.dedup();
            let mut schema =
                json!({"type": "object", "properties": properties, "required": required});
            if closed {
                schema["additionalProperties"] = json!(false);
            }
            schema
        })
}

/// Values of the properties the schemas use.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        (-3i64..15).prop_map(|n| json!(n)),
        Just(json!(1.5)),
        "[a-c]{0,5}".prop_map(|s| json!(s)),
        proptest::collection::vec("[a-c]{0,4}".prop_map(|s| json!(s)), 0..4).prop_map(Value::Array),
        proptest::collection::vec((0i64..3).prop_map(|n| json!(n)), 0..4).prop_map(Value::Array),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A change that makes some old-valid instance invalid is never reported as only `info`.
    /// The instances hold only the properties the old schema declares (an argument no schema
    /// declared is not sent, and adding an optional property is `info` by the table).
    #[test]
    fn a_narrowing_is_never_reported_as_info(
        old in object_schema(),
        new in object_schema(),
        args in proptest::collection::vec(proptest::collection::btree_map("[abc]", value(), 0..4), 1..24),
    ) {
        let compile = |s: &Value| crate::schema::Draft::Draft202012.options().build(s).expect("a schema");
        let (before, after) = (compile(&old), compile(&new));
        let declared: Vec<String> = old["properties"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
        let mut instances: Vec<Value> = args
            .into_iter()
            .map(|m| Value::Object(m.into_iter().filter(|(k, _)| declared.contains(k)).collect()))
            .collect();
        instances.extend(subset::instances(&normal::normalize(&old)).into_iter().filter(|i| {
            i.as_object().is_some_and(|m| m.keys().all(|k| declared.contains(k)))
        }));
        let broken = instances.iter().find(|i| before.is_valid(i) && !after.is_valid(i));
        if let Some(instance) = broken {
            let report = diff(&set(tool(old.clone())), &set(tool(new.clone())), &Policy::default());
            prop_assert!(
                report.changes.iter().any(|c| c.severity != Severity::Info),
                "{} is valid under {} and not under {}, yet the diff says {:?}",
                instance, old, new, report.changes
            );
        }
    }
}
