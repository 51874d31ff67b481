//! The code generated from `tools/*.toml` compiles, accepts the declared examples and carries
//! exactly the declared metadata.

use generated_check::schemas;
use generated_check::tools::{
    self, _self, big_values, doc_fences, draft07_ranges, draft2019_pairs, drawing_create,
    mapping_rules, market_bars_query, panes_list, quote_hashes, settings_update,
};
use serde_json::{Value, json};
use toolwright_runtime::__private::{schemars, serde};
use toolwright_runtime::DeclaredError;
use toolwright_runtime::handler::{Mode, Safety, ToolMeta};

/// Deserializes every example of `meta` into `T` and serializes it back to the same JSON.
fn examples_round_trip<T>(meta: &ToolMeta)
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    assert!(
        !meta.examples.is_empty(),
        "`{}` declares examples",
        meta.name
    );
    for example in meta.examples {
        let input: T = serde_json::from_str(example.input).unwrap_or_else(|e| {
            panic!(
                "example {:?} of `{}` does not deserialize: {e}",
                example.description, meta.name
            )
        });
        let back = serde_json::to_value(&input).expect("the input serializes");
        let original: Value = serde_json::from_str(example.input).expect("examples are JSON");
        let schema = meta.input_schema.to_value().expect("schema JSON");
        assert!(
            same_but_defaults(&back, &original, &schema),
            "example {:?} of `{}`: {back} is not {original} with its defaults",
            example.description,
            meta.name
        );
    }
}

/// `back` is `original` plus, where `original` leaves out a property whose schema has a
/// `default`, that default (an absent field is read as its default).
fn same_but_defaults(back: &Value, original: &Value, schema: &Value) -> bool {
    match (back, original) {
        (Value::Object(back), Value::Object(original)) => {
            let property = |key: &str| &schema["properties"][key];
            original.iter().all(|(k, v)| {
                back.get(k)
                    .is_some_and(|b| same_but_defaults(b, v, property(k)))
            }) && back
                .iter()
                .filter(|(k, _)| !original.contains_key(*k))
                .all(|(k, v)| property(k).get("default").is_some_and(|d| same(d, v)))
        }
        (Value::Array(back), Value::Array(original)) => {
            back.len() == original.len()
                && back
                    .iter()
                    .zip(original)
                    .all(|(b, o)| same_but_defaults(b, o, &schema["items"]))
        }
        _ => same(back, original),
    }
}

/// The same JSON value as JSON Schema compares them: a number by its value (a `number` is an
/// `f64`, which writes `1` back as `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn every_example_deserializes_into_the_typed_input_and_back() {
    examples_round_trip::<drawing_create::Input>(&drawing_create::META);
    examples_round_trip::<market_bars_query::Input>(&market_bars_query::META);
    examples_round_trip::<panes_list::Input>(&panes_list::META);
    examples_round_trip::<settings_update::Input>(&settings_update::META);
    examples_round_trip::<_self::Input>(&_self::META);
    examples_round_trip::<big_values::Input>(&big_values::META);
    examples_round_trip::<doc_fences::Input>(&doc_fences::META);
    examples_round_trip::<quote_hashes::Input>(&quote_hashes::META);
    examples_round_trip::<mapping_rules::Input>(&mapping_rules::META);
    examples_round_trip::<draft07_ranges::Input>(&draft07_ranges::META);
    examples_round_trip::<draft2019_pairs::Input>(&draft2019_pairs::META);
}

#[test]
fn all_lists_every_tool_sorted_by_name() {
    let names: Vec<&str> = tools::ALL.iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        [
            "big_values",
            "doc_fences",
            "draft07_ranges",
            "draft2019_pairs",
            "drawing_create",
            "mapping_rules",
            "market_bars_query",
            "panes_list",
            "quote_hashes",
            "self",
            "settings_update"
        ]
    );
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert!(std::ptr::eq(tools::ALL[4], &drawing_create::META));
}

#[test]
fn metadata_is_what_the_manifest_declares() {
    let meta = &drawing_create::META;
    assert_eq!(meta.name, "drawing_create");
    assert_eq!(meta.title, "Create a drawing");
    assert_eq!(meta.safety, Safety::Destructive);
    assert_eq!(meta.mode, Mode::Sequential);
    assert_eq!(meta.category, Some("drawings"));
    assert_eq!(meta.source, "tools/drawing_create.toml");
    assert!(meta.output_schema.is_none());
    let error = meta.error("PANE_NOT_FOUND").expect("declared");
    assert!(error.retryable);
    assert_eq!(
        error.recommended_action,
        "List the panes and use one of their IDs."
    );
    let schema = meta.input_schema.to_value().expect("schema JSON");
    assert_eq!(schema["required"], json!(["pane_id", "kind", "anchors"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert!(schema.get("$schema").is_none());

    let panes = &panes_list::META;
    assert_eq!(
        (panes.safety, panes.mode, panes.category),
        (Safety::ReadOnly, Mode::Parallel, None)
    );
    assert!(panes.errors.is_empty());

    let bars = &market_bars_query::META;
    let output = bars
        .output_schema
        .expect("declared")
        .to_value()
        .expect("schema JSON");
    assert_eq!(output["required"], json!(["bars"]));
    assert!(
        bars.description
            .starts_with("Reads the bars of an instrument.\n\n- `interval`")
    );

    let settings = &settings_update::META;
    assert_eq!(
        settings.error("SETTING_LOCKED").map(|e| e.retryable),
        Some(false)
    );
}

#[test]
fn error_variants_return_their_declared_codes() {
    assert_eq!(drawing_create::Error::PaneNotFound.code(), "PANE_NOT_FOUND");
    assert_eq!(
        drawing_create::Error::DateOutOfRange.code(),
        "DATE_OUT_OF_RANGE"
    );
    assert_eq!(
        market_bars_query::Error::SymbolNotFound.code(),
        "SYMBOL_NOT_FOUND"
    );
    assert_eq!(
        settings_update::Error::SettingLocked.code(),
        "SETTING_LOCKED"
    );
    for meta in tools::ALL {
        for error in meta.errors {
            assert!(meta.error(error.code).is_some());
        }
    }
}

/// `Error::from_code` of each declared code, through `TryFrom<&str>` too, as generic code reads
/// it.
fn codes_read_back<E>(meta: &ToolMeta, from_code: fn(&str) -> Option<E>)
where
    E: DeclaredError + for<'a> TryFrom<&'a str, Error = &'a str> + std::fmt::Debug,
{
    for error in meta.errors {
        let read = from_code(error.code).expect("a declared code");
        assert_eq!(read.code(), error.code);
        assert_eq!(E::try_from(error.code).map(|e| e.code()), Ok(error.code));
    }
    assert!(from_code("TOOL_FAILED").is_none());
    assert_eq!(
        E::try_from("NOT_DECLARED").map(|e| e.code()),
        Err("NOT_DECLARED")
    );
}

#[test]
fn declared_codes_read_back_as_their_variants() {
    assert_eq!(
        drawing_create::Error::from_code("PANE_NOT_FOUND"),
        Some(drawing_create::Error::PaneNotFound)
    );
    assert_eq!(drawing_create::Error::from_code("pane_not_found"), None);
    codes_read_back(&drawing_create::META, drawing_create::Error::from_code);
    codes_read_back(
        &market_bars_query::META,
        market_bars_query::Error::from_code,
    );
    codes_read_back(&settings_update::META, settings_update::Error::from_code);
    codes_read_back(&doc_fences::META, doc_fences::Error::from_code);
    // A tool without codes reads none.
    codes_read_back(&panes_list::META, panes_list::Error::from_code);
}

#[test]
fn string_enums_are_rust_enums_with_the_declared_spellings() {
    let input: drawing_create::Input = serde_json::from_value(json!({
        "pane_id": "main",
        "kind": "text-note",
        "anchors": [{"time": 1, "price": 2.5}],
        "style": {"kind": "dotted"}
    }))
    .expect("valid input");
    assert_eq!(input.kind, drawing_create::Kind::TextNote);
    let style = input.style.expect("given");
    assert_eq!(style.kind, Some(drawing_create::StyleKind::Dotted));
    // `width` is absent: it is read as the schema's `default`.
    assert_eq!(style.width, Some(1));
    assert_eq!(input.anchors[0].time, 1_i64);
    assert_eq!(input.anchors[0].price, 2.5_f64);

    let interval: market_bars_query::Interval =
        serde_json::from_value(json!("1h")).expect("declared");
    assert_eq!(interval, market_bars_query::Interval::V1h);
    assert_eq!(
        serde_json::to_value(market_bars_query::Interval::V1m).expect("serializes"),
        json!("1m")
    );
    assert!(serde_json::from_value::<market_bars_query::Interval>(json!("2h")).is_err());
}

#[test]
fn unknown_fields_are_rejected_only_when_the_schema_is_closed() {
    let closed = serde_json::from_value::<drawing_create::Input>(json!({
        "pane_id": "main", "kind": "trend_line", "anchors": [], "colour": "red"
    }));
    let message = closed
        .expect_err("additionalProperties = false")
        .to_string();
    assert!(message.contains("colour"), "{message}");
    assert!(serde_json::from_value::<panes_list::Input>(json!({"x": 1})).is_err());
    assert!(serde_json::from_value::<panes_list::Input>(json!({})).is_ok());

    let open = serde_json::from_value::<settings_update::Input>(json!({
        "type": "theme", "paneId": "main", "note": null, "colour": "red"
    }));
    assert!(
        open.is_ok(),
        "an open schema ignores unknown fields: {open:?}"
    );
}

#[test]
fn renamed_nullable_and_map_fields_follow_the_schema() {
    let input: settings_update::Input = serde_json::from_value(json!({
        "type": "layout",
        "paneId": "main",
        "note": null,
        "values": {"opacity": 0.5, "name": "x", "grid": true},
        "levels": [[1], []],
        "entries": [{"key": "k", "scope": null}]
    }))
    .expect("valid input");
    assert_eq!(input.r#type, settings_update::Type::Layout);
    assert_eq!(input.pane_id2, settings_update::PaneId::Main);
    assert_eq!(input.note, None);
    let values = input.values.as_ref().expect("given");
    // A `type` list is an enum of its types.
    assert_eq!(
        values.get("grid"),
        Some(&settings_update::ValuesValue::Boolean(true))
    );
    assert_eq!(input.levels, Some(vec![vec![1], vec![]]));
    assert_eq!(input.mixed, None);
    let entries = input.entries.as_ref().expect("given");
    assert_eq!(entries[0].key, "k");
    // An optional nullable field tells `null` (`Some(None)`) from absence (`None`).
    assert_eq!(entries[0].scope, Some(None));

    let back = serde_json::to_value(&input).expect("serializes");
    // A required nullable field is written even when null; absent optional fields are not.
    assert_eq!(back["note"], Value::Null);
    assert!(back.get("limit").is_none());
    assert_eq!(back["type"], json!("layout"));
    assert_eq!(back["paneId"], json!("main"));
}

/// The schemars schema of a generated input (with `derive_json_schema`) has the manifest's
/// properties and required list.
fn derived_schema_matches<T: schemars::JsonSchema>(meta: &ToolMeta) {
    let derived = serde_json::to_value(schemars::schema_for!(T)).expect("schema serializes");
    let declared = meta.input_schema.to_value().expect("schema JSON");
    let keys = |schema: &Value| -> Vec<String> {
        schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(
        keys(&derived),
        keys(&declared),
        "properties of `{}`",
        meta.name
    );
    let required = |schema: &Value| -> Vec<String> {
        let mut names: Vec<String> = schema["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    assert_eq!(
        required(&derived),
        required(&declared),
        "required of `{}`",
        meta.name
    );
    // A closed object stays closed; an open one keeps its other properties (a flattened map,
    // which schemars writes as `additionalProperties`).
    let closed = |schema: &Value| schema.get("additionalProperties") == Some(&Value::Bool(false));
    assert_eq!(
        closed(&derived),
        closed(&declared),
        "additionalProperties of `{}`",
        meta.name
    );
}

#[test]
fn derived_schemas_stay_close_to_the_manifests() {
    derived_schema_matches::<schemas::drawing_create::Input>(&drawing_create::META);
    derived_schema_matches::<schemas::market_bars_query::Input>(&market_bars_query::META);
    derived_schema_matches::<schemas::panes_list::Input>(&panes_list::META);
    derived_schema_matches::<schemas::settings_update::Input>(&settings_update::META);
    derived_schema_matches::<schemas::_self::Input>(&_self::META);
    derived_schema_matches::<schemas::big_values::Input>(&big_values::META);
    derived_schema_matches::<schemas::doc_fences::Input>(&doc_fences::META);
    derived_schema_matches::<schemas::quote_hashes::Input>(&quote_hashes::META);

    let derived = serde_json::to_value(schemars::schema_for!(schemas::market_bars_query::Input))
        .expect("serializes");
    assert_eq!(derived["properties"]["limit"]["maximum"], json!(1000));
    assert_eq!(derived["properties"]["symbol"]["maxLength"], json!(32));

    let derived = serde_json::to_value(schemars::schema_for!(schemas::settings_update::Input))
        .expect("serializes");
    let declared = settings_update::META
        .input_schema
        .to_value()
        .expect("schema JSON");
    for keyword in ["pattern", "examples", "default", "deprecated"] {
        assert_eq!(
            derived["properties"]["code"][keyword], declared["properties"]["code"][keyword],
            "{keyword}"
        );
    }
    assert_eq!(
        derived["properties"]["extra"]["default"],
        json!({"a": 1, "b": "x"})
    );
}

#[test]
fn names_that_are_not_identifiers_or_collide_still_map_to_their_properties() {
    let input: settings_update::Input = serde_json::from_value(json!({
        "type": "theme",
        "paneId": "main",
        "pane_id": "lower",
        "note": "n",
        "self": true,
        "1st": 7,
        "mixed": 2.5,
        "string": {"mode": "a_b"},
        "error": {"code": "E"}
    }))
    .expect("valid input");
    // `pane_id` is already an identifier and keeps it; `paneId` gets the next free one.
    assert_eq!(input.pane_id.as_deref(), Some("lower"));
    assert_eq!(input.pane_id2, settings_update::PaneId::Main);
    assert_eq!(input.self_, Some(true));
    assert_eq!(input._1st, Some(7));
    assert_eq!(input.mixed, Some(Some(settings_update::Mixed::Number(2.5))));
    // Nested types that would shadow `String` and `Error` are named after their parent.
    let string: &settings_update::InputString = input.string.as_ref().expect("given");
    assert_eq!(string.mode, Some(settings_update::Mode::AB2));
    let error: &settings_update::InputError = input.error.as_ref().expect("given");
    assert_eq!(error.code.as_deref(), Some("E"));

    let modes = [
        (settings_update::Mode::AB, "a-b"),
        (settings_update::Mode::AB2, "a_b"),
        (settings_update::Mode::SelfValue, "Self"),
        (settings_update::Mode::Empty, ""),
        (settings_update::Mode::V2x, "2x"),
        (settings_update::Mode::SayHi, "say \"hi\""),
        (settings_update::Mode::BackSlash, "back\\slash"),
        (settings_update::Mode::GrE, "größe"),
        (settings_update::Mode::Evil, "\u{202E}evil"),
        (settings_update::Mode::Empty2, "\0"),
    ];
    for (mode, word) in modes {
        assert_eq!(serde_json::to_value(mode).expect("serializes"), json!(word));
    }
    let back = serde_json::to_value(&input).expect("serializes");
    assert_eq!(back["1st"], json!(7));
    assert_eq!(back["self"], json!(true));
    assert_eq!(back["pane_id"], json!("lower"));
}

/// Every word a string enum's schema declares reads into a variant whose JSON, `as_str()` and
/// `to_string()` are that very word (not the variant's Rust name), and back.
fn words_round_trip<T>(meta: &ToolMeta, pointer: &str, as_str: fn(&T) -> &'static str)
where
    T: serde::de::DeserializeOwned
        + serde::Serialize
        + std::fmt::Display
        + PartialEq
        + std::fmt::Debug,
{
    let schema = meta.input_schema.to_value().expect("schema JSON");
    let words = schema
        .pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("`{}` declares an enum at {pointer}", meta.name));
    assert!(words.len() > 1, "{pointer}: {words:?}");
    for word in words {
        let word = word.as_str().expect("a string enum");
        let value: T = serde_json::from_value(json!(word))
            .unwrap_or_else(|e| panic!("{word:?} of `{}` does not deserialize: {e}", meta.name));
        let serialized = serde_json::to_value(&value).expect("serializes");
        assert_eq!(serialized, json!(word), "{value:?}");
        assert_eq!(as_str(&value), word, "{value:?}");
        assert_eq!(value.to_string(), word, "{value:?}");
        let back: T = serde_json::from_value(serialized).expect("reads back");
        assert_eq!(back, value);
    }
}

#[test]
fn every_string_enum_value_is_its_declared_word_in_json_as_str_and_display() {
    words_round_trip(
        &settings_update::META,
        "/properties/string/properties/mode/enum",
        settings_update::Mode::as_str,
    );
    words_round_trip(
        &settings_update::META,
        "/properties/type/enum",
        settings_update::Type::as_str,
    );
    words_round_trip(
        &drawing_create::META,
        "/properties/kind/enum",
        drawing_create::Kind::as_str,
    );
    words_round_trip(
        &drawing_create::META,
        "/properties/style/properties/kind/enum",
        drawing_create::StyleKind::as_str,
    );
    words_round_trip(
        &market_bars_query::META,
        "/properties/interval/enum",
        market_bars_query::Interval::as_str,
    );
    words_round_trip(
        &market_bars_query::META,
        "/properties/fields/items/enum",
        market_bars_query::Field::as_str,
    );
    // `as_str` is a `const fn`: the word is there at compile time.
    const HOSTILE: &str = settings_update::Mode::BackSlash.as_str();
    assert_eq!(HOSTILE, "back\\slash");
    assert_eq!(
        format!(
            "[{:>6}|{:<7}]",
            drawing_create::StyleKind::Solid,
            drawing_create::Kind::TrendLine
        ),
        "[ solid|trend_line]",
        "`Display` pads the word like a `str`"
    );
}
