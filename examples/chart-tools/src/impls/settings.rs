//! `settings_get`, `settings_update`, `settings_reset`.

use toolwright_runtime::tool;

use super::declared_errors;
use super::words::setting_keys;
use crate::chart::{Chart, ChartError, SettingChanged, SettingValue, SettingsList};
use crate::tools;
use toolwright_runtime::{Changed, Fault};

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
) -> Result<Changed<SettingChanged>, Fault<tools::settings_update::Error>> {
    let key = input.key.into();
    let value = match SettingValue::from_json(&input.value) {
        Some(value) => value,
        // The schema admits only strings, numbers and booleans; say what the key accepts anyway.
        None => {
            let expected = chart
                .settings_get(&[key])
                .settings
                .into_iter()
                .map(|view| view.accepts)
                .next()
                .unwrap_or_else(|| "a string, a number or a boolean".to_owned());
            return Err(settings_update_error(ChartError::SettingValueInvalid {
                key,
                expected,
            }));
        }
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
) -> Result<Changed<SettingsList>, Fault<tools::settings_reset::Error>> {
    let keys = setting_keys(input.keys);
    let before = chart.settings_get(&keys);
    let reset = chart.settings_reset(&keys).map_err(settings_reset_error)?;
    let changed = before.settings.iter().any(|s| s.value != s.default);
    Ok(Changed::new(reset, changed))
}
