# SPDX-License-Identifier: GPL-2.0-only
# tapboot: plain GNU make, no configure step. `make help` lists targets and variables.

O ?= build
V ?= 0
SANITIZE ?=
CC ?= gcc
# The host's architecture: the config whose uname_machine lists `uname -m` (the table
# lib/arch_config.c reads too).
HOST_ARCH := $(basename $(notdir $(shell grep -lE \
	"^uname_machine[[:space:]]*=(.*[[:space:]])?$$(uname -m)([[:space:]]|$$)" configs/*.conf)))
ARCH ?= $(HOST_ARCH)
CROSS_COMPILE ?=

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCDIR := $(abspath .)
# make install's directories (GNU names); lib/paths.c is built with them, so the installed
# binary finds its files there, or beside itself when the tree is moved.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
DESTDIR ?=
OUT := $(abspath $(O))
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

WARN := -Wall -Wextra -Werror -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes -Wvla \
	-Wwrite-strings -Wshadow
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) -Ilib -D_GNU_SOURCE -DTAPBOOT_VERSION='"$(VERSION)"'
HOST_CFLAGS := $(BASE_CFLAGS) -DTAPBOOT_SRCDIR='"$(SRCDIR)"' -DTAPBOOT_LIBEXECDIR='"$(OUT)"' \
	-DTAPBOOT_BUILDDIR='"$(OUT)"' \
	$(shell pkg-config --cflags libarchive libelf 2>/dev/null)
# The include paths are the dependency rule (docs/DESIGN.md):
#   cli -> lkp, lava, kcidb, series -> run -> builder, kernel, qemu, results, history -> lib
# A module (builder/, kernel/, qemu/, results/, history/) sees only lib/ (and its own folder's
# headers, by "" lookup); run/ sees the modules; lkp/, lava/, kcidb/ and series/ see run/ too,
# never each other;
# cli/ sees them all. An include the wrong way fails to compile.
MODULE_INC := -Ibuilder -Ikernel -Iqemu -Iresults -Ihistory
SERVICE_INC := $(MODULE_INC) -Irun
inc_of = $(strip $(if $(filter cli/%,$(1)),$(SERVICE_INC) -Ilkp -Ilava -Ikcidb -Iseries, \
	$(if $(filter lkp/% lava/% kcidb/% series/%,$(1)),$(SERVICE_INC), \
	$(if $(filter run/%,$(1)),$(MODULE_INC)))))
HOST_LIBS := $(shell pkg-config --libs libarchive libelf nettle zlib liblzma sqlite3 2>/dev/null || echo -larchive -lelf -lnettle -lz -llzma -lsqlite3)
# The tapboot binary takes libarchive statically when libarchive-dev has its .a: the shared
# libarchive drags in libxml2, ICU and libstdc++ for formats tapboot never writes, and loading
# them cost 1.3 ms of every run (tapboot --version: 3.1 ms against 1.8 ms). What the objects
# tapboot uses need (its compression filters) stays shared, named by soname so that only the
# runtime packages (libarchive13's own dependencies) are needed.
LIBARCHIVE_A := $(shell $(CC) -print-file-name=libarchive.a)
ifneq ($(wildcard $(LIBARCHIVE_A)),)
TAPBOOT_LIBS := -Wl,-Bstatic -larchive -Wl,-Bdynamic -Wl,--as-needed -lelf -lnettle -lz -llzma -lsqlite3 \
	-l:libzstd.so.1 -l:liblz4.so.1 -l:libbz2.so.1.0
else
TAPBOOT_LIBS := $(HOST_LIBS)
endif
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# ---- sources: folders are the architecture (docs in README "Layout") ----
LIB_SRCS := $(sort $(wildcard lib/*.c))
HOST_DIRS := builder kernel qemu results history run lkp lava kcidb series cli
HOST_SRCS := $(sort $(wildcard $(addsuffix /*.c,$(HOST_DIRS))))
HOST_MAIN := cli/tapboot.c
INIT_SRCS := $(sort $(wildcard init/*.c))
INIT_MAIN := init/main.c
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
GUEST_SRCS := $(sort $(wildcard tests/guest/*.c))
GUEST_SCRIPTS := $(sort $(wildcard tests/guest/*.sh))

# Architectures: one configs/<arch>.conf each; its cross_compile key names the toolchain prefix.
ALL_ARCHES := $(sort $(basename $(notdir $(wildcard configs/*.conf))))
conf_get = $(shell sed -n 's/^$(2)[[:space:]]*=[[:space:]]*//p' configs/$(1).conf)
cross_of = $(if $(filter $(1),$(HOST_ARCH)),,$(call conf_get,$(1),cross_compile))
have_cc = $(shell command -v $(call cross_of,$(1))gcc >/dev/null 2>&1 && echo $(1))
# Inits and guest tests are built for every architecture whose compiler is installed.
INIT_ARCHES ?= $(foreach a,$(ALL_ARCHES),$(call have_cc,$(a)))

host_obj = $(patsubst %.c,$(OUT)/obj/%.o,$(1))
san_obj = $(patsubst %.c,$(OUT)/obj-san/%.o,$(1))

TAPBOOT := $(OUT)/tapboot
LIBTAPBOOT := $(OUT)/libtapboot.a
LIBTAPBOOT_SAN := $(OUT)/libtapboot-san.a
LIBINIT_SAN := $(OUT)/libinit-host-san.a
INIT_HOST := $(OUT)/init-host
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/unit/%,$(UNIT_SRCS))
INITS := $(foreach a,$(INIT_ARCHES),$(OUT)/init/$(a)/init)

.PHONY: all help tools inits guest check check-run boot-run unit boot demo kselftest-demo deps kernels clean bench fuzz format \
	install uninstall man-lint deb test-kernels
all: tools inits guest

help:
	@echo 'Targets:'
	@echo '  all (default)  build tapboot, the static init and guest tests for each arch'
	@echo '  demo           install missing packages, fetch kernels, boot the examples'
	@echo '  check          the whole test suite (unit tests and real boots)'
	@echo '  unit           unit tests only (no QEMU)'
	@echo '  boot           the real boots only (tests/boot; BOOT_TESTS= to pick some)'
	@echo '  format         clang-format the C lines changed since FORMAT_BASE (default HEAD)'
	@echo '  kselftest-demo build kselftests from Debian linux-source, run them on x86_64 and arm64'
	@echo '  bench          side-by-side benchmarks (BENCH_QUICK=1 for a short run)'
	@echo '  fuzz           longer fuzz runs of the parsers (FUZZ_SECONDS=120 each)'
	@echo '  deps           install the Debian packages the build and tests need'
	@echo '  kernels        fetch Debian kernels into $$XDG_CACHE_HOME/tapboot'
	@echo '  test-kernels   build the crash-on-demand (LKDTM) kernels from linux-source-6.1'
	@echo '  clean          remove $(O)'
	@echo '  install        binary, inits, configs, scripts, man pages, completion (DESTDIR=)'
	@echo '  uninstall      remove what install wrote'
	@echo '  deb            build the Debian package (dpkg-buildpackage) into $(O)/deb'
	@echo '  man-lint       check the man pages with mandoc -T lint'
	@echo 'Variables:'
	@echo '  O=DIR          out-of-tree build directory (default: build)'
	@echo '  ARCH=, CROSS_COMPILE=  architecture and toolchain for `make init`'
	@echo '  INIT_ARCHES=   architectures to build inits for (default: those with a compiler)'
	@echo '  V=1            show commands'
	@echo '  PREFIX=/usr/local, BINDIR=, LIBEXECDIR=, DATADIR=, MANDIR=, DESTDIR=  for install'
	@echo '  SANITIZE=address,undefined  build the host tool with sanitizers'
	@echo "Architectures: $(ALL_ARCHES); inits buildable here: $(INIT_ARCHES)"

tools: $(TAPBOOT)
inits: $(INITS)

# ---- host tool ----
$(OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(HOST_CFLAGS) $(call inc_of,$<) $(CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/obj-san/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC-SAN  $<')
	$(Q)$(CC) $(HOST_CFLAGS) $(call inc_of,$<) -DTAPBOOT_HOST_TEST -O1 -g $(SAN_FLAGS) -MMD -MP \
		-c -o $@ $<

$(LIBTAPBOOT): $(call host_obj,$(filter-out $(HOST_MAIN),$(HOST_SRCS)) $(LIB_SRCS))
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBTAPBOOT_SAN): $(call san_obj,$(filter-out $(HOST_MAIN),$(HOST_SRCS)) $(LIB_SRCS))
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBINIT_SAN): $(call san_obj,$(filter-out $(INIT_MAIN),$(INIT_SRCS)))
	$(Q)rm -f $@ && ar rcs $@ $^

$(TAPBOOT): $(call host_obj,$(HOST_MAIN)) $(LIBTAPBOOT)
	@$(if $(Q),echo '  LINK    $@')
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TAPBOOT_LIBS)

# The init's logic on the host, not PID 1, under ASan (gcc refuses -static with ASan).
$(INIT_HOST): $(call san_obj,$(INIT_MAIN)) $(LIBINIT_SAN) $(LIBTAPBOOT_SAN)
	@$(if $(Q),echo '  LINK    $@')
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(HOST_LIBS)

# The install directories lib/paths.o is built with; the stamp changes only when they do, so a
# `make install PREFIX=...` rebuilds that one object.
rel_to_bin = $(shell realpath -m --relative-to=$(BINDIR) $(1))
PATHS_DEFS := -DTAPBOOT_INST_BINDIR='"$(BINDIR)"' \
	-DTAPBOOT_INST_LIBEXECDIR='"$(LIBEXECDIR)/tapboot"' -DTAPBOOT_INST_DATADIR='"$(DATADIR)/tapboot"' \
	-DTAPBOOT_REL_LIBEXECDIR='"$(call rel_to_bin,$(LIBEXECDIR)/tapboot)"' \
	-DTAPBOOT_REL_DATADIR='"$(call rel_to_bin,$(DATADIR)/tapboot)"'
$(OUT)/install-dirs: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PATHS_DEFS)' | cmp -s - $@ || echo '$(PATHS_DEFS)' >$@
$(OUT)/obj/lib/paths.o $(OUT)/obj-san/lib/paths.o: $(OUT)/install-dirs
$(OUT)/obj/lib/paths.o $(OUT)/obj-san/lib/paths.o: HOST_CFLAGS += $(PATHS_DEFS)
.PHONY: FORCE
FORCE:

# ---- static init, one per architecture ----
define init_rules
$(OUT)/init/$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo '  CC      [$(1)] $$<')
	$$(Q)$(call cross_of,$(1))gcc $(BASE_CFLAGS) -Os -g0 -ffunction-sections -fdata-sections \
		-MMD -MP -c -o $$@ $$<

$(OUT)/init/$(1)/init: $(patsubst %.c,$(OUT)/init/$(1)/obj/%.o,$(INIT_SRCS) $(LIB_SRCS))
	@$$(if $$(Q),echo '  LINK    [$(1)] $$@')
	$$(Q)$(call cross_of,$(1))gcc -static -Wl,--gc-sections -s -o $$@ $$^

# Guest test programs: static and dynamic builds of each, plus the shell tests.
$(OUT)/guest/$(1)/static/%: tests/guest/%.c
	@mkdir -p $$(dir $$@)
	$$(Q)$(call cross_of,$(1))gcc -std=gnu11 -O1 -D_GNU_SOURCE -static -o $$@ $$<
$(OUT)/guest/$(1)/dynamic/%: tests/guest/%.c
	@mkdir -p $$(dir $$@)
	$$(Q)$(call cross_of,$(1))gcc -std=gnu11 -O1 -D_GNU_SOURCE -o $$@ $$<
$(OUT)/guest/$(1)/scripts/%.sh: tests/guest/%.sh
	@mkdir -p $$(dir $$@)
	$$(Q)install -m 755 $$< $$@
guest-$(1): $(patsubst tests/guest/%.c,$(OUT)/guest/$(1)/static/%,$(GUEST_SRCS)) \
	$(patsubst tests/guest/%.c,$(OUT)/guest/$(1)/dynamic/%,$(GUEST_SRCS)) \
	$(patsubst tests/guest/%.sh,$(OUT)/guest/$(1)/scripts/%.sh,$(GUEST_SCRIPTS))
.PHONY: guest-$(1)
endef
$(foreach a,$(INIT_ARCHES),$(eval $(call init_rules,$(a))))

guest: $(foreach a,$(INIT_ARCHES),guest-$(a))

# `make init ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-`, the kernel's convention.
.PHONY: init
init:
	$(Q)$(MAKE) --no-print-directory INIT_ARCHES=$(ARCH) $(OUT)/init/$(ARCH)/init \
		$(if $(CROSS_COMPILE),cross_of=$(CROSS_COMPILE))

# ---- tests ----
$(OUT)/tests/harness.o: tests/harness.c tests/harness.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(HOST_CFLAGS) -Itests -O1 -g $(SAN_FLAGS) -c -o $@ $<

$(OUT)/tests/unit/%: tests/unit/%.c $(OUT)/tests/harness.o $(LIBINIT_SAN) $(LIBTAPBOOT_SAN)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  TEST-CC $<')
	$(Q)$(CC) $(HOST_CFLAGS) -Itests -Iinit $(addprefix -I,$(HOST_DIRS)) -O1 -g $(SAN_FLAGS) \
		-DTAPBOOT_HOST_TEST -o $@ $< $(OUT)/tests/harness.o $(LIBINIT_SAN) $(LIBTAPBOOT_SAN) \
		$(HOST_LIBS)

unit: $(UNIT_BINS) $(INIT_HOST) $(TAPBOOT)
	$(Q)TAPBOOT=$(TAPBOOT) OUT=$(OUT) tests/run.sh $(UNIT_BINS)

deps:
	$(Q)scripts/install-deps.sh check

# Every kernel make check boots: each architecture's default Debian release, and Debian 13's
# (6.12) for x86_64 and arm64 too, the second kernel generation.
kernels:
	$(Q)for a in $(INIT_ARCHES); do scripts/fetch-kernel.sh $$a >/dev/null || exit 1; done
	$(Q)for a in $(filter x86_64 arm64,$(INIT_ARCHES)); do \
		scripts/fetch-kernel.sh $$a trixie >/dev/null || exit 1; done

# Small kernels with LKDTM (WARNING/BUG/Oops on demand), built once per machine and cached.
test-kernels: tools
	$(Q)for a in x86_64 arm64; do scripts/build-test-kernel.sh $$a || exit 1; done

# The tests run in a second make, so that INIT_ARCHES (the architectures whose cross compiler is
# installed) is read after install-deps.sh installed them: on a fresh machine the first make
# saw none, and every test after it (make install's inits among them) ran without arm64.
check:
	$(Q)scripts/install-deps.sh check
	$(Q)$(MAKE) --no-print-directory check-run

check-run: all $(UNIT_BINS) $(INIT_HOST)
	$(Q)TAPBOOT=$(TAPBOOT) OUT=$(OUT) INIT_ARCHES="$(INIT_ARCHES)" tests/run.sh \
		$(UNIT_BINS) tests/fuzz-smoke.sh $(sort $(wildcard tests/boot/[0-9]*.sh))

# The real boots of make check, without the unit tests and the fuzz smoke run.
BOOT_TESTS ?= $(sort $(wildcard tests/boot/[0-9]*.sh))
boot:
	$(Q)scripts/install-deps.sh check
	$(Q)$(MAKE) --no-print-directory boot-run

boot-run: all $(INIT_HOST)
	$(Q)TAPBOOT=$(TAPBOOT) OUT=$(OUT) INIT_ARCHES="$(INIT_ARCHES)" tests/run.sh $(BOOT_TESTS)

# STYLE.md: clang-format (.clang-format) on changed lines only, never the whole tree.
FORMAT_BASE ?= HEAD
format:
	$(Q)git clang-format --style=file $(FORMAT_BASE) -- '*.c' '*.h'

demo:
	$(Q)scripts/install-deps.sh demo
	$(Q)$(MAKE) --no-print-directory all INIT_ARCHES="x86_64 arm64"
	$(Q)OUT=$(OUT) TAPBOOT=$(TAPBOOT) scripts/demo.sh

kselftest-demo:
	$(Q)scripts/install-deps.sh all
	$(Q)$(MAKE) --no-print-directory all INIT_ARCHES="x86_64 arm64"
	$(Q)OUT=$(OUT) TAPBOOT=$(TAPBOOT) scripts/kselftest-demo.sh

# Longer fuzz runs (FUZZ_SECONDS per harness); make check runs a few seconds of each.
FUZZ_SECONDS ?= 120
fuzz:
	$(Q)OUT=$(OUT) fuzz/run.sh $(FUZZ_SECONDS)

bench:
	$(Q)scripts/install-deps.sh all
	$(Q)$(MAKE) --no-print-directory all
	$(Q)OUT=$(OUT) TAPBOOT=$(TAPBOOT) bench/run.sh

# ---- install (README "Install") ----
MAN_PAGES := $(sort $(wildcard docs/man/*.1))
# the helpers the binary runs (apt-state.sh is sourced by the other two)
HELPERS := scripts/fetch-kernel.sh scripts/fetch-busybox.sh
INST_LIBEXEC := $(DESTDIR)$(LIBEXECDIR)/tapboot
INST_DATA := $(DESTDIR)$(DATADIR)/tapboot
install: tools inits
	install -d $(DESTDIR)$(BINDIR) $(INST_LIBEXEC) $(INST_DATA)/configs $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(TAPBOOT) $(DESTDIR)$(BINDIR)/tapboot
	$(Q)for a in $(INIT_ARCHES); do \
		echo "install -D -m 755 $(OUT)/init/$$a/init $(INST_LIBEXEC)/init/$$a/init"; \
		install -D -m 755 $(OUT)/init/$$a/init $(INST_LIBEXEC)/init/$$a/init || exit 1; done
	install -m 755 $(HELPERS) $(INST_LIBEXEC)/
	install -m 644 scripts/apt-state.sh $(INST_LIBEXEC)/
	install -m 644 configs/*.conf $(INST_DATA)/configs/
	install -m 644 builder/kselftest-disruptive.txt builder/kselftest-privileged.txt $(INST_DATA)/
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 scripts/tapboot.bash-completion $(DESTDIR)$(BASHCOMPDIR)/tapboot

# Everything install writes, for any architecture's init (those of an earlier install too).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tapboot $(DESTDIR)$(BASHCOMPDIR)/tapboot
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	rm -rf $(INST_LIBEXEC) $(INST_DATA)

man-lint:
	$(Q)mandoc -T lint -W warning $(MAN_PAGES)

# The Debian package, built by dpkg-buildpackage from a copy of the committed and working
# tree in a temporary directory (never in this tree), into $(O)/deb.
deb:
	$(Q)OUT=$(OUT) scripts/build-deb.sh

clean:
	rm -rf $(O)

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
