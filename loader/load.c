/* execve() for a guest: the steps of load_elf_binary() in fs/binfmt_elf.c.
 *
 *   ldr_load()          load_elf_binary(): scripts, checks, then the steps below
 *   map_image()         the PT_LOAD loop with elf_load()/elf_map() and padzero()
 *   place_program()     ELF_ET_DYN_BASE (+ arch_mmap_rnd() under --aslr) for PIEs
 *   place_interp()      load_elf_interp(): top-down in the mmap area
 *   ldr_map_vdso()      arch_setup_additional_pages()
 *   ldr_build_stack()   setup_arg_pages() + create_elf_tables()
 *
 * Nothing is mapped until every file involved has been opened and validated,
 * so a rejected program never leaves a half-built guest behind. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/loader.h"

static int prot_of(uint32_t p_flags)
{
    return ((p_flags & PF_R) ? PROT_READ : 0) | ((p_flags & PF_W) ? PROT_WRITE : 0) |
           ((p_flags & PF_X) ? PROT_EXEC : 0);
}

/* elf_load(): map one PT_LOAD at bias + p_vaddr, then its BSS. */
static int map_segment(struct mm_space *mm, const struct ldr_file *f, const struct ldr_phdr *p,
                       uint64_t bias, elfemu_segment *seg, elfemu_error *err)
{
    uint64_t addr = bias + p->vaddr;
    int prot = prot_of(p->flags);
    uint64_t file_end = addr + p->filesz, mem_end = addr + p->memsz;
    *seg = (elfemu_segment){ .file_off = p->offset, .file_size = p->filesz, .vaddr = addr,
                             .mem_size = p->memsz, .map_start = mm_page_down(addr),
                             .map_end = mm_page_down(addr), .bss_start = file_end,
                             .bss_end = mem_end, .prot = prot };
    int e = 0;
    if (p->filesz > 0) {
        seg->map_end = mm_page_up(file_end);
        /* /proc/self/maps shows the file's absolute path (d_path), not the
         * possibly relative one it was opened by. */
        char name[PATH_MAX], link[64];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", f->fd);
        ssize_t n = readlink(link, name, sizeof(name) - 1);
        if (n > 0)
            name[n] = 0;
        e = mm_map_file(mm, seg->map_start, seg->map_end - seg->map_start, prot, 0, f->fd,
                        mm_page_down(p->offset), n > 0 && name[0] == '/' ? name : f->path);
        if (e)
            goto fail;
        /* padzero(): clear the rest of the last file page when a BSS follows;
         * like the kernel, only a writable segment gets it. */
        if (p->memsz > p->filesz && (prot & PROT_WRITE))
            memset(mm->base + file_end, 0, seg->map_end - file_end);
    }
    uint64_t anon_start = p->filesz > 0 ? seg->map_end : mm_page_down(addr);
    uint64_t anon_end = mm_page_up(mem_end);
    if (anon_end > anon_start) {
        e = mm_map_anon(mm, anon_start, anon_end - anon_start, prot, 0, "");
        if (e)
            goto fail;
    }
    return 0;
fail:
    return ldr_fail(err, LDR_ENOEXEC, f->path, "cannot map segment at %#" PRIx64 ": %s", addr,
                    strerror(-e));
}

/* Map every PT_LOAD of e at bias and describe the result in img. */
static int map_image(struct mm_space *mm, const struct ldr_file *f, const struct ldr_elf *e,
                     uint64_t bias, elfemu_image *img, elfemu_error *err)
{
    memset(img, 0, sizeof(*img));
    snprintf(img->path, sizeof(img->path), "%s", f->path);
    img->bits = e->bits;
    img->type = e->type;
    img->machine = e->machine;
    img->load_bias = bias;
    img->entry = e->entry + bias;
    img->phnum = e->phnum;
    img->phentsize = e->phentsize;
    img->start = e->lo + bias;
    img->end = e->hi + bias;
    for (unsigned i = 0; i < e->phnum; i++) {
        const struct ldr_phdr *p = &e->ph[i];
        if (p->type != PT_LOAD)
            continue;
        /* AT_PHDR: the program headers as found inside a loaded segment. */
        if (p->offset <= e->phoff && e->phoff < p->offset + p->filesz)
            img->phdr_addr = e->phoff - p->offset + p->vaddr + bias;
        if (p->memsz == 0)
            continue;
        elfemu_segment scratch, *seg = img->nsegments < 16 ? &img->segments[img->nsegments]
                                                           : &scratch;
        if (map_segment(mm, f, p, bias, seg, err) != 0)
            return -1;
        img->nsegments += img->nsegments < 16;
    }
    return 0;
}

/* The alignment a position-independent image asks for (maximum_alignment()),
 * ignored when it is absurd for the space. */
static uint64_t image_align(const struct ldr_elf *e, const struct mm_space *mm)
{
    return e->max_align <= mm->size / 64 ? e->max_align : MM_PAGE_SIZE;
}

static uint64_t place_program(const struct ldr_elf *e, const struct mm_space *mm,
                              const struct ldr_params *p)
{
    if (e->type != ET_DYN)
        return 0;
    uint64_t base = e->bits == 64 ? LDR_PIE_BASE_64 : LDR_PIE_BASE_32;
    if (p->aslr) /* arch_mmap_rnd(): 28 bits of pages on x86_64, 8 on ia32 */
        base += (ldr_rng_u64(p->rng) & (e->bits == 64 ? 0xfffffff : 0xff)) * MM_PAGE_SIZE;
    uint64_t align = image_align(e, mm);
    return ((base - e->lo) & ~(align - 1));
}

static int place_interp(const struct ldr_elf *e, const struct mm_space *mm, uint64_t *bias)
{
    if (e->type != ET_DYN) {
        *bias = 0;
        return 0;
    }
    uint64_t at = mm_find_free(mm, mm_page_up(e->hi) - e->lo, image_align(e, mm));
    if (!at)
        return -1;
    *bias = at - e->lo;
    return 0;
}

/* Where an image would go must be free: inside the space, above
 * LDR_MMAP_MIN, clear of the stack and of the other image ([other_lo,
 * other_hi), empty when other_hi == 0); its entry point inside the space.
 * Checked before anything is mapped. */
static int check_placement(const struct ldr_elf *e, uint64_t bias, const struct mm_space *mm,
                           const elfemu_load_info *info, uint64_t other_lo, uint64_t other_hi,
                           const char *path, const char *what, elfemu_error *err)
{
    uint64_t lo = e->lo + bias, hi = mm_page_up(e->hi + bias);
    int bits = mm->size == (1ull << 32) ? 32 : 46;
    if (hi > mm->size || hi < lo)
        return ldr_fail(err, LDR_ENOEXEC, path, "%ssegments [%#" PRIx64 ", %#" PRIx64 ") end beyond "
                        "the %d-bit guest address space", what, lo, e->hi + bias, bits);
    if (lo < LDR_MMAP_MIN)
        return ldr_fail(err, LDR_ENOEXEC, path, "%ssegment at %#" PRIx64 " is below the lowest "
                        "address a program may map (%#llx)", what, lo, LDR_MMAP_MIN);
    if (lo < info->stack_top && hi > info->stack_low)
        return ldr_fail(err, LDR_ENOEXEC, path, "%ssegments [%#" PRIx64 ", %#" PRIx64 ") overlap "
                        "the stack [%#" PRIx64 ", %#" PRIx64 ")", what, lo, hi, info->stack_low,
                        info->stack_top);
    if (other_hi && lo < other_hi && hi > other_lo)
        return ldr_fail(err, LDR_ENOEXEC, path, "%s[%#" PRIx64 ", %#" PRIx64 ") overlaps the "
                        "program [%#" PRIx64 ", %#" PRIx64 ")", what, lo, hi, other_lo, other_hi);
    if (e->entry + bias >= mm->size)
        return ldr_fail(err, LDR_ENOEXEC, path, "%sentry point %#" PRIx64 " outside the %d-bit "
                        "guest address space", what, e->entry + bias, bits);
    return 0;
}

/* Open and validate the interpreter named by PT_INTERP (load_elf_binary()'s
 * "interpreter" block): it must be ELF, of the program's class, and must not
 * itself ask for an interpreter. */
static int open_interp(const struct ldr_elf *prog, const char *prog_path, const char *sysroot,
                       uint64_t space_size, struct ldr_file *f, struct ldr_elf *ie,
                       elfemu_error *err)
{
    elfemu_error inner;
    if (ldr_open(f, prog->interp, sysroot, &inner) != 0) {
        ldr_fail(err, inner.status, prog_path, "interpreter %s", inner.message);
        err->errnum = inner.errnum;
        return -1;
    }
    if (ldr_elf_read(ie, f, space_size, &inner) != 0)
        return ldr_fail(err, LDR_ENOEXEC, prog_path, "interpreter %s", inner.message);
    if (ie->bits != prog->bits)
        return ldr_fail(err, LDR_ENOEXEC, prog_path, "interpreter %s is ELF%d but the program "
                        "is ELF%d", f->path, ie->bits, prog->bits);
    if (ie->has_interp)
        return ldr_fail(err, LDR_ENOEXEC, prog_path, "interpreter %s is itself dynamic "
                        "(it has a PT_INTERP)", f->path);
    return 0;
}

static int copy_vector(char ***out, unsigned *count, char *const in[])
{
    unsigned n = 0;
    while (in && in[n])
        n++;
    *out = calloc(n + 1, sizeof(char *));
    if (!*out)
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (!((*out)[i] = strdup(in[i])))
            return -1;
    *count = n;
    return 0;
}

int ldr_check(const char *path, const char *sysroot, elfemu_error *err)
{
    /* The steps of ldr_load() before its point of no return, on their own. */
    elfemu_load_info *info = calloc(1, sizeof(*info));
    struct ldr_args args = { 0 };
    struct ldr_file pf = { .fd = -1 }, inf = { .fd = -1 };
    struct ldr_elf prog = { 0 }, interp = { 0 };
    int ret = -1;
    if (!info || !(args.interp = strdup(path))) {
        ldr_fail(err, LDR_ENOEXEC, path, "out of memory");
        err->errnum = ENOMEM;
        goto out;
    }
    if (ldr_follow_scripts(&args, sysroot, info, err) != 0 ||
        ldr_open(&pf, args.interp, sysroot, err) != 0 ||
        ldr_elf_read(&prog, &pf, 1ull << 46, err) != 0)
        goto out;
    if (prog.has_interp && open_interp(&prog, pf.path, sysroot,
                                       prog.bits == 64 ? 1ull << 46 : 1ull << 32, &inf,
                                       &interp, err) != 0)
        goto out;
    ret = 0;
out:
    free(info);
    ldr_close(&pf);
    ldr_close(&inf);
    ldr_elf_free(&prog);
    ldr_elf_free(&interp);
    ldr_args_free(&args);
    return ret;
}

int ldr_load(struct mm_space *mm, const struct ldr_params *p, const char *path,
             char *const argv[], char *const envp[], elfemu_load_info *info, elfemu_error *err)
{
    memset(info, 0, sizeof(*info));
    struct ldr_args args = { 0 };
    struct ldr_file pf = { .fd = -1 }, inf = { .fd = -1 };
    struct ldr_elf prog = { 0 }, interp = { 0 };
    int ret = -1;
    bool space_up = false;

    if (copy_vector(&args.argv, &args.argc, argv) != 0 ||
        copy_vector(&args.envp, &args.envc, envp) != 0 || !(args.filename = strdup(path)) ||
        !(args.interp = strdup(path))) {
        ldr_fail(err, LDR_ENOEXEC, path, "out of memory");
        goto out;
    }
    /* search_binary_handler(): #! scripts first, then the ELF image. */
    if (ldr_follow_scripts(&args, p->sysroot, info, err) != 0)
        goto out;
    if (ldr_open(&pf, args.interp, p->sysroot, err) != 0)
        goto out;
    if (ldr_elf_read(&prog, &pf, 1ull << 46, err) != 0)
        goto out;
    uint64_t space_size = prog.bits == 64 ? 1ull << 46 : 1ull << 32;
    if (prog.has_interp) {
        snprintf(info->interp_request, sizeof(info->interp_request), "%s", prog.interp);
        if (open_interp(&prog, pf.path, p->sysroot, space_size, &inf, &interp, err) != 0)
            goto out;
    }

    /* Point of no return (flush_old_exec()): build the new address space. */
    int e = mm_space_init(mm, prog.bits);
    if (e) {
        ldr_fail(err, LDR_ENOEXEC, pf.path, "cannot reserve the guest address space: %s",
                 strerror(-e));
        goto out;
    }
    space_up = true;
    /* elf_read_implies_exec(): an ia32 program without PT_GNU_STACK runs with
     * READ_IMPLIES_EXEC, so every readable mapping is also executable. */
    mm->read_implies_exec = prog.bits == 32 && !prog.has_gnu_stack;
    info->bits = prog.bits;
    info->stack_top = prog.bits == 64 ? LDR_STACK_TOP_64 : LDR_STACK_TOP_32;
    if (p->aslr) /* randomize_stack_top(): STACK_RND_MASK pages */
        info->stack_top -= (ldr_rng_u64(p->rng) & (prog.bits == 64 ? 0x3fffff : 0x7ff)) *
                           MM_PAGE_SIZE;
    /* mmap_base(): below the stack with a gap, randomised under --aslr. */
    mm->mmap_base = info->stack_top - LDR_MMAP_GAP;
    if (p->aslr)
        mm->mmap_base -= (ldr_rng_u64(p->rng) & (prog.bits == 64 ? 0xfffffff : 0xff)) *
                         MM_PAGE_SIZE;
    info->mmap_base = mm->mmap_base;

    info->stack_low = info->stack_top - ldr_stack_size();

    uint64_t bias = place_program(&prog, mm, p);
    if (check_placement(&prog, bias, mm, info, 0, 0, pf.path, "", err) != 0)
        goto out;
    if (map_image(mm, &pf, &prog, bias, &info->program, err) != 0)
        goto out;
    /* set_brk(): the heap starts at the page after the highest segment. */
    mm->brk_start = mm->brk = mm_page_up(prog.hi + bias);
    info->brk_start = mm->brk_start;
    /* start_data and end_data as load_elf_binary() sets them: the highest
     * PT_LOAD p_vaddr and the highest p_vaddr + p_filesz (brk's RLIMIT_DATA
     * counts the distance between them). */
    mm->start_data = mm->end_data = 0;
    for (unsigned i = 0; i < prog.phnum; i++)
        if (prog.ph[i].type == PT_LOAD) {
            if (prog.ph[i].vaddr + bias > mm->start_data)
                mm->start_data = prog.ph[i].vaddr + bias;
            if (prog.ph[i].vaddr + prog.ph[i].filesz + bias > mm->end_data)
                mm->end_data = prog.ph[i].vaddr + prog.ph[i].filesz + bias;
        }
    info->entry = info->program.entry;

    if (prog.has_interp) {
        uint64_t ibias;
        if (place_interp(&interp, mm, &ibias) != 0) {
            ldr_fail(err, LDR_ENOEXEC, pf.path, "no room for interpreter %s", inf.path);
            goto out;
        }
        char what[PATH_MAX + 16];
        snprintf(what, sizeof(what), "interpreter %s ", inf.path);
        if (check_placement(&interp, ibias, mm, info, info->program.start,
                            mm_page_up(info->program.end), pf.path, what, err) != 0)
            goto out;
        if (map_image(mm, &inf, &interp, ibias, &info->interp, err) != 0)
            goto out;
        info->has_interp = true;
        info->entry = info->interp.entry;
    }

    e = ldr_map_vdso(mm, prog.bits, info);
    if (e) {
        ldr_fail(err, LDR_ENOEXEC, pf.path, "cannot map the vDSO: %s", strerror(-e));
        goto out;
    }
    /* PT_GNU_STACK decides; without it only READ_IMPLIES_EXEC makes the
     * stack executable (x86_64 stacks are not, since Linux 5.8). */
    info->exec_stack = prog.has_gnu_stack ? prog.gnu_stack_exec : mm->read_implies_exec;
    if (ldr_build_stack(mm, p, &prog, &args, info, err) != 0)
        goto out;
    ret = 0;
out:
    if (ret != 0 && space_up)
        mm_space_destroy(mm);
    ldr_close(&pf);
    ldr_close(&inf);
    ldr_elf_free(&prog);
    ldr_elf_free(&interp);
    ldr_args_free(&args);
    return ret;
}
