# A thin wrapper around CMake; see README.md.
#   make run   install missing packages, build everything, run the demo
#   make test  build everything and run the whole test suite
#   make screenshots  the two elfemu-view pictures the README shows, into docs/
BUILD ?= build
DEMO := $(BUILD)/tests/guest/hello_asm64

.PHONY: run test build deps clean screenshots

run: deps build
	$(BUILD)/elfemu --explain-only $(DEMO)
	@echo "--- running it: elfemu $(DEMO)"
	@status=0; $(BUILD)/elfemu $(DEMO) || status=$$?; echo "--- exit status $$status"

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

# A dynamic guest of the test build, with a fixed environment and seed so
# that the pictures only change when the code does.
VIEW_GUEST := $(BUILD)/tests/guest/showargs_64_dyn
VIEW := $(BUILD)/elfemu-view --env-clear -E LANG=C --seed 1
screenshots: build
	mkdir -p docs
	$(VIEW) --screenshot docs/elfemu-view-entry.png --at=entry $(VIEW_GUEST) one "two words"
	$(VIEW) --screenshot docs/elfemu-view-main.png --at=main $(VIEW_GUEST) one "two words"

deps:
	tools/install-deps

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j2

clean:
	rm -rf $(BUILD)
