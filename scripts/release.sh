#!/usr/bin/env bash
# Builds the assets of a release: deferral-host for a target (with README.md and LICENSE), the npm
# tarball, and SHA256SUMS.
# The release workflow (.github/workflows/release.yml) runs one `host` per platform, one `npm`,
# then `sums` over all of them; with no command it builds all three for this machine's target.
#
# Usage:
#   bash scripts/release.sh [OUT_DIR]              everything for the local target (default OUT_DIR: .tmp/release)
#   bash scripts/release.sh host TARGET OUT_DIR    deferral-host-VERSION-TARGET.tar.gz
#   bash scripts/release.sh npm OUT_DIR            deferral-VERSION.tgz (scripts/pack.mjs)
#   bash scripts/release.sh sums OUT_DIR           SHA256SUMS of every other file in OUT_DIR
# DEFERRAL_HOST_BINARY=PATH packs that binary instead of building one (the tests reuse theirs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

say() { printf 'release: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

VERSION=$(node -p 'require("./package.json").version')
CARGO_VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ "$VERSION" = "$CARGO_VERSION" ] || die "package.json says $VERSION but Cargo.toml says $CARGO_VERSION"

local_target() { rustc -vV | sed -n 's/^host: //p'; }

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

build_host() {
  local target=$1 out=$2 binary stage
  mkdir -p "$out"
  if [ -n "${DEFERRAL_HOST_BINARY:-}" ]; then
    binary=$DEFERRAL_HOST_BINARY
    [ -x "$binary" ] || die "DEFERRAL_HOST_BINARY=$binary is not an executable"
  else
    say "building deferral-host for $target (cargo build --release)"
    rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"
    cargo build --release --locked -p deferral-host --target "$target"
    binary=${CARGO_TARGET_DIR:-$ROOT/target}/$target/release/deferral-host
  fi
  stage=$(mktemp -d)
  cp "$binary" "$stage/deferral-host"
  cp README.md LICENSE "$stage/"
  tar -C "$stage" -czf "$out/deferral-host-$VERSION-$target.tar.gz" .
  rm -rf "$stage"
  say "wrote $out/deferral-host-$VERSION-$target.tar.gz"
}

build_npm() {
  local out=$1 tarball
  mkdir -p "$out"
  tarball=$(node scripts/pack.mjs "$out")
  say "wrote $tarball"
}

write_sums() {
  local out=$1 names=() file
  [ -d "$out" ] || die "no folder $out"
  for file in "$out"/*; do
    [ -f "$file" ] && [ "${file##*/}" != SHA256SUMS ] && names+=("${file##*/}")
  done
  [ ${#names[@]} -gt 0 ] || die "nothing to sum in $out"
  # Names relative to the folder: `sha256sum -c SHA256SUMS` works from inside it.
  (cd "$out" && sha256 "${names[@]}") > "$out/SHA256SUMS"
  say "wrote $out/SHA256SUMS (${#names[@]} files)"
}

case "${1:-}" in
  host) [ $# -eq 3 ] || die "usage: release.sh host TARGET OUT_DIR"; build_host "$2" "$3" ;;
  npm) [ $# -eq 2 ] || die "usage: release.sh npm OUT_DIR"; build_npm "$2" ;;
  sums) [ $# -eq 2 ] || die "usage: release.sh sums OUT_DIR"; write_sums "$2" ;;
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *)
    [ $# -le 1 ] || die "usage: release.sh [OUT_DIR] (or host, npm, sums; see --help)"
    OUT=${1:-.tmp/release}
    # Assets are never replaced: a folder holding files already is someone else's, or an old run.
    [ ! -e "$OUT" ] || [ -z "$(ls -A "$OUT")" ] || die "$OUT is not empty; give a new folder"
    build_host "$(local_target)" "$OUT"
    build_npm "$OUT"
    write_sums "$OUT"
    ;;
esac
