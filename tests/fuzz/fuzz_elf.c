/* fuzz_elf: the loader as a libFuzzer target.
 *
 * Each input is written to a memfd and loaded through the public API as the
 * program "/proc/self/fd/N": #! lines, ELF header and program headers,
 * interpreter, mapping, vDSO, brk and the initial stack -- everything
 * elfemu_load() does, but the guest is never run.  Besides the sanitizers'
 * findings, a broken promise of the loader aborts:
 *   - a failed load must give status 126 or 127 and a non-empty message
 *     that prints as exactly one clean line (no control characters: it is
 *     what the CLI prints after "elfemu: ");
 *   - a successful load must report a 32- or 64-bit guest whose entry point
 *     and stack pointer lie inside the guest space (the kernel's BAD_ADDR()),
 *     and whose program and interpreter segments are all still there: not
 *     covered by the [stack] or [vdso] mapping, nor by each other.
 * FUZZ_ELF_RELAXED in the environment turns promises into no-ops, to fuzz
 * for crashes while known loader reports are still open: a comma-separated
 * list of "message", "entry", "overlap", or "1" for all three (then only the
 * status and the sanitizers' findings remain).
 * Built either with clang -fsanitize=fuzzer (target fuzz_elf) or with the
 * plain main() of fuzz_driver.c (target fuzz_elf_driver). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the last input did, for fuzz_driver.c's summary: 0 when it loaded,
 * else the exit status; the message of the last failure. */
int fuzz_elf_last_status;
char fuzz_elf_last_message[sizeof(((elfemu_error *)0)->message)];

static int memfd = -1;
static char memfd_path[64];
enum { RELAX_MESSAGE = 1, RELAX_ENTRY = 2, RELAX_OVERLAP = 4 };
static unsigned relaxed;
static elfemu_map maps[1024];

static void broken(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_elf: broken promise: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

static void setup(void)
{
    memfd = memfd_create("fuzz_elf", MFD_CLOEXEC);
    if (memfd < 0) {
        perror("fuzz_elf: memfd_create");
        exit(1);
    }
    snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
    const char *r = getenv("FUZZ_ELF_RELAXED");
    if (r && (strcmp(r, "1") == 0 || strcmp(r, "all") == 0))
        relaxed = RELAX_MESSAGE | RELAX_ENTRY | RELAX_OVERLAP;
    else if (r) {
        relaxed |= strstr(r, "message") ? RELAX_MESSAGE : 0;
        relaxed |= strstr(r, "entry") ? RELAX_ENTRY : 0;
        relaxed |= strstr(r, "overlap") ? RELAX_OVERLAP : 0;
    }
}

/* The guest pages a segment occupies: its file pages and its BSS. */
static void seg_range(const elfemu_segment *s, uint64_t *lo, uint64_t *hi)
{
    *lo = s->map_start;
    *hi = s->bss_end > s->map_end ? s->bss_end : s->map_end;
}

/* No segment of img may lie under the [stack] or [vdso] mapping. */
static void check_image(const elfemu_image *img, const char *what, size_t nmaps)
{
    for (unsigned i = 0; i < img->nsegments && i < 16; i++) {
        uint64_t lo, hi;
        seg_range(&img->segments[i], &lo, &hi);
        for (size_t m = 0; m < nmaps; m++) {
            if (strcmp(maps[m].name, "[stack]") != 0 && strcmp(maps[m].name, "[vdso]") != 0)
                continue;
            if (lo < maps[m].end && maps[m].start < hi) {
                char d[400];
                snprintf(d, sizeof(d), "%s segment [%#" PRIx64 ", %#" PRIx64 ") under %s", what,
                         lo, hi, maps[m].name);
                broken("a loaded segment was replaced", d);
            }
        }
    }
}

static void put_input(const uint8_t *data, size_t size)
{
    if (ftruncate(memfd, 0) != 0) {
        perror("fuzz_elf: ftruncate");
        exit(1);
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(memfd, data + done, size - done, (off_t)done);
        if (n <= 0) {
            perror("fuzz_elf: pwrite");
            exit(1);
        }
        done += (size_t)n;
    }
}

/* No segment of the interpreter may lie over one of the program. */
static void check_apart(const elfemu_image *prog, const elfemu_image *interp)
{
    for (unsigned i = 0; i < prog->nsegments && i < 16; i++)
        for (unsigned j = 0; j < interp->nsegments && j < 16; j++) {
            uint64_t alo, ahi, blo, bhi;
            seg_range(&prog->segments[i], &alo, &ahi);
            seg_range(&interp->segments[j], &blo, &bhi);
            if (alo < bhi && blo < ahi) {
                char d[160];
                snprintf(d, sizeof(d), "program [%#" PRIx64 ", %#" PRIx64 "), interpreter [%#"
                         PRIx64 ", %#" PRIx64 ")", alo, ahi, blo, bhi);
                broken("the interpreter was mapped over the program", d);
            }
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0)
        setup();
    put_input(data, size);

    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.have_seed = true;
    cfg.seed = 1;
    cfg.log_unimplemented = false;
    elfemu *vm = elfemu_create(&cfg);
    if (!vm) {
        perror("fuzz_elf: elfemu_create");
        exit(1);
    }
    char *const argv[] = { memfd_path, "arg1", NULL };
    char *const envp[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
    elfemu_error err;
    memset(&err, 0, sizeof(err));
    if (elfemu_load(vm, memfd_path, argv, envp, &err) != 0) {
        size_t len = strnlen(err.message, sizeof(err.message));
        if (err.status != 126 && err.status != 127)
            broken("exit status not 126 or 127", err.message);
        if (len == 0 || len == sizeof(err.message))
            broken("empty or unterminated message", NULL);
        for (size_t i = 0; i < len && !(relaxed & RELAX_MESSAGE); i++)
            if ((unsigned char)err.message[i] < 0x20 || err.message[i] == 0x7f)
                broken("control character in the message (not one clean line)", err.message);
        fuzz_elf_last_status = err.status;
        memcpy(fuzz_elf_last_message, err.message, len + 1);
    } else {
        const elfemu_load_info *info = elfemu_get_load_info(vm);
        uint64_t top = info->bits == 64 ? 1ull << 46 : 1ull << 32;
        if (elfemu_bits(vm) != 32 && elfemu_bits(vm) != 64)
            broken("loaded guest of neither 32 nor 64 bits", NULL);
        if (info->sp == 0 || info->sp >= top)
            broken("stack pointer outside the guest space", NULL);
        if (!(relaxed & RELAX_ENTRY) && info->entry >= top) {
            char d[64];
            snprintf(d, sizeof(d), "%#" PRIx64, info->entry);
            broken("entry point outside the guest space", d);
        }
        if (!(relaxed & RELAX_OVERLAP)) {
            size_t n = elfemu_maps(vm, maps, sizeof(maps) / sizeof(maps[0]));
            check_image(&info->program, "program", n);
            if (info->has_interp) {
                check_image(&info->interp, "interpreter", n);
                check_apart(&info->program, &info->interp);
            }
        }
        fuzz_elf_last_status = 0;
        fuzz_elf_last_message[0] = '\0';
    }
    elfemu_destroy(vm);
    return 0;
}
