#!/usr/bin/env bash
# Builds and runs the libFuzzer targets: fuzz_json (the JSON reader) and fuzz_invoke_<domain> (each provider
# through the flat ABI), each for the given number of seconds (default 60).
#
#   packs/provider-sdk/fuzz/run.sh [seconds] [parallel-jobs]
#
# Needs clang with libFuzzer (Debian/Ubuntu: apt-get update && apt-get install -y clang).
# Output under packs/provider-sdk/build/fuzz/: binaries, corpus/<target>/ (kept between runs), crashes/<target>/ (this
# run's crashing inputs; replay one with build/fuzz/<target> <file>), logs/<target>.log. Prints executions, coverage and crashes per target; exits 1 if any target crashed.
set -euo pipefail

seconds="${1:-60}"
jobs="${2:-1}"
here="$(cd "$(dirname "$0")" && pwd)"
sdk="$(cd "$here/.." && pwd)"
packs="$(cd "$sdk/.." && pwd)"
out="$sdk/build/fuzz" # inside packs/*/build/, which .gitignore covers
domains=(cti fimi crisis medical research)

if ! command -v clang >/dev/null 2>&1; then
  echo "clang not found: install it (apt-get update && apt-get install -y clang)" >&2
  exit 2
fi

mkdir -p "$out/logs"
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
  -Wall -Wextra -Werror -I"$sdk/include")

echo "building fuzz targets in $out"
clang "${flags[@]}" -DFUZZ_JSON_READER "$here/fuzz_json.c" "$sdk"/native/*.c -o "$out/fuzz_json"
for domain in "${domains[@]}"; do
  clang "${flags[@]}" -DFUZZ_INVOKE -I"$packs/$domain/provider" "$here/fuzz_json.c" "$sdk"/native/*.c \
    "$packs/$domain"/provider/*.c -o "$out/fuzz_invoke_$domain"
done

# Seeds: every payload of every domain feeds every target (one file per line), plus a full request.
seed_corpus() {
  local dir="$1"
  mkdir -p "$dir"
  local n=0
  for file in "$here"/seeds/*.jsonl; do
    while IFS= read -r line; do
      [ -n "$line" ] || continue
      printf '%s' "$line" >"$dir/seed-$(basename "$file" .jsonl)-$n"
      n=$((n + 1))
    done <"$file"
  done
  printf '%s' '{"schema_version":"1","request_id":"r","domain":"cti","operation":"node.validate","payload":{}}' \
    >"$dir/seed-request"
}

run_target() {
  local target="$1"
  local corpus="$out/corpus/$target" crashes="$out/crashes/$target/"
  [ -d "$corpus" ] || seed_corpus "$corpus"
  rm -rf "$crashes" # this run's artifacts only; earlier crashes stay reproducible from their logs
  mkdir -p "$crashes"
  set +e
  "$out/$target" "$corpus" -dict="$here/json.dict" -max_len=16384 -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes" >"$out/logs/$target.log" 2>&1
  echo $? >"$out/logs/$target.rc"
  set -e
}

targets=(fuzz_json)
for domain in "${domains[@]}"; do targets+=("fuzz_invoke_$domain"); done

echo "running ${#targets[@]} targets for ${seconds}s each, $jobs at a time"
running=0
for target in "${targets[@]}"; do
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
printf '\n%-22s %12s %8s %8s %8s %8s\n' target executions exec/s cov features crashes
for target in "${targets[@]}"; do
  log="$out/logs/$target.log"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo "?")
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo "?")
  crashes=$(find "$out/crashes/$target" -type f | wc -l)
  rc=$(cat "$out/logs/$target.rc")
  printf '%-22s %12s %8s %8s %8s %8s\n' "$target" "$execs" "$rate" "$cov" "$ft" "$crashes"
  if [ "$rc" != "0" ] || [ "$crashes" != "0" ]; then
    status=1
    echo "  ✖ $target exited $rc; see $log and $out/crashes/$target/" >&2
  fi
done
exit "$status"
