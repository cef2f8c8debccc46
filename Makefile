# airlock — build, test and benchmark entry points.
#
#   make test    installs what the tests need if missing (Debian packages,
#                npm packages, a MinIO build; README.md says which), starts
#                MinIO on 127.0.0.1, runs every test with -race, stops MinIO.
#                Each of its five stages prints a "==> [n/5]" line as it starts
#   make bench   runs the benchmarks and writes bench/latest.txt, then compares
#                chain start and the bridge round trip with BENCH_BASE
#                (bench/compare.txt; see BENCHMARKS.md)
#                and measures airlock against the peer of issue 22 (make
#                bench-peer)
#   make bench-peer  airlock against QuickJS as quickjs-emscripten ships it, on
#                Node: the ratios of issue 22 (internal/peerbench; BENCHMARKS.md,
#                "Against the peer")
#   make bench-intl  airlock's Intl against Node 20's on the workloads of
#                issue 23 item 3 (internal/intlbench; BENCHMARKS.md, "Intl
#                against Node"); make bench runs it too
#   make lint    go vet + staticcheck (installed at a pinned version)
#   make fuzz    runs every fuzz target for FUZZTIME each
#   make soak    drives the fleet through SOAK_OPS randomised operations on a
#                faulty store for each of SOAK_SEEDS, on memory and MinIO
#                (docs/durability.md, "Faults, measured")

GO          ?= go
CACHE_BIN   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/airlock/bin
STATICCHECK := $(CACHE_BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
BENCHSTAT   := $(CACHE_BIN)/benchstat
BENCHSTAT_VERSION := v0.0.0-20260908200009-22c9c6c9d4da
FUZZTIME    ?= 15s
BENCHCOUNT  ?= 6
SOAK_OPS    ?= 5000
SOAK_SEEDS  ?= 1,2,3
# BENCH_BASE is the revision make bench compares chain start and the bridge
# round trip with: the last one before issue 10 changed the guest.
BENCH_BASE  ?= 309923e
GUEST_WASM  := examples/chains/go-guest/chain.wasm

.PHONY: all build test test-go guest lint fuzz bench bench-peer bench-intl soak clean

all: build

build:
	$(GO) build ./...

# The compiled Go guest used by the module-engine tests and examples.
guest: $(GUEST_WASM)
$(GUEST_WASM): $(shell find guest-sdk/go examples/chains/go-guest -name '*.go' -o -name go.mod 2>/dev/null)
	cd examples/chains/go-guest && GOOS=wasip1 GOARCH=wasm $(GO) build -o chain.wasm .

# TEST_STAGES numbers the stage lines the scripts print: 1-2 scripts/deps.sh,
# 3-4 scripts/minio.sh, 5 test-go.
test: export TEST_STAGES := 5
test:
	scripts/deps.sh
	scripts/minio.sh run -- $(MAKE) --no-print-directory test-go

# test-go runs every test against whatever S3 endpoint the environment names
# (scripts/minio.sh run exports one); without one the S3 tests skip, except
# under CI=true where they fail. TEST_TIMEOUT bounds each package's test
# binary: well above the slowest packages (sandbox/internal/quickjs, and
# sandbox/internal/intl, whose audits run node over some 700,000 inputs)
# under -race on a cold, busy 2-core machine, so that only a hung test
# reaches it.
TEST_TIMEOUT ?= 30m
test-go: guest
	@echo "==> $(if $(TEST_STAGES),[5/$(TEST_STAGES)] )go vet, then go test over every package, then guest-sdk/go's tests"
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...
	cd guest-sdk/go && $(GO) vet ./... && $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

lint: $(STATICCHECK)
	$(GO) vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(CACHE_BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(BENCHSTAT):
	GOBIN=$(CACHE_BIN) $(GO) install golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION)

fuzz:
	scripts/fuzz.sh $(FUZZTIME)

bench: guest $(BENCHSTAT)
	scripts/mcp-deps.sh >/dev/null
	BENCHCOUNT=$(BENCHCOUNT) BENCHSTAT=$(BENCHSTAT) scripts/minio.sh run -- scripts/bench.sh
	BENCHCOUNT=$(BENCHCOUNT) BENCHSTAT=$(BENCHSTAT) scripts/bench-compare.sh $(BENCH_BASE)
	$(MAKE) --no-print-directory bench-peer
	$(MAKE) --no-print-directory bench-intl

# bench-peer writes its table to bench/peer.txt too.
bench-peer:
	scripts/peer-deps.sh >/dev/null
	$(GO) run ./internal/peerbench | tee bench/peer.txt

# bench-intl needs node (20) on the PATH; it writes its table to
# bench/intl.txt too.
bench-intl:
	$(GO) run ./internal/intlbench | tee bench/intl.txt

# soak is TestFleetUnderFaults (service/fleet_faults_test.go) at length:
# make test runs it with a small count and one seed. It prints its figures
# (operations, faults injected by kind, violations) per seed and backend.
soak:
	scripts/minio.sh run -- env AIRLOCK_SOAK_OPS=$(SOAK_OPS) AIRLOCK_SOAK_SEEDS=$(SOAK_SEEDS) \
		$(GO) test -count=1 -timeout 2h -run 'TestFleetUnderFaults' -v ./service/

clean:
	rm -f $(GUEST_WASM)
	rm -rf bench/raw
