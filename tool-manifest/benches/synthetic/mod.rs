//! The synthetic manifests of the benches: deterministic, one tool per file, each shaped like a
//! realistic tool (an object input with strings, an enum, bounded integers, an array of objects
//! and a nested object; two declared errors; one example). Shared by `generate` and `diff`.

use std::path::{Path, PathBuf};

/// The manifest of synthetic tool `i`: read-only or destructive, parallel or sequential, a few
/// categories, the same shape for every tool so sizes compare.
pub fn synthetic_manifest(i: usize) -> String {
    let (safety, mode) = if i.is_multiple_of(3) {
        ("destructive", "sequential")
    } else {
        ("read-only", "parallel")
    };
    let category = ["drawings", "panes", "market", "settings"][i % 4];
    format!(
        r##"name = "tool_{i:05}"
title = "Tool number {i}"
description = "Synthetic tool {i}: reads or changes item {i} of a pane, anchored at bar times and prices. The pane must exist (panes_list lists them)."
safety = "{safety}"
mode = "{mode}"
category = "{category}"

[input]
type = "object"
additionalProperties = false
required = ["pane_id", "kind", "anchors"]

[input.properties.pane_id]
type = "string"
description = "The pane, e.g. `main`."
minLength = 1
maxLength = 64

[input.properties.kind]
type = "string"
description = "What to draw."
enum = ["trend_line", "ray", "horizontal_line", "text"]

[input.properties.anchors]
type = "array"
description = "The points, oldest first."
minItems = 1
maxItems = 2

[input.properties.anchors.items]
type = "object"
description = "A point."
additionalProperties = false
required = ["time", "price"]

[input.properties.anchors.items.properties.time]
type = "integer"
description = "A bar time in unix seconds."
minimum = 0
maximum = 4102444800

[input.properties.anchors.items.properties.price]
type = "number"
description = "The price at that time."

[input.properties.style]
type = "object"
description = "How it looks."
additionalProperties = false

[input.properties.style.properties.color]
type = "string"
description = "Line color as `#rrggbb`."
pattern = "^#[0-9a-fA-F]{{6}}$"

[input.properties.style.properties.width]
type = "integer"
description = "Line width in pixels."
minimum = 1
maximum = 10

[input.properties.limit_{i}]
type = "integer"
description = "A limit only tool {i} has."
minimum = 1
maximum = {max}

[[errors]]
code = "PANE_NOT_FOUND"
message = "The pane does not exist."
retryable = true
recommended_action = "Call panes_list to get the valid pane IDs, then retry with one of them."

[[errors]]
code = "ITEM_{i}_MISSING"
message = "Item {i} does not exist."
retryable = false
recommended_action = "Tell the user that item {i} is gone."

[[examples]]
description = "Draw on the main pane"
input = {{ pane_id = "main", kind = "trend_line", anchors = [{{ time = 1738281600, price = 138.29 }}, {{ time = 1750032000, price = 182.61 }}], style = {{ color = "#26a69a" }} }}
"##,
        max = 100 + i,
    )
}

/// Writes `n` manifests into `dir/tools` and returns their paths, sorted.
pub fn synthesize(dir: &Path, n: usize) -> (PathBuf, Vec<PathBuf>) {
    let tools = dir.join("tools");
    std::fs::create_dir_all(&tools).expect("create the manifest directory");
    let files: Vec<PathBuf> = (0..n)
        .map(|i| {
            let path = tools.join(format!("tool_{i:05}.toml"));
            std::fs::write(&path, synthetic_manifest(i)).expect("write a manifest");
            path
        })
        .collect();
    (tools, files)
}
