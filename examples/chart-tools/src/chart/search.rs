//! `web_search` over a small offline index, ranked by simple term matching.
//!
//! A term found in a title counts 3, in a snippet 1; results are sorted by score, then by title.
//! Terms are the query's lowercase runs of letters and digits, minus a few stop words.

use serde::Serialize;

use super::Chart;
use super::error::ChartError;
use super::market::clamp_limit;

/// One indexed document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Document {
    /// The page title.
    pub title: &'static str,
    /// The page address.
    pub url: &'static str,
    /// A short extract.
    pub snippet: &'static str,
}

/// The offline index. Addresses use the reserved `.example` domain: they point nowhere real.
pub const INDEX: &[Document] = &[
    Document {
        title: "Relative Strength Index (RSI) explained",
        url: "https://learn.chart.example/indicators/rsi",
        snippet: "RSI measures the speed of price changes on a scale of 0 to 100. Readings above 70 \
                  are commonly read as overbought, below 30 as oversold; Wilder used a 14 period.",
    },
    Document {
        title: "Simple moving average (SMA)",
        url: "https://learn.chart.example/indicators/sma",
        snippet: "The SMA is the mean close of the last N bars. The 20, 50 and 200 period averages \
                  are popular trend filters; price above a rising average suggests an uptrend.",
    },
    Document {
        title: "Exponential moving average (EMA)",
        url: "https://learn.chart.example/indicators/ema",
        snippet: "The EMA weights recent closes more than older ones, so it reacts faster than an \
                  SMA of the same period. Crossovers of a fast and a slow EMA signal momentum.",
    },
    Document {
        title: "MACD: moving average convergence divergence",
        url: "https://learn.chart.example/indicators/macd",
        snippet: "MACD is the 12 period EMA minus the 26 period EMA; its 9 period EMA is the signal \
                  line and the difference is the histogram. Signal crossovers mark momentum shifts.",
    },
    Document {
        title: "Bollinger Bands and volatility",
        url: "https://learn.chart.example/indicators/bollinger-bands",
        snippet: "Bollinger Bands sit two standard deviations above and below a 20 period SMA. \
                  Narrow bands mark low volatility, which is often followed by a breakout.",
    },
    Document {
        title: "Average true range (ATR)",
        url: "https://learn.chart.example/indicators/atr",
        snippet: "ATR averages the true range of each bar to measure volatility, not direction. \
                  Traders size stops as a multiple of ATR.",
    },
    Document {
        title: "Support and resistance levels",
        url: "https://learn.chart.example/analysis/support-resistance",
        snippet: "Support is a price level where falling prices tend to stop, resistance one where \
                  rising prices stall. Draw them as horizontal lines through repeated lows or highs.",
    },
    Document {
        title: "How to draw trend lines",
        url: "https://learn.chart.example/analysis/trend-lines",
        snippet: "An uptrend line connects two or more rising lows; a downtrend line connects falling \
                  highs. A close through the line is an early warning that the trend may change.",
    },
    Document {
        title: "Fibonacci retracement levels",
        url: "https://learn.chart.example/analysis/fibonacci-retracement",
        snippet: "Fibonacci retracements mark 23.6%, 38.2%, 50% and 61.8% of a move between a swing \
                  low and a swing high, where pullbacks often pause.",
    },
    Document {
        title: "Reading an intraday timeshare chart",
        url: "https://learn.chart.example/charts/timeshare",
        snippet: "A timeshare chart plots the last price of every minute of the session with the \
                  running volume weighted average price; price above the average shows buyers in control.",
    },
    Document {
        title: "Candlestick chart basics",
        url: "https://learn.chart.example/charts/candlesticks",
        snippet: "Each candle shows the open, high, low and close of one interval. A filled body \
                  closes below its open, a hollow one above it.",
    },
    Document {
        title: "Comparing symbols by percent change",
        url: "https://learn.chart.example/charts/comparisons",
        snippet: "A comparison overlays other symbols on a pane, rebased to percent change from the \
                  first visible bar, to show relative performance, for example a stock against a peer.",
    },
    Document {
        title: "Linear, logarithmic and percent price scales",
        url: "https://learn.chart.example/charts/price-scales",
        snippet: "A logarithmic scale shows equal percent moves as equal distances, which suits long \
                  histories and volatile assets such as bitcoin.",
    },
    Document {
        title: "Trading sessions and time zones",
        url: "https://learn.chart.example/markets/sessions",
        snippet: "US stocks trade from 9:30 to 16:00 New York time (13:30 to 20:00 UTC in summer). \
                  Forex trades around the clock on weekdays; crypto trades every day.",
    },
];

/// Words too common to rank by.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "for", "how", "in", "is", "of", "on", "or", "the", "to", "what",
    "with",
];

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResult {
    /// The page title.
    pub title: &'static str,
    /// The page address.
    pub url: &'static str,
    /// A short extract.
    pub snippet: &'static str,
    /// The match score: 3 per query term in the title, 1 per term in the snippet.
    pub score: u32,
}

/// The answer of `web_search`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResults {
    /// The terms the query was matched by.
    pub terms: Vec<String>,
    /// The hits, best first; empty when nothing matches.
    pub results: Vec<SearchResult>,
}

/// Default and largest `limit` of `web_search`.
const RESULTS_LIMIT: (i64, i64) = (5, 10);

/// The lowercase runs of letters and digits of `text`.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

impl Chart {
    /// `web_search`: the best `limit` (1..=10, default 5) documents of the offline index for
    /// `query`.
    ///
    /// # Errors
    /// `SEARCH_QUERY_EMPTY` when the query has no word to search for (only punctuation or stop
    /// words).
    pub fn web_search(&self, query: &str, limit: Option<i64>) -> Result<SearchResults, ChartError> {
        let mut terms: Vec<String> = words(query)
            .filter(|w| !STOP_WORDS.contains(&w.as_str()))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        if terms.is_empty() {
            return Err(ChartError::SearchQueryEmpty);
        }
        let mut results: Vec<SearchResult> = self
            .search_index
            .iter()
            .filter_map(|doc| {
                let title: Vec<String> = words(doc.title).collect();
                let snippet: Vec<String> = words(doc.snippet).collect();
                let score: u32 = terms
                    .iter()
                    .map(|t| 3 * u32::from(title.contains(t)) + u32::from(snippet.contains(t)))
                    .sum();
                (score > 0).then_some(SearchResult {
                    title: doc.title,
                    url: doc.url,
                    snippet: doc.snippet,
                    score,
                })
            })
            .collect();
        results.sort_by(|a, b| b.score.cmp(&a.score).then(a.title.cmp(b.title)));
        results.truncate(clamp_limit(limit, RESULTS_LIMIT));
        Ok(SearchResults { terms, results })
    }
}
