#!/usr/bin/env bash
# Builds the viewer for the web into a folder ready to serve (default target/web):
#   index.html, obbtree-web.js (wasm-bindgen's glue), obbtree-web_bg.wasm, assets/ (the scenes).
#
#   assets/web/build.sh [--out DIR] [--no-opt]
#   python3 assets/web/serve.py --dir target/web --port 8080   # then open http://127.0.0.1:8080/?scene=torus
#
# Needs the wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown) and
# wasm-bindgen-cli at the version of Cargo.lock's wasm-bindgen (installed here if missing);
# binaryen's wasm-opt at version 116 (the `wasm-opt` crate 0.116.1, installed here with cargo if
# missing) shrinks the .wasm; --no-opt skips it. Older wasm-opt releases (Debian's binaryen 108)
# mishandle wasm-bindgen's reference types and the page dies at start: this script refuses them.
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

# The pinned wasm-opt: the one on the PATH if it is binaryen 116, else cargo's.
wasm_opt_version=116
wasm_opt=""
if [ "$opt" = 1 ]; then
  for candidate in wasm-opt "${CARGO_HOME:-$HOME/.cargo}/bin/wasm-opt"; do
    if "$candidate" --version 2>/dev/null | grep -q "version $wasm_opt_version\b"; then
      wasm_opt=$candidate
      break
    fi
  done
  if [ -z "$wasm_opt" ]; then
    echo "assets/web/build.sh: installing wasm-opt (binaryen $wasm_opt_version) with cargo (found: $(wasm-opt --version 2>/dev/null || echo none))"
    cargo install wasm-opt --version "0.$wasm_opt_version.1" --locked --force
    wasm_opt="${CARGO_HOME:-$HOME/.cargo}/bin/wasm-opt"
  fi
  if ! "$wasm_opt" --version 2>/dev/null | grep -q "version $wasm_opt_version\b"; then
    echo "assets/web/build.sh: $wasm_opt is not binaryen $wasm_opt_version ($("$wasm_opt" --version 2>&1 || true)):" >&2
    echo "  other versions break wasm-bindgen's reference types (the page dies at start)." >&2
    echo "  Install it with: cargo install wasm-opt --version 0.$wasm_opt_version.1 --locked; or pass --no-opt." >&2
    exit 1
  fi
fi

# Cargo.toml's `web` profile: opt-level "z" with fat LTO and one codegen unit for the
# dependencies (Bevy, mostly), the collision core at opt-level 3.
cargo build --profile web --target wasm32-unknown-unknown --no-default-features --features web \
  --bin obbtree-web
wasm="$target_dir/wasm32-unknown-unknown/web/obbtree-web.wasm"

rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name obbtree-web "$wasm"
if [ "$opt" = 1 ]; then
  # Rust's default wasm features, which wasm-opt must be told of.
  "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    -o "$out/obbtree-web_bg.opt.wasm" "$out/obbtree-web_bg.wasm"
  mv "$out/obbtree-web_bg.opt.wasm" "$out/obbtree-web_bg.wasm"
fi
cp assets/web/index.html "$out/"
# The scenes the page fetches: models, manifest, paths.
mkdir -p "$out/assets"
cp -r assets/models assets/paths "$out/assets/"
# The sizes a visitor downloads (as served, and gzipped as servers send them): the wasm, and the
# whole first load of the default page (the torus scene).
gz() { gzip -9 -c "$@" | wc -c; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
raw=$(wc -c < "$out/obbtree-web_bg.wasm")
first=$(cat "$out/index.html" "$out/obbtree-web.js" "$out/obbtree-web_bg.wasm" \
  "$out/assets/models/manifest.json" "$out/assets/models/landscape.obj" \
  "$out/assets/models/wrinkled_torus.obj" "$out/assets/paths/torus.txt" | gzip -9 | wc -c)
echo "assets/web/build.sh: obbtree-web_bg.wasm $(mb "$raw") ($(mb "$(gz "$out/obbtree-web_bg.wasm")") gzipped); first load of the torus page $(mb "$first") gzipped"
echo "assets/web/build.sh: $out ready ($(du -sh "$out" | cut -f1)); serve it with: python3 assets/web/serve.py --dir $out --port 8080"
