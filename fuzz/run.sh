#!/usr/bin/env bash
# Runs the fuzz targets (cargo-fuzz, libFuzzer) for SECONDS each, one after another, from the
# hand-made seeds in corpus/<target>/ (seed-*; what libFuzzer adds beside them is not committed).
#
#   fuzz/run.sh [SECONDS] [TARGET...]     default: 60 s each, all targets (obj poses collide)
#
# Installs what it needs: the nightly toolchain (rustup, minimal profile) and cargo-fuzz, each
# only if missing (where no nightly can be installed, the default toolchain with
# RUSTC_BOOTSTRAP=1). Exits non-zero if any target crashes; the input is left in
# artifacts/<target>/, and `cargo +nightly fuzz tmin <target> <input>` minimises it. After each
# target its closing lines ("Done N runs in S second(s)") are printed.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(obj poses collide)

toolchain=(+nightly)
if ! rustup run nightly rustc --version >/dev/null 2>&1 &&
  ! rustup toolchain install nightly --profile minimal; then
  # Where no nightly can be had, the default toolchain takes cargo-fuzz's -Z flags (the sanitizer
  # runtimes ship with every toolchain).
  echo "fuzz: no nightly toolchain; the default one with RUSTC_BOOTSTRAP=1"
  toolchain=()
  export RUSTC_BOOTSTRAP=1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo "${toolchain[@]}" install cargo-fuzz --locked
fi
cargo fuzz --version
rustc "${toolchain[@]}" --version

cargo "${toolchain[@]}" fuzz build
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  log=$(mktemp)
  echo "fuzz: $t for $seconds s"
  if cargo "${toolchain[@]}" fuzz run "$t" "corpus/$t" -- -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
    >"$log" 2>&1; then
    grep -E '^(#[0-9]+\s+DONE|Done [0-9]+ runs|stat::number_of_executed_units)' "$log" || true
  else
    tail -n 60 "$log"
    failed+=("$t")
  fi
  rm -f "$log"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]} (a crash leaves its input in fuzz/artifacts/<target>/)"
  exit 1
fi
echo "fuzz: ${targets[*]}: no crash in $seconds s each"
