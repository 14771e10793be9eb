#!/usr/bin/env bash
# The web build's full check: build it (assets/web/build.sh), then open the three scenes in headless
# Chromium and check the screenshots and the per-frame query against the library, drive the torus
# scene with keys and the mouse, and use the panel (tests/web.rs; about 30 minutes).
# Needs python3 and chromium (Debian packages python3, chromium).
#
#   assets/web/test.sh            # screenshots in target/web-test/
set -euo pipefail
cd "$(dirname "$0")/../.."
assets/web/build.sh --out "${OBBTREE_WEB_DIR:-target/web}"
OBBTREE_WEB_DIR="$(realpath "${OBBTREE_WEB_DIR:-target/web}")" \
  cargo test --release --features web --test web -- --test-threads=1 --nocapture
