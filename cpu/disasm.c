/* Disassembly for diagnostics (unimplemented instructions) and, later, traces. */
#include <stdio.h>

#include <Zydis/Zydis.h>

#include "cpu/cpu.h"

void cpu_disasm(int bits, const uint8_t *bytes, unsigned len, uint64_t addr, char *buf,
                unsigned size)
{
    ZydisDisassembledInstruction in;
    ZydisMachineMode mode = bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32;
    if (ZYAN_SUCCESS(ZydisDisassembleIntel(mode, addr, bytes, len, &in)))
        snprintf(buf, size, "%s", in.text);
    else
        snprintf(buf, size, "(bad)");
}
