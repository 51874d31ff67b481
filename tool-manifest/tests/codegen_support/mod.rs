//! The check that generated code is Rust in the generator's layout: it parses with `syn`, its
//! lines are indented by four spaces a level, and items are one blank line apart.

use toolwright_manifest::codegen::HEADER;

/// How much stack the check gets: `syn` recurses once per level of a nested type, and an
/// unoptimized build with every feature of `syn` (as the workspace unifies them) needs more
/// than a test thread's 2 MiB for the deepest tool the tests generate.
const CHECK_STACK_BYTES: usize = 64 << 20;

/// What the tests look at in a parsed file.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The string literals of the `META`s by the field they set (`name` for the first argument
    /// of `ToolMeta::new`, `title` for `.title("…")`, `code` for the first argument of
    /// `ErrorMeta::new`, `input_schema` for `StaticSchema::Json("…")`), tool by tool, in order.
    pub meta: std::collections::BTreeMap<String, Vec<String>>,
    /// The structs and enums declared in the tool modules.
    pub types: Vec<String>,
}

impl Parsed {
    /// The strings of one `META` field.
    pub fn meta(&self, field: &str) -> &[String] {
        self.meta.get(field).map_or(&[], Vec::as_slice)
    }
}

/// Panics unless `code` is the header, then a Rust file `syn` parses, laid out as the
/// generator lays it out (checked on a thread with [`CHECK_STACK_BYTES`]).
pub fn assert_rust(code: &str) -> Parsed {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(CHECK_STACK_BYTES)
            .spawn_scoped(scope, || check_rust(code))
            .expect("a thread for the check")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// [`assert_rust`] on the calling thread.
fn check_rust(code: &str) -> Parsed {
    let body = code
        .strip_prefix(HEADER)
        .and_then(|rest| rest.strip_prefix("\n\n"))
        .unwrap_or_else(|| panic!("no header line:\n{code}"));
    let file = syn::parse_file(code).unwrap_or_else(|e| panic!("not Rust ({e}):\n{code}"));

    assert!(code.ends_with(";\n") && !code.ends_with("\n\n"), "{code}");
    let lines: Vec<&str> = body.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let at = i + 3;
        let text = line.trim_start_matches(' ');
        let indent = line.len() - text.len();
        assert!(
            indent % 4 == 0 && !text.starts_with(char::is_whitespace),
            "line {at} is not indented by levels of four spaces: {line:?}"
        );
        assert_eq!(line.trim_end(), *line, "trailing space on line {at}");
        if !line.is_empty() {
            continue;
        }
        // Blank lines: one, between two items.
        let before = i.checked_sub(1).and_then(|j| lines.get(j));
        let after = lines.get(i + 1).map(|l| l.trim_start());
        assert!(
            before.is_some_and(|l| l.ends_with('}') || l.ends_with(';')),
            "a blank line after {before:?} (line {at}):\n{code}"
        );
        assert!(
            after.is_some_and(|l| ["///", "#[", "pub ", "impl ", "impl<"]
                .iter()
                .any(|start| l.starts_with(start))),
            "a blank line before {after:?} (line {at}):\n{code}"
        );
    }
    parsed(&file)
}

fn parsed(file: &syn::File) -> Parsed {
    /// A string literal, or the one argument of calls around one (`Some(Json("…"))`).
    fn string_in(expr: &syn::Expr) -> Option<String> {
        match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            syn::Expr::Call(call) if call.args.len() == 1 => call.args.first().and_then(string_in),
            _ => None,
        }
    }
    fn record(parsed: &mut Parsed, field: &str, expr: &syn::Expr) {
        if let Some(text) = string_in(expr) {
            parsed.meta.entry(field.to_owned()).or_default().push(text);
        }
    }
    fn walk(expr: &syn::Expr, parsed: &mut Parsed) {
        match expr {
            // A setter: `.title("…")`, `.errors(&[…])`.
            syn::Expr::MethodCall(call) => {
                walk(&call.receiver, parsed);
                for arg in &call.args {
                    record(parsed, &call.method.to_string(), arg);
                    walk(arg, parsed);
                }
            }
            // A constructor: its arguments are the fields named here.
            syn::Expr::Call(call) => {
                let syn::Expr::Path(path) = &*call.func else {
                    return;
                };
                let of = path.path.segments.iter().rev().nth(1);
                let fields: &[&str] = match of.map(|s| s.ident.to_string()).as_deref() {
                    Some("ToolMeta") => &["name", "safety", "mode", "input_schema"],
                    Some("ErrorMeta") => &["code", "message", "retryable", "recommended_action"],
                    Some("ExampleMeta") => &["description", "input"],
                    _ => &[],
                };
                for (field, arg) in fields.iter().zip(&call.args) {
                    record(parsed, field, arg);
                }
            }
            syn::Expr::Reference(r) => walk(&r.expr, parsed),
            syn::Expr::Array(a) => a.elems.iter().for_each(|e| walk(e, parsed)),
            _ => {}
        }
    }
    let mut parsed = Parsed::default();
    for item in &file.items {
        if let syn::Item::Mod(module) = item {
            for inner in module.content.iter().flat_map(|(_, items)| items) {
                match inner {
                    syn::Item::Static(meta) if meta.ident == "META" => {
                        walk(&meta.expr, &mut parsed)
                    }
                    syn::Item::Struct(s) => parsed.types.push(s.ident.to_string()),
                    syn::Item::Enum(e) => parsed.types.push(e.ident.to_string()),
                    _ => {}
                }
            }
        }
    }
    parsed
}
