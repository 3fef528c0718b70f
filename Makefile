# Thin wrapper over CMake.  `make run` and `make test` are the whole set-up.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build run test test-asan bench bench-cudart bench-record-cost bench-scale check-db format clean

all: build

deps:
	@scripts/deps

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/bin/streamcapd

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) $(CMAKE_FLAGS) -DSC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

bench: build
	bench/run
	bench/cudart $(BUILD)

# The CUDA runtime stand-in's captured launches and ends (bench/RESULTS.md).
bench-cudart: build
	bench/cudart $(BUILD)

# streamcapd --check-db on the default database, or on DB=path (a
# PostgreSQL URI too); a daemon may be serving it meanwhile.  Exits non-zero
# when a problem is found (docs/operations.md, "Integrity").
check-db: build
	./$(BUILD)/bin/streamcapd --check-db $(if $(DB),--db '$(DB)')

# The store at 100,000 graphs and 10,000,000 log rows against 1,000 graphs
# (bench/RESULTS.md, "Scale"); about 10 minutes and 10 GB of temporary disk.
bench-scale: build
	BUILD=$(BUILD) bench/scale

# The daemon's instructions per captured launch, by callgrind (bench/RESULTS.md).
bench-record-cost: build
	bench/record_cost $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
