# SPDX-License-Identifier: GPL-2.0
# Pin cache: per-I/O cost of pin_user_pages_fast + unpin vs a cache hit,
# across buffer sizes; columns "bytes label pin_ns hit_ns map_pin_ns
# map_hit_ns" ("-": not measured), medians.
load dir . "/common.gp"
set logscale xy
set ylabel "ns per I/O (log, lower is better)"
set xlabel "buffer size"
set offsets graph 0.05, graph 0.05, 0, 0
plot data using 1:3:xtic(2) with linespoints lw 2 pt 7 lc rgb kernel_colour title "pin + unpin", \
     '' using 1:4 with linespoints lw 2 pt 5 lc rgb dmaguard_colour title "cache hit", \
     '' using 1:5 with linespoints lw 1 dt 2 pt 6 lc rgb kernel_colour title "pin + unpin + DMA map", \
     '' using 1:6 with linespoints lw 1 dt 2 pt 4 lc rgb dmaguard_colour title "cache hit (mapped)"
