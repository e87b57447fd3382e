/*
 * catalog mode: for a whole program run, per raw encoding, how many instruction slots were
 * translated and how many times they executed. Every translated guest instruction counts, inside
 * or outside the executable's code range (a real program's cost includes its libraries), unless
 * min_pc/max_pc were given (system mode: a bare-metal image's code, not QEMU's reset code). Markers
 * are ordinary instructions here.
 *
 * Also per kind of translation block, by how the block ends (which decides how TCG leaves it: a
 * chained goto_tb, a lookup of the next block, an exit to the main loop), how many blocks were
 * translated and how many times their last instruction ran (the block was left through its end).
 *
 * And per translated block, its dependence structure: how many times it was entered, its kind, and
 * for each instruction its encoding and which earlier instructions of the block produce the
 * registers it reads (so that a price can follow the block's critical path, not only its counts).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "splice_plugin.h"

struct catalog_entry {
    struct splice_encoding key;
    uint64_t translated;
    uint64_t executed;
};

static uint64_t *translated; /* per slot, grown with realloc (not seen by QEMU) */
static uint32_t translated_capacity;

static int note_translation(uint32_t slot)
{
    if (slot >= translated_capacity) {
        uint32_t capacity = translated_capacity == 0 ? 4096 : translated_capacity * 2;
        while (capacity <= slot) {
            capacity *= 2;
        }
        uint64_t *grown = realloc(translated, capacity * sizeof(uint64_t));
        if (grown == NULL) {
            return 0;
        }
        for (uint32_t i = translated_capacity; i < capacity; i++) {
            grown[i] = 0;
        }
        translated = grown;
        translated_capacity = capacity;
    }
    translated[slot]++;
    return 1;
}

/* Block kinds; "-far" kinds leave the block for another guest page, which QEMU 7.2 does not chain
 * (translator_use_goto_tb), so the next block is looked up as after an indirect jump. */
enum block_kind {
    BLOCK_DIRECT,        /* jal x0 / c.j, target on the block's page: chained */
    BLOCK_DIRECT_FAR,
    BLOCK_CALL,          /* jal with a link register: chained */
    BLOCK_CALL_FAR,
    BLOCK_BRANCH,        /* conditional branch, both exits on the block's page: chained */
    BLOCK_BRANCH_FAR,
    BLOCK_INDIRECT,      /* jalr x0 / c.jr other than a return: lookup */
    BLOCK_INDIRECT_CALL, /* jalr with a link register / c.jalr: lookup */
    BLOCK_RETURN,        /* jalr x0, 0(ra) / c.jr ra: lookup */
    BLOCK_FALLTHROUGH,   /* cut by size or before an instruction that starts a block: chained */
    BLOCK_FALLTHROUGH_FAR,
    BLOCK_EXIT,          /* SYSTEM (ecall, ebreak, CSR access) or fence.i: back to the main loop */
    BLOCK_KINDS
};

static const char *const block_kind_names[BLOCK_KINDS] = {
    "direct", "direct-far", "call", "call-far", "branch", "branch-far", "indirect", "indirect-call",
    "return", "fallthrough", "fallthrough-far", "exit",
};

static uint64_t block_translated[BLOCK_KINDS];
static uint64_t block_executed[BLOCK_KINDS];

#define PAGE_MASK (~(uint64_t)4095)

static int same_page(uint64_t a, uint64_t b)
{
    return (a & PAGE_MASK) == (b & PAGE_MASK);
}

static uint32_t bits(uint32_t v, int hi, int lo)
{
    return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static int64_t sign_extend(uint32_t v, int width)
{
    return (int64_t)((uint64_t)v << (64 - width)) >> (64 - width);
}

/* A pc-relative exit's kind: chained when the target is on the block's page. */
static enum block_kind relative(enum block_kind near, uint64_t start, uint64_t pc, int64_t offset)
{
    return same_page(start, pc + (uint64_t)offset) ? near : near + 1;
}

static enum block_kind full_kind(uint32_t e, uint64_t start, uint64_t pc)
{
    uint32_t opcode = e & 0x7f, rd = bits(e, 11, 7), rs1 = bits(e, 19, 15);
    switch (opcode) {
    case 0x6f: { /* jal */
        int64_t imm = sign_extend(bits(e, 31, 31) << 20 | bits(e, 19, 12) << 12 | bits(e, 20, 20) << 11
                                  | bits(e, 30, 21) << 1, 21);
        return relative(rd == 0 ? BLOCK_DIRECT : BLOCK_CALL, start, pc, imm);
    }
    case 0x67: /* jalr */
        if (rd != 0) {
            return BLOCK_INDIRECT_CALL;
        }
        return rs1 == 1 && bits(e, 31, 20) == 0 ? BLOCK_RETURN : BLOCK_INDIRECT;
    case 0x63: { /* branches */
        int64_t imm = sign_extend(bits(e, 31, 31) << 12 | bits(e, 7, 7) << 11 | bits(e, 30, 25) << 5
                                  | bits(e, 11, 8) << 1, 13);
        return same_page(start, pc + (uint64_t)imm) && same_page(start, pc + 4) ? BLOCK_BRANCH : BLOCK_BRANCH_FAR;
    }
    case 0x73:
        return BLOCK_EXIT;
    case 0x0f:
        return bits(e, 14, 12) == 1 ? BLOCK_EXIT : relative(BLOCK_FALLTHROUGH, start, pc, 4);
    default:
        return relative(BLOCK_FALLTHROUGH, start, pc, 4);
    }
}

static enum block_kind compressed_kind(uint32_t e, uint64_t start, uint64_t pc)
{
    uint32_t op = e & 3, funct3 = bits(e, 15, 13);
    if (op == 1 && funct3 == 5) { /* c.j */
        int64_t imm = sign_extend(bits(e, 12, 12) << 11 | bits(e, 8, 8) << 10 | bits(e, 10, 9) << 8
                                  | bits(e, 6, 6) << 7 | bits(e, 7, 7) << 6 | bits(e, 2, 2) << 5
                                  | bits(e, 11, 11) << 4 | bits(e, 5, 3) << 1, 12);
        return relative(BLOCK_DIRECT, start, pc, imm);
    }
    if (op == 1 && funct3 >= 6) { /* c.beqz, c.bnez */
        int64_t imm = sign_extend(bits(e, 12, 12) << 8 | bits(e, 6, 5) << 6 | bits(e, 2, 2) << 5
                                  | bits(e, 11, 10) << 3 | bits(e, 4, 3) << 1, 9);
        return same_page(start, pc + (uint64_t)imm) && same_page(start, pc + 2) ? BLOCK_BRANCH : BLOCK_BRANCH_FAR;
    }
    if (op == 2 && funct3 == 4 && bits(e, 6, 2) == 0 && bits(e, 11, 7) != 0) { /* c.jr, c.jalr */
        if (bits(e, 12, 12) == 1) {
            return BLOCK_INDIRECT_CALL;
        }
        return bits(e, 11, 7) == 1 ? BLOCK_RETURN : BLOCK_INDIRECT;
    }
    if (op == 2 && funct3 == 4 && e == 0x9002) { /* c.ebreak */
        return BLOCK_EXIT;
    }
    return relative(BLOCK_FALLTHROUGH, start, pc, 2);
}

/* One translated block's dependence structure (issue 12: latency against throughput prices). */
struct tb_insn {
    uint32_t encoding;
    uint8_t size;
    int16_t producer[3]; /* index in the block of the instruction whose result this one reads, -1 */
};

struct tb_record {
    struct tb_record *next;
    uint64_t entered; /* counted by the first instruction, so stable storage QEMU writes to */
    uint32_t n;
    uint8_t kind;
    struct tb_insn insns[];
};

static struct tb_record *tb_records;
static uint64_t tb_record_count;

#define REG_NONE 0xff
#define FREG(r) ((r) + 32)

/* Registers (x0-x31 as 0-31, f0-f31 as 32-63) an instruction writes and reads; x0 is neither. */
static void full_registers(uint32_t e, uint8_t *rd, uint8_t rs[3])
{
    uint32_t opcode = e & 0x7f, d = bits(e, 11, 7), s1 = bits(e, 19, 15), s2 = bits(e, 24, 20);
    uint32_t f7 = bits(e, 31, 25);
    *rd = REG_NONE;
    rs[0] = rs[1] = rs[2] = REG_NONE;
    switch (opcode) {
    case 0x37: case 0x17: case 0x6f: *rd = d; break;                           /* lui auipc jal */
    case 0x67: case 0x03: case 0x13: case 0x1b: *rd = d; rs[0] = s1; break;   /* jalr loads op-imm */
    case 0x07: *rd = FREG(d); rs[0] = s1; break;                               /* fp loads */
    case 0x63: case 0x23: rs[0] = s1; rs[1] = s2; break;                       /* branches stores */
    case 0x27: rs[0] = s1; rs[1] = FREG(s2); break;                            /* fp stores */
    case 0x33: case 0x3b: case 0x2f: *rd = d; rs[0] = s1; rs[1] = s2; break;  /* op op-32 amo */
    case 0x43: case 0x47: case 0x4b: case 0x4f:                                /* fused multiply-add */
        *rd = FREG(d); rs[0] = FREG(s1); rs[1] = FREG(s2); rs[2] = FREG(bits(e, 31, 27)); break;
    case 0x53:
        switch (f7 >> 2) {
        case 0x14: case 0x18: case 0x1c: *rd = d; rs[0] = FREG(s1); rs[1] = FREG(s2); break; /* cmp cvt-to-int mv/class */
        case 0x1a: case 0x1e: *rd = FREG(d); rs[0] = s1; break;                /* cvt-from-int fmv-to-fp */
        default: *rd = FREG(d); rs[0] = FREG(s1); rs[1] = FREG(s2); break;
        }
        break;
    case 0x73: *rd = d; rs[0] = bits(e, 14, 12) >= 5 ? REG_NONE : s1; break;  /* csr */
    default: break;
    }
}

static void compressed_registers(uint32_t e, uint8_t *rd, uint8_t rs[3])
{
    uint32_t op = e & 3, f3 = bits(e, 15, 13), r = bits(e, 11, 7), r2 = bits(e, 6, 2);
    uint32_t p1 = 8 + bits(e, 9, 7), p2 = 8 + bits(e, 4, 2);
    *rd = REG_NONE;
    rs[0] = rs[1] = rs[2] = REG_NONE;
    if (op == 0) {
        if (f3 == 0) { *rd = p2; rs[0] = 2; }                                  /* c.addi4spn */
        else if (f3 == 1) { *rd = FREG(p2); rs[0] = p1; }                      /* c.fld */
        else if (f3 < 4) { *rd = p2; rs[0] = p1; }                             /* c.lw c.ld */
        else if (f3 == 5) { rs[0] = p1; rs[1] = FREG(p2); }                    /* c.fsd */
        else if (f3 > 5) { rs[0] = p1; rs[1] = p2; }                           /* c.sw c.sd */
    } else if (op == 1) {
        if (f3 <= 1) { *rd = r; rs[0] = r; }                                   /* c.addi c.addiw */
        else if (f3 == 2) { *rd = r; }                                         /* c.li */
        else if (f3 == 3) { *rd = r; rs[0] = r == 2 ? 2 : REG_NONE; }          /* c.lui c.addi16sp */
        else if (f3 == 4) { *rd = p1; rs[0] = p1; rs[1] = bits(e, 11, 10) == 3 ? p2 : REG_NONE; }
        else if (f3 >= 6) { rs[0] = p1; }                                      /* c.beqz c.bnez */
    } else if (op == 2) {
        if (f3 == 0) { *rd = r; rs[0] = r; }                                   /* c.slli */
        else if (f3 == 1) { *rd = FREG(r); rs[0] = 2; }                        /* c.fldsp */
        else if (f3 < 4) { *rd = r; rs[0] = 2; }                               /* c.lwsp c.ldsp */
        else if (f3 == 4) {
            int link = bits(e, 12, 12);
            if (r2 == 0) { rs[0] = r; *rd = link && r != 0 ? 1 : REG_NONE; }   /* c.jr c.jalr */
            else { *rd = r; rs[0] = r2; rs[1] = link ? r : REG_NONE; }         /* c.mv c.add */
        } else if (f3 == 5) { rs[0] = 2; rs[1] = FREG(r2); }                   /* c.fsdsp */
        else { rs[0] = 2; rs[1] = r2; }                                        /* c.swsp c.sdsp */
    }
}

/* Records the block's instructions and, for each register they read, the instruction producing it. */
static void note_dependences(struct qemu_plugin_tb *tb, size_t n, enum block_kind kind)
{
    struct tb_record *t = malloc(sizeof(*t) + n * sizeof(struct tb_insn));
    if (t == NULL) {
        g_splice.footer.translation_failures++;
        return;
    }
    int16_t writer[64];
    for (int i = 0; i < 64; i++) {
        writer[i] = -1;
    }
    t->entered = 0;
    t->n = (uint32_t)n;
    t->kind = (uint8_t)kind;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint32_t encoding = 0, size = 4;
        uint8_t rd = REG_NONE, rs[3] = {REG_NONE, REG_NONE, REG_NONE};
        if (splice_read_encoding(insn, &encoding, &size)) {
            if (size == 2) {
                compressed_registers(encoding, &rd, rs);
            } else {
                full_registers(encoding, &rd, rs);
            }
        }
        t->insns[i].encoding = encoding;
        t->insns[i].size = (uint8_t)size;
        for (int k = 0; k < 3; k++) {
            t->insns[i].producer[k] = rs[k] != REG_NONE && rs[k] != 0 ? writer[rs[k]] : -1;
        }
        if (rd != REG_NONE && rd != 0) {
            writer[rd] = (int16_t)i;
        }
    }
    qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, 0), SPLICE_INLINE_ADD_U64, &t->entered, 1);
    t->next = tb_records;
    tb_records = t;
    tb_record_count++;
}

/* Counts the block by the kind of its last instruction; the count runs with that instruction. */
static void note_block(struct qemu_plugin_tb *tb, size_t n)
{
    struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
    uint32_t encoding, size;
    if (!splice_read_encoding(last, &encoding, &size)) {
        return;
    }
    uint64_t start = qemu_plugin_tb_vaddr(tb), pc = qemu_plugin_insn_vaddr(last);
    enum block_kind kind = size == 2 ? compressed_kind(encoding, start, pc) : full_kind(encoding, start, pc);
    block_translated[kind]++;
    qemu_plugin_register_vcpu_insn_exec_inline(last, SPLICE_INLINE_ADD_U64, &block_executed[kind], 1);
    note_dependences(tb, n, kind);
}

static void translate(splice_qemu_id id, struct qemu_plugin_tb *tb)
{
    (void)id;
    splice_start();
    if (g_splice.range_given && !splice_in_range(qemu_plugin_tb_vaddr(tb))) {
        return; /* a block outside the range asked for (system mode: firmware, reset code) */
    }
    g_splice.translations++;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint32_t encoding, size, slot;
        if (!splice_read_encoding(insn, &encoding, &size)
            || (slot = splice_encoding_slot(encoding, size)) == SPLICE_NO_SLOT
            || !note_translation(slot)) {
            g_splice.footer.translation_failures++;
            continue;
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, SPLICE_INLINE_ADD_U64,
                                                   splice_encoding_counter(slot), 1);
    }
    if (n > 0) {
        note_block(tb, n);
    }
}

int splice_catalog_install(splice_qemu_id id)
{
    if (splice_encodings_init() != 0) {
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    return 0;
}

void splice_catalog_finish(void)
{
    uint32_t n = splice_encoding_count();
    struct catalog_entry *entries = calloc(n == 0 ? 1 : n, sizeof(*entries));
    if (entries == NULL) {
        fprintf(stderr, "splice-plugin: out of memory for the catalog\n");
        g_splice.footer.translation_failures++;
        fprintf(g_splice.out, "catalog 0\n");
        return;
    }
    for (uint32_t s = 0; s < n; s++) {
        entries[s].key = *splice_encoding_key(s);
        entries[s].translated = translated[s];
        entries[s].executed = *splice_encoding_counter(s);
    }
    qsort(entries, n, sizeof(*entries), splice_encoding_order);
    fprintf(g_splice.out, "catalog %" PRIu32 "\n", n);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(g_splice.out, "c 0x%0*" PRIx32 " %" PRIu32 " %" PRIu64 " %" PRIu64 "\n",
                entries[i].key.size == 2 ? 4 : 8, entries[i].key.encoding, entries[i].key.size,
                entries[i].translated, entries[i].executed);
    }
    free(entries);
    fprintf(g_splice.out, "blocks %d\n", BLOCK_KINDS);
    for (int k = 0; k < BLOCK_KINDS; k++) {
        fprintf(g_splice.out, "b %s %" PRIu64 " %" PRIu64 "\n", block_kind_names[k], block_translated[k],
                block_executed[k]);
    }
    /* t KIND ENTERED N, then per instruction ENCODING:SIZE:P1:P2:P3 (producer indices, -1 none) */
    fprintf(g_splice.out, "tbs %" PRIu64 "\n", tb_record_count);
    for (struct tb_record *t = tb_records; t != NULL; t = t->next) {
        fprintf(g_splice.out, "t %s %" PRIu64 " %" PRIu32, block_kind_names[t->kind], t->entered, t->n);
        for (uint32_t i = 0; i < t->n; i++) {
            const struct tb_insn *x = &t->insns[i];
            fprintf(g_splice.out, " 0x%" PRIx32 ":%u:%d:%d:%d", x->encoding, x->size, x->producer[0], x->producer[1],
                    x->producer[2]);
        }
        fprintf(g_splice.out, "\n");
    }
}
