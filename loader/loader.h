/* The loader's internal interface: what load_elf_binary() does, in steps.
 *
 * elf.c    reads and validates an ELF header and its program header table
 * load.c   maps the program, its interpreter, the vDSO; places brk
 * stack.c  builds the initial stack (setup_arg_pages + create_elf_tables)
 * script.c follows #! lines (binfmt_script)
 * file.c   opens files under the sysroot and reads them safely
 * explain.c prints the narrative of what the other steps recorded */
#ifndef LOADER_LOADER_H
#define LOADER_LOADER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "elfemu.h"
#include "mm/space.h"

/* Exit statuses, like a shell's. */
#define LDR_ENOEXEC 126
#define LDR_ENOENT 127

/* Guest layout constants (README "Guest address space"). */
#define LDR_STACK_TOP_64 0x3ffffffff000ull  /* 2^46 - one page, like TASK_SIZE */
#define LDR_STACK_TOP_32 0xffffe000ull      /* IA32_PAGE_OFFSET on x86_64 kernels */
#define LDR_PIE_BASE_64 0x2aaaaaaaa000ull   /* ELF_ET_DYN_BASE: 2/3 of the space */
#define LDR_PIE_BASE_32 0x56555000ull       /* where Linux puts ia32 PIEs without ASLR */
#define LDR_MMAP_GAP (128ull << 20)         /* mmap_base = stack top - this (mmap_base()) */
#define LDR_MMAP_MIN 0x10000ull             /* vm.mmap_min_addr: nothing is mapped below */

/* Record a failure "path: reason" with a shell-like status; returns -1. */
int ldr_fail(elfemu_error *err, int status, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

/* ---------------------------------------------------------------- file.c */
struct ldr_file {
    int fd;
    uint64_t size;
    char path[PATH_MAX]; /* the path actually opened */
};

/* Open path (under sysroot first when it is absolute); 0 or -1 with err. */
int ldr_open(struct ldr_file *f, const char *path, const char *sysroot, elfemu_error *err);
void ldr_close(struct ldr_file *f);
/* Read exactly len bytes at off; -1 when the file is shorter or on error. */
int ldr_pread(const struct ldr_file *f, void *buf, uint64_t len, uint64_t off);

/* ---------------------------------------------------------------- elf.c */
#define LDR_MAX_PHNUM 2048 /* 65536 / sizeof(Elf32_Phdr), the kernel's bound */

struct ldr_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, filesz, memsz, align;
};

/* A validated ELF header and program header table, ELF32 or ELF64 widened. */
struct ldr_elf {
    int bits;       /* 32 or 64 */
    int type;       /* ET_EXEC or ET_DYN */
    int machine;
    uint64_t entry, phoff;
    unsigned phnum, phentsize;
    struct ldr_phdr *ph; /* owned */
    bool has_interp;
    char interp[PATH_MAX];
    bool has_gnu_stack;
    bool gnu_stack_exec;
    uint64_t lo, hi;     /* lowest p_vaddr (page down) and highest p_vaddr+p_memsz of PT_LOADs */
    uint64_t max_align;  /* largest PT_LOAD p_align (power of two, >= page) */
};

/* Parse and validate the image in f for a guest space of space_size bytes.
 * role names the file in messages ("" for the program, "interpreter "). */
int ldr_elf_read(struct ldr_elf *e, const struct ldr_file *f, uint64_t space_size,
                 elfemu_error *err);
void ldr_elf_free(struct ldr_elf *e);
/* True when buf (at least 4 bytes) starts with the ELF magic. */
bool ldr_is_elf(const uint8_t *buf, uint64_t len);

/* ---------------------------------------------------------------- script.c */
#define LDR_MAX_SCRIPT_DEPTH 5 /* fs/exec.c exec_binprm(): "depth > 5" gives ELOOP */

/* The argument vector being built, as bprm's strings are. */
struct ldr_args {
    char **argv; unsigned argc;
    char **envp; unsigned envc;
    char *filename;  /* what AT_EXECFN shows: the path given to execve */
    char *interp;    /* the file finally loaded (after #! lines) */
};

/* Follow #! lines starting at args->interp (binfmt_script), rewriting argv;
 * on return args->interp names an ELF file.  0 or -1 with err. */
int ldr_follow_scripts(struct ldr_args *args, const char *sysroot, elfemu_load_info *info,
                       elfemu_error *err);
void ldr_args_free(struct ldr_args *args);

/* ---------------------------------------------------------------- rng */
struct ldr_rng {
    bool seeded;   /* false: bytes come from the host's getrandom() */
    uint64_t state;
};
void ldr_rng_init(struct ldr_rng *r, bool have_seed, uint64_t seed);
void ldr_rng_bytes(struct ldr_rng *r, void *buf, size_t len);
uint64_t ldr_rng_u64(struct ldr_rng *r);

/* ---------------------------------------------------------------- load.c */
struct ldr_params {
    const char *sysroot;
    bool aslr;
    struct ldr_rng *rng;
};

/* The whole of execve for one VM: scripts, program, interpreter, vDSO, brk,
 * stack.  On success info is filled and the space holds the image. */
int ldr_load(struct mm_space *mm, const struct ldr_params *p, const char *path,
             char *const argv[], char *const envp[], elfemu_load_info *info,
             elfemu_error *err);

/* Everything ldr_load() checks before it builds the new image (scripts,
 * the ELF file, its interpreter), without touching any address space: what
 * execve() must decide before it replaces the process.  0 or -1 with err
 * (err->errnum is the errno execve() gives). */
int ldr_check(const char *path, const char *sysroot, elfemu_error *err);

/* ---------------------------------------------------------------- vdso.c */
/* Map the vDSO for bits below mmap_base; fills info->vdso_*.  0 or -errno. */
int ldr_map_vdso(struct mm_space *mm, int bits, elfemu_load_info *info);

/* ---------------------------------------------------------------- stack.c */
/* The size of the [stack] mapping (from the stack rlimit). */
uint64_t ldr_stack_size(void);

/* Map the stack and write strings, random bytes, platform, auxv, envp,
 * argv and argc (setup_arg_pages + create_elf_tables).  0 or -1 with err. */
int ldr_build_stack(struct mm_space *mm, const struct ldr_params *p, const struct ldr_elf *prog,
                    const struct ldr_args *args, elfemu_load_info *info, elfemu_error *err);

#endif
