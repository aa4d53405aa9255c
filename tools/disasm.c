/* One guest instruction as the tools show it (see disasm.h). */
#include <Zydis/Zydis.h>

#include "tools/disasm.h"

bool disasm_one(int bits, bool att, uint64_t addr, const uint8_t *bytes, size_t len,
                struct disasm *out)
{
    ZydisDecoder dec;
    ZydisFormatter fmt;
    ZydisDecodedInstruction zi;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64
                                                         : ZYDIS_MACHINE_MODE_LEGACY_32,
                                       bits == 64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, len, &zi, ops)) ||
        !ZYAN_SUCCESS(ZydisFormatterInit(&fmt, att ? ZYDIS_FORMATTER_STYLE_ATT
                                                   : ZYDIS_FORMATTER_STYLE_INTEL)) ||
        !ZYAN_SUCCESS(ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE,
                                                ZYAN_FALSE)) ||
        !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fmt, &zi, ops, zi.operand_count_visible,
                                                      out->text, sizeof(out->text), addr, NULL)))
        return false;
    out->len = zi.length;
    out->is_call = zi.mnemonic == ZYDIS_MNEMONIC_CALL;
    ZyanU64 target = 0;
    out->has_target = zi.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE &&
                      zi.operand_count_visible > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                      ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, &ops[0], addr, &target));
    out->target = target;
    return true;
}
