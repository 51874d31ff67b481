//! `settings_get`, `settings_update`, `settings_reset`.

use toolwright_runtime::tool;

use super::declared;
use crate::chart::{Chart, SettingChanged, SettingValue, SettingsList};
use crate::tools;
use toolwright_runtime::{Changed, Failure};

#[tool(manifest = crate::tools::settings_get)]
pub(crate) fn settings_get(
    chart: &Chart,
    input: tools::settings_get::Input,
) -> Result<SettingsList, tools::settings_get::Error> {
    Ok(chart.settings_get(&input.keys.unwrap_or_default()))
}

#[tool(manifest = crate::tools::settings_update)]
pub(crate) fn settings_update(
    chart: &mut Chart,
    input: tools::settings_update::Input,
) -> Result<Changed<SettingChanged>, Failure<tools::settings_update::Error>> {
    // The schema's `type` list is an enum of its types; a whole number is an integer setting.
    let value = match input.value {
        tools::settings_update::Value::String(text) => SettingValue::Text(text),
        tools::settings_update::Value::Number(number) => SettingValue::from(number),
        tools::settings_update::Value::Boolean(flag) => SettingValue::Bool(flag),
    };
    let changed = chart.settings_update(input.key, value).map_err(declared)?;
    let differs = changed.previous != changed.value;
    Ok(Changed::new(changed, differs))
}

#[tool(manifest = crate::tools::settings_reset)]
pub(crate) fn settings_reset(
    chart: &mut Chart,
    input: tools::settings_reset::Input,
) -> Result<Changed<SettingsList>, Failure<tools::settings_reset::Error>> {
    let keys = input.keys.unwrap_or_default();
    let before = chart.settings_get(&keys);
    let reset = chart.settings_reset(&keys).map_err(declared)?;
    let changed = before.settings.iter().any(|s| s.value != s.default);
    Ok(Changed::new(reset, changed))
}
