#!/bin/sh
# run_libfuzzer.sh [SECONDS] [LIBFUZZER OPTIONS...]
#
# Builds the libFuzzer target fuzz_elf (clang, -fsanitize=fuzzer plus ASan and
# UBSan on the library) in its own build directory, seeds it with the guest
# programs and the malformed-ELF corpus, and fuzzes for SECONDS (default 60).
#
# Environment:
#   FUZZ_BUILD_DIR   build directory (default: build-libfuzzer beside the sources)
#   FUZZ_SANITIZERS  -fsanitize list for the library: address,undefined
#                    (default) or undefined (faster, no ASan)
#   FUZZ_JOBS        parallel fuzzing processes (default 1; libFuzzer's -fork=N)
#   FUZZ_SEED        libFuzzer -seed (default 1, so a short run is repeatable)
#   FUZZ_ELF_RELAXED promises of the loader not to check (see fuzz_elf.c):
#                    message,entry,overlap or 1 for all (only crashes and
#                    sanitizer reports count then)
#   CC               the clang to use (default clang)
#
# Findings go to BUILD/fuzz-artifacts/ (crash-*, timeout-*, oom-*); replay one
# with: BUILD/tests/fuzz/fuzz_elf BUILD/fuzz-artifacts/crash-...
# The growing corpus is kept in BUILD/fuzz-corpus/ between runs.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${FUZZ_BUILD_DIR:-$src/build-libfuzzer}
secs=60
if [ $# -gt 0 ]; then
    case $1 in
    -*) ;;
    *) secs=$1; shift ;;
    esac
fi
cc=${CC:-clang}
case $cc in
*clang*) ;;
*) cc=clang ;;
esac
jobs=${FUZZ_JOBS:-1}
san=${FUZZ_SANITIZERS:-address,undefined}

cmake -S "$src" -B "$bdir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DELFEMU_LIBFUZZER=ON -DELFEMU_FUZZ_SANITIZERS="$san" >"$bdir.cmake.log" 2>&1 ||
    { cat "$bdir.cmake.log"; exit 1; }
rm -f "$bdir.cmake.log"
cmake --build "$bdir" -j"$(nproc 2>/dev/null || echo 2)" --target fuzz_elf gen_corpus guests

guests=$bdir/tests/guest
seeds=$bdir/fuzz-seeds
work=$bdir/fuzz-corpus
arts=$bdir/fuzz-artifacts
mal=$bdir/fuzz-malformed
mkdir -p "$seeds" "$work" "$arts"
"$bdir/tests/corpus/gen_corpus" "$mal" "$guests/hello_asm64" "$guests/hello_asm32" \
    "$guests/showargs_64_dyn" >/dev/null
# The cases of pending.tsv show known, reported loader weaknesses: leave them
# out so that the run looks for new ones (the FIFO would make the cases that
# name it hang in open()).
rm -f "$mal/fifo"
pending=$(cut -f1 "$mal/pending.tsv")
for f in "$guests"/* "$mal"/*; do
    if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi
    name=$(basename "$f")
    case $name in *.tsv) continue ;; esac
    if printf '%s\n' "$pending" | grep -qxF "$name"; then
        rm -f "$seeds/$name"
        continue
    fi
    cp "$f" "$seeds/$name"
done

# ASan: the guest space is a 64 TiB PROT_NONE reservation; it fits in ASan's
# high memory on x86_64, but keep the allocator from refusing big mappings
# and let a leak report fail the run like a crash.
ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1:abort_on_error=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

set -- -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$arts/" -print_final_stats=1 "$@"
if [ "$jobs" -gt 1 ]; then
    set -- -fork="$jobs" -ignore_crashes=0 "$@"
fi
echo "run_libfuzzer: $bdir/tests/fuzz/fuzz_elf $* $work $seeds"
cd "$arts"
exec "$bdir/tests/fuzz/fuzz_elf" "$@" "$work" "$seeds"
