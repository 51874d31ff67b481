//! An in-memory chart: the domain behind the reference tool set.
//!
//! [`Chart::demo`] builds a chart with deterministic data (see [`market`] for how prices are
//! generated): five instruments (AAPL, MSFT, NVDA, BTCUSD, EURUSD), two panes (`main`: AAPL daily
//! candles with an SMA 20; `lower`: AAPL daily RSI 14), three drawings (`d1`, `d2` on `main`,
//! `d3` on `lower`), one comparison (`c1`: MSFT on `main`), default settings and an offline
//! search index.
//!
//! Each tool has one method here, named as the tool. Reads take `&self`, writes `&mut self`.
//! Failures are [`ChartError`]s, one variant per declared error code, each carrying guidance
//! for the model. The methods trust nothing: arguments that a tool schema would reject are
//! still handled without panicking.

mod ask;
mod comparisons;
mod drawings;
mod error;
mod indicators;
pub mod market;
mod panes;
mod search;
mod settings;
mod time;
mod words;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

pub use ask::{AskUserFn, UserAnswer};
pub use comparisons::{Comparison, ComparisonView, ComparisonsCleared, ComparisonsList};
pub use drawings::{
    Anchor, Drawing, DrawingDeleted, DrawingKind, DrawingsCleared, DrawingsCopied, DrawingsList,
    LineStyle, Style, StyleChange,
};
pub use error::ChartError;
pub use indicators::{
    Indicator, IndicatorName, IndicatorParams, IndicatorPoint, IndicatorSeries, IndicatorsQuery,
};
pub use market::{
    AssetClass, Bar, BarsQuery, InstrumentInfo, InstrumentMatches, Interval, LoadedRange,
    Timeshare, TimesharePoint,
};
pub use panes::{
    IndicatorRequest, IndicatorView, MAIN_PANE, PANE_LIMIT, Pane, PaneKind, PaneView, PanesCleared,
    PanesList,
};
pub use search::{Document, SearchResult, SearchResults};
pub use settings::{SettingChanged, SettingKey, SettingValue, SettingView, SettingsList};
pub use time::{iso_date, iso_datetime};
pub use words::UnknownWord;

use market::InstrumentData;

/// The chart: instruments, panes, drawings, comparisons, settings, a search index, and the
/// host's way of asking the user.
pub struct Chart {
    market: BTreeMap<&'static str, InstrumentData>,
    panes: Vec<Pane>,
    drawings: Vec<Drawing>,
    comparisons: Vec<Comparison>,
    settings: BTreeMap<SettingKey, SettingValue>,
    search_index: &'static [Document],
    next_pane: u32,
    next_drawing: u32,
    next_comparison: u32,
    ask_user: Option<AskUserFn>,
    /// How `code_interpreter` runs code; set by the host with `Chart::with_interpreter`.
    #[cfg(feature = "code-interpreter")]
    pub(crate) interpreter: Option<crate::interpreter::Interpreter>,
}

impl fmt::Debug for Chart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chart")
            .field("instruments", &self.market.keys().collect::<Vec<_>>())
            .field("panes", &self.panes)
            .field("drawings", &self.drawings)
            .field("comparisons", &self.comparisons)
            .field("settings", &self.settings)
            .field("ask_user", &self.ask_user.as_ref().map(|_| ".."))
            .finish_non_exhaustive()
    }
}

impl Default for Chart {
    fn default() -> Self {
        Chart::demo()
    }
}

impl Chart {
    /// The demo chart, always the same. No one answers `ask_user` until the host installs a way
    /// with [`Chart::set_ask_user`].
    pub fn demo() -> Self {
        let market = market::generate_market();
        let sma = Indicator::new(IndicatorName::Sma, IndicatorParams::default());
        let rsi = Indicator::new(IndicatorName::Rsi, IndicatorParams::default());
        let panes = vec![
            Pane {
                id: MAIN_PANE.to_owned(),
                kind: PaneKind::Price,
                symbol: "AAPL".to_owned(),
                interval: Interval::D1,
                indicators: sma.into_iter().collect(),
            },
            Pane {
                id: "lower".to_owned(),
                kind: PaneKind::Indicator,
                symbol: "AAPL".to_owned(),
                interval: Interval::D1,
                indicators: rsi.into_iter().collect(),
            },
        ];
        let drawings = seed_drawings(market.get("AAPL").map_or(&[][..], |d| &d.daily));
        Chart {
            market,
            panes,
            next_drawing: u32::try_from(drawings.len()).unwrap_or(u32::MAX),
            drawings,
            comparisons: vec![Comparison {
                id: "c1".to_owned(),
                pane_id: MAIN_PANE.to_owned(),
                symbol: "MSFT".to_owned(),
            }],
            settings: settings::default_settings(),
            search_index: search::INDEX,
            next_pane: 0,
            next_comparison: 1,
            ask_user: None,
            #[cfg(feature = "code-interpreter")]
            interpreter: None,
        }
    }
}

/// `d1`: a support line at the lowest low of the last 60 daily bars; `d2`: a trend line through
/// the lowest lows of the two halves of the last 150 bars; `d3`: the RSI overbought level.
fn seed_drawings(daily: &[Bar]) -> Vec<Drawing> {
    let lowest = |bars: &[Bar]| {
        bars.iter()
            .copied()
            .min_by(|a, b| a.low.total_cmp(&b.low))
            .map(|b| Anchor {
                time: b.time,
                price: b.low,
            })
    };
    let n = daily.len();
    let mut drawings = Vec::new();
    let mut push = |kind, pane_id: &str, anchors: Vec<Anchor>, style: Style, text: Option<&str>| {
        drawings.push(Drawing {
            id: format!("d{}", drawings.len() + 1),
            pane_id: pane_id.to_owned(),
            kind,
            anchors,
            style,
            text: text.map(str::to_owned),
        });
    };
    if let Some(support) = lowest(&daily[n.saturating_sub(60)..]) {
        push(
            DrawingKind::HorizontalLine,
            MAIN_PANE,
            vec![support],
            Style {
                color: "#26a69a".to_owned(),
                width: 2,
                line_style: LineStyle::Dashed,
            },
            Some("Support"),
        );
    }
    let halves = (n.saturating_sub(150), n.saturating_sub(75));
    if let (Some(first), Some(second)) = (
        lowest(&daily[halves.0..halves.1]),
        lowest(&daily[halves.1..]),
    ) {
        push(
            DrawingKind::TrendLine,
            MAIN_PANE,
            vec![first, second],
            Style::default(),
            None,
        );
    }
    if let Some(last) = daily.last() {
        push(
            DrawingKind::HorizontalLine,
            "lower",
            vec![Anchor {
                time: last.time,
                price: 70.0,
            }],
            Style {
                color: "#ef5350".to_owned(),
                width: 1,
                line_style: LineStyle::Dotted,
            },
            Some("Overbought"),
        );
    }
    drawings
}
