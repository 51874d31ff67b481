//! `drawings_list`, `drawing_create`, `drawing_update`, `drawing_delete`, `drawings_copy`,
//! `drawings_clear`.

use toolwright_runtime::tool;

use super::declared;
use crate::chart::{Chart, Drawing, DrawingDeleted, DrawingsCleared, DrawingsCopied, DrawingsList};
use crate::tools;
use toolwright_runtime::{Changed, Failure};

#[tool(manifest = crate::tools::drawings_list)]
pub(crate) fn drawings_list(
    chart: &Chart,
    input: tools::drawings_list::Input,
) -> Result<DrawingsList, Failure<tools::drawings_list::Error>> {
    chart
        .drawings_list(input.pane_id.as_deref())
        .map_err(declared)
}

#[tool(manifest = crate::tools::drawing_create)]
pub(crate) fn drawing_create(
    chart: &mut Chart,
    input: tools::drawing_create::Input,
) -> Result<Drawing, Failure<tools::drawing_create::Error>> {
    chart
        .drawing_create(
            &input.pane_id,
            input.kind,
            input.anchors,
            input.style,
            input.text,
        )
        .map_err(declared)
}

#[tool(manifest = crate::tools::drawing_update)]
pub(crate) fn drawing_update(
    chart: &mut Chart,
    input: tools::drawing_update::Input,
) -> Result<Changed<Drawing>, Failure<tools::drawing_update::Error>> {
    let before = chart
        .drawings_list(None)
        .ok()
        .and_then(|list| list.drawings.into_iter().find(|d| d.id == input.drawing_id));
    let after = chart
        .drawing_update(&input.drawing_id, input.anchors, input.style, input.text)
        .map_err(declared)?;
    let changed = before.as_ref() != Some(&after);
    Ok(Changed::new(after, changed))
}

#[tool(manifest = crate::tools::drawing_delete)]
pub(crate) fn drawing_delete(
    chart: &mut Chart,
    input: tools::drawing_delete::Input,
) -> Result<DrawingDeleted, Failure<tools::drawing_delete::Error>> {
    chart.drawing_delete(&input.drawing_id).map_err(declared)
}

#[tool(manifest = crate::tools::drawings_copy)]
pub(crate) fn drawings_copy(
    chart: &mut Chart,
    input: tools::drawings_copy::Input,
) -> Result<Changed<DrawingsCopied>, Failure<tools::drawings_copy::Error>> {
    let copied = chart
        .drawings_copy(
            &input.from_pane_id,
            &input.to_pane_id,
            input.drawing_ids.as_deref(),
        )
        .map_err(declared)?;
    let changed = !copied.copied.is_empty();
    Ok(Changed::new(copied, changed))
}

#[tool(manifest = crate::tools::drawings_clear)]
pub(crate) fn drawings_clear(
    chart: &mut Chart,
    input: tools::drawings_clear::Input,
) -> Result<Changed<DrawingsCleared>, Failure<tools::drawings_clear::Error>> {
    let cleared = chart
        .drawings_clear(input.pane_id.as_deref())
        .map_err(declared)?;
    let changed = !cleared.removed.is_empty();
    Ok(Changed::new(cleared, changed))
}
