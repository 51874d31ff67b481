//! Comparisons: other symbols overlaid on a pane as percent change.
//! `comparisons_list`, `comparison_create`, `comparisons_clear`.

use serde::Serialize;

use super::Chart;
use super::error::ChartError;
use super::market::{Interval, round_to};
use super::panes::MAIN_PANE;

/// A symbol compared on a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Stable ID: `c1`, `c2`, ... never reused.
    pub id: String,
    /// The pane it is drawn on.
    pub pane_id: String,
    /// The compared instrument.
    pub symbol: String,
}

/// A comparison as the tools report it, with the performance of both symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonView {
    /// The comparison ID.
    pub id: String,
    /// The pane.
    pub pane_id: String,
    /// The compared symbol.
    pub symbol: String,
    /// The pane's own symbol.
    pub base_symbol: String,
    /// The pane's interval.
    pub interval: Interval,
    /// The compared symbol's change over the pane's loaded bars, in percent.
    pub change_percent: f64,
    /// The pane symbol's change over the same bars, in percent.
    pub base_change_percent: f64,
}

/// The answer of `comparisons_list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonsList {
    /// The comparisons, in creation order.
    pub comparisons: Vec<ComparisonView>,
}

/// The answer of `comparisons_clear`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonsCleared {
    /// The IDs of the removed comparisons.
    pub removed: Vec<String>,
}

impl Chart {
    /// Percent change from the first to the last close of `symbol` at `interval`.
    fn change_percent(&self, symbol: &str, interval: Interval) -> Result<f64, ChartError> {
        let bars = self.instrument(symbol)?.bars(interval);
        Ok(match (bars.first(), bars.last()) {
            (Some(first), Some(last)) if first.close != 0.0 => {
                round_to((last.close - first.close) / first.close * 100.0, 2)
            }
            _ => 0.0,
        })
    }

    fn comparison_view(&self, comparison: &Comparison) -> Result<ComparisonView, ChartError> {
        let pane = self.pane(&comparison.pane_id)?;
        Ok(ComparisonView {
            id: comparison.id.clone(),
            pane_id: pane.id.clone(),
            symbol: comparison.symbol.clone(),
            base_symbol: pane.symbol.clone(),
            interval: pane.interval,
            change_percent: self.change_percent(&comparison.symbol, pane.interval)?,
            base_change_percent: self.change_percent(&pane.symbol, pane.interval)?,
        })
    }

    /// `comparisons_list`: the comparisons of pane `pane_id`, or of every pane.
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`.
    pub fn comparisons_list(&self, pane_id: Option<&str>) -> Result<ComparisonsList, ChartError> {
        if let Some(pane_id) = pane_id {
            self.pane(pane_id)?;
        }
        let comparisons = self
            .comparisons
            .iter()
            .filter(|c| pane_id.is_none_or(|p| c.pane_id == p))
            .map(|c| self.comparison_view(c))
            .collect::<Result<_, _>>()?;
        Ok(ComparisonsList { comparisons })
    }

    /// `comparison_create`: overlays `symbol` on pane `pane_id` (default `main`).
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`; `INSTRUMENT_NOT_FOUND`; `COMPARISON_EXISTS` when the symbol is already
    /// compared on that pane or is the pane's own symbol.
    pub fn comparison_create(
        &mut self,
        symbol: &str,
        pane_id: Option<&str>,
    ) -> Result<ComparisonView, ChartError> {
        let pane = self.pane(pane_id.unwrap_or(MAIN_PANE))?;
        let symbol = self.instrument(symbol)?.info.symbol;
        if pane.symbol == symbol {
            return Err(ChartError::ComparisonExists {
                pane_id: pane.id.clone(),
                symbol: symbol.to_owned(),
                comparison_id: None,
            });
        }
        if let Some(existing) = self
            .comparisons
            .iter()
            .find(|c| c.pane_id == pane.id && c.symbol == symbol)
        {
            return Err(ChartError::ComparisonExists {
                pane_id: pane.id.clone(),
                symbol: symbol.to_owned(),
                comparison_id: Some(existing.id.clone()),
            });
        }
        let comparison = Comparison {
            id: format!("c{}", self.next_comparison + 1),
            pane_id: pane.id.clone(),
            symbol: symbol.to_owned(),
        };
        let view = self.comparison_view(&comparison)?;
        self.next_comparison += 1;
        self.comparisons.push(comparison);
        Ok(view)
    }

    /// `comparisons_clear`: removes the comparisons of pane `pane_id`, or of every pane.
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`.
    pub fn comparisons_clear(
        &mut self,
        pane_id: Option<&str>,
    ) -> Result<ComparisonsCleared, ChartError> {
        if let Some(pane_id) = pane_id {
            self.pane(pane_id)?;
        }
        let matches = |c: &Comparison| pane_id.is_none_or(|p| c.pane_id == p);
        let removed = self
            .comparisons
            .iter()
            .filter(|c| matches(c))
            .map(|c| c.id.clone())
            .collect();
        self.comparisons.retain(|c| !matches(c));
        Ok(ComparisonsCleared { removed })
    }
}
