# SPDX-License-Identifier: ISC
# prsyncd — plain Makefile, no autotools.
#
#   make            release build: build/prsyncd (listener), build/prsyncd-monitor
#                   (session monitor), build/prsyncd-worker (sandboxed worker)
#   make test-build sanitizer build with test hooks: build/test/...
#   make check      everything above, then the whole test suite
#   make fuzz       libFuzzer targets (clang): build/fuzz/...
#   make install    PREFIX=/usr/local DESTDIR= (binaries, units, man pages, logrotate)

CC      ?= cc
PREFIX  ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec/prsyncd
MANDIR  ?= $(PREFIX)/share/man
# /usr installs configuration in /etc and units where systemd looks.
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
TMPFILESDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/tmpfiles.d,$(PREFIX)/lib/tmpfiles.d)
VERSION := 0.1.0

PKGS := libseccomp libcap zlib libxxhash libcrypto libzstd liblz4
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))

# snprintf truncation is the intended bound everywhere it happens.
WARN   := -Wall -Wextra -Werror -Wshadow -Wvla -Wformat=2 -Wstrict-prototypes \
          -Wmissing-prototypes -Wno-unused-parameter \
          -Wno-format-truncation
COMMON := -std=c17 -D_GNU_SOURCE -Isrc/proto -Isrc/priv -Ibuild/gen $(WARN) $(PKG_CFLAGS) \
          -DPRSYNCD_VERSION='"$(VERSION)"' -DPRSYNCD_LIBEXEC='"$(LIBEXECDIR)"'
HARDEN := -O2 -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fstack-clash-protection \
          -fPIE -fcf-protection
HLINK  := -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack -Wl,--as-needed
SAN    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
          -fno-sanitize-recover=all -DPRSYNCD_TEST_HOOKS
SLINK  := -fsanitize=address,undefined -Wl,--as-needed

# Each binary links only what it calls (docs/audit-guide.md counts it).
#   src/proto     shared by all: messages, channel, seccomp loader, filters
#   src/priv      both privileged processes: config types, log, empty dir
#   src/listener  the long-lived listener (prsyncd)
#   src/monitor   the per-connection session monitor (prsyncd-monitor)
#   src/worker    the sandboxed worker (prsyncd-worker)
PROTO_MSG   := src/proto/msg.c src/proto/ipc.c src/proto/seccomp_policy.c build/gen/bpf_programs.c
# The validators of each direction: a binary links those of what it
# receives (the monitor w2m, the worker m2w); tests and tools link both.
MSG_W2M     := src/proto/msg_w2m.c
MSG_M2W     := src/proto/msg_m2w.c
MSG_BOTH    := $(MSG_W2M) $(MSG_M2W) src/proto/msg_both.c
PROTO_FILT  := src/proto/filter.c src/proto/wildmatch.c src/proto/wildrun.c
PROTO_WIRE  := src/proto/wire.c
# MD4 for the worker's old-protocol checksums and the monitor's daemon auth.
PROTO_HASH  := src/proto/md4.c
# "outgoing chmod": checked by the listener, applied by the worker.
PROTO_CHMOD := src/proto/chmod.c
# Pre-faulting at start (page faults are traps under a hypervisor).
PROTO_START := src/proto/prefault.c
PROTO_SRC   := $(PROTO_MSG) $(PROTO_FILT) $(PROTO_WIRE) $(PROTO_HASH) $(PROTO_CHMOD) $(PROTO_START)
# What the test tools, unit tests and fuzzers link of src/proto.
PROTO_TEST  := $(PROTO_SRC) $(MSG_BOTH)
PRIV_SRC    := $(wildcard src/priv/*.c)
LISTENER_SRC := $(wildcard src/listener/*.c)
MONITOR_SRC := $(wildcard src/monitor/*.c)
WORKER_SRC  := $(wildcard src/worker/*.c)
# The listener validates module filter rules at load time (src/priv/modfilter.c).
# Its resolver child loads policy/resolver.policy (the ready programs, as
# the monitor does).
LISTENER_ALL = $(LISTENER_SRC) $(PRIV_SRC) $(PROTO_FILT) $(PROTO_CHMOD) src/proto/seccomp_policy.c build/gen/bpf_programs.c \
               build/gen/resolver_policy.c build/gen/sanitizer_policy.c
# Sessions get the configuration as a sealed snapshot (src/priv/cfgsnap.c):
# the parser (src/listener/config.c) is the listener's alone.
MONITOR_ALL  = $(MONITOR_SRC) $(PRIV_SRC) $(PROTO_MSG) $(MSG_W2M) $(PROTO_FILT) $(PROTO_HASH) $(PROTO_START) \
               build/gen/preselect_policy.c build/gen/monitor_policy.c build/gen/nschild_policy.c build/gen/sanitizer_policy.c
WORKER_ALL   = $(WORKER_SRC) $(PROTO_SRC) $(MSG_M2W) build/gen/worker_policy.c build/gen/sanitizer_policy.c
POLICIES    := $(wildcard policy/*.policy)
GEN_SRC     := $(patsubst policy/%.policy,build/gen/%_policy.c,$(POLICIES))
# The libexec path is compiled in: a new PREFIX must rebuild everything.
PATHS_STAMP := build/gen/paths.stamp
$(shell mkdir -p build/gen; echo '$(LIBEXECDIR)' | cmp -s - $(PATHS_STAMP) 2>/dev/null || echo '$(LIBEXECDIR)' > $(PATHS_STAMP))
HDRS        := $(wildcard src/*/*.h) build/gen/policies.h $(PATHS_STAMP)

REL_OBJ = $(patsubst %.c,build/obj/%.o,$(1))
TST_OBJ = $(patsubst %.c,build/test/obj/%.o,$(1))

.PHONY: all test-build check fuzz clean install unit tcb
BINS := prsyncd prsyncd-monitor prsyncd-worker
all: $(addprefix build/,$(BINS))

# --- generated seccomp tables -------------------------------------------
build/gen/%_policy.c: policy/%.policy policy/policy2c.awk
	@mkdir -p $(@D)
	awk -v name=$* -f policy/policy2c.awk $< > $@.tmp && mv $@.tmp $@

build/gen/policies.h: $(POLICIES) Makefile
	@mkdir -p $(@D)
	{ echo '/* generated by make from the files in policy/ */'; \
	  echo '#include "seccomp_policy.h"'; \
	  for p in $(patsubst policy/%.policy,%,$(POLICIES)); do \
	    echo "extern const struct pr_policy pr_policy_$$p;"; done; \
	  printf '#define PR_POLICY_LIST'; \
	  for p in $(patsubst policy/%.policy,%,$(POLICIES)); do printf ' X(%s)' $$p; done; echo; } > $@

# Every policy's BPF program, built once here with libseccomp (policy/bpfgen.c)
# and loaded as it is by the binaries (src/proto/seccomp_policy.c).
build/gen/bpfgen: policy/bpfgen.c src/proto/seccomp_build.c $(GEN_SRC) build/gen/policies.h src/proto/seccomp_build.h src/proto/seccomp_policy.h
	$(CC) $(COMMON) -O1 -o $@ policy/bpfgen.c src/proto/seccomp_build.c $(GEN_SRC) $(shell pkg-config --libs libseccomp)

build/gen/bpf_programs.c: build/gen/bpfgen
	build/gen/bpfgen > $@.tmp && mv $@.tmp $@

# --- release objects -------------------------------------------------------
build/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(HARDEN) $(CFLAGS) -c $< -o $@

build/obj/build/gen/%.o: build/gen/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(HARDEN) $(CFLAGS) -c $< -o $@

build/prsyncd: $(call REL_OBJ,$(LISTENER_ALL))
	$(CC) $(HLINK) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

build/prsyncd-monitor: $(call REL_OBJ,$(MONITOR_ALL))
	$(CC) $(HLINK) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The worker is executed afresh for every connection and needs nothing from
# the system at run time (no NSS, no files: it is chrooted to an empty
# directory), so it is linked statically as a position-independent
# executable (ASLR kept, full RELRO): it starts without the dynamic loader
# and its six libraries: ~5 ms less CPU per start here (300 starts: 1.6 s
# against 3.3 s, load 8; docs/performance.md).  A security update of one of them (or of libc)
# then needs a rebuild of prsyncd, as for any static link.
# WORKER_STATIC=0 links it dynamically like the other two.
WORKER_STATIC ?= 1
ifeq ($(WORKER_STATIC),1)
WORKER_LINK := $(subst -pie,-static-pie,$(HLINK))
WORKER_LIBS := $(shell pkg-config --libs-only-l $(PKGS))
else
WORKER_LINK := $(HLINK)
WORKER_LIBS := $(PKG_LIBS)
endif
build/prsyncd-worker: $(call REL_OBJ,$(WORKER_ALL))
	$(CC) $(WORKER_LINK) $(LDFLAGS) -o $@ $^ $(WORKER_LIBS)

# --- sanitizer + test-hook objects ----------------------------------------
build/test/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(SAN) $(CFLAGS) -c $< -o $@

build/test/obj/build/gen/%.o: build/gen/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(SAN) $(CFLAGS) -c $< -o $@

# Test seams that no release binary links (tests/hooks: the resolver
# child's forbidden calls, behind PRSYNCD_TEST_HOOKS at the call site).
TEST_HOOK_SRC := $(wildcard tests/hooks/*.c)
$(call TST_OBJ,$(TEST_HOOK_SRC)): CFLAGS += -Isrc/listener
build/test/prsyncd: $(call TST_OBJ,$(LISTENER_ALL) $(TEST_HOOK_SRC))
	$(CC) $(SLINK) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

build/test/prsyncd-monitor: $(call TST_OBJ,$(MONITOR_ALL))
	$(CC) $(SLINK) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

build/test/prsyncd-worker: $(call TST_OBJ,$(WORKER_ALL))
	$(CC) $(SLINK) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# Unit tests link the module under test (sanitizer objects) with their own main.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,build/test/unit/%,$(UNIT_SRC))
# Every object but the two mains: a unit test may exercise any module.
UNIT_LIB_OBJ = $(call TST_OBJ,$(filter-out %/main.c,$(LISTENER_SRC) $(MONITOR_SRC) $(WORKER_SRC)) $(PRIV_SRC) $(PROTO_TEST) $(GEN_SRC) src/proto/seccomp_build.c $(TEST_HOOK_SRC))

build/test/unit/%: tests/unit/%.c tests/unit/unit.h $(UNIT_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(SAN) -Isrc/listener -Isrc/monitor -Isrc/worker $(CFLAGS) -o $@ $< $(UNIT_LIB_OBJ) $(SLINK) $(PKG_LIBS)

# Test helper programs (a hostile stand-in for the worker, a raw client).
TOOL_SRC := $(filter-out tests/tools/hostile_common.c,$(wildcard tests/tools/*.c))
TOOL_BIN := $(patsubst tests/tools/%.c,build/test/tools/%,$(TOOL_SRC))
build/test/tools/%: tests/tools/%.c $(call TST_OBJ,$(PROTO_TEST)) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(SAN) $(CFLAGS) -o $@ $< $(call TST_OBJ,$(PROTO_TEST) $(GEN_SRC)) $(SLINK) $(PKG_LIBS)

# The hostile stand-ins for the worker share their channel and line code.
HOSTILE_TOOLS = hostile_worker hostile_worker2 hostile_openv hostile_bounds
$(addprefix build/test/tools/,$(HOSTILE_TOOLS)): build/test/tools/%: tests/tools/%.c tests/tools/hostile_common.c tests/tools/hostile_common.h $(call TST_OBJ,$(PROTO_TEST)) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(SAN) $(CFLAGS) -o $@ $< tests/tools/hostile_common.c $(call TST_OBJ,$(PROTO_TEST) $(GEN_SRC)) $(SLINK) $(PKG_LIBS)

# ctok_scan decodes stock's compressed streams: it needs the worker's decoders.
CTOK_TST_OBJ = $(call TST_OBJ,src/worker/compress.c $(wildcard src/worker/ctok_*.c))
build/test/tools/ctok_scan: tests/tools/ctok_scan.c $(CTOK_TST_OBJ) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(COMMON) $(SAN) -Isrc/worker $(CFLAGS) -o $@ $< $(CTOK_TST_OBJ) $(SLINK) $(PKG_LIBS)

test-build: all $(addprefix build/test/,$(BINS)) $(UNIT_BIN) $(TOOL_BIN)

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do $$t || exit 1; done

check: test-build
	tests/run-all.sh

# --- fuzzing (clang + libFuzzer) ------------------------------------------
#   make fuzz                    build every target in build/fuzz/
#   make fuzz FUZZ_SECONDS=N     and run each for N seconds from its seeds
#                                (tests/fuzz/corpus/NAME, tests/fuzz/NAME.dict);
#                                executions and coverage in build/fuzz/stats.md
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
FUZZ_CC  ?= clang
FUZZ_SECONDS ?=
FUZZ_CFLAGS = -std=c17 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
  -DPRSYNCD_FUZZ -Isrc/proto -Isrc/priv -Isrc/worker -Isrc/monitor -Isrc/listener -Ibuild/gen $(PKG_CFLAGS) \
  -DPRSYNCD_VERSION='"$(VERSION)"' -DPRSYNCD_LIBEXEC='"$(LIBEXECDIR)"'
FUZZ_LIB_SRC = $(PROTO_TEST) $(PRIV_SRC) $(filter-out %/main.c,$(WORKER_SRC) $(MONITOR_SRC) $(LISTENER_SRC)) $(GEN_SRC)
FUZZ_LIB_OBJ = $(patsubst %.c,build/fuzz/obj/%.o,$(FUZZ_LIB_SRC))
# Kept between builds: each target links the same objects.
.PRECIOUS: build/fuzz/obj/%.o
build/fuzz/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
build/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJ) $(wildcard tests/fuzz/*.h tests/unit/*.inc) $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(PKG_LIBS)
fuzz: $(FUZZ_BIN)
	@if [ -n "$(FUZZ_SECONDS)" ]; then tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN); fi

# The trusted code, counted per privileged binary (scripts/tcb.py).
tcb: build/gen/policies.h $(GEN_SRC)
	@python3 scripts/tcb.py --cc "$(CC)" --cflags "$(filter-out -DPRSYNCD_% -Werror,$(COMMON))" \
	  --bin prsyncd $(filter-out build/gen/bpf_programs.c,$(LISTENER_ALL)) --bin prsyncd-monitor $(filter-out build/gen/bpf_programs.c,$(MONITOR_ALL))

# The three binaries, the systemd units (paths rewritten for SBINDIR and
# SYSCONFDIR), the logrotate snippet, tmpfiles.d, the man pages, and a
# sample configuration unless one is already there.
UNITS := prsyncd.service prsyncd.socket prsyncd-inetd.socket prsyncd-inetd@.service
FIXPATHS = sed -e 's|/usr/sbin/prsyncd|$(SBINDIR)/prsyncd|g' -e 's|/etc/prsyncd.conf|$(SYSCONFDIR)/prsyncd.conf|g'
install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(UNITDIR) \
	  $(DESTDIR)$(SYSCONFDIR)/logrotate.d $(DESTDIR)$(TMPFILESDIR) \
	  $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	install -m 0755 build/prsyncd $(DESTDIR)$(SBINDIR)/prsyncd
	install -m 0755 build/prsyncd-monitor $(DESTDIR)$(LIBEXECDIR)/prsyncd-monitor
	install -m 0755 build/prsyncd-worker $(DESTDIR)$(LIBEXECDIR)/prsyncd-worker
	for u in $(UNITS); do $(FIXPATHS) policy/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	install -m 0644 policy/prsyncd.logrotate $(DESTDIR)$(SYSCONFDIR)/logrotate.d/prsyncd
	install -m 0644 policy/prsyncd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/prsyncd.conf
	install -m 0644 man/prsyncd.8 $(DESTDIR)$(MANDIR)/man8/prsyncd.8
	install -m 0644 man/prsyncd.conf.5 $(DESTDIR)$(MANDIR)/man5/prsyncd.conf.5
	test -e $(DESTDIR)$(SYSCONFDIR)/prsyncd.conf || install -m 0644 policy/prsyncd.conf $(DESTDIR)$(SYSCONFDIR)/prsyncd.conf

clean:
	rm -rf build

# Side-by-side benchmark against rsync --daemon (docs/performance.md):
#   make bench                        default sizes (a few minutes), 3 runs
#   make bench BENCH_ARGS=--full      the issue's sizes
.PHONY: bench
bench: all
	python3 bench/bench.py $(BENCH_ARGS)
