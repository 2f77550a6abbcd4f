#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-report` (check group "report", after "vm"): the report page
# renders in a real browser. From the report boots that `make check`'s vm
# group left in build/vm/<kver>/report/, write build/report/index.html
# (scripts/report/make-report.py) and check it in headless Chromium
# (scripts/report/check-page.py): every plot drawn at a non-zero size, the
# screenshot not blank; and no external reference (it opens from disk).
# Planted proofs that the checks fire, each of which must FAIL them for the
# stated reason: the page with one plot's SVG removed, the page cut in half
# (broken HTML), a blank page, and the page with an external image.
# Results: build/results/report.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
results=$top/build/results/report
page=$top/build/report/index.html
work=$top/build/report/check
mkdir -p "$work" "$(dirname "$results")"
: > "$results"
start=$(date +%s)

ok() { echo "ok - report/$1" | tee -a "$results"; }
not_ok() { echo "not ok - report/$1" | tee -a "$results"; }

# The page of the vm group's report boots. make-report.py exits 1 when a
# report boot failed: the vm group says so; the page must still render.
echo "report: writing $page from build/vm/*/report/ and rendering it in headless Chromium (about 15-40 s, more on a busy host)"
rc=0
rm -f "$page"	# an older page must not stand in for this one
python3 "$top/scripts/report/make-report.py" --html "$page" || rc=$?
if [ $rc -gt 1 ] || [ ! -s "$page" ]; then
	not_ok "generate # make-report.py exited $rc (no report boots? the vm group makes them)"
	exit 1
fi
ok "generate"

# Self-contained: nothing the page would fetch (the SVGs' xmlns names are
# not fetched). Planted: the page with an external image must be caught.
external() {
	grep -oE '(src|href)="(https?:|//)[^"]*|url\((https?:|//)[^)]*|@import' "$1" |
		head -3 | tr '\n' ' '
}
sed 's|<h1>|<img src="https://example.org/logo.png"><h1>|' "$page" > "$work/external.html"
if [ -n "$(external "$page")" ]; then
	not_ok "self-contained # external references: $(external "$page")"
elif [ -z "$(external "$work/external.html")" ]; then
	not_ok "self-contained # the planted external image was not found"
else
	ok "self-contained # planted external reference caught: $(external "$work/external.html")"
fi

# The page itself and the planted pages below, each check one headless
# Chromium that mostly waits: all at once.
# check_page NAME ARGS...: check-page.py ARGS, its output in NAME.out and
# its exit status in NAME.rc.
check_page() {
	local name=$1 rc=0
	shift
	python3 "$top/scripts/report/check-page.py" "$@" > "$work/$name.out" || rc=$?
	echo "$rc" > "$work/$name.rc"
}
# One plot's SVG removed.
python3 - "$page" "$work/missing-plot.html" <<'EOF2'
import re, sys
s = open(sys.argv[1]).read()
t = re.sub(r'<svg\b.*?</svg>', '', s, count=1, flags=re.S)
assert t != s, 'the page has no plot to remove'
open(sys.argv[2], 'w').write(t)
EOF2
# The page cut in half: its checking script never runs.
head -c "$(( $(stat -c %s "$page") / 2 ))" "$page" > "$work/broken.html"
# No plot expected and nothing drawn: only the screenshot check can fail.
sed -n '/<script>/,$p' "$page" |
	sed '1i <!DOCTYPE html><html><head><meta charset="utf-8"></head><body data-expected-plots="">' \
	> "$work/blank.html"
# Every kernel with a speed section has its three plots.
rm -f "$work"/*.out "$work"/*.rc "$work"/*.png
check_page index --min-plots 3 --png "$work/index.png" "$page" &
for p in missing-plot broken blank; do
	check_page "$p" --min-plots 0 --png "$work/$p.png" "$work/$p.html" &
done
wait
if [ "$(cat "$work/index.rc")" = 0 ]; then
	ok "renders # $(cat "$work/index.out")"
else
	not_ok "renders # $(cat "$work/index.out") (screenshot: $work/index.png)"
fi

# planted NAME REASON: check-page.py must have rejected NAME.html, saying
# REASON.
planted() {
	local out
	out=$(cat "$work/$1.out")
	if [ "$(cat "$work/$1.rc")" != 1 ] || ! grep -q -- "$2" <<<"$out"; then
		not_ok "planted-$1 # not caught for \"$2\": $out"
	else
		ok "planted-$1 # caught: $out"
	fi
}
planted missing-plot ": missing plot-"
planted broken ": no plot check in the rendered page"
planted blank ": blank screenshot"
echo "report: checked in $(( $(date +%s) - start )) s"
! grep -q '^not ok' "$results"
