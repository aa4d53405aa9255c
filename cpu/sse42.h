/* Shared between the SSE4.2 family files: cpu/ops_sse42.c (string compares,
 * PCMPGTQ, CRC32, the family decoder) and cpu/ops_sse42_aes.c (AES-NI and
 * PCLMULQDQ). */
#ifndef CPU_SSE42_H
#define CPU_SSE42_H

#include "cpu/decode.h"

/* Operands xmm1, xmm2/m128 [, imm8] into op->x1, op->x2 (or the memory
 * operand) and op->imm; reg or mem becomes the handler.  Legacy encodings
 * only. */
bool dec_sse42_xmm_rm(struct decoder *d, cpu_handler reg, cpu_handler mem);

/* AESENC AESENCLAST AESDEC AESDECLAST AESIMC AESKEYGENASSIST PCLMULQDQ:
 * false for any other mnemonic. */
bool dec_sse42_aes(struct decoder *d);

#endif
