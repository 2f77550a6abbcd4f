# SPDX-License-Identifier: GPL-2.0
# Per-row time of the kernel's dma_pool vs dmaguard, one CPU: columns
# "row kernel_ns dmaguard_ns" (ns per allocate+free pair, medians).
load dir . "/common.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set ylabel "ns per alloc+free pair (lower is better)"
set xlabel "block size / align [/ boundary] (bytes)"
set yrange [0:*]
plot data using 2:xtic(1) title "kernel dma\\_pool" lc rgb kernel_colour, \
     '' using 3 title "dmaguard" lc rgb dmaguard_colour
