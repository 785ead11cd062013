# revrun — build, test, install.
#   make                 ./revrun and the integration probes
#   make check           unit tests + bats suites, ending "N passed, N failed"
#   make check SANITIZE=1  the same with ASan + UBSan
#   make install PREFIX=/usr/local DESTDIR=
#   make deb             a Debian package of this build (debian/), in build/deb/

CC ?= gcc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# Nothing of PREFIX is compiled in: the presets are built into the binary,
# and files in BINDIR/../share/revrun/agents override them (bundle/preset.h).
AGENTSDIR = $(PREFIX)/share/revrun/agents
PKGS := libseccomp yajl mount libssl libcrypto zlib

# Each pkg-config module on its own, so that a missing one is named with
# the package that provides it (Debian 12, Ubuntu 24.04) instead of taking
# every other module's flags down with it.
DEV_libseccomp := libseccomp-dev
DEV_yajl := libyajl-dev
DEV_mount := libmount-dev
DEV_libssl := libssl-dev
DEV_libcrypto := libssl-dev
DEV_zlib := zlib1g-dev
DEV_libgit2 := libgit2-dev
NO_BUILD_GOALS := clean format help
ifneq ($(filter-out $(NO_BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell command -v $(PKG_CONFIG) 2>/dev/null),)
$(error $(PKG_CONFIG) not found: apt-get install pkg-config)
endif
MISSING_PC := $(strip $(foreach m,$(PKGS) libgit2,$(if $(shell $(PKG_CONFIG) --exists $(m) && echo y),,$(m))))
ifneq ($(MISSING_PC),)
$(error pkg-config finds no $(MISSING_PC): apt-get install $(sort $(foreach m,$(MISSING_PC),$(DEV_$(m)))))
endif
endif
# Linked: the rest is compiled against but loaded with dlopen where needed,
# so that `revrun diff` pays no relocations of theirs at start-up: OpenSSL
# by the egress broker alone (egress/ossl.h), libmount by the commands that
# manage containers (runtime/confine/libmnt.h).
LINKED_PKGS := libseccomp yajl zlib
MOUNT_SONAME := $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir mount)/libmount.so" 2>/dev/null | awk '/SONAME/ {print $$2}')
SSL_SONAME := $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir libssl)/libssl.so" 2>/dev/null | awk '/SONAME/ {print $$2}')
# libgit2 is compiled against but loaded with dlopen when a review first
# needs it (writeback/git/git2.h): its load and init would cost every command.
# The unit tests link it, to make repositories.
GIT2_SONAME := $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir libgit2)/libgit2.so" 2>/dev/null | awk '/SONAME/ {print $$2}')

PKG_CFLAGS := $(foreach m,$(PKGS) libgit2,$(shell $(PKG_CONFIG) --cflags $(m))) \
	$(if $(GIT2_SONAME),-DWB_LIBGIT2_SONAME='"$(GIT2_SONAME)"') \
	$(if $(SSL_SONAME),-DEG_LIBSSL_SONAME='"$(SSL_SONAME)"') \
	$(if $(MOUNT_SONAME),-DRR_LIBMOUNT_SONAME='"$(MOUNT_SONAME)"')
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LINKED_PKGS))
GIT2_LIBS := $(shell $(PKG_CONFIG) --libs libgit2)

# -Wformat-truncation is off: snprintf into bounded message buffers truncates on
# purpose; where a built string reaches a syscall its length is checked.
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes -Wmissing-prototypes -Wno-format-truncation
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -I. $(WARN) -fstack-protector-strong -fPIE -g
BASE_LDFLAGS := -pie -Wl,-z,relro,-z,now

ifeq ($(SANITIZE),1)
BUILD := build-san
OPT := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDSAN := -fsanitize=address,undefined
else
BUILD := build
OPT := -O2 -D_FORTIFY_SOURCE=2
LDSAN :=
endif

ALL_CFLAGS := $(BASE_CFLAGS) $(OPT) $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(BASE_LDFLAGS) $(LDSAN) $(LDFLAGS)

# Every part's sources are picked up by directory, so adding a file to a part
# needs no edit here.
RUNTIME_PARTS := runtime/cli runtime/jobs runtime/container runtime/confine runtime/confine/profile runtime/check
# writeback/ in its stages, lowest first (writeback/README.md).
WRITEBACK_PARTS := $(addprefix writeback/,base names git changeset scan rules export patch apply)
PARTS := common bundle overlay $(WRITEBACK_PARTS) $(RUNTIME_PARTS) egress
LIB_SRC := $(filter-out runtime/cli/main.c,$(wildcard $(addsuffix /*.c,$(PARTS))))
# agents/*.json compiled in (bundle/preset_builtin.h)
GEN_OBJ := $(BUILD)/gen/presets.o
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC)) $(GEN_OBJ)
MAIN_OBJ := $(BUILD)/runtime/cli/main.o

TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TEST_SUPPORT := $(BUILD)/tests/tap.o

# Probes run inside the sandbox: static, so they need nothing from its /usr.
PROBE_SRC := $(wildcard integration/probes/*.c)
PROBE_BIN := $(patsubst integration/probes/%.c,$(BUILD)/probes/%,$(PROBE_SRC))
PROBE_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static

.PHONY: all check unit integration install uninstall clean format lint fuzz probes layout-check man \
	completion deb

all: revrun probes

revrun: $(BUILD)/revrun
	rm -f $@ && cp $< $@

$(BUILD)/revrun: $(LIB_OBJ) $(MAIN_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/gen/presets.c: scripts/gen-presets.sh $(wildcard agents/*.json)
	@mkdir -p $(dir $@)
	scripts/gen-presets.sh $(sort $(wildcard agents/*.json)) >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The commit --version prints, compiled into one object, which a stamp
# rebuilds only when the commit changes (REVRUN_COMMIT= overrides it, for
# a tree without git).
REVRUN_COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
	git rev-parse HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD -- 2>/dev/null && echo -dirty)
COMMIT_STAMP := $(BUILD)/gen/commit
$(shell mkdir -p $(BUILD)/gen && { [ "$$(cat $(COMMIT_STAMP) 2>/dev/null)" = "$(REVRUN_COMMIT)" ] || echo "$(REVRUN_COMMIT)" >$(COMMIT_STAMP); })
$(BUILD)/runtime/cli/cli_features.o: $(COMMIT_STAMP)
$(BUILD)/runtime/cli/cli_features.o: ALL_CFLAGS += -DREVRUN_COMMIT='"$(REVRUN_COMMIT)"'

$(BUILD)/tests/%: tests/%.c $(TEST_SUPPORT) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(TEST_SUPPORT) $(LIB_OBJ) $(PKG_LIBS) $(GIT2_LIBS)

probes: $(PROBE_BIN)

$(BUILD)/probes/%: integration/probes/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROBE_CFLAGS) -o $@ $<

unit: $(TEST_BIN)
	@tests/run-unit.sh $(TEST_BIN)

# The suites test the binary of this build ($(BUILD)/revrun): with
# SANITIZE=1 that is the sanitized one, whatever ./revrun holds.
# `make integration SUITES="integration/review.bats ..."` runs only those.
integration: $(BUILD)/revrun probes
	@REVRUN=$(CURDIR)/$(BUILD)/revrun REVRUN_PROBES=$(CURDIR)/$(BUILD)/probes integration/run.sh $(SUITES)

layout-check:
	@tests/layout-check.sh

# Both stages always run; the summary line counts every test of both.
check: layout-check $(BUILD)/revrun probes $(TEST_BIN)
	@tests/symbol-check.sh $(BUILD)/revrun
	@tests/run-all.sh "$(CURDIR)/$(BUILD)" $(TEST_BIN)

# The man page is rendered from the usage table (runtime/cli/usage.c), the
# same text --help prints: never edited by hand, never out of date.
MANDIR ?= $(PREFIX)/share/man
man: $(BUILD)/revrun.1

$(BUILD)/revrun.1: $(BUILD)/revrun
	$< --man >$@

# The bash completion, rendered from the same table.
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
completion: $(BUILD)/revrun.bash

$(BUILD)/revrun.bash: $(BUILD)/revrun
	$< --bash-completion >$@

# systemd reads units and tmpfiles.d entries under /usr/local/lib too; the
# Debian package puts the units in /lib/systemd/system (debian/rules).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d

# The presets are built in; the installed files are the ones an operator
# reads and may override (bundle/preset.h).
install: $(BUILD)/revrun $(BUILD)/revrun.1 $(BUILD)/revrun.bash
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(AGENTSDIR) \
		$(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(TMPFILESDIR)
	install -m 0755 $(BUILD)/revrun $(DESTDIR)$(BINDIR)/revrun
	install -m 0644 $(BUILD)/revrun.1 $(DESTDIR)$(MANDIR)/man1/revrun.1
	install -m 0644 agents/*.json $(DESTDIR)$(AGENTSDIR)/
	install -m 0644 $(BUILD)/revrun.bash $(DESTDIR)$(COMPLETIONDIR)/revrun
	sed 's|@BINDIR@|$(BINDIR)|g' dist/revrun-sweep.service.in >$(DESTDIR)$(SYSTEMDUNITDIR)/revrun-sweep.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/revrun-sweep.service
	install -m 0644 dist/revrun-sweep.timer $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 dist/revrun.tmpfiles $(DESTDIR)$(TMPFILESDIR)/revrun.conf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/revrun $(DESTDIR)$(MANDIR)/man1/revrun.1
	rm -f $(addprefix $(DESTDIR)$(AGENTSDIR)/,$(notdir $(wildcard agents/*.json)))
	rm -f $(DESTDIR)$(COMPLETIONDIR)/revrun $(DESTDIR)$(TMPFILESDIR)/revrun.conf
	rm -f $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,revrun-sweep.service revrun-sweep.timer)

# A Debian package of this build (debian/): what `make` built is packaged
# as is (debian/rules runs only `make install`), the .deb lands in
# build/deb/. Needs dpkg-dev and debhelper.
deb: all $(BUILD)/revrun.1 $(BUILD)/revrun.bash
	@mkdir -p $(BUILD)/deb
	REVRUN_DEB_DIR=$(CURDIR)/$(BUILD)/deb dpkg-buildpackage -b -us -uc --no-sign \
		--changes-option=-u$(CURDIR)/$(BUILD)/deb --changes-option=-O$(CURDIR)/$(BUILD)/deb/revrun.changes \
		--buildinfo-option=-u$(CURDIR)/$(BUILD)/deb --buildinfo-option=-O$(CURDIR)/$(BUILD)/deb/revrun.buildinfo
	@ls $(BUILD)/deb/*.deb

fuzz:
	@fuzz/build.sh

format:
	clang-format -i $(wildcard $(addsuffix /*.[ch],$(PARTS)) tests/*.[ch] integration/probes/*.c)

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
		-I. $(addprefix -i,build build-san) $(PARTS) tests
	clang-tidy --quiet $(LIB_SRC) -- $(BASE_CFLAGS) $(PKG_CFLAGS)

clean:
	rm -rf build build-san revrun

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
