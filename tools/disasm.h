/* One guest instruction as the tools show it (tools/disasm.c): Zydis's
 * Intel or AT&T text with its numbers in lowercase hex, like every address
 * the tools print and like objdump, shared by --trace, elfemu-view and
 * elfemu-difftest so that they all read the same. */
#ifndef TOOLS_DISASM_H
#define TOOLS_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disasm {
    char text[96];      /* "mov dword ptr [rbx+0x08], 0xdeadbeef" */
    unsigned len;       /* the instruction's length in bytes */
    bool is_call;
    bool has_target;    /* a direct call or jump: target is where it goes */
    uint64_t target;
};

/* Decode the instruction at guest address addr from its first len bytes
 * (bits: 64 or 32); false when they are no valid instruction. */
bool disasm_one(int bits, bool att, uint64_t addr, const uint8_t *bytes, size_t len,
                struct disasm *out);

#endif
