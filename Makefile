# wattpath - out-of-band fleet power collector.  One plain Makefile.
#
#   make            build ./wattpath
#   make sim        build ./wattpath-sim, the simulated fleet (demo, check
#                   and bench build it too)
#   make check      install test deps, lint, run unit + integration tests,
#                   then the unit and fast integration tests again under
#                   ASan+UBSan
#   make lint       the layout's rules (scripts/lint)
#   make demo       run the collector on the built-in simulated fleet
#   make bench      benchmarks (figures go to docs/benchmarks.md by hand)
#   make bench-full the whole design load on one CPU (tests/bench/full.py,
#                   about 15 minutes; FULL_ARGS='--nodes 2000' scales down)
#   make asan       sanitizer build in build-asan/
#   make fuzz       fuzz every parser FUZZ_SECONDS each (default 300; clang,
#                   libFuzzer; docs/hardening.md)
#   make install    PREFIX=/usr/local SYSCONFDIR=/etc DESTDIR=  (and uninstall)
#   make deb        the Debian package (debian/) in build/deb/; make deb-test
#                   unpacks and checks it (neither is part of make check)

PKG_CONFIG ?= pkg-config
PREFIX	?= /usr/local
DESTDIR	?=
BUILD	?= build
CC	?= cc
VERSION	:= 0.1.0

PKGS	:= libcurl json-c netsnmp libmodbus librrd openssl yaml-0.1 libmicrohttpd
WARN	:= -Wall -Wextra -Wshadow -Wpointer-arith -Wmissing-prototypes \
	   -Wstrict-prototypes -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation
CFLAGS	?= -O2 -g
WERROR	?= -Werror
ALL_CFLAGS = -std=c17 -D_GNU_SOURCE -DWP_VERSION='"$(VERSION)"' \
	   -DWP_PREFIX='"$(PREFIX)"' $(WARN) $(WERROR) $(CFLAGS) $(SANITIZE) \
	   $(if $(CPPFLAGS),$(CPPFLAGS) )\
	   $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LIBS	= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lpthread -ldl -lm
TEST_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# The layers (README.md, "Architecture"; scripts/lint checks the includes).
LIB_SRCS := $(filter-out collector/cmd/main.c, \
	    $(wildcard collector/lib/*.c collector/conf/*.c collector/store/*.c \
	    collector/*.c collector/report/*.c collector/expo/*.c \
	    collector/cmd/*.c) \
	    $(wildcard drivers/*/*.c) $(wildcard model/*.c))
SIM_SRCS := $(wildcard sim/*.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
BENCH_SRCS := $(wildcard tests/bench/*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.c=$(BUILD)/bench/%)

.PHONY: all sim deps lint check unit integration asan check-asan demo \
	demo-serve bench bench-full fuzz fuzz-bins fuzz-bins-in install uninstall deb deb-test clean
all: $(BUILD)/wattpath wattpath
sim: $(BUILD)/wattpath-sim wattpath-sim

deps:
	@scripts/deps.sh build

# The layout's rules: include layers and cycles, function and file sizes.
lint:
	@scripts/lint

# V=1 shows the whole command lines.
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Rebuild everything when the flags change.
$(BUILD)/.flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(ALL_CFLAGS)' | cmp -s - $@ || echo '$(ALL_CFLAGS)' > $@
FORCE:

# The commit the report's disclosure names (disclosure.wattpath); only
# report_json.o and report_md.o take it, rebuilt when it changes.  "unknown" outside git.
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
	git diff --quiet HEAD -- 2>/dev/null; [ $$? -ne 1 ] || echo +dirty)
$(BUILD)/.commit: FORCE
	@mkdir -p $(BUILD)
	@echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' > $@
COMMIT_OBJS := $(BUILD)/collector/report/report_json.o $(BUILD)/collector/report/report_md.o
$(COMMIT_OBJS): $(BUILD)/.commit
$(COMMIT_OBJS): ALL_CFLAGS += -DWP_COMMIT='"$(COMMIT)"'

$(BUILD)/libwattpath.a: $(LIB_OBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/wattpath: $(BUILD)/collector/cmd/main.o $(BUILD)/libwattpath.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/wattpath-sim: $(SIM_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/libwattpath.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS) $(shell $(PKG_CONFIG) --libs netsnmp-agent gnutls 2>/dev/null)

# cp + mv: a running ./wattpath keeps its old file (no "text file busy").
wattpath: $(BUILD)/wattpath
	@cp $< $@.tmp && mv -f $@.tmp $@
wattpath-sim: $(BUILD)/wattpath-sim
	@cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libwattpath.a $(BUILD)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libwattpath.a $(LIBS) $(TEST_LIBS)

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libwattpath.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libwattpath.a $(LIBS)

unit-bins: $(UNIT_BINS)

# The full suite: normal build, then ASan+UBSan on the unit and fast tests.
check:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory all sim unit-bins
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=undefined' \
		build-asan/wattpath unit-bins-asan
	@scripts/lint
	@tests/run.sh

unit-bins-asan: $(UNIT_BINS)

unit: all sim unit-bins
	@tests/run.sh --unit-only

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=undefined' \
		build-asan/wattpath unit-bins-asan

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory all sim
	@tests/demo.sh

demo-serve:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory all sim
	@tests/demo.sh --serve

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all sim $(BENCH_BINS)
	@tests/bench/run.sh

bench-full:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all sim
	@/usr/bin/python3 tests/bench/full.py --wattpath $(BUILD)/wattpath \
		--sim $(BUILD)/wattpath-sim $(FULL_ARGS)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c), linked with the library built
# by clang with ASan+UBSan and fuzzer instrumentation in build-fuzz/.
FUZZ_SECONDS ?= 300
CLANG	?= clang
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_MAKE = $(MAKE) --no-print-directory BUILD=build-fuzz CC=$(CLANG) WERROR= \
	CFLAGS='-O1 -g -fno-omit-frame-pointer -Wno-unknown-warning-option' \
	SANITIZE='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined'

fuzz-bins:
	+@$(FUZZ_MAKE) fuzz-bins-in

fuzz-bins-in: $(FUZZ_BINS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(BUILD)/libwattpath.a $(BUILD)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libwattpath.a $(LIBS)

fuzz:
	@scripts/deps.sh check
	@tests/fuzz/run.sh $(FUZZ_SECONDS)

# install: the binary, man pages, the unit (@PREFIX@ and @SYSCONFDIR@
# replaced), profiles, maps, dashboard and rules under PREFIX/share/wattpath,
# and the SYSCONFDIR/wattpath skeleton: the example config (kept if one is
# there) and the secrets directory (0700).  uninstall removes what install
# put there, and the skeleton only while it is untouched (the example
# config unchanged, the secrets directory empty).
SYSCONFDIR ?= /etc
UNITDIR	?= $(PREFIX)/lib/systemd/system
SHAREDIR = $(PREFIX)/share/wattpath
DATADIRS := pdu-profiles meter-maps grafana prometheus
install: $(BUILD)/wattpath
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SHAREDIR) \
		$(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/wattpath
	install -d -m 700 $(DESTDIR)$(SYSCONFDIR)/wattpath/secrets
	install -m 755 $(BUILD)/wattpath $(DESTDIR)$(PREFIX)/bin/wattpath
	for d in $(DATADIRS); do \
		install -d $(DESTDIR)$(SHAREDIR)/$$d && \
		install -m 644 etc/$$d/* $(DESTDIR)$(SHAREDIR)/$$d/ || exit 1; \
	done
	install -m 644 etc/wattpath.yaml $(DESTDIR)$(SHAREDIR)/wattpath.yaml.example
	[ -e $(DESTDIR)$(SYSCONFDIR)/wattpath/wattpath.yaml ] || \
		install -m 644 etc/wattpath.yaml $(DESTDIR)$(SYSCONFDIR)/wattpath/wattpath.yaml
	install -m 644 docs/wattpath.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 docs/wattpath.yaml.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		etc/wattpath.service > $(DESTDIR)$(UNITDIR)/wattpath.service
	chmod 644 $(DESTDIR)$(UNITDIR)/wattpath.service

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/wattpath $(DESTDIR)$(UNITDIR)/wattpath.service \
		$(DESTDIR)$(PREFIX)/share/man/man8/wattpath.8 \
		$(DESTDIR)$(PREFIX)/share/man/man5/wattpath.yaml.5
	rm -rf $(DESTDIR)$(SHAREDIR)
	! cmp -s etc/wattpath.yaml $(DESTDIR)$(SYSCONFDIR)/wattpath/wattpath.yaml || \
		rm -f $(DESTDIR)$(SYSCONFDIR)/wattpath/wattpath.yaml
	-rmdir $(DESTDIR)$(SYSCONFDIR)/wattpath/secrets $(DESTDIR)$(SYSCONFDIR)/wattpath \
		2>/dev/null

# deb: the Debian package (debian/), built by dpkg-buildpackage -us -uc -b
# in a clean copy of the tree under $(BUILD)/deb (the tracked and
# untracked, not ignored files), so this tree's build stays; lintian after,
# if it is there.  deb-test (not in check): unpack it into a throw-away
# root and check it there (scripts/deb-test.sh).
DEB_DIR = $(BUILD)/deb
DEB_SRC = $(DEB_DIR)/wattpath-$(VERSION)
deb:
	@scripts/deps.sh deb
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="parallel=2 $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -us -uc -b
	@ls $(DEB_DIR)/*.deb
	if command -v lintian >/dev/null; then \
		lintian --fail-on error,warning $(DEB_DIR)/*.changes; fi

deb-test: deb
	scripts/deb-test.sh $(DEB_DIR)/wattpath_$(VERSION)_*.deb

clean:
	rm -rf build build-asan build-fuzz wattpath wattpath-sim

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
