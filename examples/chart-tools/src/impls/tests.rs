//! Every chart error reaches the model as the code its tool declares, or as `TOOL_FAILED`; the
//! chart's enums, which the inputs hold, read every word the manifests give them.

use toolwright_runtime::handler::ToolMeta;
use toolwright_runtime::{DeclaredError, ToolError};

use super::declared;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::chart::{
    ChartError, DrawingKind, IndicatorName, Interval, LineStyle, PaneKind, SettingKey,
};
use crate::tools;
use toolwright_runtime::Failure;

/// One example of every chart error.
fn every_chart_error() -> Vec<ChartError> {
    vec![
        ChartError::PaneNotFound {
            pane_id: "upper".into(),
            valid: vec!["main".into(), "lower".into()],
        },
        ChartError::InstrumentNotFound {
            symbol: "XYZ".into(),
            known: vec!["AAPL".into()],
        },
        ChartError::DateOutOfRange {
            requested: "2020-01-01".into(),
            of: "the 1d bars of AAPL".into(),
            first: "2024-07-16".into(),
            last: "2025-06-30".into(),
        },
        ChartError::InvalidTimeRange { from: 2, to: 1 },
        ChartError::DrawingNotFound {
            drawing_id: "d9".into(),
            pane_id: None,
            valid: vec!["d1".into()],
        },
        ChartError::IndicatorNotFound {
            pane_id: "main".into(),
            name: IndicatorName::Macd,
            available: vec!["SMA 20".into()],
        },
        ChartError::IndicatorParametersInvalid {
            name: IndicatorName::Macd,
            reason: "the fast period must be shorter than the slow one".into(),
        },
        ChartError::AnchorCountMismatch {
            kind: DrawingKind::Ray,
            expected: 2,
            found: 1,
        },
        ChartError::TextRequired {
            kind: DrawingKind::Text,
        },
        ChartError::SamePane {
            pane_id: "main".into(),
            others: vec!["lower".into()],
        },
        ChartError::ComparisonExists {
            pane_id: "main".into(),
            symbol: "MSFT".into(),
            comparison_id: Some("c1".into()),
        },
        ChartError::PaneLimitReached { limit: 6 },
        ChartError::NothingToChange {
            fields: &["anchors", "style", "text"],
        },
        ChartError::SettingReadOnly {
            key: SettingKey::AppVersion,
            writable: vec![SettingKey::Theme],
        },
        ChartError::SettingValueInvalid {
            key: SettingKey::Theme,
            expected: "`dark` or `light`".into(),
        },
        ChartError::SearchQueryEmpty,
        ChartError::UserUnavailable,
    ]
}

/// A tool's error mapping, with what it made of the error: the code and the tool error.
type Mapping = fn(ChartError) -> (&'static str, ToolError);

fn outcome<E: DeclaredError>(failure: Failure<E>) -> (&'static str, ToolError) {
    (failure.code(), failure.into())
}

/// [`declared`] for each tool whose chart method can fail.
macro_rules! mappings {
    ($($tool:ident),+ $(,)?) => {
        vec![$((
            &tools::$tool::META,
            (|e| outcome(declared::<tools::$tool::Error>(e))) as Mapping,
        )),+]
    };
}

fn every_mapping() -> Vec<(&'static ToolMeta, Mapping)> {
    mappings![
        ask_user,
        comparison_create,
        comparisons_clear,
        comparisons_list,
        drawing_create,
        drawing_delete,
        drawing_update,
        drawings_clear,
        drawings_copy,
        drawings_list,
        indicators_query,
        market_bars_query,
        market_timeshare_query,
        market_timeshare_range_query,
        pane_create,
        pane_replace_content,
        panes_clear,
        panes_list,
        settings_reset,
        settings_update,
        web_search,
    ]
}

#[test]
fn each_declared_code_maps_to_itself_with_the_guidance() {
    let mut declared_seen = 0;
    for (meta, map) in every_mapping() {
        for error in every_chart_error() {
            let (code, tool_error) = map(error.clone());
            if meta.error(error.code()).is_some() {
                declared_seen += 1;
                assert_eq!(code, error.code(), "`{}` maps {error:?}", meta.name);
                assert_eq!(
                    tool_error,
                    ToolError::Declared {
                        code: error.code(),
                        detail: Some(error.detail()),
                    },
                    "`{}`",
                    meta.name
                );
            } else {
                assert_eq!(code, "TOOL_FAILED", "`{}` maps {error:?}", meta.name);
                let ToolError::Failed(message) = tool_error else {
                    panic!("`{}`: {error:?} should fail without a code", meta.name);
                };
                assert!(message.contains(error.code()), "{message}");
            }
        }
    }
    // Every code any mapped tool declares was met: the samples cover the manifests.
    let declared_total: usize = every_mapping()
        .iter()
        .map(|(meta, _)| meta.errors.len())
        .sum();
    assert_eq!(declared_seen, declared_total);
}

#[test]
fn every_fallible_tool_has_a_mapping() {
    let mapped: Vec<&str> = every_mapping().iter().map(|(meta, _)| meta.name).collect();
    // The tools without a mapping cannot fail: their chart methods return no `Result`.
    let infallible = ["instruments_query_name", "settings_get"];
    for meta in super::tool_defs().iter().map(|def| def.meta) {
        assert!(
            mapped.contains(&meta.name) != infallible.contains(&meta.name),
            "`{}`",
            meta.name
        );
    }
    let mut sampled: Vec<&str> = every_chart_error().iter().map(ChartError::code).collect();
    sampled.sort_unstable();
    assert_eq!(
        sampled,
        ChartError::CODES,
        "one sample of every chart error"
    );
}

/// Whether `word` reads as a `T` that writes it back.
fn reads_back<T: DeserializeOwned + Serialize>(word: &Value) -> bool {
    serde_json::from_value::<T>(word.clone())
        .is_ok_and(|value| serde_json::to_value(value).ok().as_ref() == Some(word))
}

/// The string enums of the manifests' inputs, by tool and JSON Pointer.
fn string_enums(at: &str, schema: &Value, found: &mut Vec<(String, Vec<Value>)>) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Array(words)) = object.get("enum")
                && words.iter().all(Value::is_string)
            {
                found.push((at.to_owned(), words.clone()));
            }
            for (key, value) in object {
                string_enums(&format!("{at}/{key}"), value, found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                string_enums(&format!("{at}/{i}"), item, found);
            }
        }
        _ => {}
    }
}

/// The inputs hold the chart's enums where the manifests have a string enum (`build.rs` maps
/// the generated types to them), so each must read every word its manifests declare: a word
/// added to a manifest without a chart counterpart fails here, as does a string enum of a new
/// manifest that is not listed.
#[test]
fn the_chart_enums_read_every_word_of_the_manifests() {
    type Reads = fn(&Value) -> bool;
    let interval: Reads = reads_back::<Interval>;
    let indicator: Reads = reads_back::<IndicatorName>;
    let setting: Reads = reads_back::<SettingKey>;
    let line_style: Reads = reads_back::<LineStyle>;
    let readers: [(&str, &str, Option<Reads>); 14] = [
        // `code_interpreter`'s language is a generated enum; the interpreter reads it.
        ("code_interpreter", "/properties/language", None),
        (
            "drawing_create",
            "/properties/kind",
            Some(reads_back::<DrawingKind>),
        ),
        (
            "drawing_create",
            "/properties/style/properties/line_style",
            Some(line_style),
        ),
        (
            "drawing_update",
            "/properties/style/properties/line_style",
            Some(line_style),
        ),
        ("indicators_query", "/properties/name", Some(indicator)),
        ("market_bars_query", "/properties/interval", Some(interval)),
        ("pane_create", "/properties/interval", Some(interval)),
        (
            "pane_create",
            "/properties/kind",
            Some(reads_back::<PaneKind>),
        ),
        (
            "pane_create",
            "/properties/indicators/items/properties/name",
            Some(indicator),
        ),
        (
            "pane_replace_content",
            "/properties/interval",
            Some(interval),
        ),
        (
            "pane_replace_content",
            "/properties/indicators/items/properties/name",
            Some(indicator),
        ),
        ("settings_get", "/properties/keys/items", Some(setting)),
        ("settings_reset", "/properties/keys/items", Some(setting)),
        ("settings_update", "/properties/key", Some(setting)),
    ];
    let mut seen = 0;
    for meta in tools::ALL {
        let schema = meta.input_schema.to_value().expect("the schema is JSON");
        let mut found = Vec::new();
        string_enums("", &schema, &mut found);
        for (pointer, words) in found {
            let Some((_, _, reads)) = readers
                .iter()
                .find(|(tool, at, _)| *tool == meta.name && *at == pointer)
            else {
                panic!(
                    "`{}` has a string enum at `{pointer}` no chart enum is listed for",
                    meta.name
                );
            };
            seen += 1;
            let Some(reads) = reads else { continue };
            for word in &words {
                assert!(
                    reads(word),
                    "`{}` at `{pointer}`: the chart does not read {word}",
                    meta.name
                );
            }
        }
    }
    assert_eq!(seen, readers.len(), "every listed enum is in a manifest");
}
