//! The frozen metadata converts back to specs that regenerate the same code and document
//! exactly what was declared.

use generated_check::tools;
use toolwright_manifest::{ToolSpec, codegen, docs};

fn specs() -> Vec<ToolSpec> {
    tools::ALL
        .iter()
        .map(|meta| ToolSpec::from_meta(meta).expect("generated JSON is valid"))
        .collect()
}

#[test]
fn the_index_lists_every_tool_under_its_declared_safety() {
    let files = docs::render(&specs());
    let readme = &files["README.md"];
    assert!(
        readme.contains(
            "| `read-only` | reads state or outside data; changes nothing | \
             [big_values](big_values.md), [doc_fences](doc_fences.md), \
             [draft07_ranges](draft07_ranges.md), [draft2019_pairs](draft2019_pairs.md), \
             [mapping_rules](mapping_rules.md), \
             [market_bars_query](market_bars_query.md), [panes_list](panes_list.md), \
             [quote_hashes](quote_hashes.md), [self](self.md) |"
        ),
        "{readme}"
    );
    assert!(
        readme.contains(
            "| `destructive` | changes state, settings or the outside world | \
             [drawing_create](drawing_create.md), [settings_update](settings_update.md) |"
        ),
        "{readme}"
    );
    for meta in tools::ALL {
        let page = &files[&format!("{}.md", meta.name)];
        assert!(
            page.contains(&format!("- **Safety:** `{}`", meta.safety)),
            "{page}"
        );
        assert!(
            page.contains(&format!("- **Mode:** `{}`", meta.mode)),
            "{page}"
        );
        for error in meta.errors {
            assert!(page.contains(&format!("| `{}` |", error.code)), "{page}");
        }
    }
}

#[test]
fn the_frozen_metadata_regenerates_the_same_code() {
    // Nothing is lost on the way from manifest to frozen metadata: generating from the frozen
    // form gives back the very file the build script wrote.
    let code = codegen::generate(&specs()).expect("generates");
    assert_eq!(code, include_str!(concat!(env!("OUT_DIR"), "/tools.rs")));
    // And with the option the build script gave the second file.
    let mut options = codegen::Options::default();
    options.derive_json_schema = true;
    let code = codegen::generate_with(&specs(), &options).expect("generates");
    assert_eq!(
        code.code,
        include_str!(concat!(env!("OUT_DIR"), "/schemas.rs"))
    );
}
