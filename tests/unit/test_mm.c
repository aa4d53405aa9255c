/* mm/: VMA splitting and merging, translation bounds, host mappings, faults. */
#include <check.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mm/space.h"

static struct mm_vma anon(uint64_t s, uint64_t e, int prot)
{
    return (struct mm_vma){ .start = s, .end = e, .prot = prot, .flags = MM_VMA_ANON, .name = "" };
}

static void expect(const struct mm_vmas *l, size_t i, uint64_t s, uint64_t e, int prot)
{
    ck_assert_uint_lt(i, l->n);
    ck_assert_uint_eq(l->v[i].start, s);
    ck_assert_uint_eq(l->v[i].end, e);
    ck_assert_int_eq(l->v[i].prot, prot);
}

START_TEST(vma_insert_merge)
{
    struct mm_vmas l = { 0 };
    struct mm_vma a = anon(0x1000, 0x3000, PROT_READ), b = anon(0x3000, 0x5000, PROT_READ);
    ck_assert_int_eq(mm_vmas_insert(&l, &a), 0);
    ck_assert_int_eq(mm_vmas_insert(&l, &b), 0);
    ck_assert_uint_eq(l.n, 1); /* adjacent, same everything: merged */
    expect(&l, 0, 0x1000, 0x5000, PROT_READ);
    struct mm_vma c = anon(0x6000, 0x7000, PROT_READ | PROT_WRITE);
    ck_assert_int_eq(mm_vmas_insert(&l, &c), 0);
    ck_assert_uint_eq(l.n, 2);
    /* different prot in the middle splits into three */
    struct mm_vma d = anon(0x2000, 0x3000, PROT_READ | PROT_WRITE);
    ck_assert_int_eq(mm_vmas_insert(&l, &d), 0);
    ck_assert_uint_eq(l.n, 4);
    expect(&l, 0, 0x1000, 0x2000, PROT_READ);
    expect(&l, 1, 0x2000, 0x3000, PROT_READ | PROT_WRITE);
    expect(&l, 2, 0x3000, 0x5000, PROT_READ);
    expect(&l, 3, 0x6000, 0x7000, PROT_READ | PROT_WRITE);
    mm_vmas_free(&l);
}
END_TEST

START_TEST(vma_remove_and_protect)
{
    struct mm_vmas l = { 0 };
    struct mm_vma a = anon(0x10000, 0x20000, PROT_READ | PROT_WRITE);
    mm_vmas_insert(&l, &a);
    ck_assert_int_eq(mm_vmas_remove(&l, 0x14000, 0x16000), 0);
    ck_assert_uint_eq(l.n, 2);
    expect(&l, 0, 0x10000, 0x14000, PROT_READ | PROT_WRITE);
    expect(&l, 1, 0x16000, 0x20000, PROT_READ | PROT_WRITE);
    ck_assert_ptr_null(mm_vmas_find(&l, 0x15000));
    ck_assert_ptr_nonnull(mm_vmas_find(&l, 0x16000));
    ck_assert_ptr_null(mm_vmas_find(&l, 0x20000));
    /* protect across the hole and both pieces, then back: merges again */
    ck_assert_int_eq(mm_vmas_protect(&l, 0x12000, 0x18000, PROT_READ), 0);
    ck_assert_uint_eq(l.n, 4);
    expect(&l, 0, 0x10000, 0x12000, PROT_READ | PROT_WRITE);
    expect(&l, 1, 0x12000, 0x14000, PROT_READ);
    expect(&l, 2, 0x16000, 0x18000, PROT_READ);
    expect(&l, 3, 0x18000, 0x20000, PROT_READ | PROT_WRITE);
    ck_assert_int_eq(mm_vmas_protect(&l, 0x10000, 0x20000, PROT_READ | PROT_WRITE), 0);
    ck_assert_uint_eq(l.n, 2);
    /* removing everything, including ranges that were never mapped */
    ck_assert_int_eq(mm_vmas_remove(&l, 0, 0x100000), 0);
    ck_assert_uint_eq(l.n, 0);
    mm_vmas_free(&l);
}
END_TEST

START_TEST(vma_file_offsets)
{
    struct mm_vmas l = { 0 };
    struct mm_vma f1 = { .start = 0x1000, .end = 0x3000, .prot = PROT_READ, .offset = 0,
                         .dev = 1, .ino = 2, .name = "/x" };
    struct mm_vma f2 = f1;
    f2.start = 0x3000;
    f2.end = 0x4000;
    f2.offset = 0x2000; /* contiguous in the file: merges */
    mm_vmas_insert(&l, &f1);
    mm_vmas_insert(&l, &f2);
    ck_assert_uint_eq(l.n, 1);
    struct mm_vma f3 = f1;
    f3.start = 0x4000;
    f3.end = 0x5000;
    f3.offset = 0x9000; /* not contiguous: stays apart */
    mm_vmas_insert(&l, &f3);
    ck_assert_uint_eq(l.n, 2);
    /* splitting keeps offsets right */
    mm_vmas_protect(&l, 0x2000, 0x3000, PROT_NONE);
    ck_assert_uint_eq(l.n, 4);
    ck_assert_uint_eq(l.v[1].offset, 0x1000);
    ck_assert_uint_eq(l.v[2].offset, 0x2000);
    ck_assert_str_eq(l.v[2].name, "/x");
    mm_vmas_free(&l);
}
END_TEST

START_TEST(translation_bounds)
{
    struct mm_space mm;
    ck_assert_int_eq(mm_space_init(&mm, 32), 0);
    ck_assert_uint_eq(mm.size, 1ull << 32);
    ck_assert_ptr_eq(mm_g2h(&mm, 0, 1), mm.base);
    ck_assert_ptr_eq(mm_g2h(&mm, 0xffffffff, 1), mm.base + 0xffffffffull);
    ck_assert_ptr_null(mm_g2h(&mm, 0xffffffff, 2));
    ck_assert_ptr_null(mm_g2h(&mm, 1ull << 32, 1));
    ck_assert_ptr_null(mm_g2h(&mm, UINT64_MAX, 1));
    ck_assert_ptr_null(mm_g2h(&mm, UINT64_MAX - 3, 8)); /* wraps */
    ck_assert_ptr_null(mm_g2h(&mm, 0, (1ull << 32) + 1));
    mm_space_destroy(&mm);
    ck_assert_int_eq(mm_space_init(&mm, 64), 0);
    ck_assert_uint_eq(mm.size, 1ull << 46);
    ck_assert_ptr_nonnull(mm_g2h(&mm, (1ull << 46) - 8, 8));
    ck_assert_ptr_null(mm_g2h(&mm, (1ull << 46) - 7, 8));
    ck_assert_ptr_null(mm_g2h(&mm, 0x800000000000ull, 1));
    ck_assert_ptr_null(mm_g2h(&mm, 0xffff800000000000ull, 1));
    mm_space_destroy(&mm);
}
END_TEST

START_TEST(map_protect_unmap)
{
    struct mm_space mm;
    ck_assert_int_eq(mm_space_init(&mm, 64), 0);
    ck_assert_int_eq(mm_map_anon(&mm, 0x400000, 0x3000, PROT_READ | PROT_WRITE, 0, "a"), 0);
    ck_assert(mm_check(&mm, 0x400000, 0x3000, PROT_WRITE));
    ck_assert(!mm_check(&mm, 0x400000, 0x3001, PROT_READ));
    uint32_t v = 0xdeadbeef, r = 0;
    ck_assert_int_eq(mm_write(&mm, 0x401ffe, &v, 4), 0);
    ck_assert_int_eq(mm_read(&mm, 0x401ffe, &r, 4), 0);
    ck_assert_uint_eq(r, v);
    ck_assert_int_eq(mm_protect(&mm, 0x401000, 0x1000, PROT_READ), 0);
    ck_assert_uint_eq(mm.vmas.n, 3);
    ck_assert_int_eq(mm_write(&mm, 0x401000, &v, 4), -14 /* -EFAULT */);
    ck_assert_int_eq(mm_read(&mm, 0x401000, &r, 4), 0);
    /* mprotect over a hole fails like Linux (ENOMEM) */
    ck_assert_int_eq(mm_protect(&mm, 0x402000, 0x2000, PROT_READ), -12);
    ck_assert_int_eq(mm_unmap(&mm, 0x400000, 0x1000), 0);
    ck_assert(!mm_check(&mm, 0x400000, 1, PROT_READ));
    ck_assert_int_eq(mm_read(&mm, 0x400000, &r, 4), -14);
    /* misaligned and out-of-space requests are refused */
    ck_assert_int_eq(mm_map_anon(&mm, 0x400001, 0x1000, PROT_READ, 0, ""), -22);
    ck_assert_int_eq(mm_map_anon(&mm, (1ull << 46) - 0x1000, 0x2000, PROT_READ, 0, ""), -22);
    mm_space_destroy(&mm);
}
END_TEST

START_TEST(find_free_top_down)
{
    struct mm_space mm;
    ck_assert_int_eq(mm_space_init(&mm, 32), 0);
    mm.mmap_base = 0xf7ffe000;
    uint64_t a = mm_find_free(&mm, 0x5000, 0);
    ck_assert_uint_eq(a, 0xf7ffe000 - 0x5000);
    mm_map_anon(&mm, a, 0x5000, PROT_READ, 0, "");
    uint64_t b = mm_find_free(&mm, 0x1000, 0);
    ck_assert_uint_eq(b, a - 0x1000);
    uint64_t c = mm_find_free(&mm, 0x1000, 0x100000);
    ck_assert_uint_eq(c & 0xfffff, 0);
    ck_assert_uint_lt(c, a);
    ck_assert_uint_eq(mm_find_free(&mm, 1ull << 33, 0), 0);
    mm_space_destroy(&mm);
}
END_TEST

/* A host fault inside the space becomes a guest fault record. */
START_TEST(fault_record)
{
    struct mm_space mm;
    ck_assert_int_eq(mm_space_init(&mm, 32), 0);
    ck_assert_int_eq(mm_fault_install(), 0);
    mm_map_anon(&mm, 0x10000, 0x1000, PROT_READ, 0, "");
    sigjmp_buf jmp;
    struct mm_fault f;
    volatile int stage = 0;
    if (sigsetjmp(jmp, 1) == 0) {
        mm_fault_arm(&mm, &jmp, &f);
        stage = 1;
        *(volatile uint8_t *)(mm.base + 0x10004) = 1; /* read-only page: write fault */
        stage = 2;
    }
    mm_fault_disarm();
    ck_assert_int_eq(stage, 1);
    ck_assert_uint_eq(f.addr, 0x10004);
    ck_assert_int_eq(f.access, MM_ACCESS_WRITE);
    stage = 0;
    if (sigsetjmp(jmp, 1) == 0) {
        mm_fault_arm(&mm, &jmp, &f);
        stage = 1;
        (void)*(volatile uint8_t *)(mm.base + 0x12345678); /* unmapped: read fault */
        stage = 2;
    }
    mm_fault_disarm();
    ck_assert_int_eq(stage, 1);
    ck_assert_uint_eq(f.addr, 0x12345678);
    ck_assert_int_eq(f.access, MM_ACCESS_READ);
    mm_space_destroy(&mm);
}
END_TEST

/* A fault outside the space is an emulator bug: loud message, death by SIGSEGV. */
START_TEST(fault_outside_is_fatal)
{
    mm_fault_install();
    volatile uintptr_t bad = 16;
    *(volatile int *)bad = 1;
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mm");
    TCase *t = tcase_create("core");
    tcase_add_test(t, vma_insert_merge);
    tcase_add_test(t, vma_remove_and_protect);
    tcase_add_test(t, vma_file_offsets);
    tcase_add_test(t, translation_bounds);
    tcase_add_test(t, map_protect_unmap);
    tcase_add_test(t, find_free_top_down);
    tcase_add_test(t, fault_record);
    tcase_add_test_raise_signal(t, fault_outside_is_fatal, SIGSEGV);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
