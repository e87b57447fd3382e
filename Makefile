# Splice: `make demo` and `make test` do all the set-up on a fresh Debian 12 machine (as root):
# missing Debian packages, the Maven build, the RISC-V test programs, the QEMU plugin.
# Everything is incremental: a second run reinstalls and rebuilds nothing that is up to date.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

DEB_PACKAGES := openjdk-17-jdk-headless maven make gcc \
	gcc-riscv64-linux-gnu g++-riscv64-linux-gnu binutils-riscv64-linux-gnu \
	qemu-user llvm-22 bolt-22 r-base-core r-cran-mass time asciidoctor man-db qemu-system-misc \
	clang-22 lld-22
MVN := mvn -B -q -Dstyle.color=never
VERSION := $(shell sed -n 's|^  <version>\(.*\)</version>$$|\1|p' pom.xml)
# The command line's self-contained jar (Maven's artifact splice-VERSION-cli.jar, under a name that
# does not change with the version); target/splice.jar is the library.
JAR := target/splice-cli.jar
SOURCES := $(shell find src/main -type f 2>/dev/null) pom.xml

RV_CC := riscv64-linux-gnu-gcc
RV_CXX := riscv64-linux-gnu-g++
RV_FLAGS := -static -O2 -g0
# Assembly programs bring their own _start.
RV_ASFLAGS := -static -nostdlib
PROG_DIR := build/programs
PROG_SRC := $(wildcard tests/programs/*.c tests/programs/*.cpp tests/programs/*.S)
PROG_NAMES := $(basename $(notdir $(PROG_SRC)))
# Each program in three variants: plain, with --emit-relocs, and without compressed instructions.
RV_PROGRAMS := $(foreach n,$(PROG_NAMES),$(PROG_DIR)/rv64/$(n) $(PROG_DIR)/rv64/$(n).relocs $(PROG_DIR)/rv64/$(n).norvc)
# The C and C++ sources for x86-64 too (BOLT's best-supported target), with relocations for BOLT;
# assembly for x86-64 lives in tests/programs/x86_64/.
X86_SRC := $(wildcard tests/programs/*.c tests/programs/*.cpp tests/programs/x86_64/*.S)
X86_PROGRAMS := $(foreach n,$(basename $(notdir $(X86_SRC))),$(PROG_DIR)/x86_64/$(n).relocs)
# One static x86-64 build: thousands of glibc and libstdc++ functions (jump tables, landing pads,
# hand-written assembly) for the tests that compare Splice's x86-64 CFGs with BOLT's. Without
# --emit-relocs BOLT rewrites functions in place and leaves most of them as they are.
X86_STATIC := $(PROG_DIR)/x86_64-static/exceptions
# Position-independent, dynamically linked builds (gcc's default) with --emit-relocs: PLT layouts.
X86_PIE := $(PROG_DIR)/x86_64-pie/loops
RV_PIE := $(PROG_DIR)/rv64-pie/loops $(PROG_DIR)/rv64-pie/exceptions
# Dynamically linked but not position-independent (ET_EXEC with PT_INTERP), with --emit-relocs.
RV_DYN := $(PROG_DIR)/rv64-dyn/loops $(PROG_DIR)/rv64-dyn/exceptions
# A PIE that carries libstdc++ and libgcc inside it (glibc stays shared): thousands of functions of
# code nobody here wrote, exception unwinding included, in a position-independent executable.
RV_PIE_LIBSTDCXX := $(PROG_DIR)/rv64-pie-libstdcxx/exceptions
# Shared libraries (tests/programs/shared/) and the PIE executables that load them (run with
# LD_LIBRARY_PATH=build/programs/rv64-shared), all with --emit-relocs.
RV_SHARED_DIR := $(PROG_DIR)/rv64-shared
RV_SHARED := $(RV_SHARED_DIR)/libsplice_c.so $(RV_SHARED_DIR)/libsplice_cxx.so $(RV_SHARED_DIR)/clib_main \
	$(RV_SHARED_DIR)/cxxlib_main
# Vectorized programs (tests/programs/vector/): clang-22 -O3 -march=rv64gcv, static, linked by lld with
# --emit-relocs. Run them with qemu-riscv64 -cpu rv64,v=true,vlen=128,vext_spec=v1.0.
RV_VECTOR_CC := clang-22 --target=riscv64-linux-gnu -march=rv64gcv -O3 -g0 -static -fuse-ld=lld -Wl,--emit-relocs
RV_VECTOR := $(foreach n,$(basename $(notdir $(wildcard tests/programs/vector/*.c))),$(PROG_DIR)/rv64v/$(n))

# -g builds for the debug-information tests (docs/patch.md, "Debug information"), all static with
# --emit-relocs: DWARF 5 as gcc emits it, DWARF 4, and the two that llvm-dwarfdump-22 --verify can
# check (strict DWARF 4; DWARF 5 without variable tracking: its check of call sites loops forever on
# one in a nested scope). gdb-multiarch reads them in the tests.
DEB_PACKAGES += gdb-multiarch
RV_G_NAMES := loops fragment_calls exceptions
RV_G_VARIANTS := .dwarf5 .dwarf4 .strict4 .novt
RV_G := $(foreach n,$(RV_G_NAMES),$(foreach v,$(RV_G_VARIANTS),$(PROG_DIR)/rv64-g/$(n)$(v)))
# And two compile units, one of them a single range only part of which moves.
RV_G += $(foreach v,$(RV_G_VARIANTS),$(PROG_DIR)/rv64-g/units$(v))
RV_G_FLAGS.dwarf5 := -g
RV_G_FLAGS.dwarf4 := -gdwarf-4
RV_G_FLAGS.strict4 := -gdwarf-4 -gstrict-dwarf
RV_G_FLAGS.novt := -g -fno-var-tracking
# Without unwind tables the C programs' own functions have their call frame information in
# .debug_frame only (docs/patch.md, "Debug information").
RV_G_FRAME := $(foreach n,loops fragment_calls,$(PROG_DIR)/rv64-g/$(n).dframe)
RV_G_FLAGS.dframe := -g -fno-asynchronous-unwind-tables
# clang-22's DWARF 5: addresses through .debug_addr (DW_FORM_addrx, DW_OP_addrx), list offset tables.
RV_G_CLANG := $(foreach n,loops fragment_calls,$(PROG_DIR)/rv64-g/$(n).clang) $(PROG_DIR)/rv64-g/units.clang
RV_G_CLANG_CC := clang-22 --target=riscv64-linux-gnu -static -O2 -g -fuse-ld=lld -Wl,--emit-relocs

# The headless browser that renders weigh's report.html in a test (issue 12).
DEB_PACKAGES += chromium

# Programs with instructions of issue 14's scalar extensions (their Tag_RISCV_arch names them),
# with --emit-relocs; C sources in tests/programs/rv64-ext/ (RISC-V only: inline assembly).
RV_EXT := $(PROG_DIR)/rv64-ext/zbc_mix

# Bare-metal programs (tests/programs/bare/, issue 13): assembly at virt's DRAM with their own linker
# script, for qemu-system-riscv64 -machine virt -bios none (splice weigh catalog --mode system).
RV_BARE := $(PROG_DIR)/rv64-bare/traps

PLUGIN := build/qemu-plugin/libsplice-plugin.so
PLUGIN_SRC := $(wildcard native/qemu-plugin/*.c native/qemu-plugin/*.h)

.PHONY: help deps jar programs plugin test demo bench clean man completion install

# Under make -j the packages go in before anything is compiled (a fresh machine has no cross compiler).
$(RV_PROGRAMS) $(X86_PROGRAMS) $(X86_STATIC) $(X86_PIE) $(RV_PIE) $(RV_PIE_LIBSTDCXX) $(RV_DYN) $(RV_SHARED) \
	$(RV_VECTOR) $(RV_EXT) $(RV_G) $(RV_G_FRAME) $(RV_G_CLANG) $(RV_BARE) $(PLUGIN) $(JAR): | deps

help:
	@echo "make demo   - build everything and run the tour on a bundled example"
	@echo "make test   - build everything and run the whole test suite"
	@echo "make bench  - run the benchmarks under bench/"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=] - install splice, its man pages and bash completion"

# Installs only the Debian packages that are missing; runs apt-get update once, only if needed.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  apt-get update -q; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

jar: deps $(JAR)

# Maven 3.8 with -q still prints stray colour codes: keep its log, show it only on failure. The
# javadoc and sources jars are left to `make test` and `mvn install`.
$(JAR): $(SOURCES)
	@mkdir -p build; echo "Building $(JAR)"
	@$(MVN) -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true package > build/mvn-package.log 2>&1 \
		|| { cat build/mvn-package.log; exit 1; }
	@cp target/splice-$(VERSION)-cli.jar $@
	@# Class-data-sharing archive (./splice uses it when it is newer than the jar): a static one, made
	@# from the list of classes a short disasm run loads, because only a static archive can hold
	@# picocli's old (Java 5) class files on Java 17. Saves about 0.1 s of every start.
	@{ java -XX:DumpLoadedClassList=$(CURDIR)/target/splice.classlist -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
		-jar $(CURDIR)/$(JAR) disasm --raw pom.xml -o /dev/null && \
	  java -Xshare:dump -XX:SharedClassListFile=$(CURDIR)/target/splice.classlist \
		-XX:SharedArchiveFile=$(CURDIR)/target/splice.jsa -cp $(CURDIR)/$(JAR); } > build/cds.log 2>&1 \
		|| rm -f target/splice.jsa

programs: deps $(RV_PROGRAMS) $(X86_PROGRAMS) $(X86_STATIC) $(X86_PIE) $(RV_PIE) $(RV_PIE_LIBSTDCXX) $(RV_DYN) $(RV_SHARED) $(RV_VECTOR) $(RV_EXT)

$(PROG_DIR)/rv64v/%: tests/programs/vector/%.c
	@mkdir -p $(@D); $(RV_VECTOR_CC) -o $@ $<

$(PROG_DIR)/rv64/%: tests/programs/%.c
	@mkdir -p $(@D); $(RV_CC) $(RV_FLAGS) -o $@ $<
$(PROG_DIR)/rv64/%.relocs: tests/programs/%.c
	@mkdir -p $(@D); $(RV_CC) $(RV_FLAGS) -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64/%.norvc: tests/programs/%.c
	@mkdir -p $(@D); $(RV_CC) $(RV_FLAGS) -march=rv64g -mabi=lp64d -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64/%: tests/programs/%.cpp
	@mkdir -p $(@D); $(RV_CXX) $(RV_FLAGS) -o $@ $<
$(PROG_DIR)/rv64/%.relocs: tests/programs/%.cpp
	@mkdir -p $(@D); $(RV_CXX) $(RV_FLAGS) -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64/%.norvc: tests/programs/%.cpp
	@mkdir -p $(@D); $(RV_CXX) $(RV_FLAGS) -march=rv64g -mabi=lp64d -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64/%: tests/programs/%.S
	@mkdir -p $(@D); $(RV_CC) $(RV_ASFLAGS) -o $@ $<
$(PROG_DIR)/rv64/%.relocs: tests/programs/%.S
	@mkdir -p $(@D); $(RV_CC) $(RV_ASFLAGS) -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64/%.norvc: tests/programs/%.S
	@mkdir -p $(@D); $(RV_CC) $(RV_ASFLAGS) -march=rv64g -mabi=lp64d -Wl,--emit-relocs -o $@ $<
programs: $(RV_G)
programs: $(RV_BARE)
$(PROG_DIR)/rv64-bare/%: tests/programs/bare/%.S tests/programs/bare/virt.ld
	@mkdir -p $(@D); $(RV_CC) -ffreestanding -nostdlib -static -no-pie -Wl,--build-id=none -T tests/programs/bare/virt.ld -o $@ $<
define RV_G_RULES
$(PROG_DIR)/rv64-g/%$(1): tests/programs/%.c
	@mkdir -p $$(@D); $(RV_CC) -static -O2 $(RV_G_FLAGS$(1)) -Wl,--emit-relocs -o $$@ $$<
$(PROG_DIR)/rv64-g/%$(1): tests/programs/%.cpp
	@mkdir -p $$(@D); $(RV_CXX) -static -O2 $(RV_G_FLAGS$(1)) -Wl,--emit-relocs -o $$@ $$<
endef
$(foreach v,$(RV_G_VARIANTS),$(eval $(call RV_G_RULES,$(v))))
programs: $(RV_G_FRAME)
$(PROG_DIR)/rv64-g/%.dframe: tests/programs/%.c
	@mkdir -p $(@D); $(RV_CC) -static -O2 $(RV_G_FLAGS.dframe) -Wl,--emit-relocs -o $@ $<
programs: $(RV_G_CLANG)
$(PROG_DIR)/rv64-g/units.clang: tests/programs/dwarf/units_main.c tests/programs/dwarf/units_lib.c
	@mkdir -p $(@D); $(RV_G_CLANG_CC) -o $@ $^
$(PROG_DIR)/rv64-g/%.clang: tests/programs/%.c
	@mkdir -p $(@D); $(RV_G_CLANG_CC) -o $@ $<
$(PROG_DIR)/rv64-g/units.%: tests/programs/dwarf/units_main.c tests/programs/dwarf/units_lib.c
	@mkdir -p $(@D); $(RV_CC) -static -O2 $(RV_G_FLAGS.$*) -Wl,--emit-relocs -o $@ $^
$(PROG_DIR)/rv64-ext/zbc_mix: tests/programs/rv64-ext/zbc_mix.c
	@mkdir -p $(@D); $(RV_CC) $(RV_FLAGS) -march=rv64gc_zbc -mabi=lp64d -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/x86_64/%.relocs: tests/programs/%.c
	@mkdir -p $(@D); gcc -O2 -g0 -no-pie -fno-pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/x86_64/%.relocs: tests/programs/%.cpp
	@mkdir -p $(@D); g++ -O2 -g0 -no-pie -fno-pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/x86_64/%.relocs: tests/programs/x86_64/%.S
	@mkdir -p $(@D); gcc -O2 -g0 -no-pie -fno-pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64-pie/%: tests/programs/%.c
	@mkdir -p $(@D); $(RV_CC) -O2 -g0 -fpie -pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64-pie/%: tests/programs/%.cpp
	@mkdir -p $(@D); $(RV_CXX) -O2 -g0 -fpie -pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64-pie-libstdcxx/%: tests/programs/%.cpp
	@mkdir -p $(@D); $(RV_CXX) -O2 -g0 -fpie -pie -static-libstdc++ -static-libgcc -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64-dyn/%: tests/programs/%.c
	@mkdir -p $(@D); $(RV_CC) -O2 -g0 -fno-pie -no-pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/rv64-dyn/%: tests/programs/%.cpp
	@mkdir -p $(@D); $(RV_CXX) -O2 -g0 -fno-pie -no-pie -Wl,--emit-relocs -o $@ $<
$(RV_SHARED_DIR)/libsplice_c.so: tests/programs/shared/clib.c tests/programs/shared/clib.h
	@mkdir -p $(@D); $(RV_CC) -O2 -g0 -fPIC -shared -Wl,--emit-relocs -o $@ $<
$(RV_SHARED_DIR)/libsplice_cxx.so: tests/programs/shared/cxxlib.cpp tests/programs/shared/cxxlib.h
	@mkdir -p $(@D); $(RV_CXX) -O2 -g0 -fPIC -shared -Wl,--emit-relocs -o $@ $<
$(RV_SHARED_DIR)/clib_main: tests/programs/shared/clib_main.c $(RV_SHARED_DIR)/libsplice_c.so
	@mkdir -p $(@D); $(RV_CC) -O2 -g0 -fpie -pie -Wl,--emit-relocs -o $@ $< -L$(@D) -lsplice_c
$(RV_SHARED_DIR)/cxxlib_main: tests/programs/shared/cxxlib_main.cpp $(RV_SHARED_DIR)/libsplice_cxx.so
	@mkdir -p $(@D); $(RV_CXX) -O2 -g0 -fpie -pie -Wl,--emit-relocs -o $@ $< -L$(@D) -lsplice_cxx
$(PROG_DIR)/x86_64-pie/%: tests/programs/%.c
	@mkdir -p $(@D); gcc -O2 -g0 -fpie -pie -Wl,--emit-relocs -o $@ $<
$(PROG_DIR)/x86_64-static/%: tests/programs/%.cpp
	@mkdir -p $(@D); g++ -O2 -g0 -static -o $@ $<

plugin: deps $(PLUGIN)

$(PLUGIN): $(PLUGIN_SRC)
	@mkdir -p $(@D)
	@if [ -n "$(filter %.c,$(PLUGIN_SRC))" ]; then gcc -O2 -Wall -Wextra -Werror -fvisibility=hidden -shared -fPIC -o $@ $(filter %.c,$(PLUGIN_SRC)); else touch $@; fi

# `install` runs the tests, then builds every artifact (the library jar, the cli jar, the sources
# and javadoc jars, javadoc with doclint failing on any error) and installs them, so that every
# plugin `mvn -o install` needs is in the local repository afterwards. Then the library example.
test: deps programs plugin
	mvn -B -Dstyle.color=never install
	bash examples/api/check.sh target/splice-$(VERSION)-cli.jar $(PROG_DIR)/rv64/loops.relocs hot_loop
	bash tests/install-check.sh

# Man pages and the bash completion script, generated from the command model (splice docs) so they
# cannot drift from --help; asciidoctor turns picocli's AsciiDoc pages into troff.
MAN_DIR := build/man
COMPLETION := build/completion/splice
man: $(MAN_DIR)/man1/splice.1
$(MAN_DIR)/man1/splice.1: $(JAR)
	@rm -rf $(MAN_DIR); java -jar $(JAR) docs --man $(MAN_DIR)/adoc
	@asciidoctor -b manpage -D $(MAN_DIR)/man1 $(MAN_DIR)/adoc/*.adoc
completion: $(COMPLETION)
$(COMPLETION): $(JAR)
	@mkdir -p $(@D); java -jar $(JAR) docs --completion $@

# Installs the launcher with the layout it expects beside it (target/ for the jar and its class-data
# archive, build/qemu-plugin/ for the plugin), so ./splice and the plugin lookup work unchanged.
PREFIX ?= /usr/local
LIBDIR := $(DESTDIR)$(PREFIX)/lib/splice
install: jar plugin man completion
	install -d $(LIBDIR)/target $(LIBDIR)/build/qemu-plugin $(DESTDIR)$(PREFIX)/bin \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 splice $(LIBDIR)/splice
	install -m 0644 $(JAR) $(LIBDIR)/target/splice-cli.jar
	if [ target/splice.jsa -nt $(JAR) ]; then install -m 0644 target/splice.jsa $(LIBDIR)/target/splice.jsa; fi
	install -m 0755 $(PLUGIN) $(LIBDIR)/build/qemu-plugin/
	ln -sf ../lib/splice/splice $(DESTDIR)$(PREFIX)/bin/splice
	install -m 0644 $(MAN_DIR)/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(COMPLETION) $(DESTDIR)$(PREFIX)/share/bash-completion/completions/splice

demo: jar programs plugin
	@bash demo/demo.sh

# Runtime objects for `splice patch --runtime` (tests/programs/runtime/): RISC-V relocatable
# objects, gcc -O2 -c, freestanding and without PIC (RuntimeObjectTest links them into outputs).
RV_RUNTIME := $(foreach n,$(basename $(notdir $(wildcard tests/programs/runtime/*.c))),$(PROG_DIR)/rv64-runtime/$(n).o)
$(PROG_DIR)/rv64-runtime/%.o: tests/programs/runtime/%.c
	@mkdir -p $(@D); $(RV_CC) -O2 -g0 -c -ffreestanding -fno-pic -o $@ $<
programs: $(RV_RUNTIME)

bench: jar programs plugin
	@for b in bench/*.sh; do echo "== $$b"; bash "$$b"; done

clean:
	rm -rf target build
