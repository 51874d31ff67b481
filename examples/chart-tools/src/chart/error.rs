//! The chart's domain errors: one variant per declared error code, each with its guidance.

use std::fmt;

use super::drawings::DrawingKind;
use super::indicators::IndicatorName;
use super::settings::SettingKey;

/// Why a chart operation failed. Each variant is one error code declared in the tool manifests
/// ([`ChartError::code`]); [`ChartError::detail`] is the tool-specific guidance for the model.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartError {
    /// `PANE_NOT_FOUND`.
    PaneNotFound {
        /// The pane ID that was asked for.
        pane_id: String,
        /// The pane IDs that exist.
        valid: Vec<String>,
    },
    /// `INSTRUMENT_NOT_FOUND`.
    InstrumentNotFound {
        /// The symbol that was asked for.
        symbol: String,
        /// The symbols the chart knows.
        known: Vec<String>,
    },
    /// `DATE_OUT_OF_RANGE`.
    DateOutOfRange {
        /// The requested time or window, in ISO 8601.
        requested: String,
        /// What the loaded range is of, e.g. `the 1d bars of AAPL`.
        of: String,
        /// The first loaded bar, in ISO 8601.
        first: String,
        /// The last loaded bar, in ISO 8601.
        last: String,
    },
    /// `INVALID_TIME_RANGE`.
    InvalidTimeRange {
        /// The start of the window (unix seconds).
        from: i64,
        /// The end of the window (unix seconds).
        to: i64,
    },
    /// `DRAWING_NOT_FOUND`.
    DrawingNotFound {
        /// The drawing ID that was asked for.
        drawing_id: String,
        /// The pane searched, when the search was limited to one pane.
        pane_id: Option<String>,
        /// The drawing IDs that exist (on that pane).
        valid: Vec<String>,
    },
    /// `INDICATOR_NOT_FOUND`.
    IndicatorNotFound {
        /// The pane searched.
        pane_id: String,
        /// The indicator that was asked for.
        name: IndicatorName,
        /// The labels of the indicators on the pane.
        available: Vec<String>,
    },
    /// `INDICATOR_PARAMETERS_INVALID`.
    IndicatorParametersInvalid {
        /// The indicator.
        name: IndicatorName,
        /// What is wrong with its parameters.
        reason: String,
    },
    /// `ANCHOR_COUNT_MISMATCH`.
    AnchorCountMismatch {
        /// The drawing kind.
        kind: DrawingKind,
        /// How many anchors the kind takes.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// `TEXT_REQUIRED`.
    TextRequired {
        /// The drawing kind that needs a text.
        kind: DrawingKind,
    },
    /// `SAME_PANE`.
    SamePane {
        /// The pane given as both source and target.
        pane_id: String,
        /// The other panes, possible targets.
        others: Vec<String>,
    },
    /// `COMPARISON_EXISTS`.
    ComparisonExists {
        /// The pane.
        pane_id: String,
        /// The symbol already shown on it.
        symbol: String,
        /// The existing comparison's ID, or `None` when the symbol is the pane's own.
        comparison_id: Option<String>,
    },
    /// `PANE_LIMIT_REACHED`.
    PaneLimitReached {
        /// The most panes a chart holds.
        limit: usize,
    },
    /// `NOTHING_TO_CHANGE`.
    NothingToChange {
        /// The optional arguments of which at least one is needed.
        fields: &'static [&'static str],
    },
    /// `SETTING_READ_ONLY`.
    SettingReadOnly {
        /// The read-only key.
        key: SettingKey,
        /// The keys that may be changed.
        writable: Vec<SettingKey>,
    },
    /// `SETTING_VALUE_INVALID`.
    SettingValueInvalid {
        /// The key.
        key: SettingKey,
        /// What the key accepts.
        expected: String,
    },
    /// `SEARCH_QUERY_EMPTY`.
    SearchQueryEmpty,
    /// `USER_UNAVAILABLE`.
    UserUnavailable,
}

impl ChartError {
    /// Every code a chart operation can fail with, sorted.
    pub const CODES: &'static [&'static str] = &[
        "ANCHOR_COUNT_MISMATCH",
        "COMPARISON_EXISTS",
        "DATE_OUT_OF_RANGE",
        "DRAWING_NOT_FOUND",
        "INDICATOR_NOT_FOUND",
        "INDICATOR_PARAMETERS_INVALID",
        "INSTRUMENT_NOT_FOUND",
        "INVALID_TIME_RANGE",
        "NOTHING_TO_CHANGE",
        "PANE_LIMIT_REACHED",
        "PANE_NOT_FOUND",
        "SAME_PANE",
        "SEARCH_QUERY_EMPTY",
        "SETTING_READ_ONLY",
        "SETTING_VALUE_INVALID",
        "TEXT_REQUIRED",
        "USER_UNAVAILABLE",
    ];

    /// The error code declared in the manifests.
    pub const fn code(&self) -> &'static str {
        match self {
            ChartError::PaneNotFound { .. } => "PANE_NOT_FOUND",
            ChartError::InstrumentNotFound { .. } => "INSTRUMENT_NOT_FOUND",
            ChartError::DateOutOfRange { .. } => "DATE_OUT_OF_RANGE",
            ChartError::InvalidTimeRange { .. } => "INVALID_TIME_RANGE",
            ChartError::DrawingNotFound { .. } => "DRAWING_NOT_FOUND",
            ChartError::IndicatorNotFound { .. } => "INDICATOR_NOT_FOUND",
            ChartError::IndicatorParametersInvalid { .. } => "INDICATOR_PARAMETERS_INVALID",
            ChartError::AnchorCountMismatch { .. } => "ANCHOR_COUNT_MISMATCH",
            ChartError::TextRequired { .. } => "TEXT_REQUIRED",
            ChartError::SamePane { .. } => "SAME_PANE",
            ChartError::ComparisonExists { .. } => "COMPARISON_EXISTS",
            ChartError::PaneLimitReached { .. } => "PANE_LIMIT_REACHED",
            ChartError::NothingToChange { .. } => "NOTHING_TO_CHANGE",
            ChartError::SettingReadOnly { .. } => "SETTING_READ_ONLY",
            ChartError::SettingValueInvalid { .. } => "SETTING_VALUE_INVALID",
            ChartError::SearchQueryEmpty => "SEARCH_QUERY_EMPTY",
            ChartError::UserUnavailable => "USER_UNAVAILABLE",
        }
    }

    /// The tool-specific guidance added to the declared message, e.g. `Valid pane IDs: main, lower.`
    pub fn detail(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::PaneNotFound { pane_id, valid } => {
                write!(
                    f,
                    "No pane `{}`. Valid pane IDs: {}.",
                    short(pane_id),
                    valid.join(", ")
                )
            }
            ChartError::InstrumentNotFound { symbol, known } => write!(
                f,
                "No instrument `{}`. Known symbols: {}.",
                short(symbol),
                known.join(", ")
            ),
            ChartError::DateOutOfRange {
                requested,
                of,
                first,
                last,
            } => write!(
                f,
                "{requested} is outside the loaded range of {of}: {first} to {last}."
            ),
            ChartError::InvalidTimeRange { from, to } => write!(
                f,
                "`from` ({}) is after `to` ({}).",
                super::time::iso_datetime(*from),
                super::time::iso_datetime(*to)
            ),
            ChartError::DrawingNotFound {
                drawing_id,
                pane_id,
                valid,
            } => {
                write!(f, "No drawing `{}`", short(drawing_id))?;
                if let Some(pane_id) = pane_id {
                    write!(f, " on pane `{pane_id}`")?;
                }
                if valid.is_empty() {
                    f.write_str(". There are no drawings there.")
                } else {
                    write!(f, ". Existing drawing IDs: {}.", valid.join(", "))
                }
            }
            ChartError::IndicatorNotFound {
                pane_id,
                name,
                available,
            } => {
                write!(f, "Pane `{pane_id}` shows no `{name}` indicator. ")?;
                if available.is_empty() {
                    f.write_str("It shows no indicators.")
                } else {
                    write!(f, "Indicators on it: {}.", available.join(", "))
                }
            }
            ChartError::IndicatorParametersInvalid { name, reason } => {
                write!(f, "Invalid parameters for `{name}`: {reason}.")
            }
            ChartError::AnchorCountMismatch {
                kind,
                expected,
                found,
            } => write!(
                f,
                "A `{kind}` takes {expected} anchor{}, {found} given.",
                if *expected == 1 { "" } else { "s" }
            ),
            ChartError::TextRequired { kind } => {
                write!(f, "A `{kind}` drawing needs a non-empty `text`.")
            }
            ChartError::SamePane { pane_id, others } => {
                write!(f, "`{pane_id}` is both the source and the target pane.")?;
                if others.is_empty() {
                    f.write_str(" There is no other pane; create one with pane_create.")
                } else {
                    write!(f, " Other panes: {}.", others.join(", "))
                }
            }
            ChartError::ComparisonExists {
                pane_id,
                symbol,
                comparison_id,
            } => match comparison_id {
                Some(id) => write!(
                    f,
                    "{symbol} is already compared on pane `{pane_id}` (comparison `{id}`)."
                ),
                None => write!(f, "{symbol} is the symbol of pane `{pane_id}` itself."),
            },
            ChartError::PaneLimitReached { limit } => {
                write!(f, "The chart already has {limit} panes, the most it holds.")
            }
            ChartError::NothingToChange { fields } => {
                f.write_str("Nothing to change: give at least one of ")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(if i + 1 == fields.len() { " or " } else { ", " })?;
                    }
                    write!(f, "`{field}`")?;
                }
                f.write_str(".")
            }
            ChartError::SettingReadOnly { key, writable } => {
                write!(f, "`{key}` is read-only. Writable settings: ")?;
                for (i, key) in writable.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(key.as_str())?;
                }
                f.write_str(".")
            }
            ChartError::SettingValueInvalid { key, expected } => {
                write!(f, "`{key}` expects {expected}.")
            }
            ChartError::SearchQueryEmpty => {
                f.write_str("The query has no searchable words; use words of letters or digits.")
            }
            ChartError::UserUnavailable => {
                f.write_str("No one is available to answer questions in this session.")
            }
        }
    }
}

impl std::error::Error for ChartError {}

/// At most 40 characters of `text`, with `…` when cut: messages never echo long input.
pub(crate) fn short(text: &str) -> String {
    const LIMIT: usize = 40;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_cut() {
        assert_eq!(short("main"), "main");
        let long = "x".repeat(100);
        assert_eq!(short(&long), format!("{}…", "x".repeat(40)));
        let wide = "é".repeat(41);
        assert_eq!(short(&wide), format!("{}…", "é".repeat(40)));
    }

    #[test]
    fn codes_are_sorted_and_unique() {
        let mut sorted = ChartError::CODES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, ChartError::CODES);
    }

    #[test]
    fn guidance_lists_what_is_valid() {
        let error = ChartError::PaneNotFound {
            pane_id: "upper".into(),
            valid: vec!["main".into(), "lower".into()],
        };
        assert_eq!(error.code(), "PANE_NOT_FOUND");
        assert_eq!(
            error.detail(),
            "No pane `upper`. Valid pane IDs: main, lower."
        );
        let error = ChartError::NothingToChange {
            fields: &["symbol", "interval", "indicators"],
        };
        assert_eq!(
            error.detail(),
            "Nothing to change: give at least one of `symbol`, `interval` or `indicators`."
        );
        let error = ChartError::AnchorCountMismatch {
            kind: DrawingKind::HorizontalLine,
            expected: 1,
            found: 2,
        };
        assert_eq!(
            error.detail(),
            "A `horizontal_line` takes 1 anchor, 2 given."
        );
    }
}
