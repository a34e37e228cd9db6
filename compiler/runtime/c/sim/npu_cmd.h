/* npu_cmd.h: command streams for the npu (target `npu-cmd`), executed by npu_cmd.c.
 *
 * A stream is a static binary program of one region: 32-bit little-endian words, a
 * header, then (each section at a multiple of the instruction set's alignment) the
 * commands, a data section (per-channel arrays) and a relocation table (two words per
 * entry: the index of a command's first word in the commands section, then
 * base | field << 16: the base the field (its index in the command's fields) is relative
 * to: a host address field is base + its value, a scratchpad field of a buffer passed
 * as a region parameter is the base's scratchpad offset + its value). The *encoding* (opcodes, the word, bit and width of
 * every field, enum codes, the header's words) is not written here: it comes from the
 * target description as a table (`npu_cmd_isa`, a header the compiler generates), so a
 * different encoding needs no change of this decoder. What the commands *do* is fixed
 * (the operations below, each one npu.h call: same kernels, counters and timeline).
 *
 * npu_cmd_submit checks the whole stream before running any of it: the header (magic,
 * version, section sizes within the stream, the configuration words against the
 * device's), every command (a known opcode, its length, enum codes, scratchpad offsets
 * inside the scratchpad, data arrays inside the data section, waits for transfers
 * already issued, an `end` last), every relocation (to an address field, a known base,
 * each field once, every host address relocated). A malformed stream prints ONE line
 * `npu-cmd: error: stream <name>: <what> (at byte N)` and exits with status 3; nothing
 * is read past the stream's end. The checks after relocation run on a patched copy,
 * which then runs, command by command, on the npu.
 */
#ifndef ACC_NPU_CMD_H
#define ACC_NPU_CMD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Operations (accel.compiler.targets.isa.OPS). */
typedef enum npu_cmd_op {
    NPU_CMD_OP_DMA_TO_DEVICE, NPU_CMD_OP_DMA_TO_HOST, NPU_CMD_OP_DMA_WAIT, NPU_CMD_OP_BARRIER, NPU_CMD_OP_END,
    NPU_CMD_OP_CONV2D_F32, NPU_CMD_OP_CONV2D_Q8, NPU_CMD_OP_MATMUL_F32, NPU_CMD_OP_MATMUL_Q8, NPU_CMD_OP_POOL_F32,
    NPU_CMD_OP_POOL_Q8, NPU_CMD_OP_ELTWISE_F32, NPU_CMD_OP_ELTWISE_Q8, NPU_CMD_OP_QUANTIZE, NPU_CMD_OP_DEQUANTIZE,
    NPU_CMD_OP_ROWS_F32, NPU_CMD_OP_ROWS_Q8,
    NPU_CMD_OP_DMA_ON_DEVICE,
    NPU_CMD_N_OPS
} npu_cmd_op;

/* Fields (accel.compiler.targets.isa.FIELDS); one meaning in every command. */
typedef enum npu_cmd_field_id {
    NPU_CMD_F_ELEM_BYTES, NPU_CMD_F_RANK, NPU_CMD_F_SPM, NPU_CMD_F_HOST,
    NPU_CMD_F_SHAPE0, NPU_CMD_F_SHAPE1, NPU_CMD_F_SHAPE2, NPU_CMD_F_SHAPE3,
    NPU_CMD_F_SPM_STRIDE0, NPU_CMD_F_SPM_STRIDE1, NPU_CMD_F_SPM_STRIDE2, NPU_CMD_F_SPM_STRIDE3,
    NPU_CMD_F_HOST_STRIDE0, NPU_CMD_F_HOST_STRIDE1, NPU_CMD_F_HOST_STRIDE2, NPU_CMD_F_HOST_STRIDE3,
    NPU_CMD_F_TOKEN,
    NPU_CMD_F_X, NPU_CMD_F_WEIGHT, NPU_CMD_F_BIAS, NPU_CMD_F_RHS, NPU_CMD_F_GAMMA, NPU_CMD_F_BETA, NPU_CMD_F_Y,
    NPU_CMD_F_N, NPU_CMD_F_C, NPU_CMD_F_H, NPU_CMD_F_W, NPU_CMD_F_OC, NPU_CMD_F_KH, NPU_CMD_F_KW, NPU_CMD_F_OH,
    NPU_CMD_F_OW, NPU_CMD_F_STRIDE_H, NPU_CMD_F_STRIDE_W, NPU_CMD_F_PAD_TOP, NPU_CMD_F_PAD_LEFT,
    NPU_CMD_F_PAD_BOTTOM, NPU_CMD_F_PAD_RIGHT, NPU_CMD_F_DIL_H, NPU_CMD_F_DIL_W, NPU_CMD_F_GROUPS,
    NPU_CMD_F_BATCH, NPU_CMD_F_M, NPU_CMD_F_K, NPU_CMD_F_TRANSPOSE_A, NPU_CMD_F_TRANSPOSE_B,
    NPU_CMD_F_ACCUMULATE, NPU_CMD_F_COUNT_INCLUDE_PAD, NPU_CMD_F_COUNT, NPU_CMD_F_RHS_COUNT,
    NPU_CMD_F_ROW_LENGTH, NPU_CMD_F_WEIGHT_ZERO_POINT_LEN, NPU_CMD_F_IN_SCALE_LEN,
    NPU_CMD_F_ACT, NPU_CMD_F_ACT_MIN, NPU_CMD_F_ACT_MAX,
    NPU_CMD_F_X_DTYPE, NPU_CMD_F_W_DTYPE, NPU_CMD_F_RHS_DTYPE, NPU_CMD_F_Y_DTYPE,
    NPU_CMD_F_POOL_KIND, NPU_CMD_F_ELTWISE_KIND, NPU_CMD_F_ROWS_KIND,
    NPU_CMD_F_INPUT_ZERO_POINT, NPU_CMD_F_RHS_ZERO_POINT, NPU_CMD_F_OUT_ZERO_POINT,
    NPU_CMD_F_X_SCALE, NPU_CMD_F_RHS_SCALE, NPU_CMD_F_OUT_SCALE, NPU_CMD_F_EPSILON,
    NPU_CMD_F_WEIGHT_ZERO_POINT, NPU_CMD_F_IN_SCALE,
    NPU_CMD_F_SRC_SPM, NPU_CMD_F_SRC_STRIDE0, NPU_CMD_F_SRC_STRIDE1, NPU_CMD_F_SRC_STRIDE2, NPU_CMD_F_SRC_STRIDE3,
    NPU_CMD_F_TABLE, NPU_CMD_F_TABLE_LEN,
    NPU_CMD_N_FIELDS
} npu_cmd_field_id;

/* How a field's bits read: unsigned, two's complement, float32 bits, a scratchpad byte
 * offset (all ones: absent), a 64-bit host address (relocated), a byte offset into the
 * data section, an enum code. */
typedef enum npu_cmd_kind {
    NPU_CMD_K_UINT, NPU_CMD_K_INT, NPU_CMD_K_F32, NPU_CMD_K_SPM, NPU_CMD_K_HOST, NPU_CMD_K_DATA, NPU_CMD_K_ENUM
} npu_cmd_kind;

/* Enumerations; a value's number is its position in accel.compiler.targets.isa.ENUMS
 * (the order of npu.h's npu_act, npu_qtype, npu_pool_kind, npu_eltwise_kind, npu_row_kind). */
typedef enum npu_cmd_enum_id {
    NPU_CMD_E_ACTIVATION, NPU_CMD_E_DTYPE, NPU_CMD_E_POOL_KIND, NPU_CMD_E_ELTWISE_KIND, NPU_CMD_E_ROWS_KIND,
    NPU_CMD_N_ENUMS
} npu_cmd_enum_id;

/* Header words. */
typedef enum npu_cmd_header_word {
    NPU_CMD_H_MAGIC, NPU_CMD_H_VERSION, NPU_CMD_H_COMMANDS_BYTES, NPU_CMD_H_DATA_BYTES, NPU_CMD_H_RELOCS,
    NPU_CMD_H_BASES,
    NPU_CMD_H_CONFIG_MEMORY_SCRATCHPAD_BYTES, NPU_CMD_H_CONFIG_MEMORY_ALIGNMENT, NPU_CMD_H_CONFIG_MEMORY_SHARED_WITH_HOST,
    NPU_CMD_H_CONFIG_DMA_BYTES_PER_CYCLE, NPU_CMD_H_CONFIG_DMA_SETUP_CYCLES, NPU_CMD_H_CONFIG_COMPUTE_MACS_PER_CYCLE_F32,
    NPU_CMD_H_CONFIG_COMPUTE_MACS_PER_CYCLE_INT8, NPU_CMD_H_CONFIG_COMPUTE_ELEMENTWISE_PER_CYCLE,
    NPU_CMD_N_HEADER_WORDS
} npu_cmd_header_word;

/* Bits [bit, bit + width) of word `word` of a command (width 64: words word, word + 1). */
typedef struct npu_cmd_bits {
    uint8_t word, bit, width;
} npu_cmd_bits;

typedef struct npu_cmd_field {
    uint16_t id;   /* npu_cmd_field_id */
    uint8_t kind;  /* npu_cmd_kind */
    uint8_t enum_id;
    npu_cmd_bits at;
} npu_cmd_field;

typedef struct npu_cmd_command {
    const char *name;
    uint32_t opcode;
    uint16_t op; /* npu_cmd_op */
    uint16_t words;
    uint16_t n_fields;
    const npu_cmd_field *fields;
} npu_cmd_command;

typedef struct npu_cmd_enum {
    uint8_t enum_id, value; /* value: the position in its enumeration */
    uint32_t code;
} npu_cmd_enum;

/* An instruction set: what the compiler generates from a description's [isa]. */
typedef struct npu_cmd_isa {
    const char *name;
    uint32_t magic, version, alignment;
    npu_cmd_bits opcode, length;
    const uint16_t *header; /* npu_cmd_header_word, in stream order */
    uint16_t n_header;
    const npu_cmd_command *commands;
    uint16_t n_commands;
    const npu_cmd_enum *enums;
    uint16_t n_enums;
} npu_cmd_isa;

/* Checks, relocates and runs `stream` (`bytes` long; `name` for messages) on the npu
 * (npu_init first). bases: the region's host buffers, then the arena, then the weights.
 * Returns a submission handle (> 0) for npu_cmd_wait. A malformed stream is fatal (see
 * above); a command the npu refuses (inconsistent parameters) ends the stream there and
 * its status is the submission's. */
int64_t npu_cmd_submit(const npu_cmd_isa *isa, const char *name, const uint8_t *stream, size_t bytes,
                       const void *const *bases, size_t n_bases);

/* Waits for submission `handle` (the host then continues after everything it issued,
 * as after npu_sync) and returns its status: 0, or the failing command's npu status. */
int npu_cmd_wait(int64_t handle);

#ifdef __cplusplus
}
#endif

#endif /* ACC_NPU_CMD_H */
