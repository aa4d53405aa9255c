/* --explain: the loader's narrative and the initial stack, drawn like the
 * figure in "How programs get run: ELF binaries".  Built only on the public
 * API (the load record, guest memory reads and the map list), so what it
 * prints is what the guest will really find. */
#include <elf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "elfemu.h"

static const char *type_name(int t)
{
    return t == ET_EXEC ? "ET_EXEC (fixed address)" : "ET_DYN (position-independent)";
}

static void prot_str(int prot, char out[4])
{
    out[0] = (prot & PROT_READ) ? 'r' : '-';
    out[1] = (prot & PROT_WRITE) ? 'w' : '-';
    out[2] = (prot & PROT_EXEC) ? 'x' : '-';
    out[3] = 0;
}

static void explain_image(FILE *o, const elfemu_image *img, const char *what)
{
    fprintf(o, "  %s %s\n", what, img->path);
    fprintf(o, "    ELF%d, little-endian, %s, %s, entry %#" PRIx64 "\n", img->bits,
            img->machine == EM_X86_64 ? "EM_X86_64" : "EM_386", type_name(img->type),
            img->entry - img->load_bias);
    fprintf(o, "    %u program headers of %u bytes, found in memory at %#" PRIx64 " (AT_PHDR)\n",
            img->phnum, img->phentsize, img->phdr_addr);
    if (img->type == ET_DYN)
        fprintf(o, "    load bias %#" PRIx64 ": every p_vaddr is moved by it\n", img->load_bias);
    for (unsigned i = 0; i < img->nsegments; i++) {
        const elfemu_segment *s = &img->segments[i];
        char p[4];
        prot_str(s->prot, p);
        fprintf(o, "    PT_LOAD %s  file [%#" PRIx64 ", %#" PRIx64 ") -> guest [%#" PRIx64
                   ", %#" PRIx64 ")",
                p, s->file_off, s->file_off + s->file_size, s->vaddr, s->vaddr + s->mem_size);
        if (s->map_end > s->map_start)
            fprintf(o, ", pages [%#" PRIx64 ", %#" PRIx64 ") mapped from the file", s->map_start,
                    s->map_end);
        fprintf(o, "\n");
        if (s->bss_end > s->bss_start)
            fprintf(o, "            BSS [%#" PRIx64 ", %#" PRIx64 "): %" PRIu64
                       " bytes zero-filled (rest of the last file page%s)\n",
                    s->bss_start, s->bss_end, s->bss_end - s->bss_start,
                    s->bss_end > s->map_end ? ", then anonymous zero pages" : "");
    }
}

/* A printable, shortened copy of the guest string at addr. */
static void guest_string(elfemu *vm, uint64_t addr, char *out, size_t size)
{
    size_t n = 0;
    out[n++] = '\'';
    for (uint64_t a = addr;; a++) {
        unsigned char ch;
        if (elfemu_read(vm, a, &ch, 1) != 0 || n + 8 >= size)
            break;
        if (ch == 0) {
            n += (size_t)snprintf(out + n, size - n, "\\0");
            break;
        }
        if (n > 48) {
            n += (size_t)snprintf(out + n, size - n, "...");
            for (; elfemu_read(vm, a, &ch, 1) == 0 && ch; a++)
                ;
            n += (size_t)snprintf(out + n, size - n, "\\0");
            break;
        }
        out[n++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
    }
    if (n + 1 < size)
        out[n++] = '\'';
    out[n] = 0;
}

static uint64_t read_word(elfemu *vm, uint64_t addr, unsigned w)
{
    uint64_t v = 0;
    elfemu_read(vm, addr, &v, w);
    return v;
}

/* Which slot points at a string address (for the "<- argv[1]" marks). */
static void who_points(elfemu *vm, const elfemu_load_info *in, unsigned w, uint64_t addr,
                       char *out, size_t size)
{
    out[0] = 0;
    for (unsigned i = 0; i < in->argc; i++)
        if (read_word(vm, in->argv_addr + i * w, w) == addr)
            snprintf(out, size, "<- argv[%u]", i);
    for (unsigned i = 0; i < in->envc; i++)
        if (read_word(vm, in->envp_addr + i * w, w) == addr)
            snprintf(out, size, "<- envp[%u]", i);
    if (addr == in->execfn_addr)
        snprintf(out, size, "<- AT_EXECFN");
}

static void aux_target(const elfemu_load_info *in, uint64_t type, uint64_t val, char *out,
                       size_t size)
{
    out[0] = 0;
    switch (type) {
    case AT_SYSINFO_EHDR: snprintf(out, size, "-> the vDSO's ELF header"); break;
    case AT_SYSINFO: snprintf(out, size, "-> __kernel_vsyscall in the vDSO"); break;
    case AT_PHDR: snprintf(out, size, "-> program headers of the program"); break;
    case AT_BASE:
        snprintf(out, size, in->has_interp ? "-> where the interpreter was loaded" : "(no interpreter)");
        break;
    case AT_ENTRY: snprintf(out, size, "-> the program's entry point"); break;
    case AT_RANDOM: snprintf(out, size, "-> the 16 random bytes"); break;
    case AT_EXECFN: snprintf(out, size, "-> the execfn string"); break;
    case AT_PLATFORM: snprintf(out, size, "-> the platform string"); break;
    }
    (void)val;
}

static void draw_stack(FILE *o, elfemu *vm, const elfemu_load_info *in)
{
    unsigned w = in->bits == 64 ? 8 : 4;
    int aw = in->bits == 64 ? 14 : 10; /* address width */
    char s[96], mark[48];
    fprintf(o, "\nThe initial stack (%u-byte slots), from the top of [stack] down:\n", w);
    fprintf(o, "------------------------------------------------------------ %#0*" PRIx64 "\n",
            aw, in->stack_top);
    fprintf(o, " %#0*" PRIx64 ": 0x%016" PRIx64 "   end marker (a NULL pointer)\n", aw,
            in->stack_top - 8, read_word(vm, in->stack_top - 8, 8));
    guest_string(vm, in->execfn_addr, s, sizeof(s));
    fprintf(o, " %#0*" PRIx64 ": %-50s <- AT_EXECFN\n", aw, in->execfn_addr, s);
    /* The argument and environment strings, highest first. */
    static uint64_t addrs[1][4096];
    unsigned n = 0;
    for (unsigned i = 0; i < in->argc + in->envc && n < 4096; i++) {
        uint64_t slot = i < in->argc ? in->argv_addr + i * w : in->envp_addr + (i - in->argc) * w;
        addrs[0][n++] = read_word(vm, slot, w);
    }
    for (unsigned k = n; k-- > 0;) {
        guest_string(vm, addrs[0][k], s, sizeof(s));
        who_points(vm, in, w, addrs[0][k], mark, sizeof(mark));
        fprintf(o, " %#0*" PRIx64 ": %-50s %s\n", aw, addrs[0][k], s, mark);
    }
    uint64_t above_platform = in->platform_addr + strlen(in->bits == 64 ? "x86_64" : "i686") + 1;
    if (in->strings_low > above_platform)
        fprintf(o, " %#0*" PRIx64 ": %" PRIu64 " bytes of gap: arch_align_stack() to 16 bytes%s\n",
                aw, above_platform, in->strings_low - above_platform,
                " (plus a random gap with --aslr)");
    fprintf(o, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n");
    guest_string(vm, in->platform_addr, s, sizeof(s));
    fprintf(o, " %#0*" PRIx64 ": %-50s <- AT_PLATFORM\n", aw, in->platform_addr, s);
    uint8_t rnd[16];
    elfemu_read(vm, in->random_addr, rnd, 16);
    fprintf(o, " %#0*" PRIx64 ": random data: ", aw, in->random_addr);
    for (int i = 0; i < 16; i++)
        fprintf(o, "%02x", rnd[i]);
    fprintf(o, "%*s <- AT_RANDOM\n", 4, "");
    uint64_t auxv_end = in->auxv_addr + in->nauxv * 2 * w;
    if (in->random_addr > auxv_end)
        fprintf(o, " %#0*" PRIx64 ": %" PRIu64 " bytes of zero padding to align the stack\n", aw,
                auxv_end, in->random_addr - auxv_end);
    fprintf(o, ". . . . . . . . . . . . . . . . . . . . . . . . . . . . . .\n");
    for (unsigned i = in->nauxv; i-- > 0;) {
        uint64_t a = in->auxv_addr + i * 2 * w;
        uint64_t type = read_word(vm, a, w), val = read_word(vm, a + w, w);
        const char *name = elfemu_auxv_name(type);
        char text[64];
        /* Counts and ids in decimal as in the seed's figure, addresses and bit masks in hex. */
        bool decimal = type == AT_PHENT || type == AT_PHNUM || type == AT_PAGESZ ||
                       type == AT_CLKTCK || type == AT_UID || type == AT_EUID || type == AT_GID ||
                       type == AT_EGID || type == AT_SECURE || type == AT_FLAGS || type == 51;
        snprintf(text, sizeof(text), decimal ? "%s(%" PRIu64 ")=%" PRIu64 : "%s(%" PRIu64 ")=%#" PRIx64,
                 name ? name : "AT_?", type, val);
        aux_target(in, type, val, mark, sizeof(mark));
        fprintf(o, " %#0*" PRIx64 ": %-50s %s\n", aw, a, text, mark);
    }
    fprintf(o, ". . . . . . . . . . . . . . . . . . . . . . . . . . . . . .\n");
    for (unsigned i = in->envc + 1; i-- > 0;) {
        uint64_t a = in->envp_addr + i * w, v = read_word(vm, a, w);
        char text[64];
        if (v) {
            snprintf(text, sizeof(text), "envp[%u]=%#" PRIx64, i, v);
            guest_string(vm, v, s, sizeof(s));
            fprintf(o, " %#0*" PRIx64 ": %-50s -> %s\n", aw, a, text, s);
        } else {
            fprintf(o, " %#0*" PRIx64 ": envp[%u]=(nil)\n", aw, a, i);
        }
    }
    for (unsigned i = in->argc + 1; i-- > 0;) {
        uint64_t a = in->argv_addr + i * w, v = read_word(vm, a, w);
        char text[64];
        if (v) {
            snprintf(text, sizeof(text), "argv[%u]=%#" PRIx64, i, v);
            guest_string(vm, v, s, sizeof(s));
            fprintf(o, " %#0*" PRIx64 ": %-50s -> %s\n", aw, a, text, s);
        } else {
            fprintf(o, " %#0*" PRIx64 ": argv[%u]=(nil)\n", aw, a, i);
        }
    }
    fprintf(o, " %#0*" PRIx64 ": argc=%" PRIu64 "%*s <- stack pointer at entry\n", aw, in->sp,
            read_word(vm, in->sp, w), 40, "");
}

void elfemu_explain(elfemu *vm, void *out)
{
    FILE *o = out;
    const elfemu_load_info *in = elfemu_get_load_info(vm);
    if (!in)
        return;
    fprintf(o, "What the loader did (the steps of the kernel's load_elf_binary()):\n\n");
    unsigned step = 1;
    for (unsigned i = 0; i < in->nscripts; i++)
        fprintf(o, "%u. %s starts with #!: binfmt_script runs its interpreter instead, with the "
                   "script's path as an argument\n", step++, in->scripts[i]);
    fprintf(o, "%u. Read the ELF header and the whole program header table, check them, and map "
               "each PT_LOAD:\n", step++);
    explain_image(o, &in->program, "program");
    fprintf(o, "%u. PT_GNU_STACK: the stack is %s\n", step++,
            in->exec_stack ? "executable" : "not executable");
    fprintf(o, "%u. brk (the heap) starts at %#" PRIx64 ", the page after the highest segment\n",
            step++, in->brk_start);
    if (in->has_interp) {
        fprintf(o, "%u. PT_INTERP asks for %s: load_elf_interp() maps it top-down in the mmap "
                   "area (below %#" PRIx64 ")\n", step++, in->interp_request, in->mmap_base);
        explain_image(o, &in->interp, "interpreter");
        fprintf(o, "    AT_BASE = %#" PRIx64 "\n", in->interp.load_bias);
    } else {
        fprintf(o, "%u. No PT_INTERP: a static program, nothing else to load\n", step++);
    }
    fprintf(o, "%u. vDSO mapped at [%#" PRIx64 ", %#" PRIx64 ") (AT_SYSINFO_EHDR)", step++,
            in->vdso_base, in->vdso_base + in->vdso_size);
    if (in->bits == 32)
        fprintf(o, "; __kernel_vsyscall at %#" PRIx64 " (AT_SYSINFO)", in->vdso_sysinfo);
    fprintf(o, "\n");
    fprintf(o, "%u. Stack mapped at [%#" PRIx64 ", %#" PRIx64 "); create_elf_tables() writes the "
               "strings, AT_RANDOM bytes, platform, auxv, envp, argv and argc\n", step++,
            in->stack_low, in->stack_top);
    fprintf(o, "%u. Execution starts at %#" PRIx64 " (%s) with the stack pointer at %#" PRIx64 "\n",
            step++, in->entry,
            in->has_interp ? "the interpreter's entry; it jumps to AT_ENTRY later"
                           : "the program's entry",
            in->sp);
    draw_stack(o, vm, in);

    elfemu_map maps[64];
    size_t n = elfemu_maps(vm, maps, 64);
    fprintf(o, "\nThe guest address space (like /proc/self/maps):\n");
    for (size_t i = 0; i < n && i < 64; i++) {
        char p[4];
        prot_str(maps[i].prot, p);
        fprintf(o, "  %0*" PRIx64 "-%0*" PRIx64 " %sp %08" PRIx64 " %s\n", in->bits == 64 ? 12 : 8,
                maps[i].start, in->bits == 64 ? 12 : 8, maps[i].end, p, maps[i].offset,
                maps[i].name);
    }
    fprintf(o, "\n");
}
