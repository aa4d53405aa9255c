/* elfemu-view's layout model (tools/view/mapbar.c, tools/view/stackfig.c)
 * against the loader's data of known guests: which mapping is where on the
 * memory-map bar, and which initial-stack slot points at which string.
 * argv[1] is the folder holding the guest programs. */
#include <check.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "elfemu.h"
#include "tools/view/mapbar.h"
#include "tools/view/stackfig.h"

static const char *guest_dir;

static elfemu *load(const char *name, char *const *argv, char *const *envp)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", guest_dir, name);
    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.have_seed = true;
    cfg.seed = 7;
    elfemu *vm = elfemu_create(&cfg);
    ck_assert_ptr_nonnull(vm);
    elfemu_error err;
    ck_assert_msg(elfemu_load(vm, path, argv, envp, &err) == 0, "%s", err.message);
    return vm;
}

static char *const ARGV[] = { "prog", "one", "two words", NULL };
static char *const ENVP[] = { "ELFEMU_TEST=yes", "B=2", NULL };

/* The bar: highest first, entries touching (gaps fill the holes), rows
 * contiguous from 0 to the height. */
static void check_bar_shape(const struct mapbar *bar, int height)
{
    ck_assert_uint_gt(bar->n, 3);
    ck_assert_int_eq(bar->e[0].y0, 0);
    ck_assert_int_eq(bar->e[bar->n - 1].y1, height);
    for (size_t i = 0; i < bar->n; i++) {
        ck_assert_uint_lt(bar->e[i].start, bar->e[i].end);
        ck_assert_int_lt(bar->e[i].y0, bar->e[i].y1);
        if (i > 0) {
            ck_assert_uint_eq(bar->e[i].end, bar->e[i - 1].start);
            ck_assert_int_eq(bar->e[i].y0, bar->e[i - 1].y1);
            /* Two gaps never follow each other. */
            ck_assert(!(bar->e[i].kind == MAPBAR_GAP && bar->e[i - 1].kind == MAPBAR_GAP));
        }
    }
}

static const struct mapbar_entry *entry_at(const struct mapbar *bar, uint64_t addr)
{
    int i = mapbar_find(bar, addr);
    ck_assert_int_ge(i, 0);
    return &bar->e[i];
}

START_TEST(bar_static)
{
    elfemu *vm = load("showargs_64_static", ARGV, ENVP);
    const elfemu_load_info *li = elfemu_get_load_info(vm);
    struct mapbar bar;
    ck_assert_int_eq(mapbar_build_vm(&bar, vm), 0);
    mapbar_layout(&bar, 600);
    check_bar_shape(&bar, 600);

    /* Each PT_LOAD's file pages are a program entry with its permissions,
     * named after the program and the segment's role. */
    for (unsigned i = 0; i < li->program.nsegments; i++) {
        const elfemu_segment *s = &li->program.segments[i];
        const struct mapbar_entry *e = entry_at(&bar, s->map_start);
        ck_assert_int_eq(e->kind, MAPBAR_PROGRAM);
        ck_assert_int_eq(e->prot, s->prot);
        ck_assert_msg(!strncmp(e->label, "showargs_64_static ", 19), "%s", e->label);
        const char *role = (s->prot & PROT_EXEC) ? "text" : (s->prot & PROT_WRITE) ? "data" : "rodata";
        ck_assert_str_eq(e->label + 19, role);
    }
    /* bss_data[4096] spans pages: anonymous zero pages past the file's. */
    bool saw_bss = false;
    for (unsigned i = 0; i < li->program.nsegments; i++) {
        const elfemu_segment *s = &li->program.segments[i];
        if (s->bss_end > s->map_end) {
            const struct mapbar_entry *e = entry_at(&bar, s->map_end);
            ck_assert_int_eq(e->kind, MAPBAR_BSS);
            ck_assert_int_eq(e->prot, PROT_READ | PROT_WRITE);
            ck_assert_str_eq(e->label, "showargs_64_static bss");
            saw_bss = true;
        }
    }
    ck_assert(saw_bss);
    ck_assert_int_eq(entry_at(&bar, li->entry)->kind, MAPBAR_PROGRAM);
    ck_assert(entry_at(&bar, li->entry)->prot & PROT_EXEC);

    const struct mapbar_entry *stack = entry_at(&bar, li->sp);
    ck_assert_int_eq(stack->kind, MAPBAR_STACK);
    ck_assert_uint_eq(stack->start, li->stack_low);
    ck_assert_uint_eq(stack->end, li->stack_top);
    ck_assert_str_eq(stack->label, "[stack]");
    const struct mapbar_entry *vdso = entry_at(&bar, li->vdso_base);
    ck_assert_int_eq(vdso->kind, MAPBAR_VDSO);
    ck_assert(vdso->prot & PROT_EXEC);
    /* Log-scaled: the 8 MiB stack is taller than the vDSO's page, but
     * not 2048 times taller. */
    ck_assert_int_gt(stack->y1 - stack->y0, vdso->y1 - vdso->y0);
    ck_assert_int_lt(stack->y1 - stack->y0, 20 * (vdso->y1 - vdso->y0));
    /* The stack is the highest mapping: at the top of the bar. */
    ck_assert_int_eq(bar.e[0].kind, MAPBAR_STACK);
    /* Between the program and the vDSO nothing is mapped. */
    ck_assert_int_eq(entry_at(&bar, li->program.end + 0x100000)->kind, MAPBAR_GAP);
    ck_assert_int_eq(mapbar_find(&bar, li->stack_top), -1);
    mapbar_free(&bar);
    elfemu_destroy(vm);
}
END_TEST

/* A dynamic program at its first instruction: the program and ld.so are
 * mapped (no shared object yet); then, run to its end, libc is there. */
START_TEST(bar_dynamic)
{
    elfemu *vm = load("showargs_64_dyn", ARGV, ENVP);
    const elfemu_load_info *li = elfemu_get_load_info(vm);
    ck_assert(li->has_interp);
    struct mapbar bar;
    ck_assert_int_eq(mapbar_build_vm(&bar, vm), 0);
    mapbar_layout(&bar, 700);
    check_bar_shape(&bar, 700);
    const struct mapbar_entry *ld = entry_at(&bar, li->interp.entry);
    ck_assert_int_eq(ld->kind, MAPBAR_INTERP);
    ck_assert(ld->prot & PROT_EXEC);
    ck_assert_msg(strstr(ld->label, "ld-linux") && strstr(ld->label, " text"), "%s", ld->label);
    ck_assert_int_eq(entry_at(&bar, li->program.entry)->kind, MAPBAR_PROGRAM);
    for (size_t i = 0; i < bar.n; i++)
        ck_assert_int_ne(bar.e[i].kind, MAPBAR_LIBRARY);
    mapbar_free(&bar);

    /* Step until libc's text is mapped (ld.so maps it before main). */
    elfemu_exit x;
    bool saw_libc = false;
    for (int steps = 0; steps < 5000000 && !saw_libc; steps++) {
        ck_assert_int_eq(elfemu_step(vm, &x), 0);
        elfemu_regs r;
        elfemu_get_regs(vm, &r);
        if (r.rip >= li->program.start && r.rip < li->program.end) {
            ck_assert_int_eq(mapbar_build_vm(&bar, vm), 0);
            for (size_t i = 0; i < bar.n; i++)
                if (bar.e[i].kind == MAPBAR_LIBRARY && strstr(bar.e[i].label, "libc.so") &&
                    (bar.e[i].prot & PROT_EXEC))
                    saw_libc = true;
            mapbar_free(&bar);
        }
    }
    ck_assert(saw_libc);
    elfemu_destroy(vm);
}
END_TEST

static const struct stackfig_slot *target_of(const struct stackfig *f, const struct stackfig_slot *s)
{
    ck_assert_msg(s->target >= 0, "%s points nowhere", s->text);
    return &f->slots[s->target];
}

static void check_figure(const char *name, int bits, const char *platform)
{
    elfemu *vm = load(name, ARGV, ENVP);
    const elfemu_load_info *li = elfemu_get_load_info(vm);
    struct stackfig f;
    ck_assert_int_eq(stackfig_build(&f, vm, li), 0);
    unsigned w = bits / 8;
    /* The slots tile [sp, top) from the top down with no hole. */
    ck_assert_uint_eq(f.slots[0].addr + f.slots[0].size, li->stack_top);
    ck_assert_int_eq(f.slots[0].kind, SF_END_MARKER);
    for (size_t i = 1; i < f.n; i++)
        ck_assert_msg(f.slots[i].addr + f.slots[i].size == f.slots[i - 1].addr,
                      "hole below %s", f.slots[i - 1].text);
    const struct stackfig_slot *argc = &f.slots[f.n - 1];
    ck_assert_int_eq(argc->kind, SF_ARGC);
    ck_assert_uint_eq(argc->addr, li->sp);
    ck_assert_uint_eq(argc->value, 3);
    ck_assert_str_eq(argc->text, "argc=3");

    unsigned nargv = 0, nenvp = 0, nauxv = 0;
    bool random = false, platform_seen = false, execfn = false, pagesz = false, null_seen = false;
    for (size_t i = 0; i < f.n; i++) {
        const struct stackfig_slot *s = &f.slots[i];
        char want[128];
        switch (s->kind) {
        case SF_ARGV:
            ck_assert_uint_eq(s->addr, li->argv_addr + s->index * w);
            ck_assert_int_eq(target_of(&f, s)->kind, SF_ARG_STRING);
            ck_assert_uint_eq(target_of(&f, s)->addr, s->value);
            ck_assert_uint_eq(target_of(&f, s)->index, s->index);
            snprintf(want, sizeof(want), "'%s\\0'", ARGV[s->index]);
            ck_assert_str_eq(target_of(&f, s)->text, want);
            ck_assert_uint_eq(target_of(&f, s)->size, strlen(ARGV[s->index]) + 1);
            nargv++;
            break;
        case SF_ENVP:
            ck_assert_int_eq(target_of(&f, s)->kind, SF_ENV_STRING);
            snprintf(want, sizeof(want), "'%s\\0'", ENVP[s->index]);
            ck_assert_str_eq(target_of(&f, s)->text, want);
            nenvp++;
            break;
        case SF_ARGV_NULL:
        case SF_ENVP_NULL:
            ck_assert_uint_eq(s->value, 0);
            ck_assert_int_eq(s->target, -1);
            break;
        case SF_AUXV:
            nauxv++;
            if (s->aux_type == AT_RANDOM) {
                ck_assert_int_eq(target_of(&f, s)->kind, SF_RANDOM);
                ck_assert_uint_eq(target_of(&f, s)->addr, li->random_addr);
                snprintf(want, sizeof(want), "AT_RANDOM(25)=%#llx",
                         (unsigned long long)li->random_addr);
                ck_assert_str_eq(s->text, want);
                random = true;
            } else if (s->aux_type == AT_PLATFORM) {
                ck_assert_int_eq(target_of(&f, s)->kind, SF_PLATFORM);
                snprintf(want, sizeof(want), "'%s\\0'", platform);
                ck_assert_str_eq(target_of(&f, s)->text, want);
                platform_seen = true;
            } else if (s->aux_type == AT_EXECFN) {
                const struct stackfig_slot *t = target_of(&f, s);
                ck_assert_int_eq(t->kind, SF_EXECFN);
                /* The guest's string is the path; the slot's text quotes it,
                 * shortened with "..." past 55 characters (so the test
                 * must not depend on how deep the build directory is). */
                char full[PATH_MAX], quoted[PATH_MAX + 8];
                ck_assert_int_eq(elfemu_read(vm, t->addr, full, t->size), 0);
                ck_assert_uint_eq(full[t->size - 1], 0);
                ck_assert_msg(strstr(full, name) != NULL, "%s", full);
                size_t keep = strlen(full) > 55 ? 55 : strlen(full);
                snprintf(quoted, sizeof(quoted), "'%.*s", (int)keep, full);
                ck_assert_msg(strncmp(t->text, quoted, keep + 1) == 0, "%s", t->text);
                execfn = true;
            } else if (s->aux_type == AT_PAGESZ) {
                ck_assert_str_eq(s->text, "AT_PAGESZ(6)=4096");
                pagesz = true;
            } else if (s->aux_type == AT_NULL) {
                ck_assert_str_eq(s->text, "AT_NULL(0)=0");
                null_seen = true;
            } else if (s->aux_type == AT_PHDR || s->aux_type == AT_ENTRY ||
                       s->aux_type == AT_SYSINFO_EHDR) {
                /* Pointers out of the stack: no arrow inside the figure. */
                ck_assert(stackfig_is_pointer(s));
                ck_assert_int_eq(s->target, -1);
            }
            ck_assert_int_eq(s->band, SF_BAND_AUXV);
            break;
        case SF_RANDOM:
            ck_assert_uint_eq(s->size, 16);
            ck_assert(!strncmp(s->text, "random data: ", 13));
            ck_assert_uint_eq(strlen(s->text), 13 + 32);
            break;
        case SF_PADDING:
        case SF_ALIGN_GAP: {
            /* "1 byte of ...", "15 bytes of ...": the hole's size, in words. */
            char n_bytes[32];
            snprintf(n_bytes, sizeof(n_bytes), "%llu byte%s of ", (unsigned long long)s->size,
                     s->size == 1 ? "" : "s");
            ck_assert_msg(!strncmp(s->text, n_bytes, strlen(n_bytes)), "%s", s->text);
            break;
        }
        default:
            break;
        }
    }
    ck_assert_uint_eq(nargv, 3);
    ck_assert_uint_eq(nenvp, 2);
    ck_assert_uint_eq(nauxv, li->nauxv);
    ck_assert(random && platform_seen && execfn && pagesz && null_seen);
    /* The bands come in the figure's order, top down. */
    for (size_t i = 1; i < f.n; i++)
        ck_assert_int_ge(f.slots[i].band, f.slots[i - 1].band);
    ck_assert_int_eq(stackfig_find(&f, li->sp), (int)f.n - 1);
    ck_assert_int_eq(stackfig_find(&f, li->stack_top), -1);
    stackfig_free(&f);
    elfemu_destroy(vm);
}

START_TEST(figure_x86_64_static) { check_figure("showargs_64_static", 64, "x86_64"); }
END_TEST
START_TEST(figure_x86_64_dynamic) { check_figure("showargs_64_dyn", 64, "x86_64"); }
END_TEST
START_TEST(figure_ia32_static) { check_figure("showargs_32_static", 32, "i686"); }
END_TEST

int main(int argc, char **argv)
{
    guest_dir = argc > 1 ? argv[1] : ".";
    Suite *s = suite_create("view_layout");
    TCase *t = tcase_create("model");
    tcase_add_test(t, bar_static);
    tcase_add_test(t, bar_dynamic);
    tcase_add_test(t, figure_x86_64_static);
    tcase_add_test(t, figure_x86_64_dynamic);
    tcase_add_test(t, figure_ia32_static);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
