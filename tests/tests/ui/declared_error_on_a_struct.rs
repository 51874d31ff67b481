use toolwright_runtime::DeclaredError;

#[derive(DeclaredError)]
struct SearchError {
    code: &'static str,
}

fn main() {}
