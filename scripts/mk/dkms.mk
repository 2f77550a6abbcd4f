# SPDX-License-Identifier: GPL-2.0
#
# Installing dmaguard with DKMS (./dkms.conf, scripts/dkms.sh):
#
#   make dkms-source    build/dkms/dmaguard-<version>/: dkms.conf, Kbuild
#                       and the production module's sources, the tree for
#                       `dkms add` (README: "Installing with DKMS")
#   make check-dkms     check group dkms: dkms.conf's version = the
#                       header's, `dkms build` for every Debian kernel in a
#                       throw-away DKMS tree (build/dkms/tree/, never
#                       /var/lib/dkms or /usr/src), modinfo of each built
#                       module (description, version, license, vermagic,
#                       export_ns against the export table), the
#                       Module.symvers kept for drivers (DMAGUARD_V1 only),
#                       and planted failures (version mismatch, test hooks
#                       shipped, wrong BUILT_MODULE_LOCATION, wrong
#                       export_ns, an internal export) that must fail; three module builds: 90 s
#                       on an idle 2-CPU machine, up to 3.5 min when busy
#   make vm-dkms        the DKMS-built module of each Debian kernel as
#                       build/vm-ko/<kver>/dmaguard-dkms.ko, for
#                       tests/vm/dkms.vmtest ($KO/dmaguard-dkms.ko in the
#                       guest); rebuilt only when a shipped source changed,
#                       copied from the last check-dkms when that is newer
#                       (about 0 s then; else two DKMS builds, 40-140 s)

CHECK_GROUPS	+= dkms
# `make run` boots only tests/vm/report/ and should not wait for two DKMS
# builds after each source change; every other VM target needs the module.
ifeq ($(filter run,$(MAKECMDGOALS)),)
VM_DEPS		+= vm-dkms
endif

.PHONY: dkms-source check-dkms vm-dkms

dkms-source:
	@scripts/dkms.sh source

check-dkms: deps
	@mkdir -p $(RESULTS)
	@scripts/dkms.sh check > $(RESULTS)/dkms; rc=$$?; \
		cat $(RESULTS)/dkms; exit $$rc

vm-dkms: deps
	@scripts/dkms.sh vm-ko
