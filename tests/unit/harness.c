/* The instruction test harness (see harness.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/cpu.h"
#include "cpu/flags.h"
#include "cpu/fpstate.h"
#include "tests/unit/harness.h"

void harness_native_call(struct hstate *s, void *code);
extern char harness_native_return[];

#define EMU_CODE 0x400000ull

static uint8_t *native_data, *native_code;

static void native_setup(void)
{
    if (native_data)
        return;
    native_data = mmap((void *)HARNESS_DATA, HARNESS_DATA_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    native_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (native_data != (void *)HARNESS_DATA || native_code == MAP_FAILED) {
        perror("harness: mmap");
        abort();
    }
}

void harness_init(struct hstate *s)
{
    memset(s, 0, sizeof(*s));
    s->r[4] = HARNESS_DATA + HARNESS_DATA_SIZE - 256;
    s->rflags = 0x202;
    uint16_t fcw = 0x37f;
    uint32_t mxcsr = 0x1f80, mask = 0xffff;
    memcpy(s->fx, &fcw, 2);
    memcpy(s->fx + 24, &mxcsr, 4);
    memcpy(s->fx + 28, &mask, 4);
}

int harness_native(const uint8_t *code, size_t len, struct hstate *s)
{
    native_setup();
    if (len > 4096 - 16)
        abort();
    memcpy(native_code, code, len);
    /* jmp *0(%rip) followed by the absolute address of the epilogue */
    static const uint8_t jmp[] = { 0xff, 0x25, 0, 0, 0, 0 };
    memcpy(native_code + len, jmp, sizeof(jmp));
    uint64_t back = (uint64_t)(uintptr_t)harness_native_return;
    memcpy(native_code + len + sizeof(jmp), &back, 8);
    memcpy(native_data, s->data, HARNESS_DATA_SIZE);
    harness_native_call(s, native_code);
    memcpy(s->data, native_data, HARNESS_DATA_SIZE);
    return 0;
}

int harness_emu(const uint8_t *code, size_t len, struct hstate *s)
{
    static struct mm_space mm;
    static struct cpu c;
    static bool ready;
    if (!ready) {
        if (mm_space_init(&mm, 64) != 0 ||
            mm_map_anon(&mm, EMU_CODE, 4096, PROT_READ | PROT_WRITE, 0, "code") != 0 ||
            mm_map_anon(&mm, HARNESS_DATA, HARNESS_DATA_SIZE, PROT_READ | PROT_WRITE, 0, "data") != 0)
            abort();
        ready = true;
        cpu_init(&c, &mm, 64);
        cpu_faults_observed(&mm); /* the cases read the registers after a fatal fault */
    } else {
        /* One CPU for every case (creating a block cache is not free):
         * forget the previous case's code instead. */
        cpu_invalidate(&c, EMU_CODE, EMU_CODE + 4096);
        mm_protect(&mm, EMU_CODE, 4096, PROT_READ | PROT_WRITE);
    }
    memset(mm.base + EMU_CODE, 0, 4096);
    memcpy(mm.base + EMU_CODE, code, len);
    mm.base[EMU_CODE + len] = 0xcc; /* int3 ends the run */
    mm_protect(&mm, EMU_CODE, 4096, PROT_READ | PROT_EXEC);
    memcpy(mm.base + HARNESS_DATA, s->data, HARNESS_DATA_SIZE);
    c.log_unimplemented = true;
    c.seg_base[SEG_FS] = c.seg_base[SEG_GS] = 0;
    memcpy(c.r, s->r, sizeof(c.r));
    c.rip = EMU_CODE;
    c.rflags = s->rflags | RFLAGS_FIXED;
    c.lf_op = LF_NONE;
    cpu_fxrstor_image(&c, s->fx);
    cpu_run(&c);
    int sig = 0;
    if (!(c.stop == CPU_SIGNALED && c.stop_code == SIGTRAP && c.rip == EMU_CODE + len + 1))
        sig = c.stop == CPU_SIGNALED ? c.stop_code : -1;
    memcpy(s->r, c.r, sizeof(s->r));
    s->rflags = cpu_flags(&c);
    uint8_t fx[512];
    cpu_fxsave_image(&c, fx);
    /* Keep what the emulator does not model (FOP, FIP, FDP, MXCSR_MASK,
     * the reserved area) as it was, so the comparison ignores it. */
    memcpy(fx + 6, s->fx + 6, 18);
    memcpy(fx + 28, s->fx + 28, 4);
    memcpy(fx + 416, s->fx + 416, 96);
    memcpy(s->fx, fx, 512);
    memcpy(s->data, mm.base + HARNESS_DATA, HARNESS_DATA_SIZE);
    return sig;
}

static void dump(const char *who, const struct hstate *s)
{
    static const char *names[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                     "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
    fprintf(stderr, "  %s:", who);
    for (int i = 0; i < 16; i++)
        fprintf(stderr, "%s%s=%#llx", i % 4 ? " " : "\n    ", names[i], (unsigned long long)s->r[i]);
    fprintf(stderr, "\n    rflags=%#llx mxcsr=%#x fsw=%#x\n", (unsigned long long)s->rflags,
            *(const uint32_t *)(s->fx + 24), *(const uint16_t *)(s->fx + 2));
}

int harness_compare(const uint8_t *code, size_t len, struct hstate *s, uint64_t flag_mask,
                    const char *what)
{
    static struct hstate native, emu;
    memcpy(&native, s, sizeof(native));
    memcpy(&emu, s, sizeof(emu));
    harness_native(code, len, &native);
    int sig = harness_emu(code, len, &emu);
    /* The emulator does not model FOP/FIP/FDP: take them from the native side. */
    memcpy(emu.fx + 6, native.fx + 6, 18);
    memcpy(emu.fx + 28, native.fx + 28, 4);
    memcpy(emu.fx + 416, native.fx + 416, 96);
    uint64_t keep = ~(uint64_t)FL_ARITH | flag_mask;
    int bad = sig != 0 || memcmp(native.r, emu.r, sizeof(native.r)) != 0 ||
              ((native.rflags ^ emu.rflags) & keep) != 0 ||
              memcmp(native.fx, emu.fx, 512) != 0 ||
              memcmp(native.data, emu.data, HARNESS_DATA_SIZE) != 0;
    if (bad) {
        fprintf(stderr, "harness: %s: native and emulated results differ%s\n", what,
                sig ? " (the emulator raised a signal)" : "");
        for (int i = 0; i < 16; i++)
            if (native.r[i] != emu.r[i])
                fprintf(stderr, "    r%d differs\n", i);
        dump("native", &native);
        dump("elfemu", &emu);
        if (memcmp(native.fx, emu.fx, 512) != 0)
            for (int i = 0; i < 512; i++)
                if (native.fx[i] != emu.fx[i]) {
                    fprintf(stderr, "    fxsave image first differs at byte %d: %02x vs %02x\n", i,
                            native.fx[i], emu.fx[i]);
                    break;
                }
        for (unsigned i = 0; i < HARNESS_DATA_SIZE; i++)
            if (native.data[i] != emu.data[i]) {
                fprintf(stderr, "    data first differs at %#llx: %02x vs %02x\n",
                        (unsigned long long)(HARNESS_DATA + i), native.data[i], emu.data[i]);
                break;
            }
    }
    memcpy(s, &native, sizeof(*s));
    return bad;
}

int harness_host_has(const char *flags)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[8192];
    int ok = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        ok = 1;
        char want[256];
        snprintf(want, sizeof(want), "%s", flags);
        for (char *w = strtok(want, " "); w; w = strtok(NULL, " ")) {
            char pat[64];
            snprintf(pat, sizeof(pat), " %s", w);
            char *p = strstr(line, pat);
            size_t n = strlen(pat);
            if (!p || (p[n] != ' ' && p[n] != '\n'))
                ok = 0;
        }
        break;
    }
    fclose(f);
    return ok;
}
