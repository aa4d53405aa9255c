# A thin wrapper around CMake; see README.md.
#   make run   install missing packages, build everything, run the demo
#   make test  build everything and run the whole test suite
#   make screenshots  the two elfemu-view pictures the README shows, into docs/
#                     (every build where elfemu-view is built makes them too)
BUILD ?= build
DEMO := $(BUILD)/tests/guest/hello_asm64

.PHONY: run test build deps clean screenshots

run: deps build
	$(BUILD)/elfemu --explain-only $(DEMO)
	@echo "--- running it: elfemu $(DEMO)"
	@status=0; $(BUILD)/elfemu $(DEMO) || status=$$?; echo "--- exit status $$status"

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

# The build makes them (CMakeLists.txt, target screenshots) wherever
# elfemu-view is built; this builds just that (and what it needs).
screenshots: build
	cmake --build $(BUILD) --target screenshots

deps:
	tools/install-deps

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j2

clean:
	rm -rf $(BUILD)
