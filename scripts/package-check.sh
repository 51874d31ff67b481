#!/usr/bin/env bash
# The published crates as crates.io will hold them. `cargo package` packs each one (in dependency
# order, resolving each against the packages before it); the packages are extracted into a
# workspace whose `[patch.crates-io]` points them at each other; each package is built alone from
# its extracted files (default features, no dev-dependencies: what a dependent builds), then every
# package's own tests run there: a test that needs a file the package does not hold fails here.
#
# The build is not `cargo package`'s own verification: that unpacks each package into cargo's
# registry cache once per name and version and compiles it as an immutable registry crate, so a
# second run on a changed tree verifies the first run's code. Extracted path packages are rebuilt
# when they change.
#
# Usage: scripts/package-check.sh
# The build reuses the workspace's target directory (`CARGO_TARGET_DIR` when set).
set -euo pipefail
cd "$(dirname "$0")/.."

# Dependency order: the secrets depend on none of them; the upstream client on the secrets; every
# other crate on the core; the generator (its CLI) on the upstream client; the runtime on the
# macros; the MCP server on the runtime, the generator and the upstream client.
published=(toolwright-secrets toolwright-upstream toolwright-core toolwright-manifest toolwright-macros toolwright-runtime toolwright-mcp)

target="${CARGO_TARGET_DIR:-$PWD/target}"
packages=()
for name in "${published[@]}"; do
    packages+=(-p "${name}")
done

echo "== cargo package"
# `--allow-dirty`: what is checked is the working tree, as the rest of CI checks it.
cargo package --allow-dirty --no-verify "${packages[@]}"

# Outside the repository's layout on purpose: `../../shared` of a package (the optional test
# corpora) does not exist from here, so those tests skip as they do for anyone else.
work="${target}/package-check"
rm -rf "${work}"
mkdir -p "${work}"

members=""
patches=""
for name in "${published[@]}"; do
    version=$(cargo pkgid -p "${name}")
    version="${version##*@}"
    # `-m`: the files get the time of extraction, not the fixed time a package stores, so that
    # cargo sees that they changed since the last run.
    tar -xzmf "${target}/package/${name}-${version}.crate" -C "${work}"
    members+="\"${name}-${version}\", "
    patches+="${name} = { path = \"${name}-${version}\" }"$'\n'
done

cat >"${work}/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = [${members}]

[patch.crates-io]
${patches}
TOML
# The repository's profiles (the end of its Cargo.toml): the dependencies' compiled code is the
# workspace's, and the test binaries are no larger than its own.
sed -n '/^\[profile/,$p' Cargo.toml >>"${work}/Cargo.toml"
# The workspace's versions of every dependency, so that the build reuses what it compiled.
cp Cargo.lock "${work}/Cargo.lock"

cd "${work}"
export CARGO_TARGET_DIR="${target}"
for name in "${published[@]}"; do
    echo "== ${name} built from its package"
    cargo build -p "${name}"
done
echo "== toolwright-runtime's docs from its package, the guide's chapters included (as docs.rs builds them)"
RUSTDOCFLAGS="-D warnings" cargo doc -p toolwright-runtime --no-deps --all-features
echo "== toolwright-mcp's docs from its package"
RUSTDOCFLAGS="-D warnings" cargo doc -p toolwright-mcp --no-deps --all-features
echo "== toolwright-upstream's and toolwright-manifest's docs from their packages"
RUSTDOCFLAGS="-D warnings" cargo doc -p toolwright-upstream -p toolwright-manifest --no-deps --all-features
echo "== the packages' own tests, from the extracted packages"
cargo test --workspace --all-features
