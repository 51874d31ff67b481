//! The generated enums of the manifests (one per tool and field) into the chart's vocabularies.
//! Every conversion is an exhaustive `match`: a value added to a manifest without a chart
//! counterpart does not compile.

use crate::chart::{DrawingKind, IndicatorName, Interval, LineStyle, PaneKind, SettingKey};
use crate::tools;

/// `impl From<generated enum> for chart enum`, variant by variant.
macro_rules! words {
    ($($from:ty => $to:ident { $($a:ident => $b:ident),+ $(,)? })+) => {
        $(
            impl From<$from> for $to {
                fn from(word: $from) -> Self {
                    type Word = $from;
                    match word {
                        $(Word::$a => $to::$b,)+
                    }
                }
            }
        )+
    };
}

words! {
    tools::drawing_create::Kind => DrawingKind {
        TrendLine => TrendLine,
        Ray => Ray,
        HorizontalLine => HorizontalLine,
        VerticalLine => VerticalLine,
        Rectangle => Rectangle,
        FibonacciRetracement => FibonacciRetracement,
        Text => Text,
    }
    tools::drawing_create::LineStyle => LineStyle {
        Solid => Solid,
        Dashed => Dashed,
        Dotted => Dotted,
    }
    tools::drawing_update::LineStyle => LineStyle {
        Solid => Solid,
        Dashed => Dashed,
        Dotted => Dotted,
    }
    tools::pane_create::Kind => PaneKind {
        Price => Price,
        Indicator => Indicator,
    }
    tools::market_bars_query::Interval => Interval {
        V1m => M1, V5m => M5, V15m => M15, V30m => M30, V1h => H1, V1d => D1, V1w => W1,
    }
    tools::pane_create::Interval => Interval {
        V1m => M1, V5m => M5, V15m => M15, V30m => M30, V1h => H1, V1d => D1, V1w => W1,
    }
    tools::pane_replace_content::Interval => Interval {
        V1m => M1, V5m => M5, V15m => M15, V30m => M30, V1h => H1, V1d => D1, V1w => W1,
    }
    tools::indicators_query::Name => IndicatorName {
        Sma => Sma, Ema => Ema, Rsi => Rsi, Macd => Macd, BollingerBands => BollingerBands,
        Atr => Atr,
    }
    tools::pane_create::Name => IndicatorName {
        Sma => Sma, Ema => Ema, Rsi => Rsi, Macd => Macd, BollingerBands => BollingerBands,
        Atr => Atr,
    }
    tools::pane_replace_content::Name => IndicatorName {
        Sma => Sma, Ema => Ema, Rsi => Rsi, Macd => Macd, BollingerBands => BollingerBands,
        Atr => Atr,
    }
    tools::settings_get::Key => SettingKey {
        Theme => Theme, Timezone => Timezone, PriceScale => PriceScale, ShowVolume => ShowVolume,
        ShowGrid => ShowGrid, CandleUpColor => CandleUpColor, CandleDownColor => CandleDownColor,
        RightMarginBars => RightMarginBars, DataProvider => DataProvider, AppVersion => AppVersion,
    }
    tools::settings_reset::Key => SettingKey {
        Theme => Theme, Timezone => Timezone, PriceScale => PriceScale, ShowVolume => ShowVolume,
        ShowGrid => ShowGrid, CandleUpColor => CandleUpColor, CandleDownColor => CandleDownColor,
        RightMarginBars => RightMarginBars, DataProvider => DataProvider, AppVersion => AppVersion,
    }
    tools::settings_update::Key => SettingKey {
        Theme => Theme, Timezone => Timezone, PriceScale => PriceScale, ShowVolume => ShowVolume,
        ShowGrid => ShowGrid, CandleUpColor => CandleUpColor, CandleDownColor => CandleDownColor,
        RightMarginBars => RightMarginBars, DataProvider => DataProvider, AppVersion => AppVersion,
    }
}

/// The keys of a `keys` argument (absent: none, which the chart reads as every key).
pub(crate) fn setting_keys<K: Into<SettingKey>>(keys: Option<Vec<K>>) -> Vec<SettingKey> {
    keys.unwrap_or_default()
        .into_iter()
        .map(Into::into)
        .collect()
}
