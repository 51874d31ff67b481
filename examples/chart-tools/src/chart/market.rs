//! Instruments and their bars: deterministic seeded data, aggregation, and the market queries.
//!
//! Every instrument has [`DAILY_BARS`] daily bars ending on [`LAST_DAY`] (weekdays only, except
//! for crypto, which trades every day) and one-minute bars for its session on that last day (the
//! "timeshare"). The last daily bar is the aggregate of those minutes, so both views agree.
//!
//! Prices are a multiplicative random walk driven by xorshift64* seeded with [`SEED`] XOR the
//! FNV-1a hash of the symbol, using only exactly rounded IEEE operations (`+ - * / sqrt round`),
//! so the data is the same on every platform and every run.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use super::Chart;
use super::error::ChartError;
use super::time::{self, SECONDS_PER_DAY};
use super::words::word_enum;

/// The fixed seed of the demo data.
pub const SEED: u64 = 0x5EED_C4A2_7001_0001;
/// How many daily bars each instrument has.
pub const DAILY_BARS: usize = 250;
/// The last loaded day: Monday 2025-06-30, as days since 1970-01-01.
pub const LAST_DAY: i64 = time::days_from_civil(2025, 6, 30);

word_enum! {
    /// A bar interval.
    pub enum Interval ("interval") {
        /// One minute (last session only).
        M1 => "1m",
        /// Five minutes (last session only).
        M5 => "5m",
        /// Fifteen minutes (last session only).
        M15 => "15m",
        /// Thirty minutes (last session only).
        M30 => "30m",
        /// One hour (last session only).
        H1 => "1h",
        /// One day.
        D1 => "1d",
        /// One week, starting on Monday.
        W1 => "1w",
    }
}

impl Interval {
    /// The length of one bar, in seconds.
    pub const fn seconds(self) -> i64 {
        match self {
            Interval::M1 => 60,
            Interval::M5 => 300,
            Interval::M15 => 900,
            Interval::M30 => 1800,
            Interval::H1 => 3600,
            Interval::D1 => SECONDS_PER_DAY,
            Interval::W1 => 7 * SECONDS_PER_DAY,
        }
    }

    /// True for the intervals built from the last session's minutes.
    pub const fn is_intraday(self) -> bool {
        self.seconds() < SECONDS_PER_DAY
    }

    /// A bar time of this interval, in ISO 8601 (a date for daily and weekly bars).
    pub fn format_time(self, time: i64) -> String {
        if self.is_intraday() {
            time::iso_datetime(time)
        } else {
            time::iso_date(time)
        }
    }
}

word_enum! {
    /// What kind of market an instrument trades in.
    pub enum AssetClass ("asset class") {
        /// A listed company's shares.
        Stock => "stock",
        /// A crypto currency pair; trades every day, around the clock.
        Crypto => "crypto",
        /// A currency pair.
        Forex => "forex",
    }
}

/// One OHLCV bar. `time` is the bar's start, in unix seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bar {
    /// Start of the bar (unix seconds, UTC).
    pub time: i64,
    /// First price.
    pub open: f64,
    /// Highest price.
    pub high: f64,
    /// Lowest price.
    pub low: f64,
    /// Last price.
    pub close: f64,
    /// Traded volume (shares, coins or ticks).
    pub volume: u64,
}

/// What the chart knows about an instrument.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstrumentInfo {
    /// The ticker, e.g. `AAPL`.
    pub symbol: &'static str,
    /// The full name.
    pub name: &'static str,
    /// Where it trades.
    pub exchange: &'static str,
    /// What kind of market.
    pub asset_class: AssetClass,
    /// The quote currency.
    pub currency: &'static str,
}

/// How one demo instrument's data is generated.
struct InstrumentSeed {
    info: InstrumentInfo,
    start_price: f64,
    /// Standard deviation of a daily return.
    volatility: f64,
    /// Mean daily return.
    drift: f64,
    /// Mean daily volume.
    volume: f64,
    decimals: usize,
    trades_weekends: bool,
    /// Session start, minutes after 00:00 UTC, and length in minutes.
    session: (i64, i64),
}

const CATALOGUE: &[InstrumentSeed] = &[
    InstrumentSeed {
        info: InstrumentInfo {
            symbol: "AAPL",
            name: "Apple Inc.",
            exchange: "NASDAQ",
            asset_class: AssetClass::Stock,
            currency: "USD",
        },
        start_price: 190.0,
        volatility: 0.016,
        drift: 0.0003,
        volume: 55_000_000.0,
        decimals: 2,
        trades_weekends: false,
        session: (13 * 60 + 30, 390),
    },
    InstrumentSeed {
        info: InstrumentInfo {
            symbol: "MSFT",
            name: "Microsoft Corporation",
            exchange: "NASDAQ",
            asset_class: AssetClass::Stock,
            currency: "USD",
        },
        start_price: 410.0,
        volatility: 0.014,
        drift: 0.0002,
        volume: 21_000_000.0,
        decimals: 2,
        trades_weekends: false,
        session: (13 * 60 + 30, 390),
    },
    InstrumentSeed {
        info: InstrumentInfo {
            symbol: "NVDA",
            name: "NVIDIA Corporation",
            exchange: "NASDAQ",
            asset_class: AssetClass::Stock,
            currency: "USD",
        },
        start_price: 118.0,
        volatility: 0.03,
        drift: 0.0008,
        volume: 280_000_000.0,
        decimals: 2,
        trades_weekends: false,
        session: (13 * 60 + 30, 390),
    },
    InstrumentSeed {
        info: InstrumentInfo {
            symbol: "BTCUSD",
            name: "Bitcoin / US Dollar",
            exchange: "COINBASE",
            asset_class: AssetClass::Crypto,
            currency: "USD",
        },
        start_price: 61_000.0,
        volatility: 0.028,
        drift: 0.001,
        volume: 24_000.0,
        decimals: 2,
        trades_weekends: true,
        session: (0, 1440),
    },
    InstrumentSeed {
        info: InstrumentInfo {
            symbol: "EURUSD",
            name: "Euro / US Dollar",
            exchange: "FX",
            asset_class: AssetClass::Forex,
            currency: "USD",
        },
        start_price: 1.0850,
        volatility: 0.004,
        drift: 0.0001,
        volume: 160_000.0,
        decimals: 5,
        trades_weekends: false,
        session: (0, 1440),
    },
];

/// xorshift64*: tiny, fast, good enough for demo prices, and fully deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // xorshift must not start at zero.
        Rng(if seed == 0 { SEED } else { seed })
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    fn uniform(&mut self) -> f64 {
        // 53 random bits, exactly representable.
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Mean 0, standard deviation 1, bounded by ±3 (a scaled sum of three uniforms).
    fn noise(&mut self) -> f64 {
        (self.uniform() + self.uniform() + self.uniform() - 1.5) * 2.0
    }
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
    })
}

const POWERS_OF_TEN: [f64; 7] = [1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0, 1_000_000.0];

/// Rounds to `decimals` places (at most 6).
pub(crate) fn round_to(value: f64, decimals: usize) -> f64 {
    let factor = POWERS_OF_TEN[decimals.min(POWERS_OF_TEN.len() - 1)];
    (value * factor).round() / factor
}

/// Merges consecutive bars with the same `bucket(time)` into one bar starting at that bucket.
fn aggregate(bars: &[Bar], bucket: impl Fn(i64) -> i64) -> Vec<Bar> {
    let mut merged: Vec<Bar> = Vec::new();
    for bar in bars {
        let start = bucket(bar.time);
        match merged.last_mut() {
            Some(last) if last.time == start => {
                last.high = last.high.max(bar.high);
                last.low = last.low.min(bar.low);
                last.close = bar.close;
                last.volume += bar.volume;
            }
            _ => merged.push(Bar {
                time: start,
                ..*bar
            }),
        }
    }
    merged
}

/// One instrument with its generated data.
#[derive(Debug, Clone)]
pub(crate) struct InstrumentData {
    pub(crate) info: InstrumentInfo,
    pub(crate) decimals: usize,
    pub(crate) daily: Vec<Bar>,
    pub(crate) minutes: Vec<Bar>,
}

impl InstrumentData {
    fn generate(seed: &InstrumentSeed) -> Self {
        let mut rng = Rng::new(SEED ^ fnv1a(seed.info.symbol));
        let decimals = seed.decimals;
        let mut days = Vec::with_capacity(DAILY_BARS);
        let mut day = LAST_DAY;
        while days.len() < DAILY_BARS {
            if seed.trades_weekends || time::weekday(day) < 5 {
                days.push(day);
            }
            day -= 1;
        }
        days.reverse();

        let mut daily = Vec::with_capacity(DAILY_BARS);
        let mut previous_close = seed.start_price;
        for &day in &days[..DAILY_BARS - 1] {
            let open = previous_close * (1.0 + seed.volatility * 0.2 * rng.noise());
            let close = open * (1.0 + seed.drift + seed.volatility * rng.noise());
            let high = open.max(close) * (1.0 + seed.volatility * 0.5 * rng.uniform());
            let low = open.min(close) * (1.0 - seed.volatility * 0.5 * rng.uniform());
            let volume = (seed.volume * (0.6 + 0.8 * rng.uniform())).round() as u64;
            let bar = Bar {
                time: day * SECONDS_PER_DAY,
                open: round_to(open, decimals),
                high: round_to(high, decimals),
                low: round_to(low, decimals),
                close: round_to(close, decimals),
                volume,
            };
            previous_close = bar.close;
            daily.push(bar);
        }

        let (session_start, session_minutes) = seed.session;
        let minute_volatility = seed.volatility / (session_minutes as f64).sqrt();
        let minute_volume = seed.volume / session_minutes as f64;
        let session_time = LAST_DAY * SECONDS_PER_DAY + session_start * 60;
        let mut minutes = Vec::with_capacity(usize::try_from(session_minutes).unwrap_or(0));
        for minute in 0..session_minutes {
            let open = previous_close;
            let close = open * (1.0 + minute_volatility * rng.noise());
            let high = open.max(close) * (1.0 + minute_volatility * 0.3 * rng.uniform());
            let low = open.min(close) * (1.0 - minute_volatility * 0.3 * rng.uniform());
            let volume = (minute_volume * (0.5 + rng.uniform())).round() as u64;
            let bar = Bar {
                time: session_time + minute * 60,
                open: round_to(open, decimals),
                high: round_to(high, decimals),
                low: round_to(low, decimals),
                close: round_to(close, decimals),
                volume,
            };
            previous_close = bar.close;
            minutes.push(bar);
        }
        daily.extend(aggregate(&minutes, |t| time::day_of(t) * SECONDS_PER_DAY));

        InstrumentData {
            info: seed.info.clone(),
            decimals,
            daily,
            minutes,
        }
    }

    /// The bars of one interval: the stored daily or minute bars, or their aggregates.
    pub(crate) fn bars(&self, interval: Interval) -> Cow<'_, [Bar]> {
        match interval {
            Interval::M1 => Cow::Borrowed(&self.minutes),
            Interval::D1 => Cow::Borrowed(&self.daily),
            Interval::W1 => Cow::Owned(aggregate(&self.daily, time::week_start)),
            intraday => {
                let seconds = intraday.seconds();
                Cow::Owned(aggregate(&self.minutes, |t| t - t.rem_euclid(seconds)))
            }
        }
    }

    /// The close of the day before the last session.
    pub(crate) fn previous_close(&self) -> f64 {
        self.daily
            .len()
            .checked_sub(2)
            .map_or(0.0, |i| self.daily[i].close)
    }
}

/// Every demo instrument, by symbol.
pub(crate) fn generate_market() -> BTreeMap<&'static str, InstrumentData> {
    CATALOGUE
        .iter()
        .map(|seed| (seed.info.symbol, InstrumentData::generate(seed)))
        .collect()
}

/// The span of loaded bars of one symbol and interval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadedRange {
    /// The first bar's start, in ISO 8601.
    pub first: String,
    /// The last bar's start, in ISO 8601.
    pub last: String,
    /// The first bar's start (unix seconds).
    pub first_time: i64,
    /// The last bar's start (unix seconds).
    pub last_time: i64,
}

impl LoadedRange {
    pub(crate) fn of(bars: &[Bar], interval: Interval) -> Self {
        let first_time = bars.first().map_or(0, |b| b.time);
        let last_time = bars.last().map_or(0, |b| b.time);
        LoadedRange {
            first: interval.format_time(first_time),
            last: interval.format_time(last_time),
            first_time,
            last_time,
        }
    }

    /// The end of the last bar (exclusive): a drawing may sit anywhere up to it.
    pub(crate) fn end(&self, interval: Interval) -> i64 {
        self.last_time + interval.seconds()
    }

    pub(crate) fn out_of_range(&self, requested: String, of: String) -> ChartError {
        ChartError::DateOutOfRange {
            requested,
            of,
            first: self.first.clone(),
            last: self.last.clone(),
        }
    }
}

/// The answer of `instruments_query_name`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstrumentMatches {
    /// The instruments whose symbol or name contains the query, best first.
    pub instruments: Vec<InstrumentInfo>,
}

/// The answer of `market_bars_query`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BarsQuery {
    /// The symbol.
    pub symbol: &'static str,
    /// The interval.
    pub interval: Interval,
    /// Every loaded bar of this symbol and interval spans this range.
    pub loaded: LoadedRange,
    /// How many bars fall inside the requested window.
    pub matched: usize,
    /// The latest `limit` bars of the window, oldest first.
    pub bars: Vec<Bar>,
}

/// One minute of the timeshare: last price, volume and the session's running average price.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimesharePoint {
    /// Start of the minute (unix seconds).
    pub time: i64,
    /// The minute's last price.
    pub price: f64,
    /// The minute's volume.
    pub volume: u64,
    /// The volume-weighted average price since the session opened.
    pub average_price: f64,
}

/// The answer of `market_timeshare_query` and `market_timeshare_range_query`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeshare {
    /// The symbol.
    pub symbol: &'static str,
    /// The session's date, ISO 8601.
    pub date: String,
    /// The session's first and last minute.
    pub session: LoadedRange,
    /// The previous day's close.
    pub previous_close: f64,
    /// The last price of the session.
    pub last_price: f64,
    /// `last_price - previous_close`.
    pub change: f64,
    /// The change in percent of the previous close.
    pub change_percent: f64,
    /// The minutes asked for, oldest first.
    pub points: Vec<TimesharePoint>,
}

/// Default and largest `limit` of `market_bars_query`.
const BARS_LIMIT: (i64, i64) = (100, 1000);
/// Default and largest `limit` of `instruments_query_name`.
const MATCHES_LIMIT: (i64, i64) = (10, 50);

/// `limit` clamped to `1..=max`, `default` when absent.
pub(crate) fn clamp_limit(limit: Option<i64>, (default, max): (i64, i64)) -> usize {
    usize::try_from(limit.unwrap_or(default).clamp(1, max)).unwrap_or(1)
}

impl Chart {
    pub(crate) fn instrument(&self, symbol: &str) -> Result<&InstrumentData, ChartError> {
        let upper = symbol.trim().to_ascii_uppercase();
        self.market
            .get(upper.as_str())
            .ok_or_else(|| ChartError::InstrumentNotFound {
                symbol: symbol.to_owned(),
                known: self.market.keys().map(|s| (*s).to_owned()).collect(),
            })
    }

    /// `instruments_query_name`: instruments whose symbol or name contains `query`
    /// (case-insensitive). Exact symbol matches come first, then symbol prefixes, then the rest,
    /// each group by symbol. `limit` is clamped to 1..=50 (default 10).
    pub fn instruments_query_name(&self, query: &str, limit: Option<i64>) -> InstrumentMatches {
        let needle = query.trim().to_lowercase();
        let mut found: Vec<(u8, &InstrumentInfo)> = self
            .market
            .values()
            .filter_map(|data| {
                let symbol = data.info.symbol.to_lowercase();
                let rank = if symbol == needle {
                    0
                } else if symbol.starts_with(&needle) {
                    1
                } else if symbol.contains(&needle)
                    || data.info.name.to_lowercase().contains(&needle)
                {
                    2
                } else {
                    return None;
                };
                Some((rank, &data.info))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.symbol.cmp(b.1.symbol)));
        found.truncate(clamp_limit(limit, MATCHES_LIMIT));
        InstrumentMatches {
            instruments: found.into_iter().map(|(_, info)| info.clone()).collect(),
        }
    }

    /// `market_bars_query`: the bars of `symbol` at `interval` between `from` and `to` (unix
    /// seconds, inclusive, both optional), the latest `limit` of them (1..=1000, default 100).
    ///
    /// # Errors
    /// `INSTRUMENT_NOT_FOUND`; `INVALID_TIME_RANGE` when `from > to`; `DATE_OUT_OF_RANGE` when the
    /// window misses every loaded bar (the detail names the loaded range).
    pub fn market_bars_query(
        &self,
        symbol: &str,
        interval: Interval,
        from: Option<i64>,
        to: Option<i64>,
        limit: Option<i64>,
    ) -> Result<BarsQuery, ChartError> {
        let data = self.instrument(symbol)?;
        let bars = data.bars(interval);
        let loaded = LoadedRange::of(&bars, interval);
        let from_time = from.unwrap_or(loaded.first_time);
        let to_time = to.unwrap_or(loaded.last_time);
        if from_time > to_time {
            return Err(ChartError::InvalidTimeRange {
                from: from_time,
                to: to_time,
            });
        }
        if to_time < loaded.first_time || from_time > loaded.last_time {
            return Err(loaded.out_of_range(
                describe_window(interval, from, to),
                format!("the {interval} bars of {}", data.info.symbol),
            ));
        }
        let window: Vec<Bar> = bars
            .iter()
            .filter(|b| b.time >= from_time && b.time <= to_time)
            .copied()
            .collect();
        let matched = window.len();
        let keep = clamp_limit(limit, BARS_LIMIT);
        let bars = window[matched.saturating_sub(keep)..].to_vec();
        Ok(BarsQuery {
            symbol: data.info.symbol,
            interval,
            loaded,
            matched,
            bars,
        })
    }

    /// `market_timeshare_query`: every minute of the last session of `symbol`.
    ///
    /// # Errors
    /// `INSTRUMENT_NOT_FOUND`.
    pub fn market_timeshare_query(&self, symbol: &str) -> Result<Timeshare, ChartError> {
        let data = self.instrument(symbol)?;
        Ok(timeshare(data, i64::MIN, i64::MAX))
    }

    /// `market_timeshare_range_query`: the minutes of the last session of `symbol` between
    /// `from` and `to` (unix seconds, inclusive).
    ///
    /// # Errors
    /// `INSTRUMENT_NOT_FOUND`; `INVALID_TIME_RANGE` when `from > to`; `DATE_OUT_OF_RANGE` when
    /// the window misses the session (the detail names the session's first and last minute).
    pub fn market_timeshare_range_query(
        &self,
        symbol: &str,
        from: i64,
        to: i64,
    ) -> Result<Timeshare, ChartError> {
        let data = self.instrument(symbol)?;
        if from > to {
            return Err(ChartError::InvalidTimeRange { from, to });
        }
        let session = LoadedRange::of(&data.minutes, Interval::M1);
        if to < session.first_time || from > session.last_time {
            return Err(session.out_of_range(
                describe_window(Interval::M1, Some(from), Some(to)),
                format!("the last session of {}", data.info.symbol),
            ));
        }
        Ok(timeshare(data, from, to))
    }
}

/// `2025-01-02 to 2025-01-31`, `from 2025-01-02`, `until 2025-01-31` (the asked window).
fn describe_window(interval: Interval, from: Option<i64>, to: Option<i64>) -> String {
    match (from, to) {
        (Some(from), Some(to)) => {
            format!(
                "{} to {}",
                interval.format_time(from),
                interval.format_time(to)
            )
        }
        (Some(from), None) => format!("from {}", interval.format_time(from)),
        (None, Some(to)) => format!("until {}", interval.format_time(to)),
        (None, None) => "the whole range".to_owned(),
    }
}

fn timeshare(data: &InstrumentData, from: i64, to: i64) -> Timeshare {
    let decimals = data.decimals;
    let mut turnover = 0.0;
    let mut volume = 0u64;
    let mut points = Vec::new();
    for bar in &data.minutes {
        let typical = (bar.high + bar.low + bar.close) / 3.0;
        turnover += typical * bar.volume as f64;
        volume += bar.volume;
        let average = if volume == 0 {
            bar.close
        } else {
            turnover / volume as f64
        };
        if bar.time >= from && bar.time <= to {
            points.push(TimesharePoint {
                time: bar.time,
                price: bar.close,
                volume: bar.volume,
                average_price: round_to(average, decimals),
            });
        }
    }
    let previous_close = data.previous_close();
    let last_price = data.minutes.last().map_or(previous_close, |b| b.close);
    let change = last_price - previous_close;
    let change_percent = if previous_close == 0.0 {
        0.0
    } else {
        round_to(change / previous_close * 100.0, 2)
    };
    let session = LoadedRange::of(&data.minutes, Interval::M1);
    Timeshare {
        symbol: data.info.symbol,
        date: time::iso_date(session.first_time),
        session,
        previous_close,
        last_price,
        change: round_to(change, decimals),
        change_percent,
        points,
    }
}
