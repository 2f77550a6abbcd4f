# SPDX-License-Identifier: GPL-2.0
# Multi-CPU scaling: every vCPU allocating and freeing on one shared pool;
# columns "cpus kernel_ops_per_s dmaguard_ops_per_s" (medians).
load dir . "/common.gp"
set ylabel "alloc+free pairs per second, all CPUs (higher is better)"
set xlabel "vCPUs on one pool"
set xtics 1
set offsets 0.3, 0.3, 0, 0
set autoscale xfix
set yrange [0:*]
set format y "%.1s%c"
plot data using 1:2 with linespoints lw 2 pt 7 lc rgb kernel_colour title "kernel dma\\_pool", \
     '' using 1:3 with linespoints lw 2 pt 5 lc rgb dmaguard_colour title "dmaguard"
