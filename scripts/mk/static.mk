# SPDX-License-Identifier: GPL-2.0
#
# Static-analysis gates (scripts/static/):
#   make sparse      C=2 build of the tree for every kernel + planted fixture
#   make coccicheck  semantic-patches/*.cocci over the tree + planted fixtures
#   make checkpatch  checkpatch.pl --strict over every kernel C file/header
# Each prints one "ok - ..."/"not ok - ..." line per case and fails on any
# "not ok"; check groups sparse, cocci and checkpatch write the same lines
# to build/results/<group>.

STATIC_DIR	:= scripts/static

.PHONY: sparse coccicheck checkpatch check-sparse check-cocci check-checkpatch

sparse: deps
	@$(STATIC_DIR)/sparse.sh

coccicheck: deps
	@$(STATIC_DIR)/coccicheck.sh

checkpatch: deps
	@$(STATIC_DIR)/checkpatch.sh

check-sparse: deps
	@mkdir -p $(RESULTS)
	@$(STATIC_DIR)/sparse.sh > $(RESULTS)/sparse; rc=$$?; \
		cat $(RESULTS)/sparse; exit $$rc

check-cocci: deps
	@mkdir -p $(RESULTS)
	@$(STATIC_DIR)/coccicheck.sh > $(RESULTS)/cocci; rc=$$?; \
		cat $(RESULTS)/cocci; exit $$rc

check-checkpatch: deps
	@mkdir -p $(RESULTS)
	@$(STATIC_DIR)/checkpatch.sh > $(RESULTS)/checkpatch; rc=$$?; \
		cat $(RESULTS)/checkpatch; exit $$rc

CHECK_GROUPS	+= sparse cocci checkpatch
