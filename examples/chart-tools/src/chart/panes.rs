//! Panes: `panes_list`, `pane_create`, `pane_replace_content`, `panes_clear`.

use serde::{Deserialize, Serialize};

use super::Chart;
use super::error::ChartError;
use super::indicators::{Indicator, IndicatorName, IndicatorParams};
use super::market::{Interval, LoadedRange};
use super::words::word_enum;

/// The pane every chart has; `panes_clear` keeps it.
pub const MAIN_PANE: &str = "main";
/// The most panes a chart holds.
pub const PANE_LIMIT: usize = 6;

word_enum! {
    /// What a pane draws.
    pub enum PaneKind ("pane kind") {
        /// Candles of its symbol, with overlay indicators (moving averages, bands).
        Price => "price",
        /// Only its indicators (RSI, MACD, ...), computed on its symbol.
        Indicator => "indicator",
    }
}

/// A pane of the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Pane {
    /// Stable ID: `main`, `lower`, then `p1`, `p2`, ... for created panes.
    pub id: String,
    /// What it draws.
    pub kind: PaneKind,
    /// The instrument it shows.
    pub symbol: String,
    /// Its bar interval.
    pub interval: Interval,
    /// Its indicators, in display order.
    pub indicators: Vec<Indicator>,
}

/// An indicator requested for a pane: a name and optional parameters (an item of the
/// `indicators` of the `pane_create` and `pane_replace_content` inputs, the parameters beside
/// the name).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IndicatorRequest {
    /// Which indicator.
    pub name: IndicatorName,
    /// Its parameters; unset ones take the indicator's defaults.
    #[serde(flatten)]
    pub params: IndicatorParams,
}

impl IndicatorRequest {
    /// An indicator with its default parameters.
    pub fn new(name: IndicatorName) -> Self {
        IndicatorRequest {
            name,
            params: IndicatorParams::default(),
        }
    }

    /// An indicator with the given parameters.
    pub fn with_params(name: IndicatorName, params: IndicatorParams) -> Self {
        IndicatorRequest { name, params }
    }
}

/// An indicator as shown in pane listings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndicatorView {
    /// Which indicator.
    pub name: IndicatorName,
    /// `SMA 20`.
    pub label: String,
    /// Its parameters.
    pub params: IndicatorParams,
}

/// A pane as the tools report it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaneView {
    /// The pane ID, used by every pane-scoped tool.
    pub id: String,
    /// What it draws.
    pub kind: PaneKind,
    /// The instrument it shows.
    pub symbol: String,
    /// Its bar interval.
    pub interval: Interval,
    /// The range of its loaded bars: drawings must be anchored inside it.
    pub loaded: LoadedRange,
    /// Its indicators.
    pub indicators: Vec<IndicatorView>,
    /// The IDs of its drawings.
    pub drawings: Vec<String>,
    /// The symbols compared on it.
    pub comparisons: Vec<String>,
}

/// The answer of `panes_list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanesList {
    /// Every pane, top to bottom.
    pub panes: Vec<PaneView>,
}

/// The answer of `panes_clear`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanesCleared {
    /// The removed pane IDs (every pane but `main`).
    pub removed_panes: Vec<String>,
    /// The IDs of the drawings removed with them.
    pub removed_drawings: Vec<String>,
    /// The IDs of the comparisons removed with them.
    pub removed_comparisons: Vec<String>,
    /// The panes left.
    pub panes: Vec<PaneView>,
}

impl Chart {
    pub(crate) fn pane(&self, pane_id: &str) -> Result<&Pane, ChartError> {
        self.panes
            .iter()
            .find(|p| p.id == pane_id)
            .ok_or_else(|| self.pane_not_found(pane_id))
    }

    pub(crate) fn pane_not_found(&self, pane_id: &str) -> ChartError {
        ChartError::PaneNotFound {
            pane_id: pane_id.to_owned(),
            valid: self.pane_ids(),
        }
    }

    pub(crate) fn pane_ids(&self) -> Vec<String> {
        self.panes.iter().map(|p| p.id.clone()).collect()
    }

    /// The loaded bar range of a pane: where its drawings may be anchored.
    pub(crate) fn pane_range(&self, pane: &Pane) -> Result<LoadedRange, ChartError> {
        let data = self.instrument(&pane.symbol)?;
        Ok(LoadedRange::of(&data.bars(pane.interval), pane.interval))
    }

    pub(crate) fn pane_view(&self, pane: &Pane) -> Result<PaneView, ChartError> {
        Ok(PaneView {
            id: pane.id.clone(),
            kind: pane.kind,
            symbol: pane.symbol.clone(),
            interval: pane.interval,
            loaded: self.pane_range(pane)?,
            indicators: pane
                .indicators
                .iter()
                .map(|i| IndicatorView {
                    name: i.name,
                    label: i.label(),
                    params: i.params,
                })
                .collect(),
            drawings: self
                .drawings
                .iter()
                .filter(|d| d.pane_id == pane.id)
                .map(|d| d.id.clone())
                .collect(),
            comparisons: self
                .comparisons
                .iter()
                .filter(|c| c.pane_id == pane.id)
                .map(|c| c.symbol.clone())
                .collect(),
        })
    }

    fn pane_views(&self) -> Result<Vec<PaneView>, ChartError> {
        self.panes.iter().map(|p| self.pane_view(p)).collect()
    }

    /// `panes_list`: every pane with its symbol, interval, loaded range, indicators, drawings
    /// and comparisons.
    ///
    /// # Errors
    /// None in practice: panes only ever hold known symbols.
    pub fn panes_list(&self) -> Result<PanesList, ChartError> {
        Ok(PanesList {
            panes: self.pane_views()?,
        })
    }

    /// `pane_create`: adds a pane at the bottom. `symbol` and `interval` default to those of the
    /// main pane. The new pane's ID is `p1`, `p2`, ...
    ///
    /// # Errors
    /// `INSTRUMENT_NOT_FOUND`; `INDICATOR_PARAMETERS_INVALID`; `PANE_LIMIT_REACHED` when the chart
    /// already has [`PANE_LIMIT`] panes.
    pub fn pane_create(
        &mut self,
        kind: PaneKind,
        symbol: Option<&str>,
        interval: Option<Interval>,
        indicators: &[IndicatorRequest],
    ) -> Result<PaneView, ChartError> {
        if self.panes.len() >= PANE_LIMIT {
            return Err(ChartError::PaneLimitReached { limit: PANE_LIMIT });
        }
        let main = self.pane(MAIN_PANE)?;
        let symbol = match symbol {
            Some(symbol) => self.instrument(symbol)?.info.symbol.to_owned(),
            None => main.symbol.clone(),
        };
        let interval = interval.unwrap_or(main.interval);
        let indicators = resolve_all(indicators)?;
        let pane = Pane {
            id: format!("p{}", self.next_pane + 1),
            kind,
            symbol,
            interval,
            indicators,
        };
        let view = self.pane_view(&pane)?;
        self.next_pane += 1;
        self.panes.push(pane);
        Ok(view)
    }

    /// `pane_replace_content`: replaces what pane `pane_id` shows: its symbol, interval and/or
    /// its whole indicator list (an empty list removes every indicator). Comparisons of the new
    /// symbol on that pane are removed (a symbol is never compared with itself).
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`; `INSTRUMENT_NOT_FOUND`; `INDICATOR_PARAMETERS_INVALID`;
    /// `NOTHING_TO_CHANGE` when no replacement is given.
    pub fn pane_replace_content(
        &mut self,
        pane_id: &str,
        symbol: Option<&str>,
        interval: Option<Interval>,
        indicators: Option<&[IndicatorRequest]>,
    ) -> Result<PaneView, ChartError> {
        let index = self
            .panes
            .iter()
            .position(|p| p.id == pane_id)
            .ok_or_else(|| self.pane_not_found(pane_id))?;
        if symbol.is_none() && interval.is_none() && indicators.is_none() {
            return Err(ChartError::NothingToChange {
                fields: &["symbol", "interval", "indicators"],
            });
        }
        let symbol = symbol
            .map(|s| self.instrument(s).map(|d| d.info.symbol.to_owned()))
            .transpose()?;
        let indicators = indicators.map(resolve_all).transpose()?;
        let pane = &mut self.panes[index];
        if let Some(symbol) = symbol {
            pane.symbol = symbol;
        }
        if let Some(interval) = interval {
            pane.interval = interval;
        }
        if let Some(indicators) = indicators {
            pane.indicators = indicators;
        }
        let (id, symbol) = (pane.id.clone(), pane.symbol.clone());
        self.comparisons
            .retain(|c| !(c.pane_id == id && c.symbol == symbol));
        self.pane_view(&self.panes[index])
    }

    /// `panes_clear`: removes every pane except `main`, with their drawings and comparisons.
    ///
    /// # Errors
    /// None in practice: panes only ever hold known symbols.
    pub fn panes_clear(&mut self) -> Result<PanesCleared, ChartError> {
        let (kept, removed): (Vec<Pane>, Vec<Pane>) = std::mem::take(&mut self.panes)
            .into_iter()
            .partition(|p| p.id == MAIN_PANE);
        self.panes = kept;
        let removed_panes: Vec<String> = removed.into_iter().map(|p| p.id).collect();
        let is_removed = |pane_id: &String| removed_panes.contains(pane_id);
        let removed_drawings = self
            .drawings
            .iter()
            .filter(|d| is_removed(&d.pane_id))
            .map(|d| d.id.clone())
            .collect();
        let removed_comparisons = self
            .comparisons
            .iter()
            .filter(|c| is_removed(&c.pane_id))
            .map(|c| c.id.clone())
            .collect();
        self.drawings.retain(|d| !is_removed(&d.pane_id));
        self.comparisons.retain(|c| !is_removed(&c.pane_id));
        Ok(PanesCleared {
            removed_panes,
            removed_drawings,
            removed_comparisons,
            panes: self.pane_views()?,
        })
    }
}

fn resolve_all(requests: &[IndicatorRequest]) -> Result<Vec<Indicator>, ChartError> {
    requests
        .iter()
        .map(|r| Indicator::new(r.name, r.params))
        .collect()
}
