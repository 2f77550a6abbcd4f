# SPDX-License-Identifier: GPL-2.0
# The API reference: kernel-doc comments of the public headers, through the
# kernel's kernel-doc and its Sphinx directive (abi/docs/).
#
#   make docs         build/docs/html/index.html
#   make check-docs   the build has no warning, every export and public
#                     struct is in it, it renders (headless Chromium);
#                     every target is described for `make help` and
#                     every described one exists; planted: an export
#                     without kernel-doc, a stale target

.PHONY: docs check-docs
docs: deps
	@python3 scripts/docs/check.py --build $(BUILD)/docs/html

CHECK_GROUPS	+= docs
check-docs: deps
	@mkdir -p $(RESULTS)
	@python3 scripts/docs/check.py --check $(RESULTS)/docs; rc=$$?; \
		python3 scripts/docs/targets.py --check $(RESULTS)/docs || rc=1; \
		exit $$rc
