/* System calls: the emulator executes them, the child only sees their
 * effects.
 *
 *  - registers: rax gets the emulator's result; rcx and r11 what SYSCALL
 *    leaves there (the next rip and RFLAGS), so comparing them checks the
 *    emulator's SYSCALL; the FS/GS bases follow arch_prctl.
 *  - mappings: the emulator's mapping list before and after the call is
 *    diffed piece by piece; new pieces are mapped in the child and filled
 *    with the emulator's bytes, vanished ones unmapped, changed
 *    protections applied.  An mmap result range is always refreshed
 *    (MAP_FIXED over an identical-looking mapping replaces its bytes).
 *  - memory: calls known to write guest memory have their output buffers
 *    copied; a call we do not know (and that did not fail with ENOSYS)
 *    makes us copy every writable page that differs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tools/difftest/difftest.h"

#define PAGE 4096ull
#define MAX_MAPS 65536

int dt_maps_get(elfemu *vm, struct dt_maps *m)
{
    size_t cap = 64;
    for (;;) {
        m->v = malloc(cap * sizeof(*m->v));
        if (!m->v)
            return -1;
        m->n = elfemu_maps(vm, m->v, cap);
        if (m->n <= cap)
            return 0;
        free(m->v);
        if (m->n > MAX_MAPS)
            return -1;
        cap = m->n;
    }
}

void dt_maps_free(struct dt_maps *m)
{
    free(m->v);
    m->v = NULL;
    m->n = 0;
}

uint64_t dt_map_readable_end(const elfemu_map *m)
{
    struct stat st;
    if (m->name[0] == '[' || !m->name[0] || stat(m->name, &st) != 0 || !S_ISREG(st.st_mode))
        return m->end;
    uint64_t size = ((uint64_t)st.st_size + PAGE - 1) & ~(PAGE - 1);
    if (size <= m->offset)
        return m->start;
    return size - m->offset < m->end - m->start ? m->start + (size - m->offset) : m->end;
}

static const elfemu_map *find_map(const struct dt_maps *m, uint64_t a)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->v[mid].end <= a)
            lo = mid + 1;
        else if (m->v[mid].start > a)
            hi = mid;
        else
            return &m->v[mid];
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The same mapping before and after: same file (or none) at the same offset. */
static bool same_origin(const elfemu_map *a, const elfemu_map *b, uint64_t at)
{
    if (strcmp(a->name, b->name) != 0)
        return false;
    if (!a->name[0] || a->name[0] == '[')
        return true;
    return a->offset + (at - a->start) == b->offset + (at - b->start);
}

/* Replay the difference between two mapping lists into the child. */
static int replay_maps(struct native *n, elfemu *vm, const struct dt_maps *old,
                       const struct dt_maps *now)
{
    size_t nb = 2 * (old->n + now->n);
    if (nb == 0)
        return 0;
    uint64_t *bp = malloc(nb * sizeof(*bp));
    if (!bp)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < old->n; i++) {
        bp[k++] = old->v[i].start;
        bp[k++] = old->v[i].end;
    }
    for (size_t i = 0; i < now->n; i++) {
        bp[k++] = now->v[i].start;
        bp[k++] = now->v[i].end;
    }
    qsort(bp, k, sizeof(*bp), cmp_u64);
    int rc = 0;
    for (size_t i = 0; i + 1 < k && rc == 0; i++) {
        uint64_t a = bp[i], b = bp[i + 1];
        if (a == b)
            continue;
        const elfemu_map *o = find_map(old, a), *w = find_map(now, a);
        if (!o && !w)
            continue;
        if (o && !w) {
            if (native_syscall(n, 11 /* munmap */, a, b - a, 0, 0, 0, 0) != 0)
                rc = -1;
        } else if (!o || !same_origin(o, w, a)) {
            rc = mirror_range(n, vm, a, b);
        } else if (o->prot != w->prot) {
            if (native_syscall(n, 10 /* mprotect */, a, b - a, (uint64_t)w->prot, 0, 0, 0) != 0)
                rc = -1;
        }
    }
    free(bp);
    return rc;
}

/* Output buffers of the x86_64 calls we know.  Returns the number of
 * ranges, or -1 for "unknown: sync everything". */
struct range { uint64_t addr, len; };

static void out(struct range *r, int *k, int max, uint64_t addr, uint64_t len)
{
    if (addr && len && *k < max) {
        r[*k].addr = addr;
        r[*k].len = len;
        (*k)++;
    }
}

static int outputs_64(elfemu *vm, uint64_t nr, const uint64_t a[6], int64_t ret,
                      struct range *r, int max)
{
    int k = 0;
    uint64_t pos = ret > 0 ? (uint64_t)ret : 0;
    switch (nr) {
    case 0: case 17: case 78: case 217: case 318:    /* read pread64 getdents(64) getrandom */
        out(r, &k, max, nr == 318 ? a[0] : a[1], pos);
        break;
    case 19: case 295: case 327: {                   /* readv preadv preadv2 */
        uint64_t left = pos;
        for (uint64_t i = 0; i < a[2] && i < 1024 && left; i++) {
            uint64_t iov[2];
            if (elfemu_read(vm, a[1] + 16 * i, iov, sizeof(iov)) != 0)
                break;
            uint64_t l = iov[1] < left ? iov[1] : left;
            out(r, &k, max, iov[0], l);
            left -= l;
        }
        break;
    }
    case 4: case 5: case 6: out(r, &k, max, a[1], 144); break;   /* stat fstat lstat */
    case 262: out(r, &k, max, a[2], 144); break;                 /* newfstatat */
    case 332: out(r, &k, max, a[4], 256); break;                 /* statx */
    case 63: out(r, &k, max, a[0], 390); break;                  /* uname */
    case 228: case 229: out(r, &k, max, a[1], 16); break;        /* clock_gettime clock_getres */
    case 96: out(r, &k, max, a[0], 16); out(r, &k, max, a[1], 8); break;     /* gettimeofday */
    case 201: out(r, &k, max, a[0], 8); break;                   /* time */
    case 35: out(r, &k, max, a[1], 16); break;                   /* nanosleep */
    case 230: out(r, &k, max, a[3], 16); break;                  /* clock_nanosleep */
    case 79: out(r, &k, max, a[0], pos); break;                  /* getcwd */
    case 89: out(r, &k, max, a[1], pos); break;                  /* readlink */
    case 267: out(r, &k, max, a[2], pos); break;                 /* readlinkat */
    case 302: out(r, &k, max, a[3], 16); break;                  /* prlimit64 */
    case 97: out(r, &k, max, a[1], 16); break;                   /* getrlimit */
    case 22: case 293: out(r, &k, max, a[0], 8); break;          /* pipe pipe2 */
    case 53: out(r, &k, max, a[3], 8); break;                    /* socketpair */
    case 158:                                        /* arch_prctl ARCH_GET_FS/GS */
        if (a[0] == 0x1003 || a[0] == 0x1004)
            out(r, &k, max, a[1], 8);
        break;
    case 16:                                         /* ioctl */
        switch (a[1]) {
        case 0x5401: out(r, &k, max, a[2], 36); break;           /* TCGETS */
        case 0x5413: out(r, &k, max, a[2], 8); break;            /* TIOCGWINSZ */
        case 0x540f: case 0x541b: out(r, &k, max, a[2], 4); break; /* TIOCGPGRP FIONREAD */
        default: return ret < 0 ? 0 : -1;
        }
        break;
    case 72:                                         /* fcntl F_GETLK F_OFD_GETLK */
        if (a[1] == 5 || a[1] == 36)
            out(r, &k, max, a[2], 32);
        break;
    case 13: out(r, &k, max, a[2], 32); break;                   /* rt_sigaction oldact */
    case 14: out(r, &k, max, a[2], a[3] <= 128 ? a[3] : 128); break; /* rt_sigprocmask oldset */
    case 131: out(r, &k, max, a[1], 24); break;                  /* sigaltstack */
    case 99: out(r, &k, max, a[0], 112); break;                  /* sysinfo */
    case 100: out(r, &k, max, a[0], 32); break;                  /* times */
    case 98: out(r, &k, max, a[1], 144); break;                  /* getrusage */
    case 61: out(r, &k, max, a[1], 4); out(r, &k, max, a[3], 144); break;    /* wait4 */
    case 7: case 271: out(r, &k, max, a[0], a[1] * 8); break;    /* poll ppoll */
    case 118: case 120: out(r, &k, max, a[0], 4); out(r, &k, max, a[1], 4); out(r, &k, max, a[2], 4); break; /* getres[ug]id */
    case 115: out(r, &k, max, a[1], a[0] * 4); break;            /* getgroups */
    case 204: out(r, &k, max, a[2], pos); break;                 /* sched_getaffinity */
    case 309: out(r, &k, max, a[0], 4); out(r, &k, max, a[1], 4); break;     /* getcpu */
    /* No guest memory written. */
    case 1: case 2: case 3: case 8: case 9: case 10: case 11: case 12: case 18: case 20:
    case 21: case 24: case 25: case 28: case 32: case 33: case 39: case 60: case 62:
    case 74: case 77: case 80: case 81: case 82: case 83: case 84: case 87: case 95:
    case 102: case 104: case 107: case 108: case 110: case 186: case 218: case 231:
    case 234: case 257: case 258: case 263: case 269: case 273: case 292: case 334:
    case 439:
        break;
    default:
        return ret == -ENOSYS ? 0 : -1;
    }
    return k;
}

int replay_syscall(struct native *n, elfemu *vm, const struct dt_options *o,
                   const elfemu_regs *before, const struct dt_maps *maps_before,
                   enum dt_gate gate, unsigned insn_len)
{
    elfemu_regs after;
    elfemu_get_regs(vm, &after);
    bool is64 = n->bits == 64;
    uint64_t nr = is64 ? before->gpr[ELFEMU_RAX] : (uint32_t)before->gpr[ELFEMU_RAX];
    int64_t ret = is64 ? (int64_t)after.gpr[ELFEMU_RAX] : (int32_t)after.gpr[ELFEMU_RAX];
    uint64_t a[6];
    if (is64) {
        const int idx[6] = { ELFEMU_RDI, ELFEMU_RSI, ELFEMU_RDX, 10, 8, 9 };
        for (int i = 0; i < 6; i++)
            a[i] = before->gpr[idx[i]];
    } else {
        const int idx[6] = { ELFEMU_RBX, ELFEMU_RCX, ELFEMU_RDX, ELFEMU_RSI, ELFEMU_RDI,
                             ELFEMU_RBP };
        for (int i = 0; i < 6; i++)
            a[i] = (uint32_t)before->gpr[idx[i]];
        uint32_t arg6;
        if (gate == GATE_SYSENTER && elfemu_read(vm, a[5], &arg6, 4) == 0)
            a[5] = arg6; /* SYSENTER: the sixth argument is at (%ebp) */
    }
    if (o->verbose)
        fprintf(stderr, "difftest: syscall %llu (%#llx, %#llx, %#llx, ...) = %lld\n",
                (unsigned long long)nr, (unsigned long long)a[0], (unsigned long long)a[1],
                (unsigned long long)a[2], (long long)ret);

    /* Registers, as the CPU and the kernel leave them. */
    struct user_regs_struct *r = &n->regs;
    r->rip += insn_len;
    if (gate == GATE_SYSENTER) {
        /* Linux returns to the vDSO's landing pad; ecx and edx are not preserved,
         * and ebp is the sixth argument do_fast_syscall_32() fetched from (%ebp). */
        r->rip = (uint32_t)after.rip;
        r->rcx = (uint32_t)after.gpr[ELFEMU_RCX];
        r->rdx = (uint32_t)after.gpr[ELFEMU_RDX];
        r->rbp = (uint32_t)a[5];
    }
    if (is64) {
        r->rax = after.gpr[ELFEMU_RAX];
        r->rcx = r->rip;
        r->r11 = r->eflags & ~0x10100ull; /* without TF (ours) and RF */
        r->fs_base = after.fs_base;
        r->gs_base = after.gs_base;
    } else {
        r->rax = (uint32_t)after.gpr[ELFEMU_RAX];
    }
    if (native_set_regs(n) != 0)
        return -1;

    /* Mappings. */
    struct dt_maps now;
    if (dt_maps_get(vm, &now) != 0)
        return -1;
    int rc = replay_maps(n, vm, maps_before, &now);
    dt_maps_free(&now);
    if (rc != 0)
        return -1;
    if (is64 && nr == 9 && ret >= 0 && (ret & (PAGE - 1)) == 0 && a[1]) {
        uint64_t len = (a[1] + PAGE - 1) & ~(PAGE - 1);
        if (mirror_range(n, vm, (uint64_t)ret, (uint64_t)ret + len) != 0)
            return -1;
    }
    if (is64 && nr == 28 && ret == 0 && (a[2] == MADV_DONTNEED || a[2] == MADV_FREE) &&
        mirror_copy(n, vm, a[0], a[0] + ((a[1] + PAGE - 1) & ~(PAGE - 1))) != 0)
        return -1;

    /* Memory the call wrote. */
    struct range out[16];
    int k = 0;
    if (o->full_sync)
        k = -1;
    else if (is64)
        k = outputs_64(vm, nr, a, ret, out, 16);
    else
        k = (nr == 1 || nr == 4 || nr == 252 || ret == -ENOSYS) ? 0 : -1;
    if (k < 0 && mirror_sync_writable(n, vm) != 0)
        return -1;
    for (int i = 0; i < k; i++) {
        uint64_t s = out[i].addr & ~(PAGE - 1), e = out[i].addr + out[i].len;
        if (e < s || e > (1ull << 47))
            continue;
        /* Only what the emulator has mapped. */
        for (uint64_t p = s; p < e; p += PAGE) {
            uint64_t pe = p + PAGE < e ? p + PAGE : e;
            uint64_t ps = p < out[i].addr ? out[i].addr : p;
            uint8_t probe;
            if (elfemu_read(vm, ps, &probe, 1) == 0 && mirror_copy(n, vm, ps, pe) != 0)
                return -1;
        }
    }

    /* ia32 TLS: the same GDT entry in the child, through the ia32 table
     * (x86_64's 205 is not served); the struct user_desc now holds the
     * entry number the emulator chose. */
    if (!is64 && nr == 243 && ret == 0) {
        long r = native_syscall32(n, 243, (uint32_t)a[0], 0, 0);
        if (r != 0)
            fprintf(stderr, "elfemu-difftest: set_thread_area in the child failed (%ld)\n", r);
    }
    return 0;
}
