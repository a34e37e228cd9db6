/* npu_cmd.c: the command-stream front end of the npu simulator (npu_cmd.h).
 *
 * Two passes over a stream: the first decodes and checks every command without running
 * any (so a malformed stream changes nothing), the second runs them on a relocated copy,
 * each as the npu.h call it stands for: the same kernels, cost functions, counters and
 * two-engine timeline as the C-API npu. */
#include "npu_cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu.h"
#include "sim_core.h"

typedef struct stream_ctx {
    const npu_cmd_isa *isa;
    const char *name;
    const uint8_t *bytes;
    size_t size;
} stream_ctx;

static void fail(const stream_ctx *s, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

static void fail(const stream_ctx *s, size_t at, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "npu-cmd: error: stream %s: ", s->name ? s->name : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (at byte %zu)\n", at);
    exit(SIM_EXIT_STATUS);
}

static uint32_t word_at(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void put_word(uint8_t *p, uint32_t w) {
    p[0] = (uint8_t)w;
    p[1] = (uint8_t)(w >> 8);
    p[2] = (uint8_t)(w >> 16);
    p[3] = (uint8_t)(w >> 24);
}

/* The raw bits of `b` in the command at `cmd` (its words are known to be in bounds). */
static uint64_t bits_of(const uint8_t *cmd, npu_cmd_bits b) {
    if (b.width == 64) return (uint64_t)word_at(cmd + 4 * b.word) | ((uint64_t)word_at(cmd + 4 * b.word + 4) << 32);
    uint32_t w = word_at(cmd + 4 * b.word);
    uint32_t mask = b.width >= 32 ? 0xFFFFFFFFu : ((1u << b.width) - 1u);
    return (w >> b.bit) & mask;
}

static uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

static const npu_cmd_command *by_opcode(const npu_cmd_isa *isa, uint32_t code) {
    for (uint16_t i = 0; i < isa->n_commands; i++)
        if (isa->commands[i].opcode == code) return &isa->commands[i];
    return NULL;
}

static int enum_value(const npu_cmd_isa *isa, int enum_id, uint64_t code) {
    for (uint16_t i = 0; i < isa->n_enums; i++)
        if (isa->enums[i].enum_id == enum_id && isa->enums[i].code == code) return isa->enums[i].value;
    return -1;
}

/* A decoded command: integer values (scratchpad offsets: -1 when absent; enums: their
 * value), floats, and the host address. */
typedef struct decoded {
    const npu_cmd_command *cmd;
    int64_t v[NPU_CMD_N_FIELDS];
    float f[NPU_CMD_N_FIELDS];
    uint64_t host;
} decoded;

static void decode_fields(const stream_ctx *s, const uint8_t *cmd, size_t at, decoded *d) {
    memset(d->v, 0, sizeof d->v);
    memset(d->f, 0, sizeof d->f);
    for (uint16_t i = 0; i < d->cmd->n_fields; i++) {
        const npu_cmd_field *fl = &d->cmd->fields[i];
        uint64_t raw = bits_of(cmd, fl->at);
        int64_t value = (int64_t)raw;
        switch (fl->kind) {
        case NPU_CMD_K_INT:
            if (fl->at.width < 64 && (raw >> (fl->at.width - 1)) & 1u) value = (int64_t)raw - ((int64_t)1 << fl->at.width);
            break;
        case NPU_CMD_K_F32: {
            uint32_t b = (uint32_t)raw;
            memcpy(&d->f[fl->id], &b, sizeof b);
            break;
        }
        case NPU_CMD_K_SPM:
            if (raw == (fl->at.width >= 32 ? 0xFFFFFFFFu : ((1u << fl->at.width) - 1u))) value = -1;
            break;
        case NPU_CMD_K_HOST:
            d->host = raw;
            break;
        case NPU_CMD_K_ENUM:
            value = enum_value(s->isa, fl->enum_id, raw);
            if (value < 0) fail(s, at, "'%s': code %llu is no value of its enum (field %u)", d->cmd->name,
                                (unsigned long long)raw, (unsigned)fl->id);
            break;
        default:
            break;
        }
        if (fl->id < NPU_CMD_N_FIELDS) d->v[fl->id] = value;
    }
}

typedef struct layout {
    uint64_t header[NPU_CMD_N_HEADER_WORDS];
    size_t commands, commands_bytes, data, data_bytes, relocs, n_relocs;
} layout;

static void read_header(const stream_ctx *s, size_t n_bases, layout *l) {
    const npu_cmd_isa *isa = s->isa;
    size_t header_bytes = 4u * isa->n_header;
    if (s->size < header_bytes) fail(s, s->size, "truncated: %zu bytes, the header alone has %zu", s->size, header_bytes);
    memset(l->header, 0, sizeof l->header);
    for (uint16_t i = 0; i < isa->n_header; i++) l->header[isa->header[i]] = word_at(s->bytes + 4u * i);
    if (l->header[NPU_CMD_H_MAGIC] != isa->magic)
        fail(s, 0, "bad magic 0x%08llx (expected 0x%08x)", (unsigned long long)l->header[NPU_CMD_H_MAGIC], isa->magic);
    if (l->header[NPU_CMD_H_VERSION] != isa->version)
        fail(s, 0, "version %llu (the instruction set is version %u)", (unsigned long long)l->header[NPU_CMD_H_VERSION],
             isa->version);
    uint64_t a = isa->alignment, cb = l->header[NPU_CMD_H_COMMANDS_BYTES], db = l->header[NPU_CMD_H_DATA_BYTES];
    uint64_t nr = l->header[NPU_CMD_H_RELOCS];
    if (cb % 4 || db % 4) fail(s, 0, "section sizes %llu and %llu are not multiples of 4", (unsigned long long)cb,
                               (unsigned long long)db);
    uint64_t c_off = align_up(header_bytes, a), d_off = align_up(c_off + cb, a), r_off = align_up(d_off + db, a);
    uint64_t total = align_up(r_off + 8 * nr, a);
    if (total > s->size)
        fail(s, s->size, "truncated: the header announces %llu bytes, the stream has %zu", (unsigned long long)total,
             s->size);
    if (l->header[NPU_CMD_H_BASES] != n_bases)
        fail(s, 0, "the stream relocates against %llu bases, the host gave %zu",
             (unsigned long long)l->header[NPU_CMD_H_BASES], n_bases);
    /* The configuration the stream was compiled for must be the device's. */
    const npu_config *cfg = npu_get_config();
    struct { int id; double device; const char *what; } config[] = {
        {NPU_CMD_H_CONFIG_MEMORY_SCRATCHPAD_BYTES, (double)cfg->spm_bytes, "memory.scratchpad_bytes"},
        {NPU_CMD_H_CONFIG_MEMORY_ALIGNMENT, (double)cfg->alignment, "memory.alignment"},
        {NPU_CMD_H_CONFIG_MEMORY_SHARED_WITH_HOST, (double)cfg->shared_with_host, "memory.shared_with_host"},
        {NPU_CMD_H_CONFIG_DMA_BYTES_PER_CYCLE, cfg->dma_bytes_per_cycle, "dma.bytes_per_cycle"},
        {NPU_CMD_H_CONFIG_DMA_SETUP_CYCLES, cfg->dma_setup_cycles, "dma.setup_cycles"},
        {NPU_CMD_H_CONFIG_COMPUTE_MACS_PER_CYCLE_F32, cfg->macs_per_cycle_f32, "compute.macs_per_cycle_f32"},
        {NPU_CMD_H_CONFIG_COMPUTE_MACS_PER_CYCLE_INT8, cfg->macs_per_cycle_int8, "compute.macs_per_cycle_int8"},
        {NPU_CMD_H_CONFIG_COMPUTE_ELEMENTWISE_PER_CYCLE, cfg->elementwise_per_cycle, "compute.elementwise_per_cycle"},
    };
    for (uint16_t i = 0; i < isa->n_header; i++)
        for (size_t k = 0; k < sizeof config / sizeof config[0]; k++)
            if (config[k].id == isa->header[i] && (double)l->header[config[k].id] != config[k].device)
                fail(s, 4u * i, "compiled for %s = %llu, the device has %g", config[k].what,
                     (unsigned long long)l->header[config[k].id], config[k].device);
    l->commands = (size_t)c_off;
    l->commands_bytes = (size_t)cb;
    l->data = (size_t)d_off;
    l->data_bytes = (size_t)db;
    l->relocs = (size_t)r_off;
    l->n_relocs = (size_t)nr;
}

/* The command at byte `at` of the commands section, its length checked. */
static const npu_cmd_command *command_at(const stream_ctx *s, const layout *l, size_t at) {
    const uint8_t *p = s->bytes + at;
    uint32_t code = (uint32_t)bits_of(p, s->isa->opcode);
    const npu_cmd_command *cmd = by_opcode(s->isa, code);
    if (!cmd) fail(s, at, "reserved opcode 0x%x", code);
    uint64_t length = bits_of(p, s->isa->length);
    if (length != cmd->words) fail(s, at, "'%s' has length %llu, expected %u", cmd->name, (unsigned long long)length,
                                   (unsigned)cmd->words);
    if (at + 4u * length > l->commands + l->commands_bytes)
        fail(s, at, "truncated '%s': %llu words, %zu bytes left", cmd->name, (unsigned long long)length,
             l->commands + l->commands_bytes - at);
    return cmd;
}

static void put_bits(uint8_t *cmd, npu_cmd_bits b, uint64_t value) {
    if (b.width == 64) {
        put_word(cmd + 4 * b.word, (uint32_t)value);
        put_word(cmd + 4 * b.word + 4, (uint32_t)(value >> 32));
        return;
    }
    uint32_t mask = b.width >= 32 ? 0xFFFFFFFFu : ((1u << b.width) - 1u);
    uint32_t w = word_at(cmd + 4 * b.word) & ~(mask << b.bit);
    put_word(cmd + 4 * b.word, w | (((uint32_t)value & mask) << b.bit));
}

/* Pass 1: the structure (opcodes, lengths, enum codes, waits, an `end` last); marks
 * where commands start. Returns the number of transfers. */
static size_t check_structure(const stream_ctx *s, const layout *l, uint8_t *starts) {
    size_t transfers = 0;
    int ended = 0;
    size_t at = l->commands;
    while (at < l->commands + l->commands_bytes) {
        if (ended) fail(s, at, "command after 'end'");
        decoded d;
        d.cmd = command_at(s, l, at);
        decode_fields(s, s->bytes + at, at, &d);
        starts[(at - l->commands) / 4] = 1;
        switch (d.cmd->op) {
        case NPU_CMD_OP_DMA_TO_DEVICE:
        case NPU_CMD_OP_DMA_TO_HOST:
        case NPU_CMD_OP_DMA_ON_DEVICE:
            transfers++;
            break;
        case NPU_CMD_OP_DMA_WAIT:
            if (d.v[NPU_CMD_F_TOKEN] < 1 || (size_t)d.v[NPU_CMD_F_TOKEN] > transfers)
                fail(s, at, "wait for transfer %lld, but %zu were issued", (long long)d.v[NPU_CMD_F_TOKEN], transfers);
            break;
        case NPU_CMD_OP_END:
            ended = 1;
            break;
        default:
            break;
        }
        at += 4u * d.cmd->words;
    }
    if (!ended) fail(s, at, "no 'end' command");
    return transfers;
}

/* Checks every relocation and applies it to `copy` (host: base + offset; a scratchpad
 * field: the base's scratchpad offset + offset); marks relocated fields in `done`
 * (bit `field index` of the command's byte group). */
static void relocate(const stream_ctx *s, const layout *l, const uint8_t *starts, uint8_t *copy,
                     const void *const *bases, size_t n_bases, uint64_t *done) {
    size_t n_words = l->commands_bytes / 4, spm_bytes = npu_get_config()->spm_bytes;
    uintptr_t spm = (uintptr_t)npu_spm();
    for (size_t k = 0; k < l->n_relocs; k++) {
        size_t r = l->relocs + 8 * k;
        uint32_t word = word_at(s->bytes + r), entry = word_at(s->bytes + r + 4);
        uint32_t base = entry & 0xFFFFu, index = entry >> 16;
        if (word >= n_words || !starts[word]) fail(s, r, "relocation %zu points at word %u, where no command starts", k, word);
        uint8_t *cmd = copy + l->commands + 4u * word;
        const npu_cmd_command *c = by_opcode(s->isa, (uint32_t)bits_of(cmd, s->isa->opcode));
        if (index >= c->n_fields || index >= 64 ||
            (c->fields[index].kind != NPU_CMD_K_HOST && c->fields[index].kind != NPU_CMD_K_SPM))
            fail(s, r, "relocation %zu: field %u of '%s' is no address to relocate", k, index, c->name);
        if (done[word] >> index & 1u) fail(s, r, "relocation %zu: field %u of '%s' is relocated twice", k, index, c->name);
        if (base >= n_bases) fail(s, r, "relocation %zu: base %u of %zu", k, base, n_bases);
        done[word] |= (uint64_t)1 << index;
        npu_cmd_bits at = c->fields[index].at;
        uint64_t offset = bits_of(cmd, at);
        if (c->fields[index].kind == NPU_CMD_K_HOST) {
            put_bits(cmd, at, (uint64_t)(uintptr_t)bases[base] + offset);
            continue;
        }
        uint64_t absent = at.width >= 32 ? 0xFFFFFFFFu : ((1u << at.width) - 1u);
        uintptr_t p = (uintptr_t)bases[base];
        if (offset == absent || p < spm || p - spm >= spm_bytes)
            fail(s, r, "relocation %zu: base %u of '%s' is no scratchpad buffer", k, base, c->name);
        uint64_t value = (uint64_t)(p - spm) + offset;
        if (value >= absent) fail(s, r, "relocation %zu: scratchpad offset %llu cannot fit '%s'", k,
                                  (unsigned long long)value, c->name);
        put_bits(cmd, at, value);
    }
}

/* Pass 2, on the relocated copy: operands inside the scratchpad, data arrays inside the
 * data section, every host address relocated. */
static void check_operands(const stream_ctx *s, const layout *l, const uint64_t *done) {
    size_t spm_bytes = npu_get_config()->spm_bytes;
    size_t at = l->commands;
    while (at < l->commands + l->commands_bytes) {
        decoded d;
        d.cmd = command_at(s, l, at);
        decode_fields(s, s->bytes + at, at, &d);
        for (uint16_t i = 0; i < d.cmd->n_fields; i++) {
            const npu_cmd_field *fl = &d.cmd->fields[i];
            int64_t v = d.v[fl->id];
            if (fl->kind == NPU_CMD_K_HOST && !(done[(at - l->commands) / 4] >> i & 1u))
                fail(s, at, "the host address of '%s' has no relocation", d.cmd->name);
            if (fl->kind == NPU_CMD_K_SPM && v >= 0 && (uint64_t)v >= spm_bytes)
                fail(s, at, "'%s': scratchpad offset %lld is outside the %zu-byte scratchpad", d.cmd->name,
                     (long long)v, spm_bytes);
            if (fl->kind == NPU_CMD_K_DATA) {
                int64_t n = d.v[fl->id == NPU_CMD_F_IN_SCALE ? NPU_CMD_F_IN_SCALE_LEN
                                : fl->id == NPU_CMD_F_TABLE  ? NPU_CMD_F_TABLE_LEN
                                                             : NPU_CMD_F_WEIGHT_ZERO_POINT_LEN];
                if (v % 4 || n < 0 || (uint64_t)v + 4u * (uint64_t)n > l->data_bytes)
                    fail(s, at, "'%s': data [%lld, +%lld) is outside the %zu-byte data section", d.cmd->name,
                         (long long)v, (long long)(4 * n), l->data_bytes);
            }
        }
        at += 4u * d.cmd->words;
    }
}

static void *spm_ptr(int64_t off) { return off < 0 ? NULL : (unsigned char *)npu_spm() + off; }

/* Pass 2: run the relocated copy. Returns the first non-zero npu status, or 0. */
/* The quantization fields shared by the int8 conv and matmul commands (their parameter structs
 * are distinct types with the same field names). */
#define SET_QUANT_PARAMS(p)                                                                          \
    do {                                                                                             \
        (p).x_dtype = (npu_qtype)v[NPU_CMD_F_X_DTYPE], (p).w_dtype = (npu_qtype)v[NPU_CMD_F_W_DTYPE]; \
        (p).y_dtype = (npu_qtype)v[NPU_CMD_F_Y_DTYPE];                                               \
        (p).input_zero_point = (int32_t)v[NPU_CMD_F_INPUT_ZERO_POINT];                               \
        (p).weight_zero_point = (const int32_t *)(const void *)(data + v[NPU_CMD_F_WEIGHT_ZERO_POINT]); \
        (p).weight_zero_point_len = v[NPU_CMD_F_WEIGHT_ZERO_POINT_LEN];                              \
        (p).in_scale = (const float *)(const void *)(data + v[NPU_CMD_F_IN_SCALE]);                  \
        (p).in_scale_len = v[NPU_CMD_F_IN_SCALE_LEN];                                                \
        (p).out_scale = f[NPU_CMD_F_OUT_SCALE], (p).out_zero_point = (int32_t)v[NPU_CMD_F_OUT_ZERO_POINT]; \
    } while (0)

static int run_stream(const stream_ctx *s, const layout *l, size_t transfers) {
    npu_token *tokens = malloc((transfers ? transfers : 1) * sizeof *tokens);
    if (!tokens) fail(s, 0, "out of memory");
    const uint8_t *data = s->bytes + l->data;
    size_t issued = 0;
    int status = 0;
    size_t at = l->commands;
    while (status == 0 && at < l->commands + l->commands_bytes) {
        decoded d;
        d.cmd = command_at(s, l, at);
        decode_fields(s, s->bytes + at, at, &d);
        const int64_t *v = d.v;
        const float *f = d.f;
        at += 4u * d.cmd->words;
        switch (d.cmd->op) {
        case NPU_CMD_OP_DMA_TO_DEVICE:
        case NPU_CMD_OP_DMA_TO_HOST: {
            int64_t shape[4], spm_st[4], host_st[4];
            for (int i = 0; i < 4; i++) {
                shape[i] = v[NPU_CMD_F_SHAPE0 + i];
                spm_st[i] = v[NPU_CMD_F_SPM_STRIDE0 + i];
                host_st[i] = v[NPU_CMD_F_HOST_STRIDE0 + i];
            }
            void *spm = spm_ptr(v[NPU_CMD_F_SPM]);
            void *host = (void *)(uintptr_t)d.host;
            size_t eb = (size_t)v[NPU_CMD_F_ELEM_BYTES];
            int rank = (int)v[NPU_CMD_F_RANK];
            tokens[issued++] = d.cmd->op == NPU_CMD_OP_DMA_TO_DEVICE
                                   ? npu_dma_to_device(spm, host, eb, rank, shape, spm_st, host_st)
                                   : npu_dma_to_host(host, spm, eb, rank, shape, host_st, spm_st);
            break;
        }
        case NPU_CMD_OP_DMA_ON_DEVICE: {
            int64_t shape[4], dst_st[4], src_st[4];
            for (int i = 0; i < 4; i++) {
                shape[i] = v[NPU_CMD_F_SHAPE0 + i];
                dst_st[i] = v[NPU_CMD_F_SPM_STRIDE0 + i];
                src_st[i] = v[NPU_CMD_F_SRC_STRIDE0 + i];
            }
            tokens[issued++] = npu_dma_on_device(spm_ptr(v[NPU_CMD_F_SPM]), spm_ptr(v[NPU_CMD_F_SRC_SPM]),
                                                 (size_t)v[NPU_CMD_F_ELEM_BYTES], (int)v[NPU_CMD_F_RANK], shape,
                                                 dst_st, src_st);
            break;
        }
        case NPU_CMD_OP_DMA_WAIT:
            npu_dma_wait(tokens[v[NPU_CMD_F_TOKEN] - 1]);
            break;
        case NPU_CMD_OP_BARRIER:
            npu_sync();
            break;
        case NPU_CMD_OP_END:
            break;
        case NPU_CMD_OP_CONV2D_F32:
        case NPU_CMD_OP_CONV2D_Q8: {
            npu_conv2d_params p;
            memset(&p, 0, sizeof p);
            p.n = v[NPU_CMD_F_N], p.c = v[NPU_CMD_F_C], p.h = v[NPU_CMD_F_H], p.w = v[NPU_CMD_F_W];
            p.oc = v[NPU_CMD_F_OC], p.kh = v[NPU_CMD_F_KH], p.kw = v[NPU_CMD_F_KW];
            p.oh = v[NPU_CMD_F_OH], p.ow = v[NPU_CMD_F_OW];
            p.stride_h = v[NPU_CMD_F_STRIDE_H], p.stride_w = v[NPU_CMD_F_STRIDE_W];
            p.pad_top = v[NPU_CMD_F_PAD_TOP], p.pad_left = v[NPU_CMD_F_PAD_LEFT];
            p.pad_bottom = v[NPU_CMD_F_PAD_BOTTOM], p.pad_right = v[NPU_CMD_F_PAD_RIGHT];
            p.dil_h = v[NPU_CMD_F_DIL_H], p.dil_w = v[NPU_CMD_F_DIL_W], p.groups = v[NPU_CMD_F_GROUPS];
            p.act = (npu_act)v[NPU_CMD_F_ACT], p.act_min = f[NPU_CMD_F_ACT_MIN], p.act_max = f[NPU_CMD_F_ACT_MAX];
            void *x = spm_ptr(v[NPU_CMD_F_X]), *w = spm_ptr(v[NPU_CMD_F_WEIGHT]), *b = spm_ptr(v[NPU_CMD_F_BIAS]);
            void *y = spm_ptr(v[NPU_CMD_F_Y]);
            if (d.cmd->op == NPU_CMD_OP_CONV2D_F32) {
                status = npu_conv2d_f32(x, w, b, y, &p);
                break;
            }
            SET_QUANT_PARAMS(p);
            status = npu_conv2d_s8(x, w, b, y, &p);
            break;
        }
        case NPU_CMD_OP_MATMUL_F32:
        case NPU_CMD_OP_MATMUL_Q8: {
            npu_matmul_params p;
            memset(&p, 0, sizeof p);
            p.batch = v[NPU_CMD_F_BATCH], p.m = v[NPU_CMD_F_M], p.k = v[NPU_CMD_F_K], p.n = v[NPU_CMD_F_N];
            p.transpose_a = (int)v[NPU_CMD_F_TRANSPOSE_A], p.transpose_b = (int)v[NPU_CMD_F_TRANSPOSE_B];
            p.accumulate = (int)v[NPU_CMD_F_ACCUMULATE];
            p.act = (npu_act)v[NPU_CMD_F_ACT], p.act_min = f[NPU_CMD_F_ACT_MIN], p.act_max = f[NPU_CMD_F_ACT_MAX];
            void *a = spm_ptr(v[NPU_CMD_F_X]), *b = spm_ptr(v[NPU_CMD_F_WEIGHT]), *bias = spm_ptr(v[NPU_CMD_F_BIAS]);
            void *y = spm_ptr(v[NPU_CMD_F_Y]);
            if (d.cmd->op == NPU_CMD_OP_MATMUL_F32) {
                status = npu_matmul_f32(a, b, bias, y, &p);
                break;
            }
            SET_QUANT_PARAMS(p);
            status = npu_matmul_s8(a, b, bias, y, &p);
            break;
        }
        case NPU_CMD_OP_POOL_F32:
        case NPU_CMD_OP_POOL_Q8: {
            npu_pool2d_params p;
            memset(&p, 0, sizeof p);
            p.kind = (npu_pool_kind)v[NPU_CMD_F_POOL_KIND];
            p.n = v[NPU_CMD_F_N], p.c = v[NPU_CMD_F_C], p.h = v[NPU_CMD_F_H], p.w = v[NPU_CMD_F_W];
            p.oh = v[NPU_CMD_F_OH], p.ow = v[NPU_CMD_F_OW], p.kh = v[NPU_CMD_F_KH], p.kw = v[NPU_CMD_F_KW];
            p.stride_h = v[NPU_CMD_F_STRIDE_H], p.stride_w = v[NPU_CMD_F_STRIDE_W];
            p.dil_h = v[NPU_CMD_F_DIL_H], p.dil_w = v[NPU_CMD_F_DIL_W];
            p.pad_top = v[NPU_CMD_F_PAD_TOP], p.pad_left = v[NPU_CMD_F_PAD_LEFT];
            p.pad_bottom = v[NPU_CMD_F_PAD_BOTTOM], p.pad_right = v[NPU_CMD_F_PAD_RIGHT];
            p.count_include_pad = (int)v[NPU_CMD_F_COUNT_INCLUDE_PAD];
            void *x = spm_ptr(v[NPU_CMD_F_X]), *y = spm_ptr(v[NPU_CMD_F_Y]);
            if (d.cmd->op == NPU_CMD_OP_POOL_F32) {
                status = npu_pool2d_f32(x, y, &p);
                break;
            }
            p.x_dtype = (npu_qtype)v[NPU_CMD_F_X_DTYPE], p.y_dtype = (npu_qtype)v[NPU_CMD_F_Y_DTYPE];
            p.in_scale = f[NPU_CMD_F_X_SCALE], p.in_zero_point = (int32_t)v[NPU_CMD_F_INPUT_ZERO_POINT];
            p.out_scale = f[NPU_CMD_F_OUT_SCALE], p.out_zero_point = (int32_t)v[NPU_CMD_F_OUT_ZERO_POINT];
            status = npu_pool2d_s8(x, y, &p);
            break;
        }
        case NPU_CMD_OP_ELTWISE_F32:
        case NPU_CMD_OP_ELTWISE_Q8: {
            npu_eltwise_params p;
            memset(&p, 0, sizeof p);
            p.kind = (npu_eltwise_kind)v[NPU_CMD_F_ELTWISE_KIND], p.count = v[NPU_CMD_F_COUNT];
            p.act = (npu_act)v[NPU_CMD_F_ACT], p.act_min = f[NPU_CMD_F_ACT_MIN], p.act_max = f[NPU_CMD_F_ACT_MAX];
            void *x = spm_ptr(v[NPU_CMD_F_X]), *rhs = spm_ptr(v[NPU_CMD_F_RHS]), *y = spm_ptr(v[NPU_CMD_F_Y]);
            p.rhs_count = v[NPU_CMD_F_RHS_COUNT];
            if (d.cmd->op == NPU_CMD_OP_ELTWISE_F32) {
                status = npu_eltwise_f32(x, rhs, y, &p);
                break;
            }
            p.lhs_dtype = (npu_qtype)v[NPU_CMD_F_X_DTYPE], p.rhs_dtype = (npu_qtype)v[NPU_CMD_F_RHS_DTYPE];
            p.out_dtype = (npu_qtype)v[NPU_CMD_F_Y_DTYPE];
            p.lhs_scale = f[NPU_CMD_F_X_SCALE], p.lhs_zero_point = (int32_t)v[NPU_CMD_F_INPUT_ZERO_POINT];
            p.rhs_scale = f[NPU_CMD_F_RHS_SCALE], p.rhs_zero_point = (int32_t)v[NPU_CMD_F_RHS_ZERO_POINT];
            p.out_scale = f[NPU_CMD_F_OUT_SCALE], p.out_zero_point = (int32_t)v[NPU_CMD_F_OUT_ZERO_POINT];
            /* A lookup's table (a command without the field leaves it 0 entries: no table); the
             * engine reads 256 entries, which pass 1 found inside the data section. */
            if (p.kind == NPU_ELTWISE_LUT && v[NPU_CMD_F_TABLE_LEN] != 256)
                fail(s, at - 4u * d.cmd->words, "'%s': a lookup needs a table of 256 entries, got %lld", d.cmd->name,
                     (long long)v[NPU_CMD_F_TABLE_LEN]);
            if (v[NPU_CMD_F_TABLE_LEN] > 0) p.table = (const int32_t *)(const void *)(data + v[NPU_CMD_F_TABLE]);
            status = npu_eltwise_s8(x, rhs, y, &p);
            break;
        }
        case NPU_CMD_OP_QUANTIZE:
        case NPU_CMD_OP_DEQUANTIZE: {
            npu_convert_params p;
            memset(&p, 0, sizeof p);
            p.count = v[NPU_CMD_F_COUNT];
            if (d.cmd->op == NPU_CMD_OP_QUANTIZE) {
                p.kind = NPU_QUANTIZE, p.dtype = (npu_qtype)v[NPU_CMD_F_Y_DTYPE];
                p.scale = f[NPU_CMD_F_OUT_SCALE], p.zero_point = (int32_t)v[NPU_CMD_F_OUT_ZERO_POINT];
            } else {
                p.kind = NPU_DEQUANTIZE, p.dtype = (npu_qtype)v[NPU_CMD_F_X_DTYPE];
                p.scale = f[NPU_CMD_F_X_SCALE], p.zero_point = (int32_t)v[NPU_CMD_F_INPUT_ZERO_POINT];
            }
            status = npu_convert(spm_ptr(v[NPU_CMD_F_X]), spm_ptr(v[NPU_CMD_F_Y]), &p);
            break;
        }
        case NPU_CMD_OP_ROWS_F32:
        case NPU_CMD_OP_ROWS_Q8: {
            npu_rows_params p;
            memset(&p, 0, sizeof p);
            p.kind = (npu_row_kind)v[NPU_CMD_F_ROWS_KIND], p.count = v[NPU_CMD_F_COUNT];
            p.row_length = v[NPU_CMD_F_ROW_LENGTH], p.epsilon = f[NPU_CMD_F_EPSILON];
            if (d.cmd->op == NPU_CMD_OP_ROWS_F32) {
                status = npu_rows_f32(spm_ptr(v[NPU_CMD_F_X]), spm_ptr(v[NPU_CMD_F_GAMMA]), spm_ptr(v[NPU_CMD_F_BETA]),
                                      spm_ptr(v[NPU_CMD_F_Y]), &p);
                break;
            }
            p.x_dtype = (npu_qtype)v[NPU_CMD_F_X_DTYPE], p.y_dtype = (npu_qtype)v[NPU_CMD_F_Y_DTYPE];
            p.x_scale = f[NPU_CMD_F_X_SCALE], p.x_zero_point = (int32_t)v[NPU_CMD_F_INPUT_ZERO_POINT];
            p.out_scale = f[NPU_CMD_F_OUT_SCALE], p.out_zero_point = (int32_t)v[NPU_CMD_F_OUT_ZERO_POINT];
            status = npu_rows_s8(spm_ptr(v[NPU_CMD_F_X]), spm_ptr(v[NPU_CMD_F_GAMMA]), spm_ptr(v[NPU_CMD_F_BETA]),
                                 spm_ptr(v[NPU_CMD_F_Y]), &p);
            break;
        }
        default:
            fail(s, at, "'%s' runs no known operation (%u)", d.cmd->name, (unsigned)d.cmd->op);
        }
    }
    free(tokens);
    return status;
}

static int64_t last_handle;
static int last_status;

int64_t npu_cmd_submit(const npu_cmd_isa *isa, const char *name, const uint8_t *stream, size_t bytes,
                       const void *const *bases, size_t n_bases) {
    stream_ctx s = {isa, name, stream, bytes};
    if (!isa || !stream) fail(&s, 0, "no stream or no instruction set");
    layout l;
    read_header(&s, n_bases, &l);
    size_t n_words = l.commands_bytes / 4;
    uint8_t *starts = calloc(n_words ? n_words : 1, 1);
    uint64_t *done = calloc(n_words ? n_words : 1, sizeof *done);
    uint8_t *copy = malloc(bytes ? bytes : 1);
    if (!starts || !done || !copy) fail(&s, 0, "out of memory");
    size_t transfers = check_structure(&s, &l, starts);
    memcpy(copy, stream, bytes);
    relocate(&s, &l, starts, copy, bases, n_bases, done);
    stream_ctx patched = {isa, name, copy, bytes};
    check_operands(&patched, &l, done);
    free(starts);
    free(done);
    last_status = run_stream(&patched, &l, transfers);
    free(copy);
    return ++last_handle;
}

int npu_cmd_wait(int64_t handle) {
    if (handle != last_handle || handle <= 0) {
        fprintf(stderr, "npu-cmd: error: wait for submission %lld, the last one is %lld\n", (long long)handle,
                (long long)last_handle);
        exit(SIM_EXIT_STATUS);
    }
    npu_sync();
    return last_status;
}
