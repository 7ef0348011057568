# virgo-tui — make targets. `make test` is what CI runs (.ci/run).
GO      ?= go
PREFIX  ?= $(HOME)/.local
BIN     := bin/virgo-tui
PKGS    := ./...
# The packages that start goroutines (grep 'go func' and 'wg.Go'), and those
# whose lists run a share per processor (internal/shares); `make race` runs
# their tests under the race detector, and CI runs `make race`.
RACE_PKGS := ./cmd/... ./internal/termtext ./internal/demo ./internal/hub ./internal/hubapi ./internal/hubclient ./internal/hubconsole \
	./internal/mcpserver ./internal/sshconsole ./internal/shares ./internal/registry/... ./internal/store/... ./internal/ui/... \
	./internal/usecase/...

# Fuzz targets that `make test` also runs for a bounded number of inputs
# beyond their seed corpora (go test runs the corpora alone): package:target.
FUZZ      := ./internal/registry:FuzzParseAddress ./internal/registry:FuzzRecord ./internal/stamp:FuzzRead ./internal/store/boltstore:FuzzOpen ./internal/store/boltstore:FuzzRecord ./internal/store/boltstore:FuzzExpandValue ./internal/confirm:FuzzParseTarget ./internal/confirm:FuzzMaterialMatchesPlainGlobs ./internal/termtext:FuzzWriter ./internal/hubapi:FuzzDecode ./internal/strictjson:FuzzDecode
# A count, not a duration: Go 1.26's fuzz coordinator can fail a duration
# run with a bare "context deadline exceeded" and no crashing input when the
# machine is busy at the deadline (golang/go#75804, fixed in Go 1.27); a
# count has no deadline to race. FUZZTIME=1m still works for a long run.
FUZZTIME  ?= 3000x
# Flips `make bitflip` tries: all, or a sample size.
BITFLIPS  ?= all

.PHONY: run test unit fuzz bitflip race bench benchmarks test-etcd bench-etcd e2e-claude lint build install screenshots clean

run: ## open the console on a demo installation
	$(GO) run ./cmd/virgo-tui demo

test: unit fuzz ## every test, the fuzz targets for $(FUZZTIME) each, and the tmux end-to-end flow

# The e2e package runs its tmux stories one after another (about 8 minutes
# beside a machine at load 30, where go test's 10-minute default came near):
# the timeout is a guard against a hang, each test has its own deadlines.
unit:
	$(GO) test -count=1 -timeout 30m $(PKGS)

fuzz:
	@for f in $(FUZZ); do \
		echo "fuzz $${f#*:}: $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${f#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 200x "$${f%%:*}" || exit 1; \
	done

bitflip: ## every single-bit flip of the store's pages in use (about an hour; CI tries a sample; BITFLIPS=20000 for a larger one)
	VIRGO_BITFLIPS=$(BITFLIPS) $(GO) test -count=1 -run '^TestBitFlips$$' -v -timeout 3h ./internal/store/boltstore

race: ## the tests of the packages with goroutines under the race detector (CI runs it)
	$(GO) test -count=1 -race $(RACE_PKGS)

# The resident-session proof with the real Claude Code: 60-120 s, so not in
# make test (the test skips without VIRGO_E2E_CLAUDE=1). The test itself
# runs npm ci in e2e/claude whenever the installed tree is not the
# lockfile's, as e2e/mcpclient's test does; the model is a scripted endpoint
# on 127.0.0.1 (no network, no model).
e2e-claude: ## the real Claude Code (pinned in e2e/claude) as a persona's session in tmux, against a scripted model endpoint (1-2 minutes)
	VIRGO_E2E_CLAUDE=1 $(GO) test -count=1 -v -run '^TestClaudeCode' -timeout 10m ./e2e

bench: ## every benchmark, etcd's included
	$(GO) test -tags etcd -run '^$$' -bench . -benchmem $(PKGS)

benchmarks: ## run the benchmarks of BENCHMARKS.md's figures with their baselines and write its table (scripts/benchmarks.sh)
	scripts/benchmarks.sh

# The etcd tests beyond CI (docs/etcd.md): the etcd store's packages on an
# embedded member, the hubs and commands on one, and the tests behind the
# etcdcluster tag on a real three-member cluster in separate processes
# (etcd built from go.mod's etcdmain, killed -9, paused, restarted).
test-etcd: ## the etcd store on a real three-member cluster: leader killed, quorum lost and back, a hub killed, a paused leader fenced (a few minutes)
	$(GO) test -count=1 ./internal/store/etcdstore/... ./internal/store/storecopy
	$(GO) test -count=1 -tags etcdcluster -timeout 30m -run 'Etcd|TwoConsolesOnTwoHubs' ./internal/store/etcdstore/etcdcluster ./internal/store/leader ./internal/hub ./cmd/virgo-tui ./e2e

bench-etcd: ## on a three-member cluster: decisions at 1, 8 and 64 callers (beside bbolt and an embedded member), and a confirmation from hub A to hub B's stream
	$(GO) test -tags etcd,etcdcluster -run '^$$' -bench 'ConcurrentDeciders' -benchmem -benchtime 300x -count 1 ./internal/confirm/queue
	$(GO) test -tags etcdcluster -run '^$$' -bench 'OnEtcdCluster' -benchmem -benchtime 300x -count 1 ./internal/hub

lint: ## gofmt, go vet (every build tag) and staticcheck (pinned in go.mod's tool line)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet $(PKGS)
	$(GO) vet -tags etcd ./internal/confirm/...
	$(GO) vet -tags etcdcluster ./...
	$(GO) tool staticcheck $(PKGS)

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
