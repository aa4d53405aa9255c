/* The initial stack: setup_arg_pages() and create_elf_tables().
 *
 * From the top of the [stack] mapping down, exactly as Linux lays it out:
 *   a NULL pointer (bprm->p starts one kernel pointer below the top),
 *   the execfn string (AT_EXECFN), the environment strings, the argument
 *   strings, arch_align_stack() (a random gap under --aslr, then 16-byte
 *   alignment), the platform string (AT_PLATFORM), 16 random bytes
 *   (AT_RANDOM), padding so the final sp is 16-byte aligned, the auxv pairs
 *   ending with AT_NULL, envp[] + NULL, argv[] + NULL, and argc at sp.
 * Words are 8 bytes for x86_64 and 4 for ia32 (elf_addr_t). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cpu/cpuid.h"
#include "loader/loader.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif

/* The [stack] mapping: the stack rlimit, like the kernel's growth limit
 * (an unlimited or tiny rlimit gets 8 MiB, a huge one is capped). */
uint64_t ldr_stack_size(void)
{
    struct rlimit rl;
    uint64_t sz = 8ull << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur >= (128ull << 10))
        sz = rl.rlim_cur;
    if (sz > (64ull << 20))
        sz = 64ull << 20;
    return mm_page_up(sz);
}

struct stack_writer {
    struct mm_space *mm;
    unsigned word; /* 8 or 4 */
};

static void put_word(const struct stack_writer *w, uint64_t addr, uint64_t v)
{
    if (w->word == 8)
        memcpy(w->mm->base + addr, &v, 8);
    else {
        uint32_t v32 = (uint32_t)v;
        memcpy(w->mm->base + addr, &v32, 4);
    }
}

/* copy_strings(): push strings from the last to the first, so that they end
 * up in ascending order; addrs[i] receives where strv[i] went. */
static uint64_t push_strings(struct mm_space *mm, uint64_t p, char **strv, unsigned n,
                             uint64_t *addrs)
{
    for (unsigned i = n; i-- > 0;) {
        size_t len = strlen(strv[i]) + 1;
        p -= len;
        memcpy(mm->base + p, strv[i], len);
        addrs[i] = p;
    }
    return p;
}

static void add_aux(elfemu_load_info *info, uint64_t type, uint64_t val)
{
    info->auxv[info->nauxv][0] = type;
    info->auxv[info->nauxv][1] = val;
    info->nauxv++;
}

/* The pairs in create_elf_tables() order, ARCH_DLINFO(_IA32) first. */
static void fill_auxv(elfemu_load_info *info, const struct ldr_elf *prog, int bits)
{
    info->nauxv = 0;
    if (bits == 32)
        add_aux(info, AT_SYSINFO, info->vdso_sysinfo);
    add_aux(info, AT_SYSINFO_EHDR, info->vdso_base);
    add_aux(info, AT_MINSIGSTKSZ, CPU_SIGFRAME_SIZE);
    add_aux(info, AT_HWCAP, CPU_CPUID1_EDX);
    add_aux(info, AT_PAGESZ, MM_PAGE_SIZE);
    add_aux(info, AT_CLKTCK, (uint64_t)sysconf(_SC_CLK_TCK));
    add_aux(info, AT_PHDR, info->program.phdr_addr);
    add_aux(info, AT_PHENT, prog->phentsize);
    add_aux(info, AT_PHNUM, prog->phnum);
    add_aux(info, AT_BASE, info->has_interp ? info->interp.load_bias : 0);
    add_aux(info, AT_FLAGS, 0);
    add_aux(info, AT_ENTRY, info->program.entry);
    add_aux(info, AT_UID, getuid());
    add_aux(info, AT_EUID, geteuid());
    add_aux(info, AT_GID, getgid());
    add_aux(info, AT_EGID, getegid());
    add_aux(info, AT_SECURE, 0);
    add_aux(info, AT_RANDOM, info->random_addr);
    add_aux(info, AT_HWCAP2, CPU_HWCAP2);
    add_aux(info, AT_EXECFN, info->execfn_addr);
    add_aux(info, AT_PLATFORM, info->platform_addr);
    add_aux(info, AT_NULL, 0);
}

int ldr_build_stack(struct mm_space *mm, const struct ldr_params *p, const struct ldr_elf *prog,
                    const struct ldr_args *args, elfemu_load_info *info, elfemu_error *err)
{
    const struct stack_writer w = { mm, prog->bits == 64 ? 8u : 4u };
    uint64_t size = info->stack_top - info->stack_low; /* chosen by ldr_load() */
    int prot = PROT_READ | PROT_WRITE | (info->exec_stack ? PROT_EXEC : 0);
    int e = mm_map_anon(mm, info->stack_low, size, prot, MM_VMA_GROWSDOWN, "[stack]");
    if (e)
        return ldr_fail(err, LDR_ENOEXEC, args->interp, "cannot map the stack");

    /* bprm_stack_limits(): the strings may use at most a quarter of the stack. */
    uint64_t strings = strlen(args->filename) + 1;
    for (unsigned i = 0; i < args->argc; i++)
        strings += strlen(args->argv[i]) + 1;
    for (unsigned i = 0; i < args->envc; i++)
        strings += strlen(args->envp[i]) + 1;
    uint64_t pointers = (uint64_t)(args->argc + args->envc + 3) * w.word;
    if (strings + pointers > size / 4)
        return ldr_fail(err, LDR_ENOEXEC, args->filename, "argument list too long");

    uint64_t *addrs = calloc(args->argc + args->envc + 1, sizeof(uint64_t));
    if (!addrs)
        return ldr_fail(err, LDR_ENOEXEC, args->filename, "out of memory");
    uint64_t *argp = addrs, *envpp = addrs + args->argc;

    /* bprm->p = vma->vm_end - sizeof(void *): the kernel's pointer, 8 bytes
     * for ia32 too; the mapping is zero so the NULL is already there. */
    uint64_t sp = info->stack_top - 8;
    size_t fn_len = strlen(args->filename) + 1;
    sp -= fn_len;
    memcpy(mm->base + sp, args->filename, fn_len);
    info->execfn_addr = sp;
    sp = push_strings(mm, sp, args->envp, args->envc, envpp);
    sp = push_strings(mm, sp, args->argv, args->argc, argp);
    info->strings_low = sp;

    /* create_elf_tables(): arch_align_stack() first. */
    if (p->aslr)
        sp -= ldr_rng_u64(p->rng) % 8192;
    sp &= ~15ull;
    const char *platform = prog->bits == 64 ? "x86_64" : "i686";
    sp -= strlen(platform) + 1;
    memcpy(mm->base + sp, platform, strlen(platform) + 1);
    info->platform_addr = sp;
    uint8_t rnd[16];
    ldr_rng_bytes(p->rng, rnd, sizeof(rnd));
    sp -= sizeof(rnd);
    memcpy(mm->base + sp, rnd, sizeof(rnd));
    info->random_addr = sp;

    fill_auxv(info, prog, prog->bits);
    uint64_t ei_words = 2ull * info->nauxv;
    uint64_t items = (args->argc + 1) + (args->envc + 1) + 1;
    sp = (sp - ei_words * w.word - items * w.word) & ~15ull; /* STACK_ROUND() */
    info->sp = sp;
    info->argc = args->argc;
    info->envc = args->envc;

    uint64_t q = sp;
    put_word(&w, q, args->argc);
    q += w.word;
    info->argv_addr = q;
    for (unsigned i = 0; i < args->argc; i++, q += w.word)
        put_word(&w, q, argp[i]);
    put_word(&w, q, 0);
    q += w.word;
    info->envp_addr = q;
    for (unsigned i = 0; i < args->envc; i++, q += w.word)
        put_word(&w, q, envpp[i]);
    put_word(&w, q, 0);
    q += w.word;
    info->auxv_addr = q;
    for (unsigned i = 0; i < info->nauxv; i++, q += 2 * w.word) {
        put_word(&w, q, info->auxv[i][0]);
        put_word(&w, q + w.word, info->auxv[i][1]);
    }
    free(addrs);
    return 0;
}
