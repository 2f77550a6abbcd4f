#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Read a kernel log, find every top-level KTAP document in it (one per test
# module: "KTAP version 1" possibly after the module's pr_fmt prefix), parse
# each with the kernel's own KTAP parser (tools/testing/kunit/kunit_parser.py,
# the parser behind `kunit.py parse`) and print one line per test case:
#
#   ok <doc>/<suite>.<case>
#   not ok <doc>/<suite>.<case> # <status>
#   error <doc> <message>          (document-level problem: the run fails)
#
# <doc> is the pr_fmt prefix of the document ("dmaguard_test"), or ktapN.
#
# kunit_parser does the parsing; this wrapper adds what it does not do for a
# log holding several modules' output:
#   - split the log into documents, keeping only lines that carry the same
#     prefix as the document's version line (other kernel messages
#     interleave freely); kunit_parser handles one document per log;
#   - fail a missing plan line ("1..N"): kunit_parser accepts it silently
#     because KUnit itself may omit it; we require it;
#   - fail result lines beyond the plan: kunit_parser stops reading at N.
#
# Usage: ktap.py KUNIT_DIR < kernel.log   (timestamps already stripped),
#    or import it (set KUNIT_DIR first) and call parse_log(lines).
# Exit status: 0 if every case passed and no document had an error.
import io
import re
import sys

import os

# Where tools/testing/kunit was extracted (scripts/deps.sh); main() takes it
# as argv[1], importers set KUNIT_DIR.
_kunit = os.environ.get('KUNIT_DIR') or (sys.argv[1] if __name__ == '__main__'
					 else None)
if not _kunit or not os.path.isfile(os.path.join(_kunit, 'kunit_parser.py')):
	sys.exit('ktap: no kunit_parser.py in KUNIT_DIR; run scripts/deps.sh')
sys.path.insert(0, _kunit)
import kunit_parser  # noqa: E402
import kunit_printer  # noqa: E402

# kunit_parser narrates what it parses on its module-level printer: collect
# it (parser_out) instead of mixing it into our output.
parser_out = io.StringIO()
kunit_parser.stdout = kunit_printer.Printer(parser_out)

START = re.compile(r'^((?:[^\s:][^:]*: )?)(K?TAP version \d+)\s*$')
RESULT = re.compile(r'^\s*(not )?ok \d+')
OK = (kunit_parser.TestStatus.SUCCESS, kunit_parser.TestStatus.SKIPPED)


def split_documents(lines):
	"""Yield (prefix, [lines without prefix]) per top-level document."""
	doc = None
	for line in lines:
		line = line.rstrip('\r\n')
		m = START.match(line)
		if m:
			if doc:
				yield doc
			doc = (m.group(1), [m.group(2)])
		elif doc and line.startswith(doc[0]):
			doc[1].append(line[len(doc[0]):])
	if doc:
		yield doc


def walk(test, path, out, errors):
	"""Emit leaf cases; check plan lines of every test that has subtests."""
	for num, sub in enumerate(test.subtests, 1):
		# A case the plan announced but the log lacks has no name.
		leaf = sub.name or f'missing-case-{num}'
		name = f'{path}.{leaf}' if path else leaf
		if sub.subtests:
			if sub.expected_count is None:
				errors.append(f'{name}: missing plan line')
			walk(sub, name, out, errors)
		elif sub.status in OK:
			out.append((True, name, ''))
		else:
			out.append((False, name, f' # {sub.status.name}'))


def parse_log(lines):
	"""Parse every KTAP document of a kernel log (timestamps stripped).

	Returns [(doc, [(ok, case, why)], [error])], one entry per document.
	"""
	docs = []
	seen = {}
	for prefix, doc_lines in split_documents(lines):
		doc = prefix.rstrip(': ') or f'ktap{len(docs) + 1}'
		seen[doc] = seen.get(doc, 0) + 1
		if seen[doc] > 1:
			doc = f'{doc}#{seen[doc]}'
		stream = kunit_parser.extract_tap_lines(doc_lines)
		test = kunit_parser.parse_test(stream, 0, [], False)
		errors = []
		if test.expected_count is None:
			errors.append('missing plan line')
		extra = 0
		while stream:
			if RESULT.match(stream.pop()):
				extra += 1
		if extra:
			errors.append(f'{extra} result line(s) beyond the plan '
				      f'1..{test.expected_count}')
		if test.counts.errors:
			errors.append(f'{test.counts.errors} KTAP parse error(s)')
		cases = []
		walk(test, '', cases, errors)
		if not cases and not errors:
			errors.append('no test case')
		docs.append((doc, cases, errors))
	return docs


def main():
	failed = False
	for doc, cases, errors in parse_log(sys.stdin):
		for ok, name, why in cases:
			print(f'{"ok" if ok else "not ok"} {doc}/{name}{why}')
			failed |= not ok
		for e in errors:
			print(f'error {doc} {e}')
			failed = True
	sys.stderr.write(parser_out.getvalue())
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main())
