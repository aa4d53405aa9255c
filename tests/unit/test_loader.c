/* The loader, checked without running: for static, static-pie and dynamic
 * x86_64 programs and static and dynamic ia32 programs built by the test
 * build, every auxv value is compared with what the ELF files say, and the
 * stack is walked the way a libc's _start walks it.  argv[1] is the folder
 * holding the guest programs. */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfemu.h"
#include "loader/elf_sym.h"
#include "loader/root.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif

static const char *guest_dir;

static char *guest(const char *name)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", guest_dir, name);
    return path;
}

/* The ELF header and program headers straight from the file (widened). */
struct file_info {
    int bits, type;
    uint64_t entry, phoff;
    unsigned phnum, phentsize;
    uint64_t phdr_vaddr; /* vaddr of the table inside its PT_LOAD */
    bool has_interp;
    uint8_t phdrs[65536];
};

static void read_file_info(const char *path, struct file_info *fi)
{
    memset(fi, 0, sizeof(*fi));
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    Elf64_Ehdr h64;
    ck_assert_int_eq(pread(fd, &h64, sizeof(h64), 0), sizeof(h64));
    if (h64.e_ident[EI_CLASS] == ELFCLASS64) {
        fi->bits = 64;
        fi->type = h64.e_type;
        fi->entry = h64.e_entry;
        fi->phoff = h64.e_phoff;
        fi->phnum = h64.e_phnum;
        fi->phentsize = h64.e_phentsize;
    } else {
        Elf32_Ehdr h32;
        memcpy(&h32, &h64, sizeof(h32));
        fi->bits = 32;
        fi->type = h32.e_type;
        fi->entry = h32.e_entry;
        fi->phoff = h32.e_phoff;
        fi->phnum = h32.e_phnum;
        fi->phentsize = h32.e_phentsize;
    }
    size_t len = (size_t)fi->phnum * fi->phentsize;
    ck_assert_int_eq(pread(fd, fi->phdrs, len, (off_t)fi->phoff), (ssize_t)len);
    close(fd);
    for (unsigned i = 0; i < fi->phnum; i++) {
        uint32_t type;
        uint64_t off, vaddr, filesz;
        const uint8_t *p = fi->phdrs + (size_t)i * fi->phentsize;
        if (fi->bits == 64) {
            Elf64_Phdr ph;
            memcpy(&ph, p, sizeof(ph));
            type = ph.p_type, off = ph.p_offset, vaddr = ph.p_vaddr, filesz = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            memcpy(&ph, p, sizeof(ph));
            type = ph.p_type, off = ph.p_offset, vaddr = ph.p_vaddr, filesz = ph.p_filesz;
        }
        if (type == PT_INTERP)
            fi->has_interp = true;
        if (type == PT_LOAD && off <= fi->phoff && fi->phoff < off + filesz)
            fi->phdr_vaddr = fi->phoff - off + vaddr;
    }
}

static uint64_t word(elfemu *vm, uint64_t addr)
{
    uint64_t v = 0;
    unsigned w = elfemu_bits(vm) / 8;
    ck_assert_int_eq(elfemu_read(vm, addr, &v, w), 0);
    return v;
}

static void gstr(elfemu *vm, uint64_t addr, char *buf, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        ck_assert_int_eq(elfemu_read(vm, addr + i, &buf[i], 1), 0);
        if (!buf[i])
            return;
    }
    ck_abort_msg("unterminated guest string");
}

static uint64_t aux(const uint64_t (*pairs)[2], unsigned n, uint64_t type)
{
    for (unsigned i = 0; i < n; i++)
        if (pairs[i][0] == type)
            return pairs[i][1];
    ck_abort_msg("auxv type %llu missing", (unsigned long long)type);
    return 0;
}

static elfemu *load(const char *path, char *const *argv, char *const *envp, uint64_t seed)
{
    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.have_seed = true;
    cfg.seed = seed;
    elfemu *vm = elfemu_create(&cfg);
    ck_assert_ptr_nonnull(vm);
    elfemu_error err;
    int r = elfemu_load(vm, path, argv, envp, &err);
    ck_assert_msg(r == 0, "load %s: %s", path, err.message);
    return vm;
}

/* Everything a static or dynamic program's startup code relies on. */
static void check_program(const char *name)
{
    const char *path = guest(name);
    struct file_info fi;
    read_file_info(path, &fi);
    char *argv[] = { "prog", "one", "two", NULL };
    char *envp[] = { "A=1", "BB=22", NULL };
    elfemu *vm = load(path, argv, envp, 42);
    int bits = elfemu_bits(vm);
    unsigned w = (unsigned)bits / 8;
    ck_assert_int_eq(bits, fi.bits);
    const elfemu_load_info *info = elfemu_get_load_info(vm);

    /* The registers at entry. */
    elfemu_regs regs;
    elfemu_get_regs(vm, &regs);
    uint64_t sp = regs.gpr[ELFEMU_RSP];
    ck_assert_uint_eq(sp % 16, 0);
    ck_assert_uint_eq(sp, info->sp);

    /* argc, argv[] + NULL, envp[] + NULL, as _start reads them. */
    ck_assert_uint_eq(word(vm, sp), 3);
    char s[4096];
    uint64_t prev_end = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t p = word(vm, sp + w * (1 + i));
        gstr(vm, p, s, sizeof(s));
        ck_assert_str_eq(s, argv[i]);
        if (prev_end)
            ck_assert_uint_eq(p, prev_end); /* strings ascend contiguously */
        prev_end = p + strlen(s) + 1;
    }
    ck_assert_uint_eq(word(vm, sp + w * 4), 0);
    uint64_t envp_at = sp + w * 5;
    for (int i = 0; i < 2; i++) {
        uint64_t p = word(vm, envp_at + w * i);
        gstr(vm, p, s, sizeof(s));
        ck_assert_str_eq(s, envp[i]);
        ck_assert_uint_eq(p, prev_end); /* env strings follow the arg strings */
        prev_end = p + strlen(s) + 1;
    }
    ck_assert_uint_eq(word(vm, envp_at + 2 * w), 0);

    /* The auxv, in Linux's order. */
    uint64_t pairs[32][2];
    unsigned n = 0;
    uint64_t a = envp_at + 3 * w;
    for (;; n++, a += 2 * w) {
        ck_assert_uint_lt(n, 32);
        pairs[n][0] = word(vm, a);
        pairs[n][1] = word(vm, a + w);
        if (pairs[n][0] == AT_NULL)
            break;
    }
    uint64_t auxv_end = a + 2 * w;
    static const uint64_t order64[] = { AT_SYSINFO_EHDR, AT_MINSIGSTKSZ, AT_HWCAP, AT_PAGESZ,
        AT_CLKTCK, AT_PHDR, AT_PHENT, AT_PHNUM, AT_BASE, AT_FLAGS, AT_ENTRY, AT_UID, AT_EUID,
        AT_GID, AT_EGID, AT_SECURE, AT_RANDOM, AT_HWCAP2, AT_EXECFN, AT_PLATFORM, AT_NULL };
    unsigned skip = bits == 32 ? 1 : 0;
    ck_assert_uint_eq(n + 1, sizeof(order64) / sizeof(order64[0]) + skip);
    if (bits == 32)
        ck_assert_uint_eq(pairs[0][0], AT_SYSINFO);
    for (unsigned i = 0; i + skip <= n; i++)
        ck_assert_uint_eq(pairs[i + skip][0], order64[i]);
    ck_assert_uint_eq(info->nauxv, n + 1);

    /* AT_PHDR points at the very bytes of the file's program header table. */
    uint64_t phdr = aux(pairs, n, AT_PHDR);
    uint64_t bias = phdr - fi.phdr_vaddr;
    static uint8_t mem[65536];
    ck_assert_int_eq(elfemu_read(vm, phdr, mem, (size_t)fi.phnum * fi.phentsize), 0);
    ck_assert_int_eq(memcmp(mem, fi.phdrs, (size_t)fi.phnum * fi.phentsize), 0);
    ck_assert_uint_eq(aux(pairs, n, AT_PHENT), fi.phentsize);
    ck_assert_uint_eq(aux(pairs, n, AT_PHNUM), fi.phnum);
    ck_assert_uint_eq(aux(pairs, n, AT_ENTRY), fi.entry + bias);
    if (fi.type == ET_EXEC)
        ck_assert_uint_eq(bias, 0);
    else
        ck_assert_uint_eq(bias, bits == 64 ? 0x2aaaaaaaa000ull : 0x56555000ull);

    /* AT_BASE: ld.so's ELF header, whose entry is where we start. */
    uint64_t base = aux(pairs, n, AT_BASE);
    if (fi.has_interp) {
        ck_assert_uint_ne(base, 0);
        uint8_t ehdr[64];
        ck_assert_int_eq(elfemu_read(vm, base, ehdr, sizeof(ehdr)), 0);
        ck_assert_int_eq(memcmp(ehdr, ELFMAG, SELFMAG), 0);
        Elf64_Ehdr e64;
        Elf32_Ehdr e32;
        memcpy(&e64, ehdr, sizeof(e64));
        memcpy(&e32, ehdr, sizeof(e32));
        uint64_t ientry = bits == 64 ? e64.e_entry : e32.e_entry;
        ck_assert_uint_eq(regs.rip, base + ientry);
        ck_assert_uint_eq(base % 4096, 0);
    } else {
        ck_assert_uint_eq(base, 0);
        ck_assert_uint_eq(regs.rip, aux(pairs, n, AT_ENTRY));
    }

    /* Plain values. */
    ck_assert_uint_eq(aux(pairs, n, AT_PAGESZ), 4096);
    ck_assert_uint_eq(aux(pairs, n, AT_CLKTCK), 100);
    uint64_t hwcap = aux(pairs, n, AT_HWCAP);
    ck_assert_uint_ne(hwcap & (1u << 26), 0); /* SSE2: the x86_64 baseline */
    ck_assert_uint_ne(hwcap & (1u << 0), 0);  /* FPU */
    ck_assert_uint_eq(aux(pairs, n, AT_UID), getuid());
    ck_assert_uint_eq(aux(pairs, n, AT_EUID), geteuid());
    ck_assert_uint_eq(aux(pairs, n, AT_GID), getgid());
    ck_assert_uint_eq(aux(pairs, n, AT_EGID), getegid());
    ck_assert_uint_eq(aux(pairs, n, AT_SECURE), 0);
    ck_assert_uint_eq(aux(pairs, n, AT_FLAGS), 0);
    ck_assert_uint_ge(aux(pairs, n, AT_MINSIGSTKSZ), 1024);

    /* The strings and random bytes sit above the auxv, as in the figure:
     * auxv < random < platform < argv strings < env strings < execfn < top. */
    uint64_t rnd = aux(pairs, n, AT_RANDOM), plat = aux(pairs, n, AT_PLATFORM),
             execfn = aux(pairs, n, AT_EXECFN);
    ck_assert_uint_ge(rnd, auxv_end);
    ck_assert_uint_lt(rnd - auxv_end, 16);
    ck_assert_uint_eq(plat, rnd + 16);
    gstr(vm, plat, s, sizeof(s));
    ck_assert_str_eq(s, bits == 64 ? "x86_64" : "i686");
    uint64_t argv0 = word(vm, sp + w);
    ck_assert_uint_lt(plat + strlen(s) + 1, argv0 + 1);
    ck_assert_uint_lt(argv0 - (plat + strlen(s) + 1), 16); /* only alignment without --aslr */
    gstr(vm, execfn, s, sizeof(s));
    ck_assert_str_eq(s, path);
    ck_assert_uint_eq(execfn, prev_end);                       /* just above the env strings */
    ck_assert_uint_eq(execfn + strlen(path) + 1, info->stack_top - 8); /* then the NULL */
    ck_assert_uint_eq(word(vm, info->stack_top - 8), 0);

    /* AT_SYSINFO_EHDR: a valid ELF with the expected versioned symbols. */
    uint64_t vdso = aux(pairs, n, AT_SYSINFO_EHDR);
    ck_assert_uint_eq(vdso, info->vdso_base);
    static uint8_t image[3 * 4096];
    size_t vsize = info->vdso_size < sizeof(image) ? info->vdso_size : sizeof(image);
    ck_assert_int_eq(elfemu_read(vm, vdso, image, vsize), 0);
    ck_assert_int_eq(memcmp(image, ELFMAG, SELFMAG), 0);
    ck_assert_int_eq(image[EI_CLASS], bits == 64 ? ELFCLASS64 : ELFCLASS32);
    uint64_t val;
    if (bits == 64) {
        ck_assert_int_eq(ldr_elf_dynsym(image, vsize, "__vdso_clock_gettime", "LINUX_2.6", &val), 0);
        ck_assert_int_eq(ldr_elf_dynsym(image, vsize, "__vdso_getcpu", "LINUX_2.6", &val), 0);
    } else {
        ck_assert_int_eq(ldr_elf_dynsym(image, vsize, "__kernel_vsyscall", "LINUX_2.5", &val), 0);
        ck_assert_uint_eq(aux(pairs, n, AT_SYSINFO), vdso + val);
        ck_assert_int_eq(ldr_elf_dynsym(image, vsize, "__vdso_clock_gettime64", "LINUX_2.6", &val), 0);
    }

    /* The map: program, stack, vdso, and (dynamic) the interpreter. */
    elfemu_map maps[64];
    size_t nm = elfemu_maps(vm, maps, 64);
    bool have_stack = false, have_vdso = false, have_prog = false;
    for (size_t i = 0; i < nm && i < 64; i++) {
        have_stack |= !strcmp(maps[i].name, "[stack]") && maps[i].end == info->stack_top &&
                      maps[i].start <= sp;
        have_vdso |= !strcmp(maps[i].name, "[vdso]") && maps[i].start == vdso;
        have_prog |= !strcmp(maps[i].name, path);
    }
    ck_assert(have_stack && have_vdso && have_prog);
    ck_assert_uint_eq(info->brk_start % 4096, 0);
    ck_assert_uint_ge(info->brk_start, info->program.end);
    ck_assert_uint_lt(info->brk_start - info->program.end, 4096);
    elfemu_destroy(vm);
}

START_TEST(x86_64_dynamic) { check_program("showargs_64_dyn"); }
END_TEST
START_TEST(x86_64_static) { check_program("showargs_64_static"); }
END_TEST
START_TEST(x86_64_static_pie) { check_program("showargs_64_spie"); }
END_TEST
START_TEST(ia32_dynamic) { check_program("showargs_32_dyn"); }
END_TEST
START_TEST(ia32_static) { check_program("showargs_32_static"); }
END_TEST
START_TEST(ia32_static_pie) { check_program("showargs_32_spie"); }
END_TEST
START_TEST(x86_64_asm) { check_program("hello_asm64"); }
END_TEST
START_TEST(ia32_asm) { check_program("hello_asm32"); }
END_TEST

/* One load with a given config; copies what the checks compare, because
 * only one 2^46-byte guest space fits in the host at a time. */
struct snapshot {
    elfemu_load_info info;
    uint8_t random[16];
};

static void snap(const char *path, bool aslr, uint64_t seed, struct snapshot *out)
{
    char *argv[] = { "p", NULL }, *envp[] = { NULL };
    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.aslr = aslr;
    cfg.have_seed = true;
    cfg.seed = seed;
    elfemu *vm = elfemu_create(&cfg);
    elfemu_error err;
    ck_assert_msg(elfemu_load(vm, path, argv, envp, &err) == 0, "%s", err.message);
    out->info = *elfemu_get_load_info(vm);
    ck_assert_int_eq(elfemu_read(vm, out->info.random_addr, out->random, 16), 0);
    ck_assert_uint_eq(out->info.sp % 16, 0);
    elfemu_destroy(vm);
}

/* The same seed gives the same bytes; layouts are deterministic without --aslr. */
START_TEST(determinism_and_seed)
{
    static struct snapshot a, b, c;
    snap(guest("showargs_64_dyn"), false, 7, &a);
    snap(guest("showargs_64_dyn"), false, 7, &b);
    snap(guest("showargs_64_dyn"), false, 8, &c);
    ck_assert_int_eq(memcmp(a.random, b.random, 16), 0);
    ck_assert_int_ne(memcmp(a.random, c.random, 16), 0);
    ck_assert_uint_eq(a.info.sp, c.info.sp);
    ck_assert_uint_eq(a.info.interp.load_bias, c.info.interp.load_bias);
    ck_assert_uint_eq(a.info.vdso_base, c.info.vdso_base);
}
END_TEST

/* --aslr moves the stack, the PIE and the mmap area; the seed fixes them. */
START_TEST(aslr)
{
    static struct snapshot a, b, c;
    snap(guest("showargs_64_dyn"), true, 99, &a);
    snap(guest("showargs_64_dyn"), true, 99, &b);
    snap(guest("showargs_64_dyn"), true, 100, &c);
    ck_assert_uint_eq(a.info.sp, b.info.sp);
    ck_assert_uint_eq(a.info.program.load_bias, b.info.program.load_bias);
    ck_assert_uint_ne(a.info.stack_top, c.info.stack_top);
    ck_assert_uint_ne(a.info.program.load_bias, c.info.program.load_bias);
    ck_assert_uint_ne(a.info.interp.load_bias, c.info.interp.load_bias);
    /* ia32 too, within its 4 GiB */
    snap(guest("showargs_32_dyn"), true, 5, &a);
    snap(guest("showargs_32_dyn"), true, 6, &c);
    ck_assert_uint_ne(a.info.stack_top, c.info.stack_top);
    ck_assert_uint_lt(a.info.stack_top, 1ull << 32);
}
END_TEST

/* binfmt_script: argv becomes interpreter, optional argument, script path,
 * then the original arguments; AT_EXECFN stays the script. */
START_TEST(shebang)
{
    char dir[] = "/tmp/elfemu-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char script[PATH_MAX], script2[PATH_MAX];
    snprintf(script, sizeof(script), "%s/s1", dir);
    snprintf(script2, sizeof(script2), "%s/s2", dir);
    FILE *f = fopen(script, "w");
    fprintf(f, "#! %s  -x  y \t\necho not read\n", guest("hello_asm64"));
    fclose(f);
    f = fopen(script2, "w");
    fprintf(f, "#!%s\n", script);
    fclose(f);
    char *argv[] = { "name", "arg1", NULL }, *envp[] = { NULL };
    elfemu *vm = load(script2, argv, envp, 1);
    const elfemu_load_info *in = elfemu_get_load_info(vm);
    ck_assert_uint_eq(in->nscripts, 2);
    ck_assert_str_eq(in->scripts[0], script2);
    ck_assert_str_eq(in->scripts[1], script);
    /* s2 -> s1 -> hello: [hello, "-x  y", s1, s2, arg1] */
    const char *want[] = { guest("hello_asm64"), "-x  y", script, script2, "arg1" };
    ck_assert_uint_eq(in->argc, 5);
    char s[PATH_MAX];
    for (unsigned i = 0; i < 5; i++) {
        gstr(vm, word(vm, in->argv_addr + 8 * i), s, sizeof(s));
        ck_assert_str_eq(s, want[i]);
    }
    gstr(vm, in->execfn_addr, s, sizeof(s));
    ck_assert_str_eq(s, script2);
    elfemu_destroy(vm);
    unlink(script);
    unlink(script2);
    rmdir(dir);
}
END_TEST

/* A sysroot (-L) is searched first for the interpreter. */
START_TEST(sysroot_missing_interp)
{
    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.sysroot = "/nonexistent-sysroot";
    elfemu *vm = elfemu_create(&cfg);
    char *argv[] = { "p", NULL }, *envp[] = { NULL };
    /* falls back to the host path when the sysroot lacks the file */
    ck_assert_int_eq(elfemu_load(vm, guest("showargs_64_dyn"), argv, envp, NULL), 0);
    elfemu_destroy(vm);
}
END_TEST

/* Lookups inside a foreign root behave as inside a chroot to it. */
START_TEST(root_lookup)
{
    char root[] = "/tmp/elfemu-root-XXXXXX", p[PATH_MAX], out[PATH_MAX];
    ck_assert_ptr_nonnull(mkdtemp(root));
#define AT(rel) (snprintf(p, sizeof(p), "%s%s", root, rel), p)
    ck_assert_int_eq(mkdir(AT("/usr"), 0755), 0);
    ck_assert_int_eq(mkdir(AT("/usr/lib"), 0755), 0);
    int fd = open(AT("/usr/lib/f"), O_CREAT | O_WRONLY, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(symlink("usr/lib", AT("/lib")), 0);         /* relative */
    ck_assert_int_eq(symlink("/lib/f", AT("/abs")), 0);          /* absolute: inside root */
    ck_assert_int_eq(symlink("../../../../..", AT("/up")), 0);   /* climbs: stops at root */
    ck_assert_int_eq(symlink("loop", AT("/loop")), 0);
    ck_assert_int_eq(symlink("/nowhere", AT("/dangling")), 0);
    char want[PATH_MAX];
    snprintf(want, sizeof(want), "%s/usr/lib/f", root);
    const char *ok[] = { "/usr/lib/f", "/lib/f", "/abs", "/up/lib/f", "/../../lib/./f",
                         "/usr/../up/usr/lib/f", "//lib//f" };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        ck_assert_msg(ldr_root_lookup(root, ok[i], true, out, sizeof(out)) == 0, "%s", ok[i]);
        ck_assert_str_eq(out, want);
    }
    ck_assert_int_eq(ldr_root_lookup(root, "/abs", false, out, sizeof(out)), 0);
    snprintf(want, sizeof(want), "%s/abs", root); /* not followed */
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(ldr_root_lookup(root, "/", true, out, sizeof(out)), 0);
    snprintf(want, sizeof(want), "%s/", root);
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(ldr_root_lookup(root, "/loop", true, out, sizeof(out)), -ELOOP);
    ck_assert_int_eq(ldr_root_lookup(root, "/dangling", true, out, sizeof(out)), -ENOENT);
    ck_assert_int_eq(ldr_root_lookup(root, "/dangling", false, out, sizeof(out)), 0);
    ck_assert_int_eq(ldr_root_lookup(root, "/lib/f/x", true, out, sizeof(out)), -ENOTDIR);
    ck_assert_int_eq(ldr_root_lookup(root, "/abs/", false, out, sizeof(out)), -ENOTDIR);
    ck_assert_int_eq(ldr_root_lookup(root, "/missing", true, out, sizeof(out)), -ENOENT);
    ck_assert_int_eq(ldr_root_lookup(root, "relative", true, out, sizeof(out)), -EINVAL);
    const char *rm[] = { "/dangling", "/loop", "/up", "/abs", "/lib", "/usr/lib/f" };
    for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
        unlink(AT(rm[i]));
    rmdir(AT("/usr/lib"));
    rmdir(AT("/usr"));
    rmdir(root);
#undef AT
}
END_TEST

START_TEST(not_found)
{
    elfemu *vm = elfemu_create(NULL);
    char *argv[] = { "p", NULL }, *envp[] = { NULL };
    elfemu_error err;
    ck_assert_int_eq(elfemu_load(vm, "/nonexistent/prog", argv, envp, &err), -1);
    ck_assert_int_eq(err.status, 127);
    ck_assert_str_eq(err.message, "/nonexistent/prog: No such file or directory");
    ck_assert_int_eq(elfemu_load(vm, "/", argv, envp, &err), -1);
    ck_assert_int_eq(err.status, 126);
    ck_assert_int_eq(elfemu_bits(vm), 0);
    elfemu_destroy(vm);
}
END_TEST

int main(int argc, char **argv)
{
    guest_dir = argc > 1 ? argv[1] : "tests/guest";
    Suite *s = suite_create("loader");
    TCase *t = tcase_create("load");
    tcase_add_test(t, x86_64_dynamic);
    tcase_add_test(t, x86_64_static);
    tcase_add_test(t, x86_64_static_pie);
    tcase_add_test(t, ia32_dynamic);
    tcase_add_test(t, ia32_static);
    tcase_add_test(t, ia32_static_pie);
    tcase_add_test(t, x86_64_asm);
    tcase_add_test(t, ia32_asm);
    tcase_add_test(t, determinism_and_seed);
    tcase_add_test(t, aslr);
    tcase_add_test(t, shebang);
    tcase_add_test(t, sysroot_missing_interp);
    tcase_add_test(t, root_lookup);
    tcase_add_test(t, not_found);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
