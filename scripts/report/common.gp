# SPDX-License-Identifier: GPL-2.0
# Shared settings of the report's plots (loaded by the other *.gp files):
# an SVG of fixed size for inlining into build/report/index.html. The
# caller (make-report.py) sets outfile, data (a whitespace-separated table
# with a header line) and ttl with gnuplot -e.
set terminal svg size 620,360 font "sans,11" background "#ffffff"
set output outfile
set title ttl
set key tmargin center horizontal box
set grid ytics lc rgb "#dddddd"
set datafile missing "-"
set border 3
set tics nomirror
kernel_colour = "#c0504d"
dmaguard_colour = "#2e6db4"
