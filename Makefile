# The README's commands.  `make demo` and `make test` install missing Debian
# packages, build, and run.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
LUA_ENV = LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='$(BUILD)/?.so;;'

.PHONY: all setup build demo test bench install-check clean

all: build

setup:
	@tools/setup.sh

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMGPU_WERROR=ON -DMGPU_WCONVERSION=ON -DMGPU_BUILD_CTESTS=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(LUA_ENV) lua5.4 examples/demo.lua

test: build
	@tools/test.sh

bench: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMGPU_BUILD_BENCH=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)
	bench/run.sh $(BUILD)

# Installs the rock into a scratch tree with luarocks (offline) and loads it.
install-check: setup
	tools/install-check.sh

clean:
	rm -rf $(BUILD)
