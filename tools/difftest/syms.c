/* Symbols for the report: "name+0x12" for a guest address, through the
 * tools' symbol tables (tools/symbols.c). */
#include "tools/difftest/difftest.h"
#include "tools/symbols.h"

static struct syms *tables;
static elfemu *tables_vm;

const char *dt_sym_lookup(elfemu *vm, uint64_t addr)
{
    static char out[320];
    if (tables && tables_vm != vm)
        dt_syms_free();
    if (!tables) {
        tables = syms_new(vm);
        tables_vm = vm;
    } else {
        syms_changed(tables); /* reports are rare: look at the mappings again */
    }
    out[0] = 0;
    if (tables)
        syms_format(tables, addr, out, sizeof(out));
    return out;
}

void dt_syms_free(void)
{
    syms_free(tables);
    tables = NULL;
    tables_vm = NULL;
}
