//! Every chart error reaches the model as the code its tool declares, or as `TOOL_FAILED`.

use toolwright_runtime::{DeclaredError, ToolError, ToolMeta};

use super::declared;
use crate::chart::{ChartError, DrawingKind, IndicatorName, SettingKey};
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
