# SPDX-License-Identifier: GPL-2.0
#
# The dmaguard report (scripts/report/): `make run` (scripts/mk/vm.mk)
# prints it and writes build/report/index.html, self-contained, with
# gnuplot's SVG plots; with `make bench`'s results in build/bench/ it adds
# a "Full benchmark" section.
#
#   make report         write build/report/index.html again from the last
#                       boots (build/vm/<kver>/report/) and build/bench/,
#                       without booting
#   make check-report   check group "report", run after "vm" (whose report
#                       boots it reads): the page renders in headless
#                       Chromium with every plot, the screenshot is not
#                       blank, and planted broken pages fail
#                       (scripts/report/check-report.sh, 15-40 s)

CHECK_GROUPS_LAST	+= report

.PHONY: report check-report
report:
	@scripts/report/make-report.py --text --html $(BUILD)/report/index.html

check-report: deps
	@scripts/report/check-report.sh
