# revrun — build, test, install.
#   make                 ./revrun and the integration probes
#   make check           unit tests + bats suites, ending "N passed, N failed"
#   make check SANITIZE=1  the same with ASan + UBSan
#   make install PREFIX=/usr/local DESTDIR=

CC ?= gcc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
AGENTSDIR ?= $(PREFIX)/share/revrun/agents
PKGS := libseccomp yajl mount libssl libcrypto zlib
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

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) libgit2) \
	$(if $(GIT2_SONAME),-DWB_LIBGIT2_SONAME='"$(GIT2_SONAME)"') \
	$(if $(SSL_SONAME),-DEG_LIBSSL_SONAME='"$(SSL_SONAME)"') \
	$(if $(MOUNT_SONAME),-DRR_LIBMOUNT_SONAME='"$(MOUNT_SONAME)"')
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LINKED_PKGS))
GIT2_LIBS := $(shell $(PKG_CONFIG) --libs libgit2)

# -Wformat-truncation is off: snprintf into bounded message buffers truncates on
# purpose; where a built string reaches a syscall its length is checked.
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes -Wmissing-prototypes -Wno-format-truncation
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -I. -DREVRUN_AGENTS_DIR='"$(AGENTSDIR)"' $(WARN) -fstack-protector-strong -fPIE -g
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
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
MAIN_OBJ := $(BUILD)/runtime/cli/main.o

TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TEST_SUPPORT := $(BUILD)/tests/tap.o

# Probes run inside the sandbox: static, so they need nothing from its /usr.
PROBE_SRC := $(wildcard integration/probes/*.c)
PROBE_BIN := $(patsubst integration/probes/%.c,$(BUILD)/probes/%,$(PROBE_SRC))
PROBE_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static

.PHONY: all check unit integration install uninstall clean format lint fuzz probes layout-check man

all: revrun probes

revrun: $(BUILD)/revrun
	rm -f $@ && cp $< $@

$(BUILD)/revrun: $(LIB_OBJ) $(MAIN_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

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
	@tests/run-all.sh "$(CURDIR)/$(BUILD)" $(TEST_BIN)

# The man page is rendered from the usage table (runtime/cli/usage.c), the
# same text --help prints: never edited by hand, never out of date.
MANDIR ?= $(PREFIX)/share/man
man: $(BUILD)/revrun.1

$(BUILD)/revrun.1: $(BUILD)/revrun
	$< --man >$@

install: revrun $(BUILD)/revrun.1
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 revrun $(DESTDIR)$(BINDIR)/revrun
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(BUILD)/revrun.1 $(DESTDIR)$(MANDIR)/man1/revrun.1
	install -d $(DESTDIR)$(AGENTSDIR)
	install -m 0644 agents/*.json $(DESTDIR)$(AGENTSDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/revrun $(DESTDIR)$(MANDIR)/man1/revrun.1
	rm -f $(addprefix $(DESTDIR)$(AGENTSDIR)/,$(notdir $(wildcard agents/*.json)))

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
