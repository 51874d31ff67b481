//! Technical indicators shown on panes, and `indicators_query`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Chart;
use super::error::ChartError;
use super::market::{Bar, Interval, clamp_limit, round_to};
use super::words::word_enum;

word_enum! {
    /// An indicator the chart can compute.
    pub enum IndicatorName ("indicator") {
        /// Simple moving average of the close (`period`, default 20).
        Sma => "sma",
        /// Exponential moving average of the close (`period`, default 20).
        Ema => "ema",
        /// Relative strength index, Wilder's smoothing (`period`, default 14).
        Rsi => "rsi",
        /// MACD line, signal and histogram (`fast_period` 12, `slow_period` 26, `signal_period` 9).
        Macd => "macd",
        /// Bollinger bands around an SMA (`period` 20, `std_dev` 2).
        BollingerBands => "bollinger_bands",
        /// Average true range, Wilder's smoothing (`period`, default 14).
        Atr => "atr",
    }
}

/// The parameters of an indicator. Only those that apply to the indicator may be set.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct IndicatorParams {
    /// Look-back length in bars (`sma`, `ema`, `rsi`, `bollinger_bands`, `atr`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<i64>,
    /// Fast EMA length (`macd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_period: Option<i64>,
    /// Slow EMA length (`macd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_period: Option<i64>,
    /// Signal EMA length (`macd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal_period: Option<i64>,
    /// Band width in standard deviations (`bollinger_bands`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub std_dev: Option<f64>,
}

/// An indicator on a pane, with every parameter resolved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Indicator {
    /// Which indicator.
    pub name: IndicatorName,
    /// Its parameters, defaults filled in.
    pub params: IndicatorParams,
}

/// Smallest and largest period of any indicator.
pub const PERIOD_RANGE: (i64, i64) = (2, 200);
/// Smallest and largest Bollinger band width.
pub const STD_DEV_RANGE: (f64, f64) = (0.5, 5.0);

impl Indicator {
    /// Checks `params` against `name` and fills in the defaults.
    ///
    /// # Errors
    /// `INDICATOR_PARAMETERS_INVALID` when a parameter does not apply to the indicator, is out of
    /// range, or (MACD) the fast period is not shorter than the slow one.
    pub fn new(name: IndicatorName, params: IndicatorParams) -> Result<Self, ChartError> {
        let invalid = |reason: String| ChartError::IndicatorParametersInvalid { name, reason };
        let applies: &[&str] = match name {
            IndicatorName::Sma | IndicatorName::Ema | IndicatorName::Rsi | IndicatorName::Atr => {
                &["period"]
            }
            IndicatorName::Macd => &["fast_period", "slow_period", "signal_period"],
            IndicatorName::BollingerBands => &["period", "std_dev"],
        };
        let given = [
            ("period", params.period.is_some()),
            ("fast_period", params.fast_period.is_some()),
            ("slow_period", params.slow_period.is_some()),
            ("signal_period", params.signal_period.is_some()),
            ("std_dev", params.std_dev.is_some()),
        ];
        for (field, is_set) in given {
            if is_set && !applies.contains(&field) {
                let takes = applies.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>();
                return Err(invalid(format!(
                    "`{field}` does not apply; `{name}` takes {}",
                    takes.join(", ")
                )));
            }
        }
        let period = |field: &str, value: Option<i64>, default: i64| {
            let value = value.unwrap_or(default);
            if (PERIOD_RANGE.0..=PERIOD_RANGE.1).contains(&value) {
                Ok(Some(value))
            } else {
                Err(invalid(format!(
                    "`{field}` must be between {} and {}, found {value}",
                    PERIOD_RANGE.0, PERIOD_RANGE.1
                )))
            }
        };
        let resolved = match name {
            IndicatorName::Sma | IndicatorName::Ema => IndicatorParams {
                period: period("period", params.period, 20)?,
                ..Default::default()
            },
            IndicatorName::Rsi | IndicatorName::Atr => IndicatorParams {
                period: period("period", params.period, 14)?,
                ..Default::default()
            },
            IndicatorName::Macd => {
                let fast = period("fast_period", params.fast_period, 12)?;
                let slow = period("slow_period", params.slow_period, 26)?;
                if fast >= slow {
                    return Err(invalid(format!(
                        "`fast_period` ({}) must be shorter than `slow_period` ({})",
                        fast.unwrap_or_default(),
                        slow.unwrap_or_default()
                    )));
                }
                IndicatorParams {
                    fast_period: fast,
                    slow_period: slow,
                    signal_period: period("signal_period", params.signal_period, 9)?,
                    ..Default::default()
                }
            }
            IndicatorName::BollingerBands => {
                let std_dev = params.std_dev.unwrap_or(2.0);
                if !(STD_DEV_RANGE.0..=STD_DEV_RANGE.1).contains(&std_dev) {
                    return Err(invalid(format!(
                        "`std_dev` must be between {} and {}, found {std_dev}",
                        STD_DEV_RANGE.0, STD_DEV_RANGE.1
                    )));
                }
                IndicatorParams {
                    period: period("period", params.period, 20)?,
                    std_dev: Some(std_dev),
                    ..Default::default()
                }
            }
        };
        Ok(Indicator {
            name,
            params: resolved,
        })
    }

    /// `SMA 20`, `MACD 12 26 9`, `BB 20 2`.
    pub fn label(&self) -> String {
        let p = &self.params;
        let n = |value: Option<i64>| value.unwrap_or_default();
        match self.name {
            IndicatorName::Sma => format!("SMA {}", n(p.period)),
            IndicatorName::Ema => format!("EMA {}", n(p.period)),
            IndicatorName::Rsi => format!("RSI {}", n(p.period)),
            IndicatorName::Atr => format!("ATR {}", n(p.period)),
            IndicatorName::Macd => {
                format!(
                    "MACD {} {} {}",
                    n(p.fast_period),
                    n(p.slow_period),
                    n(p.signal_period)
                )
            }
            IndicatorName::BollingerBands => {
                format!("BB {} {}", n(p.period), p.std_dev.unwrap_or_default())
            }
        }
    }

    /// The indicator's values over `bars`, from the first bar where it is defined.
    pub(crate) fn compute(&self, bars: &[Bar], decimals: usize) -> Vec<IndicatorPoint> {
        let closes: Vec<f64> = bars.iter().map(|b| b.close).collect();
        let len = |value: Option<i64>| usize::try_from(value.unwrap_or(1)).unwrap_or(1).max(1);
        let p = &self.params;
        let lines: Vec<(&'static str, Vec<Option<f64>>)> = match self.name {
            IndicatorName::Sma => vec![("sma", sma(&closes, len(p.period)))],
            IndicatorName::Ema => vec![("ema", ema(&closes, len(p.period)))],
            IndicatorName::Rsi => vec![("rsi", rsi(&closes, len(p.period)))],
            IndicatorName::Atr => vec![("atr", atr(bars, len(p.period)))],
            IndicatorName::Macd => {
                let fast = ema(&closes, len(p.fast_period));
                let slow = ema(&closes, len(p.slow_period));
                let line: Vec<Option<f64>> = fast
                    .iter()
                    .zip(&slow)
                    .map(|(f, s)| Some((*f)? - (*s)?))
                    .collect();
                let signal = ema_of_defined(&line, len(p.signal_period));
                let histogram = line
                    .iter()
                    .zip(&signal)
                    .map(|(m, s)| Some((*m)? - (*s)?))
                    .collect();
                vec![("macd", line), ("signal", signal), ("histogram", histogram)]
            }
            IndicatorName::BollingerBands => {
                let period = len(p.period);
                let width = p.std_dev.unwrap_or(2.0);
                let middle = sma(&closes, period);
                let deviation = std_dev(&closes, period);
                let band = |sign: f64| -> Vec<Option<f64>> {
                    middle
                        .iter()
                        .zip(&deviation)
                        .map(|(m, d)| Some((*m)? + sign * width * (*d)?))
                        .collect()
                };
                vec![
                    ("upper", band(1.0)),
                    ("middle", middle.clone()),
                    ("lower", band(-1.0)),
                ]
            }
        };
        let places = (decimals + 2).min(6);
        bars.iter()
            .enumerate()
            .filter_map(|(i, bar)| {
                let values = lines
                    .iter()
                    .map(|(line, values)| Some((*line, round_to(values[i]?, places))))
                    .collect::<Option<BTreeMap<_, _>>>()?;
                Some(IndicatorPoint {
                    time: bar.time,
                    values,
                })
            })
            .collect()
    }
}

/// The indicator's lines at one bar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndicatorPoint {
    /// The bar's start (unix seconds).
    pub time: i64,
    /// Line name (`sma`, `rsi`, `macd`/`signal`/`histogram`, `upper`/`middle`/`lower`, ...) to value.
    pub values: BTreeMap<&'static str, f64>,
}

/// One indicator's latest values, in `indicators_query`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndicatorSeries {
    /// Which indicator.
    pub name: IndicatorName,
    /// `SMA 20`.
    pub label: String,
    /// Its parameters.
    pub params: IndicatorParams,
    /// The latest values, oldest first.
    pub points: Vec<IndicatorPoint>,
}

/// The answer of `indicators_query`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndicatorsQuery {
    /// The pane.
    pub pane_id: String,
    /// The symbol the indicators are computed on.
    pub symbol: String,
    /// The bar interval.
    pub interval: Interval,
    /// The pane's indicators (or those of the requested name), in display order.
    pub indicators: Vec<IndicatorSeries>,
}

/// Default and largest `limit` of `indicators_query`.
const POINTS_LIMIT: (i64, i64) = (20, 500);

impl Chart {
    /// `indicators_query`: the latest `limit` values (1..=500, default 20) of the indicators on
    /// pane `pane_id`, or only those named `name`.
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`; `INDICATOR_NOT_FOUND` when the pane shows no indicator of that name
    /// (the detail lists those it shows).
    pub fn indicators_query(
        &self,
        pane_id: &str,
        name: Option<IndicatorName>,
        limit: Option<i64>,
    ) -> Result<IndicatorsQuery, ChartError> {
        let pane = self.pane(pane_id)?;
        let selected: Vec<&Indicator> = pane
            .indicators
            .iter()
            .filter(|i| name.is_none_or(|n| i.name == n))
            .collect();
        if let (Some(name), true) = (name, selected.is_empty()) {
            return Err(ChartError::IndicatorNotFound {
                pane_id: pane.id.clone(),
                name,
                available: pane.indicators.iter().map(Indicator::label).collect(),
            });
        }
        let data = self.instrument(&pane.symbol)?;
        let bars = data.bars(pane.interval);
        let keep = clamp_limit(limit, POINTS_LIMIT);
        let indicators = selected
            .into_iter()
            .map(|indicator| {
                let mut points = indicator.compute(&bars, data.decimals);
                points.drain(..points.len().saturating_sub(keep));
                IndicatorSeries {
                    name: indicator.name,
                    label: indicator.label(),
                    params: indicator.params,
                    points,
                }
            })
            .collect();
        Ok(IndicatorsQuery {
            pane_id: pane.id.clone(),
            symbol: pane.symbol.clone(),
            interval: pane.interval,
            indicators,
        })
    }
}

fn sma(values: &[f64], period: usize) -> Vec<Option<f64>> {
    let mut out = vec![None; values.len()];
    let mut sum = 0.0;
    for (i, value) in values.iter().enumerate() {
        sum += value;
        if i >= period {
            sum -= values[i - period];
        }
        if i + 1 >= period {
            out[i] = Some(sum / period as f64);
        }
    }
    out
}

/// Population standard deviation over the last `period` values.
fn std_dev(values: &[f64], period: usize) -> Vec<Option<f64>> {
    let means = sma(values, period);
    means
        .iter()
        .enumerate()
        .map(|(i, mean)| {
            let mean = (*mean)?;
            let window = &values[i + 1 - period..=i];
            let variance =
                window.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / period as f64;
            Some(variance.sqrt())
        })
        .collect()
}

/// EMA seeded with the SMA of the first `period` values.
fn ema(values: &[f64], period: usize) -> Vec<Option<f64>> {
    let alpha = 2.0 / (period as f64 + 1.0);
    let mut out = vec![None; values.len()];
    if values.len() < period {
        return out;
    }
    let mut current = values[..period].iter().sum::<f64>() / period as f64;
    out[period - 1] = Some(current);
    for i in period..values.len() {
        current += alpha * (values[i] - current);
        out[i] = Some(current);
    }
    out
}

/// EMA over the defined part of a series (e.g. the MACD signal over the MACD line).
fn ema_of_defined(values: &[Option<f64>], period: usize) -> Vec<Option<f64>> {
    let start = values
        .iter()
        .position(Option::is_some)
        .unwrap_or(values.len());
    let defined: Vec<f64> = values[start..]
        .iter()
        .map(|v| v.unwrap_or_default())
        .collect();
    let mut out = vec![None; start];
    out.extend(ema(&defined, period));
    out
}

/// Wilder's RSI.
fn rsi(closes: &[f64], period: usize) -> Vec<Option<f64>> {
    let mut out = vec![None; closes.len()];
    if closes.len() <= period {
        return out;
    }
    let change = |i: usize| closes[i] - closes[i - 1];
    let (mut gain, mut loss) = (1..=period).fold((0.0, 0.0), |(g, l), i| {
        let c = change(i);
        (g + c.max(0.0), l + (-c).max(0.0))
    });
    gain /= period as f64;
    loss /= period as f64;
    let value = |gain: f64, loss: f64| {
        if loss == 0.0 {
            100.0
        } else {
            100.0 - 100.0 / (1.0 + gain / loss)
        }
    };
    out[period] = Some(value(gain, loss));
    let n = period as f64;
    for (i, slot) in out.iter_mut().enumerate().skip(period + 1) {
        let c = change(i);
        gain = (gain * (n - 1.0) + c.max(0.0)) / n;
        loss = (loss * (n - 1.0) + (-c).max(0.0)) / n;
        *slot = Some(value(gain, loss));
    }
    out
}

/// Wilder's average true range.
fn atr(bars: &[Bar], period: usize) -> Vec<Option<f64>> {
    let mut out = vec![None; bars.len()];
    if bars.len() < period {
        return out;
    }
    let true_range = |i: usize| {
        let bar = &bars[i];
        let range = bar.high - bar.low;
        match i.checked_sub(1) {
            Some(previous) => {
                let close = bars[previous].close;
                range
                    .max((bar.high - close).abs())
                    .max((bar.low - close).abs())
            }
            None => range,
        }
    };
    let n = period as f64;
    let mut current = (0..period).map(true_range).sum::<f64>() / n;
    out[period - 1] = Some(current);
    for (i, slot) in out.iter_mut().enumerate().skip(period) {
        current = (current * (n - 1.0) + true_range(i)) / n;
        *slot = Some(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: f64) -> f64 {
        (x * 1e9).round() / 1e9
    }

    #[test]
    fn moving_averages_match_hand_computations() {
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(
            sma(&values, 3),
            vec![None, None, Some(2.0), Some(3.0), Some(4.0)]
        );
        // alpha = 0.5: seed 2, then 2 + 0.5 * (4 - 2) = 3, then 3 + 0.5 * (5 - 3) = 4.
        assert_eq!(
            ema(&values, 3),
            vec![None, None, Some(2.0), Some(3.0), Some(4.0)]
        );
        let deviations = std_dev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], 8);
        assert_eq!(deviations[7], Some(2.0));
    }

    #[test]
    fn rsi_is_bounded_and_extreme_on_monotonic_series() {
        let rising: Vec<f64> = (0..30).map(f64::from).collect();
        assert_eq!(rsi(&rising, 14)[29], Some(100.0));
        let falling: Vec<f64> = (0..30).map(|i| 100.0 - f64::from(i)).collect();
        assert_eq!(rsi(&falling, 14)[29], Some(0.0));
        // Alternating +1 / -1 changes: equal average gain and loss.
        let flat: Vec<f64> = (0..15).map(|i| f64::from(i % 2)).collect();
        assert_eq!(rsi(&flat, 14)[14].map(close), Some(50.0));
    }

    #[test]
    fn atr_of_constant_ranges_is_that_range() {
        let bars: Vec<Bar> = (0..20)
            .map(|i| Bar {
                time: i,
                open: 10.0,
                high: 11.0,
                low: 9.0,
                close: 10.0,
                volume: 1,
            })
            .collect();
        let values = atr(&bars, 14);
        assert_eq!(values[12], None);
        assert_eq!(values[13], Some(2.0));
        assert_eq!(values[19], Some(2.0));
    }

    #[test]
    fn parameters_get_defaults_and_are_checked() {
        let sma = Indicator::new(IndicatorName::Sma, IndicatorParams::default()).expect("valid");
        assert_eq!(sma.params.period, Some(20));
        assert_eq!(sma.label(), "SMA 20");
        let macd = Indicator::new(IndicatorName::Macd, IndicatorParams::default()).expect("valid");
        assert_eq!(macd.label(), "MACD 12 26 9");
        let bands = Indicator::new(IndicatorName::BollingerBands, IndicatorParams::default())
            .expect("valid");
        assert_eq!(bands.label(), "BB 20 2");

        let error = Indicator::new(
            IndicatorName::Sma,
            IndicatorParams {
                std_dev: Some(2.0),
                ..Default::default()
            },
        )
        .expect_err("std_dev is for bands");
        assert_eq!(error.code(), "INDICATOR_PARAMETERS_INVALID");
        assert_eq!(
            error.detail(),
            "Invalid parameters for `sma`: `std_dev` does not apply; `sma` takes `period`."
        );
        let error = Indicator::new(
            IndicatorName::Macd,
            IndicatorParams {
                fast_period: Some(30),
                ..Default::default()
            },
        )
        .expect_err("fast must be shorter");
        assert!(
            error
                .detail()
                .contains("`fast_period` (30) must be shorter than `slow_period` (26)")
        );
        let error = Indicator::new(
            IndicatorName::Rsi,
            IndicatorParams {
                period: Some(1),
                ..Default::default()
            },
        )
        .expect_err("too short");
        assert!(error.detail().contains("between 2 and 200, found 1"));
        let error = Indicator::new(
            IndicatorName::BollingerBands,
            IndicatorParams {
                std_dev: Some(9.0),
                ..Default::default()
            },
        )
        .expect_err("too wide");
        assert!(
            error
                .detail()
                .contains("`std_dev` must be between 0.5 and 5")
        );
    }

    #[test]
    fn macd_lines_agree() {
        let closes: Vec<f64> = (0..80)
            .map(|i| 100.0 + f64::from(i % 7) - f64::from(i % 3))
            .collect();
        let bars: Vec<Bar> = closes
            .iter()
            .zip(0..)
            .map(|(c, t)| Bar {
                time: t,
                open: *c,
                high: c + 1.0,
                low: c - 1.0,
                close: *c,
                volume: 1,
            })
            .collect();
        let macd = Indicator::new(IndicatorName::Macd, IndicatorParams::default()).expect("valid");
        let points = macd.compute(&bars, 2);
        // Defined from slow (26) + signal (9) - 2 = index 33 on.
        assert_eq!(points.first().map(|p| p.time), Some(33));
        for point in &points {
            let histogram = point.values["macd"] - point.values["signal"];
            assert!((histogram - point.values["histogram"]).abs() < 1e-3);
        }
    }
}
