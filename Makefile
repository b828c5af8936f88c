# Takhtabush: the two commands a newcomer needs are `make run` and `make test`.

SHELL := /bin/bash
MODULES := contracts ports domain adapters mcpcore apiserver bench
GO ?= go
# make run DB=… ADDR=… passes --db/--addr; left unset, serve reads
# TAKHTABUSH_DATABASE_URL / TAKHTABUSH_ADDR, then its defaults
# (sqlite:./data/takhtabush.db, 127.0.0.1:8080).
DB ?=
ADDR ?=

.PHONY: axe ts-sdk fsrs-harness anki-harness run build test generate widget check-widget check-generated lint tidy-check bench bench-big bench-import bench-quick loadtest loadtest-smoke loadtest-scale soak soak-smoke logcost pgbouncer-suite replica-test fuzz-import fuzz-package fuzz-oauth fuzz-hostile conformance conformance-oauth ci help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

run: ## start the service in development mode (DB=…, ADDR=… or the TAKHTABUSH_* environment; default the embedded SQLite file)
	ENVIRONMENT=development MCP_DEV_NO_AUTH=true $(GO) run ./apiserver/cmd/takhtabush serve $(if $(DB),--db '$(DB)') $(if $(ADDR),--addr '$(ADDR)')

build: ## build the takhtabush binary into ./bin/takhtabush
	$(GO) build -o bin/takhtabush ./apiserver/cmd/takhtabush

test: ## run every module's tests (Postgres suites with TAKHTABUSH_TEST_POSTGRES_URL, page tests with TAKHTABUSH_TEST_BROWSER)
	@if [ -z "$$TAKHTABUSH_TEST_POSTGRES_URL" ]; then \
	  echo "NOTE: TAKHTABUSH_TEST_POSTGRES_URL is not set: the Postgres suites are skipped (SQLite suites run)."; \
	else echo "Postgres suites run against $${TAKHTABUSH_TEST_POSTGRES_URL%%\?*}"; fi
	@if [ -z "$$TAKHTABUSH_TEST_BROWSER" ]; then \
	  echo "NOTE: TAKHTABUSH_TEST_BROWSER is not set: the browser page tests are skipped (set it to a chromium binary)."; \
	elif [ ! -f apiserver/testdata/axe/node_modules/axe-core/axe.min.js ]; then \
	  echo "NOTE: axe-core is not installed: the browser page tests are skipped (run make axe)."; fi
	@if [ ! -d domain/testdata/fsrs-harness/node_modules/ts-fsrs ]; then \
	  echo "NOTE: the FSRS harness is not installed: the forecast and optimiser checks against ts-fsrs are skipped (run make fsrs-harness)."; fi
	@if [ ! -d adapters/ankipkg/testdata/genanki-harness/node_modules/genanki-js ]; then \
	  echo "NOTE: the Anki package harness is not installed: the reader's check of freshly written genanki-js packages is skipped (run make anki-harness)."; fi
	$(GO) test -count=1 -timeout 30m work

axe: ## install axe-core (pinned by apiserver/testdata/axe/package-lock.json) for the browser tests' accessibility check
	npm ci --prefix apiserver/testdata/axe --no-audit --no-fund

ts-sdk: ## install the official MCP TypeScript SDK client (pinned by apiserver/testdata/ts-sdk/package-lock.json) for the tests that connect with it
	npm ci --prefix apiserver/testdata/ts-sdk --no-audit --no-fund

fsrs-harness: ## install the FSRS test harness (ts-fsrs and the reference optimiser, pinned by domain/testdata/fsrs-harness/package-lock.json) for the forecast and optimiser tests
	npm install --prefix domain/testdata/fsrs-harness --no-audit --no-fund

anki-harness: ## install the Anki package test harness (genanki-js, an independent .apkg writer, pinned by adapters/ankipkg/testdata/genanki-harness/package-lock.json) for the package reader's tests
	npm ci --prefix adapters/ankipkg/testdata/genanki-harness --no-audit --no-fund

generate: widget ## regenerate mocks, wire_gen.go, the MCP tool reference and the study widget
	$(GO) generate -skip 'go run -mod=mod' work

widget: ## build the MCP Apps study widget into mcpcore/surface/widget.html (Vite, pinned by its package-lock.json; Node 22 from npm)
	bash mcpcore/surface/widget/build.sh

check-widget: ## rebuild the study widget and fail when the committed mcpcore/surface/widget.html differs
	bash mcpcore/surface/widget/build.sh --check

check-generated: generate ## fail when generated files are stale or missing
	@git diff --exit-code || { echo "generated files are stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain)" || { git status --porcelain; echo "untracked or changed files after make generate"; exit 1; }

lint: tidy-check ## gofmt, go vet, tidy and the modernc libc pin
	@test -z "$$(gofmt -l $(MODULES))" || { gofmt -l $(MODULES); echo "gofmt: the files above need formatting"; exit 1; }
	$(GO) vet work
	@sv=$$($(GO) list -m -f '{{.Version}}' modernc.org/sqlite); \
	 want=$$($(GO) mod graph | awk -v n="modernc.org/sqlite@$$sv" '$$1==n && $$2 ~ /^modernc\.org\/libc@/ {sub(/.*@/,"",$$2); print $$2}'); \
	 got=$$($(GO) list -m -f '{{.Version}}' modernc.org/libc); \
	 [ -n "$$want" ] && [ "$$want" = "$$got" ] || { echo "modernc.org/libc is $$got, but sqlite $$sv pins $$want"; exit 1; }

tidy-check: ## go mod tidy -diff for every module
	@for m in $(MODULES); do (cd $$m && $(GO) mod tidy -diff) || { echo "go.mod of $$m is not tidy"; exit 1; }; done

bench: ## benchmarks: storage, domain, and the MCP engine against its peers (ratios matter, not absolute times)
	$(GO) run ./bench/cmd/toolbytes
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./adapters/... ./domain/... ./apiserver/internal/domaintest/
	$(GO) run ./bench/cmd/mcpbench
	$(GO) run ./bench/cmd/bigread

bench-big: ## the read tools on a 100,000-card account, SQLite and Postgres (TAKHTABUSH_TEST_POSTGRES_URL): CPU per call against the issue 12 §3 goals
	$(GO) run ./bench/cmd/bigread

bench-import: ## issue 13 §9: import an .apkg of 20,000 notes, 100,000 review-log rows and 200 MB of media on SQLite, reporting its seconds and peak heap
	$(GO) test -run '^$$' -bench 'BenchmarkImportPackage$$' -benchtime 1x -timeout 30m ./apiserver/internal/domaintest/

bench-import-preview: ## issue 26 §1: import_package's dry run of a big package into an account holding its notes (PREVIEW_NOTES=20000, PREVIEW_REVIEWS=5×notes, PREVIEW_MEDIA_MB=200), SQLite and Postgres: the planning's seconds, the tool call's and its preview job's
	TAKHTABUSH_BENCH_PREVIEW_NOTES=$(PREVIEW_NOTES) TAKHTABUSH_BENCH_PREVIEW_REVIEWS=$(PREVIEW_REVIEWS) TAKHTABUSH_BENCH_PREVIEW_MEDIA_MB=$(PREVIEW_MEDIA_MB) \
		$(GO) test -run '^$$' -bench 'BenchmarkImportPackagePreview$$' -benchtime 1x -timeout 60m ./apiserver/internal/domaintest/

bench-quick: ## a fast smoke run of the MCP comparison
	$(GO) run ./bench/cmd/mcpbench -quick

LOADTEST_FLAGS ?=
loadtest: ## 50 agents start sessions and review through /mcp for 60 s on SQLite, Postgres, 2 instances and pgbouncer; checks nothing was lost (Postgres ones need TAKHTABUSH_TEST_POSTGRES_URL)
	$(GO) run ./bench/cmd/loadtest -duration 60s $(LOADTEST_FLAGS)

loadtest-smoke: ## the load test for 15 s per configuration (what CI runs)
	$(GO) run ./bench/cmd/loadtest -duration 15s -cards 100 $(LOADTEST_FLAGS)

SOAKTIME ?= 1h
SOAKAGENTS ?= 40
soak: ## issue 29: SOAKAGENTS agents (40) for SOAKTIME (1h) on SQLite, then on Postgres, sampling RSS, goroutines, open files, the log, p99 and bytes per row every 10 s; fails when one grows without bound (not in CI)
	$(GO) run ./bench/cmd/loadtest -configs sqlite,pg -agents $(SOAKAGENTS) -duration $(SOAKTIME) -soak 10s $(LOADTEST_FLAGS)

logcost: ## issue 29 §1.4: the log bytes one call of add_cards, start_study_session and submit_review writes, 300 calls each on SQLite and Postgres (needs pg_walinspect)
	$(GO) run ./bench/cmd/loadtest -configs sqlite,pg -logcost 300 $(LOADTEST_FLAGS)

soak-smoke: ## the soak for 60 s on SQLite, sampled every 5 s (what CI runs)
	$(GO) run ./bench/cmd/loadtest -configs sqlite -agents 20 -duration 60s -cards 100 -soak 5s $(LOADTEST_FLAGS)

loadtest-scale: ## the same client load on 1, 2 and 4 instances on one Postgres, with CPU per call split between instances and Postgres
	$(GO) run ./bench/cmd/loadtest -configs pg,pg-x2,pg-x4 -duration 30s $(LOADTEST_FLAGS)

PGBOUNCER ?= /usr/sbin/pgbouncer
pgbouncer-suite: ## the Postgres store contract suite through pgbouncer in transaction pooling mode (PGBOUNCER=binary; needs TAKHTABUSH_TEST_POSTGRES_URL)
	@test -n "$$TAKHTABUSH_TEST_POSTGRES_URL" || { echo "pgbouncer-suite needs TAKHTABUSH_TEST_POSTGRES_URL"; exit 1; }
	TAKHTABUSH_TEST_PGBOUNCER=$(PGBOUNCER) $(GO) test -count=1 -timeout 20m -run 'ThroughPgbouncer' ./adapters/postgres/

PGBIN ?= $(shell pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
replica-test: ## read replicas against a real streaming replica: a private primary (initdb) and replica (pg_basebackup) on free ports (PGBIN=folder of initdb, pg_ctl, pg_basebackup)
	TAKHTABUSH_TEST_PGBIN=$(PGBIN) $(GO) test -count=1 -timeout 10m -run 'TestReadReplica' -v ./adapters/postgres/ ./apiserver/

fuzz-import: ## fuzz the text import, the Anki HTML conversion, the note template renderer and the .apkg reader (10 s each)
	bash scripts/fuzz.sh ./domain/cardtext FuzzParse 10s
	bash scripts/fuzz.sh ./domain/cardtext FuzzFromAnkiHTML 10s
	bash scripts/fuzz.sh ./domain/notes FuzzRender 10s
	bash scripts/fuzz.sh ./adapters/ankipkg FuzzReadPackage 10s

FUZZTIME ?= 10s
fuzz-package: ## fuzz the .apkg reader longer than CI does, from its corpus of hostile SQLite collections (FUZZTIME, e.g. make fuzz-package FUZZTIME=30m)
	bash scripts/fuzz.sh ./adapters/ankipkg FuzzReadPackage $(FUZZTIME)

fuzz-hostile: ## fuzz what hostile input reaches first: MCP codec and dispatch, argument validator (fast path vs full), JSON scanner, x-mcp-scopes, API-key and upload-token parsers, the text rule (FUZZTIME each, default 10s)
	bash scripts/fuzz.sh ./mcpcore FuzzHandle $(FUZZTIME)
	bash scripts/fuzz.sh ./mcpcore FuzzFastPath $(FUZZTIME)
	bash scripts/fuzz.sh ./mcpcore FuzzValidJSON $(FUZZTIME)
	bash scripts/fuzz.sh ./mcpcore FuzzNarrowScopes $(FUZZTIME)
	bash scripts/fuzz.sh ./domain/identity FuzzParseKey $(FUZZTIME)
	bash scripts/fuzz.sh ./apiserver/internal/rest FuzzUploadAuthorization $(FUZZTIME)
	bash scripts/fuzz.sh ./domain/textrule FuzzClean $(FUZZTIME)

fuzz-oauth: ## fuzz the OAuth client registration and metadata-document validators (10 s each)
	bash scripts/fuzz.sh ./domain/identity FuzzValidateRegistration 10s
	bash scripts/fuzz.sh ./domain/identity FuzzParseClientDocument 10s

conformance-oauth: ## the conformance suite's authorization-server scenarios against a real server
	bash apiserver/scripts/oauth-conformance.sh

conformance: ## the official MCP conformance suite, both requirement sets (installs Node 22 from npm)
	bash mcpcore/scripts/conformance.sh

ci: lint test check-generated conformance ## what .ci/run runs after setting up Postgres
