#!/usr/bin/env bash
# Builds the viewer for the web into a folder ready to serve (default target/web):
#   index.html, obbtree-web.js (wasm-bindgen's glue), obbtree-web_bg.wasm, assets/ (the scenes).
#
#   assets/web/build.sh [--out DIR] [--no-opt]
#   python3 assets/web/serve.py --dir target/web --port 8080   # then open http://127.0.0.1:8080/?scene=torus
#
# Needs the wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown) and
# wasm-bindgen-cli at the version of Cargo.lock's wasm-bindgen (installed here if missing);
# wasm-opt (Debian package binaryen) shrinks the .wasm when present (--no-opt skips it).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/web
opt=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --no-opt) opt=0; shift ;;
    *) echo "usage: assets/web/build.sh [--out DIR] [--no-opt]" >&2; exit 2 ;;
  esac
done
target_dir=${CARGO_TARGET_DIR:-target}

# The wasm-bindgen CLI must match the library exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "assets/web/build.sh: installing wasm-bindgen-cli $want (found: ${have:-none})"
  # --locked first; without it if the registry lacks a locked version (then the newest
  # compatible dependencies are used).
  # --force: a stale install record (the binary gone) must not make cargo skip it.
  cargo install wasm-bindgen-cli --version "$want" --locked --force \
    || cargo install wasm-bindgen-cli --version "$want" --force
fi

# With the thin local LTO that the release profile turns off for native builds (Cargo.toml): the
# .wasm is 6% smaller with it (70.9 MB against 75.5 MB before wasm-bindgen; its compile took
# 8 min 5 s against 6 min 14 s, cold, on an idle 2-core machine).
CARGO_PROFILE_RELEASE_LTO=false cargo build --release --target wasm32-unknown-unknown \
  --no-default-features --features web --bin obbtree-web
wasm="$target_dir/wasm32-unknown-unknown/release/obbtree-web.wasm"

rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name obbtree-web "$wasm"
if [ "$opt" = 1 ] && command -v wasm-opt >/dev/null; then
  # Rust's default wasm features, which wasm-opt must be told of.
  wasm-opt -O2 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    -o "$out/obbtree-web_bg.opt.wasm" "$out/obbtree-web_bg.wasm"
  mv "$out/obbtree-web_bg.opt.wasm" "$out/obbtree-web_bg.wasm"
elif [ "$opt" = 1 ]; then
  echo "assets/web/build.sh: wasm-opt not found (Debian package binaryen): the .wasm is not optimised"
fi
cp assets/web/index.html "$out/"
# The scenes the page fetches: models, manifest, paths.
mkdir -p "$out/assets"
cp -r assets/models assets/paths "$out/assets/"
echo "assets/web/build.sh: $out ready ($(du -sh "$out" | cut -f1)); serve it with: python3 assets/web/serve.py --dir $out --port 8080"
ls -l "$out" "$out"/*.wasm
