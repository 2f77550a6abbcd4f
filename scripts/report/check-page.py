#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Does an HTML report page render in a real browser? One headless Chromium
# run loads PAGE from disk, dumps its DOM after the page's own script ran
# (scripts/report/report_html.py: <body data-plot-check="ok N"> when every
# expected plot holds an SVG drawn at a non-zero size, "missing <ids>"
# otherwise, absent when the page broke before its end) and takes a
# screenshot, which must not be blank: it is decoded here (PNG, Python's
# zlib) and must show enough colours and enough non-white pixels.
#
#   check-page.py [--min-plots N] [--png FILE] PAGE
#
# Prints one line saying what it found; exit 0 if the page passed, 1 if
# not, 2 if Chromium could not be run. Used by scripts/report/check-report.sh
# (`make check-report`).
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CHROMIUM = os.environ.get('CHROMIUM', 'chromium')
# The page at half scale: a 1280-pixel-wide layout, 4000 high, in a
# 640x2000 image (less to decode).
WINDOW = '1280,4000'
MIN_COLOURS = 16		# text, table rules, two plot colours, antialiasing
MIN_INK = 0.01			# fraction of pixels that are not white


def render(page, png):
	"""The page's DOM after load, and its screenshot in png."""
	# A profile of its own: renders running side by side (and root's
	# ~/.config/chromium) never share one.
	profile = tempfile.mkdtemp(prefix='dg-chromium-')
	cmd = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
	       f'--user-data-dir={profile}',
	       '--hide-scrollbars', '--no-first-run', '--disable-extensions',
	       '--disable-dev-shm-usage', '--force-device-scale-factor=0.5',
	       f'--window-size={WINDOW}', f'--screenshot={png}', '--dump-dom',
	       'file://' + os.path.abspath(page)]
	try:
		p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
	finally:
		shutil.rmtree(profile, ignore_errors=True)
	return p.returncode, p.stdout


def png_pixels(path):
	"""(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
	with open(path, 'rb') as f:
		data = f.read()
	if data[:8] != b'\x89PNG\r\n\x1a\n':
		raise ValueError('not a PNG')
	pos, idat, hdr = 8, [], None
	while pos < len(data):
		n, kind = struct.unpack('>I4s', data[pos:pos + 8])
		body = data[pos + 8:pos + 8 + n]
		pos += 12 + n
		if kind == b'IHDR':
			hdr = struct.unpack('>IIBBBBB', body)
		elif kind == b'IDAT':
			idat.append(body)
		elif kind == b'IEND':
			break
	w, h, depth, ctype, _, _, interlace = hdr
	if depth != 8 or ctype not in (2, 6) or interlace:
		raise ValueError(f'unsupported PNG (depth {depth}, type {ctype})')
	bpp = 3 if ctype == 2 else 4
	raw = zlib.decompress(b''.join(idat))
	stride = w * bpp
	rows, prev = [], bytes(stride)
	for y in range(h):
		f = raw[y * (stride + 1)]
		line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
		if f == 1:
			for i in range(bpp, stride):
				line[i] = (line[i] + line[i - bpp]) & 255
		elif f == 2:
			line = bytearray(map(lambda a, b: (a + b) & 255, line, prev))
		elif f == 3:
			for i in range(stride):
				left = line[i - bpp] if i >= bpp else 0
				line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
		elif f == 4:
			for i in range(stride):
				a = line[i - bpp] if i >= bpp else 0
				b = prev[i]
				c = prev[i - bpp] if i >= bpp else 0
				p = a + b - c
				pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
				pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
				line[i] = (line[i] + pred) & 255
		rows.append(bytes(line))
		prev = line
	return w, h, bpp, rows


def ink(path):
	"""(distinct colours, fraction of non-white pixels) of a PNG."""
	w, h, bpp, rows = png_pixels(path)
	colours, white = set(), 0
	for r in rows:
		px = list(zip(r[0::bpp], r[1::bpp], r[2::bpp]))
		colours.update(px)
		white += px.count((255, 255, 255))
	return len(colours), 1 - white / (w * h)


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('--min-plots', type=int, default=1)
	ap.add_argument('--png')
	ap.add_argument('page')
	args = ap.parse_args()
	if not args.png:
		fd, args.png = tempfile.mkstemp(suffix='.png')
		os.close(fd)
	png = args.png
	try:
		rc, dom = render(args.page, png)
	except (OSError, subprocess.TimeoutExpired) as e:
		print(f'{args.page}: chromium failed: {e}')
		return 2
	m = re.search(r'<body[^>]*\sdata-plot-check="([^"]*)"', dom)
	if not m:
		print(f'{args.page}: no plot check in the rendered page (broken page; '
		      f'chromium exit {rc}, {len(dom)} bytes of DOM)')
		return 1
	check = m.group(1)
	if not check.startswith('ok '):
		print(f'{args.page}: {check}')
		return 1
	if int(check.split()[1]) < args.min_plots:
		print(f'{args.page}: {check.split()[1]} plots, at least '
		      f'{args.min_plots} expected')
		return 1
	if not os.path.exists(png):
		print(f'{args.page}: chromium wrote no screenshot (exit {rc})')
		return 1
	try:
		colours, frac = ink(png)
	except (ValueError, zlib.error, struct.error, TypeError) as e:
		print(f'{args.page}: bad screenshot {png}: {e}')
		return 1
	what = f'{check.split()[1]} plots rendered; screenshot {colours} colours, ' \
	       f'{frac:.1%} non-white'
	if colours < MIN_COLOURS or frac < MIN_INK:
		print(f'{args.page}: blank screenshot ({what})')
		return 1
	print(f'{args.page}: {what}')
	return 0


if __name__ == '__main__':
	sys.exit(main())
