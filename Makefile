# Capsulang toolchain. Targets:
#   make build     build build/caps (needs cgo: a C compiler such as gcc)
#   make install   build, then copy caps to $(PREFIX)/bin (PREFIX=/usr/local;
#                  DESTDIR is honoured), creating the folder
#   make run       build, then run caps on every shipped example (examples/*.caps)
#   make test      go vet, the grammar checks, the VS Code extension tests and
#                  go test -race: the whole suite
#   make bench     Go benchmarks and the scaling runs (bench/scaling), with a
#                  summary
#   make grammar   regenerate tree-sitter-capsulang/src from grammar.js
#   make vscode    package the VS Code extension: build/capsulang-<version>.vsix
#   make fuzz      a short run of every Go fuzz target (FUZZTIME each)
#   make clean     remove build output
#
# The tree-sitter CLI (0.22.x, for ABI 14 parsers) is TREE_SITTER, by default
# `tree-sitter` on PATH or else ../shared/tools/tree-sitter beside the
# repository. Without it `make test` skips the grammar checks, except under
# CI=true, where a missing CLI is an error.
#
# The VS Code extension's tests (editors/vscode, `npm test`) need node and
# npm; without them `make test` skips those tests, except under CI=true.

SHELL       := /bin/bash
.SHELLFLAGS := -o pipefail -c

GO          ?= go
TREE_SITTER ?= tree-sitter
CAPS        := build/caps
EXAMPLES    ?= $(wildcard examples/*.caps)
FUZZTIME    ?= 10s
# VERSION, when set, is stamped into the binary: make build VERSION=1.2.3
VERSION     ?=
LDFLAGS     := $(if $(VERSION),-ldflags "-X main.version=$(VERSION)")
PREFIX      ?= /usr/local

# TS is the tree-sitter CLI as an absolute path, or empty when there is none.
TS := $(shell t='$(TREE_SITTER)'; \
	if printf %s "$$t" | grep -q /; then \
	  [ -x "$$t" ] && echo "$$(cd "$$(dirname "$$t")" && pwd)/$$(basename "$$t")"; \
	elif command -v "$$t" >/dev/null 2>&1; then command -v "$$t"; \
	elif [ "$$t" = tree-sitter ] && [ -x "$(CURDIR)/../shared/tools/tree-sitter" ]; then \
	  echo "$$(cd "$(CURDIR)/../shared/tools" && pwd)/tree-sitter"; \
	fi)
IS_CI := $(filter true 1 yes,$(CI))

.PHONY: all build install cgo-check run test vet test-go grammar-check vscode-test vscode bench grammar fuzz clean

all: build

# caps links the tree-sitter parser, which is C: without cgo the build
# fails deep in a dependency ("undefined: Node"), so say what is missing.
cgo-check:
	@cgo=$$($(GO) env CGO_ENABLED); cc=$$($(GO) env CC); cc=$${cc:-gcc}; set -- $$cc; \
	if ! command -v "$$1" >/dev/null 2>&1; then \
	  echo "error: no C compiler \"$$cc\" on PATH. caps needs cgo and a C compiler for its tree-sitter parser:" >&2; \
	  echo "  install one (Debian/Ubuntu: apt-get install gcc libc6-dev; Fedora: dnf install gcc; macOS: xcode-select --install) or set CC." >&2; \
	  exit 1; \
	elif [ "$$cgo" != 1 ]; then \
	  echo "error: cgo is disabled (CGO_ENABLED=$$cgo); caps needs it for its tree-sitter parser: unset CGO_ENABLED or set CGO_ENABLED=1." >&2; \
	  exit 1; \
	fi

# A cold build compiles the C parser and about a hundred packages (about a
# minute on 2 cores); -v names each package as it is compiled, so the
# first build shows progress and a cached one prints nothing.
build: cgo-check
	@echo "$(GO) build -o $(CAPS) ./cmd/caps"
	@$(GO) build -v $(LDFLAGS) -o $(CAPS) ./cmd/caps 2>&1 | sed -u 's/^/  /'

install: build
	@mkdir -p "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 $(CAPS) "$(DESTDIR)$(PREFIX)/bin/caps"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/caps"; \
	case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on PATH; add it to use 'caps' by name";; esac

# The main job: every shipped example must check without errors, except the
# negative examples (examples/NN_bad_*.caps), which must fail with the code
# named on their ";; expect: CODE" line.
run: build
	@if [ -z "$(EXAMPLES)" ]; then echo "no examples in examples/"; exit 1; fi; \
	failed=0; \
	for f in $(EXAMPLES); do \
	  case "$$f" in \
	  *_bad_*) \
	    want=$$(sed -n 's/^;; expect: //p' "$$f" | head -1); \
	    if ! $(CAPS) check "$$f" >/dev/null 2>/tmp/caps-run.$$$$ && [ -n "$$want" ] && grep -q " error $$want:" /tmp/caps-run.$$$$; then echo "ok    $$f (fails with $$want, as it should)"; \
	    else echo "FAIL  $$f: a negative example must fail with the code on its ';; expect:' line ($$want)"; cat /tmp/caps-run.$$$$; failed=$$((failed+1)); fi ;; \
	  *) \
	    if $(CAPS) check "$$f" 2>/tmp/caps-run.$$$$; then echo "ok    $$f"; \
	    else echo "FAIL  $$f"; cat /tmp/caps-run.$$$$; failed=$$((failed+1)); fi ;; \
	  esac; \
	  rm -f /tmp/caps-run.$$$$; \
	done; \
	if [ $$failed -ne 0 ]; then echo "$$failed example(s) failed"; exit 1; fi; \
	echo "all $(words $(EXAMPLES)) examples check"

# The whole suite. Every step runs even when an earlier one fails, and go
# test runs last; its -json stream goes through tools/testsummary, which
# prints what plain go test would and then a summary of every step and
# every skipped test with its reason, ending in "N passed, N failed, N
# skipped". make fails if any step did; under CI=true any skip fails too.
# Steps record themselves in $(STEPS) (NAME<TAB>ran|failed|skipped<TAB>WHY).
STEPS := build/test-steps.txt
test:
	@mkdir -p build; : > $(STEPS); failed=; \
	step() { local n=$$1; shift; \
	  if "$$@"; then grep -q "^$$n	" $(STEPS) || printf '%s\tran\t\n' "$$n" >> $(STEPS); \
	  else printf '%s\tfailed\t\n' "$$n" >> $(STEPS); failed="$$failed $$n"; fi; }; \
	gofmt_check() { local u; u=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*')); \
	  [ -z "$$u" ] || { echo "not gofmt-formatted (run gofmt -w):"; echo "$$u"; return 1; }; }; \
	echo "$(GO) vet ./..."; step "go vet" $(GO) vet ./...; \
	echo "gofmt -l"; step gofmt gofmt_check; \
	step grammar $(MAKE) --no-print-directory grammar-check; \
	step vscode $(MAKE) --no-print-directory vscode-test; \
	if [ -n "$$failed" ]; then echo "make test: failed so far:$$failed"; fi; \
	echo "$(GO) test -race ./... (the summary follows)"; \
	$(GO) build -o build/testsummary ./tools/testsummary || failed="$$failed testsummary"; \
	$(GO) test -race -json ./... 2>&1 | build/testsummary -steps $(STEPS) || failed="$$failed go-test"; \
	[ -z "$$failed" ]

vet:
	$(GO) vet ./...

test-go:
	$(GO) test -race ./...

grammar-check:
	@if [ -z "$(TS)" ]; then \
	  if [ -n "$(IS_CI)" ]; then \
	    echo "error: tree-sitter CLI not found (TREE_SITTER=$(TREE_SITTER)); CI needs it for the grammar checks" >&2; exit 1; \
	  fi; \
	  echo "skipping grammar checks: tree-sitter CLI not found (TREE_SITTER=$(TREE_SITTER)); see README.md"; \
	  mkdir -p build; printf 'grammar\tskipped\ttree-sitter CLI not found (TREE_SITTER=$(TREE_SITTER))\n' >> $(STEPS); \
	  exit 0; \
	fi; \
	set -e; cd tree-sitter-capsulang; \
	echo "TREE_SITTER=$(TS) script/generate --check"; \
	TREE_SITTER="$(TS)" script/generate --check; \
	echo "queries: highlights.scm and locals.scm match script/gen-highlights.py"; \
	python3 script/gen-highlights.py | diff -u queries/highlights.scm - ; \
	python3 script/gen-highlights.py --locals | diff -u queries/locals.scm - ; \
	echo "tree-sitter test"; \
	"$(TS)" test

# The VS Code extension: strict TypeScript, the TextMate grammar fixtures,
# and its request/command wiring against a caps lsp built from this tree.
VSCODE := editors/vscode
vscode-test:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  if [ -n "$(IS_CI)" ]; then \
	    echo "error: node and npm not found; CI needs them for the VS Code extension tests" >&2; exit 1; \
	  fi; \
	  echo "skipping the VS Code extension tests: node and npm not found"; \
	  mkdir -p build; printf 'vscode\tskipped\tnode and npm not found\n' >> $(STEPS); \
	  exit 0; \
	fi; \
	set -e; \
	$(MAKE) --no-print-directory build; \
	if [ ! -d $(VSCODE)/node_modules ]; then echo "cd $(VSCODE) && npm ci (about 400 packages from the npm registry; a minute on a first run)"; (cd $(VSCODE) && npm ci --no-audit --no-fund); fi; \
	echo "cd $(VSCODE) && npm test"; \
	(cd $(VSCODE) && CAPS="$(CURDIR)/$(CAPS)" npm test) 2>&1 | tee build/vscode-test.log; \
	tests=$$(sed -n 's/^# tests //p' build/vscode-test.log | tail -1); \
	skipped=$$(sed -n 's/^# skipped //p' build/vscode-test.log | tail -1); \
	if [ "$${skipped:-0}" != 0 ]; then \
	  printf 'vscode\tskipped\t%s of %s node tests skipped (build/vscode-test.log)\n' "$$skipped" "$$tests" >> $(STEPS); \
	else printf 'vscode\tran\t%s node tests passed\n' "$$tests" >> $(STEPS); fi; \
	echo "make vscode (the .vsix that the real-host test installs)"; \
	$(MAKE) --no-print-directory vscode

# Packages the extension with @vscode/vsce (the version is package.json's):
# esbuild bundles it into dist/extension.js (npm run bundle, run by vsce's
# vscode:prepublish), so the .vsix holds that one script and no
# node_modules (--no-dependencies; .vscodeignore lists what goes in).
vscode:
	@set -e; mkdir -p build; \
	version=$$(node -p "require('./$(VSCODE)/package.json').version"); \
	cd $(VSCODE); \
	if [ ! -d node_modules ]; then echo "cd $(VSCODE) && npm ci (about 400 packages from the npm registry; a minute on a first run)"; npm ci --no-audit --no-fund; fi; \
	echo "vsce package (tsc, esbuild bundle, then the .vsix)"; \
	npx vsce package --skip-license --no-dependencies --out "$(CURDIR)/build/capsulang-$$version.vsix" 2>&1 | tee "$(CURDIR)/build/vsce.log"; \
	if grep -q 'WARNING' "$(CURDIR)/build/vsce.log"; then echo "error: vsce printed a packaging warning (build/vsce.log); fix the package" >&2; exit 1; fi; \
	echo "built build/capsulang-$$version.vsix"

# gopls, the peer bench/lspbench measures: GOPLS, else gopls on PATH, else
# $(go env GOPATH)/bin/gopls, installed there by `make bench` when missing.
GOPLS ?= $(shell command -v gopls 2>/dev/null)
GOPLS_VERSION ?= v0.21.1

bench: build
	@mkdir -p build
	$(GO) test -p 1 -run '^$$' -bench . -benchmem ./... | tee build/bench.txt
	@echo; echo "== scaling: $(CAPS) on 1-15 MB modules, time and peak memory per process (bench/scaling) =="
	@$(GO) run ./bench/scaling -caps $(CAPS) -runs 3 -o build/scaling.txt
	@echo; echo "== benchmark summary (build/bench.txt, build/scaling.txt; load on this machine skews figures: compare ratios) =="
	@$(GO) run ./bench/summary build/bench.txt build/scaling.txt
	@echo; echo "== machine runtime, side by side with XState v5 (bench/machinecmp, bench/xstate) =="
	@$(GO) run ./bench/machinecmp build/bench.txt
	@echo; echo "== language server (bench/lspbench, driving $(CAPS) over stdio; gopls as the peer) =="
	@gopls="$(GOPLS)"; if [ -z "$$gopls" ]; then gopls="$$($(GO) env GOPATH)/bin/gopls"; \
	  [ -x "$$gopls" ] || GOFLAGS=-mod=mod $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION) || echo "gopls could not be installed: the peer is not measured"; fi; \
	$(GO) run ./bench/lspbench -caps $(CAPS) -edits 200 -mem-edits 10000 -gopls "$$gopls"

grammar:
	@if [ -z "$(TS)" ]; then echo "error: tree-sitter CLI not found (TREE_SITTER=$(TREE_SITTER))" >&2; exit 1; fi
	cd tree-sitter-capsulang && TREE_SITTER="$(TS)" script/generate

# Each fuzz target runs for FUZZTIME; go test allows one target per run.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' "$$pkg" | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) "$$pkg"; \
	  done; \
	done

clean:
	rm -rf build
