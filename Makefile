# qrnic: `make` builds everything, `make run` shows two guests talking,
# `make test` runs every test, `make vm` opens a shell in a guest.
SHELL := /bin/bash
B := build
# The guest kernels, named in vm-images/kver.  Evaluated lazily:
# linux-headers-amd64 (which names 6.1's) is installed by host-deps.sh first.
KVERS = $(foreach s,6.12 6.1 7.3,$(shell vm-images/kver $(s)))

QEMU := $(B)/qemu/qemu-system-x86_64
# The device as a vfio-user server, and the unpatched QEMU that attaches it.
VU_SERVER := $(B)/vfio-user/qrnic-vfio-user
STOCK_QEMU := $(B)/stock/qemu-10.2/qemu-system-x86_64
# The provider's libibverbs.d entry stands for it: the library's name
# carries the rdma-core tree's private ABI version, read from the tree.
PROVIDER := $(B)/provider/qrnic.driver
HW_HEADERS := $(wildcard include/*.h)
DEVICE_SRC := $(shell find qemu-device -type f 2>/dev/null)
DRIVER_SRC := $(wildcard driver/*.c driver/*.h driver/Makefile driver/Kbuild)
PROVIDER_SRC := $(shell find provider -type f 2>/dev/null)
# Test tools built on the host and packed into the guest image (/usr/local/bin).
TOOLS := $(B)/tools/rc-check $(B)/tools/qrnic-isolation $(B)/tools/cm-flood
TOOLS_SRC := $(wildcard tests/tools/*.c tests/tools/*.h tests/tools/Makefile) include/qrnic-abi.h

# Never delete built images or modules as "intermediate" files.
.SECONDARY:

.PHONY: all artifacts host-deps unit tools compat patches run vm test soak security scale vfio-user blktests bench pyverbs fuzz fuzz-qemu clean
all: host-deps
	@$(MAKE) --no-print-directory artifacts

host-deps:
	@vm-images/host-deps.sh

artifacts: $(QEMU) $(VU_SERVER) $(STOCK_QEMU) unit $(foreach k,$(KVERS),$(B)/image/$(k)/initrd.img) $(B)/image/clients.cpio.zst

$(QEMU): $(DEVICE_SRC) $(HW_HEADERS)
	@echo "== QEMU 10.0 with the qrnic device"
	@qemu-device/build.sh
	@touch $@

$(VU_SERVER): $(DEVICE_SRC) $(HW_HEADERS)
	@echo "== qrnic-vfio-user (the device for an unpatched QEMU)"
	@$(MAKE) --no-print-directory -C qemu-device/vfio-user

$(STOCK_QEMU): qemu-device/build.sh
	@echo "== QEMU 10.2 as Debian ships it (no qrnic), the vfio-user client"
	@QRNIC_QEMU_FLAVOUR=stock qemu-device/build.sh 10.2
	@touch $@

unit:
	@$(MAKE) --no-print-directory -C tests/unit

$(B)/driver/%/qrnic.ko: $(DRIVER_SRC) $(HW_HEADERS)
	@echo "== qrnic.ko for $*"
	@$(MAKE) --no-print-directory -C driver KVER=$*

# The kernel self-test modules (tests/kmod), all built by one kbuild run.
$(B)/kmod/%/qrnic_kverbs_test.ko $(B)/kmod/%/qrnic_kcm_test.ko: $(wildcard tests/kmod/*.c tests/kmod/*.h) \
		tests/kmod/Kbuild tests/kmod/Makefile
	@echo "== kernel test modules (tests/kmod) for $*"
	@$(MAKE) --no-print-directory -C tests/kmod KVER=$*

$(PROVIDER): $(PROVIDER_SRC) $(HW_HEADERS)
	@echo "== libqrnic in the guests' rdma-core tree (provider/build.sh)"
	@provider/build.sh
	@touch $@

tools: $(TOOLS)

$(TOOLS) &: $(TOOLS_SRC)
	@echo "== test tools (tests/tools)"
	@$(MAKE) --no-print-directory -C tests/tools O=$(abspath $(B)/tools)

$(B)/image/%/base.cpio.zst: vm-images/build-image.sh vm-images/guest-root.sh vm-images/init
	@echo "== guest image for $*"
	@vm-images/build-image.sh $*

$(B)/image/%/initrd.img: $(B)/image/%/base.cpio.zst $(B)/driver/%/qrnic.ko \
		$(B)/kmod/%/qrnic_kverbs_test.ko $(B)/kmod/%/qrnic_kcm_test.ko \
		$(PROVIDER) $(TOOLS) vm-images/pack-overlay.sh
	@vm-images/pack-overlay.sh $*

# RDMA middleware (UCX, libfabric, qperf) as a layer over any kernel's
# image, for tests/vm/clients.sh (run-vms: QRNIC_INITRD_EXTRA_I).
$(B)/image/clients.cpio.zst: vm-images/pack-clients.sh vm-images/guest-root.sh
	@echo "== RDMA middleware layer for the guests"
	@vm-images/pack-clients.sh

run: all
	tests/vm/run-vms qrnic qrnic -- tests/vm/demo.sh

vm: all
	tests/vm/run-vms -i qrnic

# What the other stacks need for make test (cached after the first run):
# the provider in rdma-core 65.0 (Debian sid's) beside the guests' 56.1,
# with that rdma-core's user space packed for a guest, and the device in
# QEMU 10.2 (sid's) beside the project's 10.0.  tests/run-tests reads
# these two versions from here.
COMPAT_RDMA_CORE := 65.0
COMPAT_QEMU := 10.2
compat:
	@echo "== libqrnic in the rdma-core $(COMPAT_RDMA_CORE) tree"
	@provider/build.sh $(COMPAT_RDMA_CORE)
	@echo "== rdma-core $(COMPAT_RDMA_CORE)'s user space for a guest"
	@vm-images/pack-rdma-core.sh $(COMPAT_RDMA_CORE)
	@echo "== QEMU $(COMPAT_QEMU) with the qrnic device"
	@qemu-device/build.sh $(COMPAT_QEMU)
	@tools/make-patches.sh prepare

# The project as upstream patch series against the compat QEMU and
# rdma-core above and Linux 7.3, made from its files in build/patches/
# (tools/make-patches.sh; tests/patches.sh applies and builds them).
patches:
	@tools/make-patches.sh

test: all compat
	@tests/run-tests

# The long soak (tests/vm/soak.sh; `make test` runs a 2-minute one): two
# qrnic guests, 1% loss in each device, SOAK_SECONDS (600) of `rc-check
# soak` with up to SOAK_QPS (16) QPs from SOAK_SEED (1), QEMU's RSS checked
# from the first minute to the end, resource counts and dmesg; then
# SOAK_RELOADS (100) rmmod/modprobe cycles in both guests, each followed by
# a checked rc-check soak round.  About 13 minutes; output in build/soak/.
SOAK_SECONDS ?= 600
SOAK_RELOADS ?= 100
SOAK_SEED ?= 1
SOAK_QPS ?= 16
soak: all
	@QRNIC_DEVICE_PROPS=x-drop-ppm=10000,x-fault-seed=$(SOAK_SEED) \
		QRNIC_DEVICE_PROPS_1=x-fault-seed=$$(($(SOAK_SEED) + 1000)) \
		tests/vm/run-vms -k 6.12 -t $$(($(SOAK_SECONDS) + 10 * $(SOAK_RELOADS) + 600)) -o $(B)/soak \
		-H tests/vm/soak-host.sh qrnic qrnic -- \
		tests/vm/soak.sh $(SOAK_SECONDS) $(SOAK_SEED) $(SOAK_QPS) $(SOAK_RELOADS) 60 1

# qrnic in an unpatched QEMU through qrnic-vfio-user (issue 30;
# tests/run-tests' vfio-user group): beyond `make test`'s vm-vfio-user-6.12,
# the same on 6.1, the two-guest stream and unixdgram links with the RC
# scenario's parts, the foundation's link flips and the loss matrix against
# qrnic and rxe.  Logs in build/test-logs/.
vfio-user: all
	@QRNIC_TESTS=vfio-user tests/run-tests

# Scale (issue 28; tests/run-tests' scale group): tens of thousands of
# QPs in one guest, a thousand rdma_cm connections between two guests,
# NVMe over RDMA with many controllers and queues on one target (on the
# compat QEMU: it needs 4 vCPUs, see tests/run-tests).  Ends
# with "N passed, N failed"; logs in build/test-logs/.
scale: all compat
	@QRNIC_TESTS=scale tests/run-tests

# blktests, the block layer's test suite, from a checkout you provide
# (BLKTESTS=DIR; it is in no Debian suite): the nvme group (BLKTESTS_TESTS)
# over NVMe/RDMA, target and host in one guest with 2 vCPUs, in a qrnic
# guest and in an rdma_rxe guest, BLKTESTS_RUNS (1) times each; prints both
# tables side by side and fails if a test that passed on rxe failed on
# qrnic (tests/blktests/run-blktests; logs in build/blktests/).
BLKTESTS_TESTS ?= nvme
blktests: all
	@BLKTESTS_RUNS=$(BLKTESTS_RUNS) tests/blktests/run-blktests "$(BLKTESTS)" $(BLKTESTS_TESTS)

# Unprivileged guest users (issue 25), the long version of `make test`'s
# vm-isolation scenarios (tests/vm/isolation.sh): the device's default
# per-context limits and 1023 contexts, 4 vCPUs, 8 threads x 2000 SRQ
# resizes, 64 attacker QPs for each of timeouts 0, 18 and 31; both guest
# kernels.  Ends with "N passed, N failed"; logs in build/test-logs/.
security: all
	@QRNIC_TESTS=security tests/run-tests

# A qrnic guest pair against an identical rdma_rxe pair; prints a table.
bench: all
	@tests/bench/run-bench

# rdma-core's own test suite (pyverbs) in a qrnic guest and in an rdma_rxe
# guest, compared (tests/vm/pyverbs.sh; not part of `make test`: qrnic does
# not have everything rxe has yet).  PYVERBS_MODULES (default: all),
# PYVERBS_TIMEOUT (per module, 300 s); results in build/pyverbs/share/.
PYVERBS_TIMEOUT ?= 300
pyverbs: all
	@tests/vm/run-vms -k 6.12 -t 14400 -o $(B)/pyverbs qrnic virtio -- \
		tests/vm/pyverbs.sh -t $(PYVERBS_TIMEOUT) $(PYVERBS_MODULES)

# The engine's libFuzzer targets (tests/fuzz): each runs FUZZ_SECONDS (60)
# with FUZZ_JOBS (1) processes, then engine line coverage of the checked-in
# corpora is printed.  Needs clang and libclang-rt-14-dev; what it finds
# stays in build/fuzz/.  (`make test` only replays the corpora.)
fuzz:
	@$(MAKE) --no-print-directory -C tests/fuzz fuzz

# QEMU's libFuzzer generic-fuzz harness against -device qrnic, built in its
# own cache tree (not part of `make test`): FUZZ_SECONDS (60), FUZZ_CONFIG
# (hub|hub-buffered|user); results in build/fuzz-qemu/.
fuzz-qemu: host-deps
	@tests/fuzz/qemu-generic-fuzz.sh

clean:
	rm -rf $(B)
