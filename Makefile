# virgo-tui — make targets. `make test` is what CI runs (.ci/run).
GO      ?= go
PREFIX  ?= $(HOME)/.local
BIN     := bin/virgo-tui
PKGS    := ./...
# Packages that start goroutines; `make race` runs them under the race detector.
RACE_PKGS := ./internal/store/... ./internal/confirm/... ./internal/hub/... ./internal/ui/...

.PHONY: run test race bench lint build install screenshots clean

run: ## open the console on a demo installation
	$(GO) run ./cmd/virgo-tui demo

test: ## every test, including the fuzz seed corpora and the tmux end-to-end flow
	$(GO) test -count=1 $(PKGS)

race:
	$(GO) test -count=1 -race $(RACE_PKGS)

bench: ## the benchmarks behind BENCHMARKS.md
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet $(PKGS)

build:
	$(GO) build -o $(BIN) ./cmd/virgo-tui

install: build ## installs virgo-tui and its second name, virgo
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/virgo-tui
	ln -sf virgo-tui $(PREFIX)/bin/virgo

clean:
	rm -rf bin

screenshots: ## regenerate docs/img/*.png from the real console in tmux
	scripts/screenshots.sh
