#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check group "fuzz": replay the committed seed corpus (every input once),
# then a smoke run of the fuzzer from it. Writes results lines.
#
#   tests/fuzz/check.sh <results> <fuzz-binary> <seed-dir> <seconds> <out-dir> <opts> [<prefix>]
#
# <prefix> goes before the result names (fuzz/<prefix>corpus_replay).
set -u
out=$1 bin=$2 seeds=$3 secs=$4 dir=$5 opts=$6 pfx=${7:-}
: > "$out"
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fail=0
mkdir -p "$dir/artifacts"

n=$(find "$seeds" -type f | wc -l)
# shellcheck disable=SC2086
if [ "$n" -gt 0 ] && "$bin" $opts $(find "$seeds" -type f | sort) \
	> "$dir/replay.log" 2>&1; then
	echo "ok - fuzz/${pfx}corpus_replay ($n inputs)" >> "$out"
	echo "  corpus replay: $n inputs ok"
else
	echo "not ok - fuzz/${pfx}corpus_replay ($n inputs)" >> "$out"
	echo "  corpus replay FAILED ($n inputs):"
	tail -n 40 "$dir/replay.log" | sed 's/^/    | /'
	fail=1
fi

rm -rf "$dir/smoke-corpus"
mkdir -p "$dir/smoke-corpus"
cp "$seeds"/* "$dir/smoke-corpus/" 2>/dev/null
# shellcheck disable=SC2086
if "$bin" $opts -max_total_time="$secs" -artifact_prefix="$dir/artifacts/" \
	"$dir/smoke-corpus" > "$dir/smoke.log" 2>&1; then
	echo "ok - fuzz/${pfx}smoke_${secs}s" >> "$out"
	echo "  smoke run: $(grep -E '^stat::number_of_executed_units' "$dir/smoke.log" |
		awk '{ print $2 }') executions in ${secs} s," \
		"$(grep -E '^#[0-9]+.*(cov|ft):' "$dir/smoke.log" | tail -n1 |
		sed -E 's/.*(cov: [0-9]+ ft: [0-9]+).*/\1/')"
else
	echo "not ok - fuzz/${pfx}smoke_${secs}s" >> "$out"
	echo "  smoke run FAILED (artifacts in $dir/artifacts):"
	grep -E 'fuzz_pool:|fuzz_pin:|ERROR|SUMMARY|Test unit written|^    #[0-9]' "$dir/smoke.log" |
		head -n 40 | sed 's/^/    | /'
	fail=1
fi
exit $fail
