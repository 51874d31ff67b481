#!/usr/bin/env bash
# The published crates as crates.io will hold them. `cargo package` packs each one and builds it
# from its `.crate`, against the packages before it (in dependency order, through cargo's own
# temporary registry). Then every package's own tests run from the extracted files, in a
# workspace whose `[patch.crates-io]` points the packages at each other: a test that needs a file
# the package does not hold fails here.
#
# Usage: scripts/package-check.sh
# The build reuses the workspace's target directory (`CARGO_TARGET_DIR` when set).
set -euo pipefail
cd "$(dirname "$0")/.."

# Dependency order: the runtime depends on the manifest crate and the macros, the macros on
# the manifest crate; the secrets depend on none of them.
published=(toolwright-manifest toolwright-macros toolwright-runtime toolwright-secrets)

target="${CARGO_TARGET_DIR:-$PWD/target}"
packages=()
for name in "${published[@]}"; do
    packages+=(-p "${name}")
done

echo "== cargo package (each package built from its .crate)"
# `--allow-dirty`: what is checked is the working tree, as the rest of CI checks it.
cargo package --allow-dirty "${packages[@]}"

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
    tar -xzf "${target}/package/${name}-${version}.crate" -C "${work}"
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
# The workspace's versions of every dependency, so that the build reuses what it compiled.
cp Cargo.lock "${work}/Cargo.lock"

echo "== the packages' own tests, from the extracted packages"
(cd "${work}" && CARGO_TARGET_DIR="${target}" cargo test --workspace --all-features)
