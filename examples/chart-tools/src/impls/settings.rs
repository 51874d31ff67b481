//! `settings_get`, `settings_update`, `settings_reset`.

use toolwright_runtime::tool;

use super::declared_errors;
use super::words::setting_keys;
use crate::chart::{Chart, ChartError, SettingChanged, SettingValue, SettingsList};
use crate::tools;
use toolwright_runtime::{Changed, Failure};

declared_errors!(settings_update_error: tools::settings_update::Error {
    SettingReadOnly,
    SettingValueInvalid,
});
declared_errors!(settings_reset_error: tools::settings_reset::Error { SettingReadOnly });

#[tool(manifest = crate::tools::settings_get)]
pub(crate) fn settings_get(
    chart: &Chart,
    input: tools::settings_get::Input,
) -> Result<SettingsList, tools::settings_get::Error> {
    Ok(chart.settings_get(&setting_keys(input.keys)))
}

#[tool(manifest = crate::tools::settings_update)]
pub(crate) fn settings_update(
    chart: &mut Chart,
    input: tools::settings_update::Input,
) -> Result<Changed<SettingChanged>, Failure<tools::settings_update::Error>> {
    let key = input.key.into();
    // The schema's `type` list is an enum of its types; a whole number is an integer setting.
    let value = match input.value {
        tools::settings_update::Value::String(text) => SettingValue::Text(text),
        tools::settings_update::Value::Number(number) => SettingValue::from(number),
        tools::settings_update::Value::Boolean(flag) => SettingValue::Bool(flag),
    };
    let changed = chart
        .settings_update(key, value)
        .map_err(settings_update_error)?;
    let differs = changed.previous != changed.value;
    Ok(Changed::new(changed, differs))
}

#[tool(manifest = crate::tools::settings_reset)]
pub(crate) fn settings_reset(
    chart: &mut Chart,
    input: tools::settings_reset::Input,
) -> Result<Changed<SettingsList>, Failure<tools::settings_reset::Error>> {
    let keys = setting_keys(input.keys);
    let before = chart.settings_get(&keys);
    let reset = chart.settings_reset(&keys).map_err(settings_reset_error)?;
    let changed = before.settings.iter().any(|s| s.value != s.default);
    Ok(Changed::new(reset, changed))
}
