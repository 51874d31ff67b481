//! Chart settings: typed values, some read-only. `settings_get`, `settings_update`,
//! `settings_reset`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Chart;
use super::error::ChartError;
use super::words::word_enum;

word_enum! {
    /// A setting of the chart.
    pub enum SettingKey ("setting") {
        /// Color scheme: `dark` or `light`.
        Theme => "theme",
        /// Time zone of the time axis.
        Timezone => "timezone",
        /// Price axis scale: `linear`, `logarithmic` or `percent`.
        PriceScale => "price_scale",
        /// Whether volume bars are shown under the candles.
        ShowVolume => "show_volume",
        /// Whether grid lines are shown.
        ShowGrid => "show_grid",
        /// Color of rising candles.
        CandleUpColor => "candle_up_color",
        /// Color of falling candles.
        CandleDownColor => "candle_down_color",
        /// Empty bars kept right of the last bar.
        RightMarginBars => "right_margin_bars",
        /// Where the market data comes from (read-only).
        DataProvider => "data_provider",
        /// The chart's version (read-only).
        AppVersion => "app_version",
    }
}

/// A setting's value: text, a number or a boolean.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SettingValue {
    /// A boolean.
    Bool(bool),
    /// A whole number.
    Integer(i64),
    /// A number with a fraction (whole numbers are stored as [`SettingValue::Integer`]).
    Number(f64),
    /// A text.
    Text(String),
}

impl SettingValue {
    /// The value of a JSON string, number or boolean; `None` for anything else.
    pub fn from_json(value: &serde_json::Value) -> Option<Self> {
        match value {
            serde_json::Value::Bool(b) => Some(SettingValue::Bool(*b)),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Some(SettingValue::Integer(i)),
                None => n.as_f64().map(SettingValue::from),
            },
            serde_json::Value::String(s) => Some(SettingValue::Text(s.clone())),
            _ => None,
        }
    }
}

impl From<&str> for SettingValue {
    fn from(text: &str) -> Self {
        SettingValue::Text(text.to_owned())
    }
}

impl From<bool> for SettingValue {
    fn from(value: bool) -> Self {
        SettingValue::Bool(value)
    }
}

impl From<i64> for SettingValue {
    fn from(value: i64) -> Self {
        SettingValue::Integer(value)
    }
}

impl From<f64> for SettingValue {
    /// A whole `value` (within ±2^53) becomes [`SettingValue::Integer`].
    fn from(value: f64) -> Self {
        const EXACT: f64 = 9_007_199_254_740_992.0;
        if value.fract() == 0.0 && value.abs() <= EXACT {
            SettingValue::Integer(value as i64)
        } else {
            SettingValue::Number(value)
        }
    }
}

/// What values a setting accepts.
#[derive(Debug, Clone, Copy)]
enum Rule {
    OneOf(&'static [&'static str]),
    Bool,
    Color,
    WholeNumber(i64, i64),
    Fixed,
}

impl Rule {
    fn accepts(self, value: &SettingValue) -> bool {
        match (self, value) {
            (Rule::OneOf(words), SettingValue::Text(text)) => words.contains(&text.as_str()),
            (Rule::Bool, SettingValue::Bool(_)) => true,
            (Rule::Color, SettingValue::Text(text)) => is_color(text),
            (Rule::WholeNumber(min, max), SettingValue::Integer(n)) => (min..=max).contains(n),
            _ => false,
        }
    }

    fn describe(self) -> String {
        match self {
            Rule::OneOf(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
            Rule::Bool => "true or false".to_owned(),
            Rule::Color => "a color \"#rrggbb\"".to_owned(),
            Rule::WholeNumber(min, max) => format!("a whole number from {min} to {max}"),
            Rule::Fixed => "nothing: it is read-only".to_owned(),
        }
    }
}

fn is_color(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text.bytes().skip(1).all(|b| b.is_ascii_hexdigit())
}

/// The time zones the time axis can use.
pub const TIMEZONES: &[&str] = &[
    "UTC",
    "America/New_York",
    "America/Chicago",
    "Europe/London",
    "Europe/Berlin",
    "Asia/Tokyo",
    "Asia/Shanghai",
    "Australia/Sydney",
];

/// The default value, the rule and the description of each setting.
fn definition(key: SettingKey) -> (SettingValue, Rule, &'static str) {
    match key {
        SettingKey::Theme => (
            "dark".into(),
            Rule::OneOf(&["dark", "light"]),
            "Color scheme.",
        ),
        SettingKey::Timezone => (
            "UTC".into(),
            Rule::OneOf(TIMEZONES),
            "Time zone of the time axis.",
        ),
        SettingKey::PriceScale => (
            "linear".into(),
            Rule::OneOf(&["linear", "logarithmic", "percent"]),
            "Price axis scale.",
        ),
        SettingKey::ShowVolume => (
            true.into(),
            Rule::Bool,
            "Show volume bars under the candles.",
        ),
        SettingKey::ShowGrid => (true.into(), Rule::Bool, "Show grid lines."),
        SettingKey::CandleUpColor => ("#26a69a".into(), Rule::Color, "Color of rising candles."),
        SettingKey::CandleDownColor => ("#ef5350".into(), Rule::Color, "Color of falling candles."),
        SettingKey::RightMarginBars => (
            10.into(),
            Rule::WholeNumber(0, 50),
            "Empty bars kept right of the last bar.",
        ),
        SettingKey::DataProvider => (
            "demo".into(),
            Rule::Fixed,
            "Where the market data comes from.",
        ),
        SettingKey::AppVersion => ("1.0.0".into(), Rule::Fixed, "The chart's version."),
    }
}

impl SettingKey {
    /// True for settings no tool may change.
    pub fn is_read_only(self) -> bool {
        matches!(definition(self).1, Rule::Fixed)
    }

    /// The keys that may be changed.
    pub fn writable() -> Vec<SettingKey> {
        SettingKey::ALL
            .iter()
            .copied()
            .filter(|k| !k.is_read_only())
            .collect()
    }
}

/// The settings' current values.
pub(crate) fn default_settings() -> BTreeMap<SettingKey, SettingValue> {
    SettingKey::ALL
        .iter()
        .map(|k| (*k, definition(*k).0))
        .collect()
}

/// A setting as the tools report it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingView {
    /// The key.
    pub key: SettingKey,
    /// The current value.
    pub value: SettingValue,
    /// The value `settings_reset` restores.
    pub default: SettingValue,
    /// True when no tool may change it.
    pub read_only: bool,
    /// What values it accepts.
    pub accepts: String,
    /// What it does.
    pub description: &'static str,
}

/// The answer of `settings_get` and `settings_reset`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingsList {
    /// The settings asked for (or reset), in key order.
    pub settings: Vec<SettingView>,
}

/// The answer of `settings_update`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingChanged {
    /// The key.
    pub key: SettingKey,
    /// The value before.
    pub previous: SettingValue,
    /// The value now.
    pub value: SettingValue,
}

impl Chart {
    fn setting_view(&self, key: SettingKey) -> SettingView {
        let (default, rule, description) = definition(key);
        SettingView {
            key,
            value: self
                .settings
                .get(&key)
                .cloned()
                .unwrap_or_else(|| default.clone()),
            default,
            read_only: matches!(rule, Rule::Fixed),
            accepts: rule.describe(),
            description,
        }
    }

    /// Every key of `keys` once, in key order; every key when `keys` is empty.
    fn selected_keys(keys: &[SettingKey], all: &[SettingKey]) -> Vec<SettingKey> {
        let mut selected = if keys.is_empty() {
            all.to_vec()
        } else {
            keys.to_vec()
        };
        selected.sort_unstable();
        selected.dedup();
        selected
    }

    /// `settings_get`: the settings `keys` (every setting when empty), with their values,
    /// defaults, whether they are read-only and what they accept.
    pub fn settings_get(&self, keys: &[SettingKey]) -> SettingsList {
        let settings = Self::selected_keys(keys, SettingKey::ALL)
            .into_iter()
            .map(|k| self.setting_view(k))
            .collect();
        SettingsList { settings }
    }

    /// `settings_update`: sets one setting.
    ///
    /// # Errors
    /// `SETTING_READ_ONLY` (the detail lists the writable keys); `SETTING_VALUE_INVALID` when the
    /// value does not fit the key (the detail says what it accepts).
    pub fn settings_update(
        &mut self,
        key: SettingKey,
        value: SettingValue,
    ) -> Result<SettingChanged, ChartError> {
        let (default, rule, _) = definition(key);
        if key.is_read_only() {
            return Err(ChartError::SettingReadOnly {
                key,
                writable: SettingKey::writable(),
            });
        }
        let value = match value {
            SettingValue::Number(n) => SettingValue::from(n),
            other => other,
        };
        if !rule.accepts(&value) {
            return Err(ChartError::SettingValueInvalid {
                key,
                expected: rule.describe(),
            });
        }
        let previous = self.settings.insert(key, value.clone()).unwrap_or(default);
        Ok(SettingChanged {
            key,
            previous,
            value,
        })
    }

    /// `settings_reset`: restores the defaults of `keys` (every writable setting when empty).
    ///
    /// # Errors
    /// `SETTING_READ_ONLY` when a key is read-only; nothing is reset then.
    pub fn settings_reset(&mut self, keys: &[SettingKey]) -> Result<SettingsList, ChartError> {
        let selected = Self::selected_keys(keys, &SettingKey::writable());
        if let Some(key) = selected.iter().find(|k| k.is_read_only()) {
            return Err(ChartError::SettingReadOnly {
                key: *key,
                writable: SettingKey::writable(),
            });
        }
        for key in &selected {
            self.settings.insert(*key, definition(*key).0);
        }
        let settings = selected.into_iter().map(|k| self.setting_view(k)).collect();
        Ok(SettingsList { settings })
    }
}
