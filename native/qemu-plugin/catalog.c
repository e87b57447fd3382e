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
 *
 * And how the run went from each executed block to the next (issue 12, prediction): per block kind,
 * how many exits QEMU chained (goto_tb: the next block starts on the page of the block's start) and
 * how many went through a lookup of the next block (lookup_and_goto_ptr: indirect jumps, returns,
 * and every exit to another page); for the lookups, whether a model of QEMU 7.2's user-mode jump
 * cache (tb_jmp_cache, 4096 entries indexed by pc ^ pc >> 12) held the target. And every guest load
 * and store run through a model of the host's data caches (LRU, the geometry of cpu0's data and
 * unified caches in sysfs, or glibc's sysconf where sysfs has none), counted by the level that served it, loads also by whether their
 * instruction's stride predicts them (what the host's prefetchers hide).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Whether the instruction (SIZE bytes) is a conditional branch; if so, *offset is its target's
 * distance from its own pc. */
static int conditional_offset(uint32_t e, uint32_t size, int64_t *offset)
{
    if (size == 4 && (e & 0x7f) == 0x63) {
        *offset = sign_extend(bits(e, 31, 31) << 12 | bits(e, 7, 7) << 11 | bits(e, 30, 25) << 5 | bits(e, 11, 8) << 1,
                              13);
        return 1;
    }
    if (size == 2 && (e & 3) == 1 && bits(e, 15, 13) >= 6) {
        *offset = sign_extend(bits(e, 12, 12) << 8 | bits(e, 6, 5) << 6 | bits(e, 2, 2) << 5 | bits(e, 11, 10) << 3
                                  | bits(e, 4, 3) << 1, 9);
        return 1;
    }
    return 0;
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
        int64_t imm;
        conditional_offset(e, 4, &imm);
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
    int64_t imm;
    if (conditional_offset(e, 2, &imm)) { /* c.beqz, c.bnez */
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
    uint64_t start;   /* the block's first guest pc */
    uint64_t fallthrough; /* the pc after its last instruction (a branch's not-taken target) */
    uint64_t branch_pc; /* its final conditional branch, 0 when none or when it branches to fallthrough */
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

/* Exits by how they were taken: the kind of the block left, "-far" when the next block was looked up
 * (a chained kind's exit to another page), the near kind when chained; chained branch exits also by
 * whether the branch was taken (the next block does not start right after it). */
static uint64_t exits[BLOCK_KINDS];
static uint64_t branches_taken, branches_not_taken;
/* Conditional branches (near and far) the model of the host's predictor mispredicted (predictor.c). */
static uint64_t branches_mispredicted;
static const struct tb_record *previous_block;

#define JUMP_CACHE_BITS 12
#define JUMP_CACHE_SIZE (1u << JUMP_CACHE_BITS)
static uint64_t jump_cache[JUMP_CACHE_SIZE]; /* the guest pc each entry holds; 0: empty */
static uint64_t lookup_hits, lookup_misses;

static int chained_kind(enum block_kind k)
{
    return k == BLOCK_DIRECT || k == BLOCK_DIRECT_FAR || k == BLOCK_CALL || k == BLOCK_CALL_FAR || k == BLOCK_BRANCH
           || k == BLOCK_BRANCH_FAR || k == BLOCK_FALLTHROUGH || k == BLOCK_FALLTHROUGH_FAR;
}

/* tb_lookup of QEMU 7.2 user mode: the jump cache first, the hash table on a miss (which refills it). */
static void note_lookup(uint64_t pc)
{
    uint32_t h = (uint32_t)((pc ^ (pc >> JUMP_CACHE_BITS)) & (JUMP_CACHE_SIZE - 1));
    if (jump_cache[h] == pc) {
        lookup_hits++;
    } else {
        lookup_misses++;
        jump_cache[h] = pc;
    }
}

static void on_block(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    const struct tb_record *t = udata;
    const struct tb_record *p = previous_block;
    previous_block = t;
    if (p == NULL) {
        return;
    }
    if (p->branch_pc != 0) {
        branches_mispredicted += (uint64_t)splice_predictor_mispredicts(p->branch_pc, t->start != p->fallthrough);
    }
    enum block_kind k = (enum block_kind)p->kind;
    if (chained_kind(k)) {
        enum block_kind near = (k == BLOCK_DIRECT_FAR || k == BLOCK_CALL_FAR || k == BLOCK_BRANCH_FAR
                                || k == BLOCK_FALLTHROUGH_FAR) ? k - 1 : k;
        if (same_page(p->start, t->start)) {
            exits[near]++;
            if (near == BLOCK_BRANCH) {
                if (t->start == p->fallthrough) {
                    branches_not_taken++;
                } else {
                    branches_taken++;
                }
            }
            return;
        }
        exits[near + 1]++;
    } else {
        exits[k]++;
    }
    note_lookup(t->start); /* the exit blocks' main loop looks the next block up too */
}

/* The host's data caches, from sysfs (or sysconf); each level an LRU set-associative cache of line tags. */
#define CACHE_LEVELS 6
struct cache_level {
    int level;
    int working_set; /* not the host's: a working-set level (below) */
    uint64_t size, ways, line, sets;
    uint64_t *tags; /* sets x ways, most recent first; 0 empty (tags are line numbers + 1) */
    uint64_t served[2]; /* loads, stores */
    uint64_t strided;   /* loads served here that the instruction's stride predicts */
};
static struct cache_level caches[CACHE_LEVELS];
static int cache_levels;
static uint64_t served_by_memory[2];
static uint64_t strided_from_memory;

/* Per memory instruction, its last address and stride: a load to the line of its last access or the
 * next one, or one stride (under a page) on, is what the host's prefetchers fetch ahead of it (a
 * sequential sweep over 4 MB costs what one in L1 does), so it is counted apart. */
struct access_site {
    uint64_t last;
    int64_t stride;
};

static int strided(struct access_site *site, uint64_t vaddr)
{
    int64_t stride = (int64_t)(vaddr - site->last);
    uint64_t line = caches[0].line;
    int64_t lines = (int64_t)(vaddr / line) - (int64_t)(site->last / line);
    int predicted = site->last != 0 && ((lines >= -1 && lines <= 1) || (stride == site->stride && stride > -4096
                                                                         && stride < 4096));
    site->stride = stride;
    site->last = vaddr;
    return predicted;
}

/* Reads cpu0's cache index INDEX's FIELD into TEXT (at most SIZE - 1 bytes); false when sysfs has no such file. */
static int sysfs_read(int index, const char *field, char *text, size_t size)
{
    char path[128];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, field);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    size_t n = fread(text, 1, size - 1, f);
    fclose(f);
    text[n] = '\0';
    return 1;
}

static uint64_t sysfs_number(int index, const char *field)
{
    char text[64];
    if (!sysfs_read(index, field, text, sizeof(text))) {
        return 0;
    }
    char *end;
    uint64_t v = strtoull(text, &end, 10);
    return *end == 'K' ? v * 1024 : *end == 'M' ? v * 1024 * 1024 : v;
}

static int sysfs_is_data(int index)
{
    char text[32];
    return sysfs_read(index, "type", text, sizeof(text))
            && (strncmp(text, "Data", 4) == 0 || strncmp(text, "Unified", 7) == 0);
}

/* Adds a level of this geometry; false when it is not a whole number of sets or cannot be allocated. */
static int cache_add(int level, uint64_t size, uint64_t ways, uint64_t line)
{
    if (cache_levels >= CACHE_LEVELS || size == 0 || ways == 0 || line == 0 || size % (ways * line) != 0) {
        return 0;
    }
    struct cache_level *c = &caches[cache_levels];
    c->level = level;
    c->size = size;
    c->ways = ways;
    c->line = line;
    c->sets = size / (ways * line);
    c->tags = calloc(c->sets * c->ways, sizeof(uint64_t));
    if (c->tags == NULL) {
        return 0;
    }
    cache_levels++;
    return 1;
}

/* Working-set levels beyond the host's last known one: the working sets of the pointer-chase contexts
 * (the working_sets argument, ascending), each modelled as a 16-way LRU cache of that size. A load
 * served there first is priced by the chase whose ring it fits. They stand in for levels the host
 * does not describe (a virtual machine's CPUID gives an L3 of 508 MiB with no associativity: the
 * whole socket's, of which one thread sees a part), so that such loads are not all priced as
 * memory loads. */
static void host_caches_init(void);

static void working_sets_init(void)
{
    const char *p = g_splice.working_sets;
    uint64_t line = cache_levels > 0 ? caches[0].line : 64;
    while (p != NULL && *p != '\0' && cache_levels > 0 && cache_levels < CACHE_LEVELS) {
        char *end;
        uint64_t size = strtoull(p, &end, 10);
        if (end == p || (*end != ':' && *end != '\0')) {
            return;
        }
        struct cache_level *last = &caches[cache_levels - 1];
        size -= size % (16 * line);
        if (size > last->size && cache_add(last->level + 1, size, 16, line)) {
            caches[cache_levels - 1].working_set = 1;
        }
        p = *end == ':' ? end + 1 : end;
    }
}

/* Reads the geometry from sysfs, else from glibc's sysconf (CPUID on x86-64: some virtual machines
 * have no cpu0/cache in sysfs); no levels (no memory section in the records) when neither gives it.
 * Then the working-set levels beyond them. */
static void caches_init(void)
{
    host_caches_init();
    working_sets_init();
}

static void host_caches_init(void)
{
    for (int i = 0; i < 8 && cache_levels < CACHE_LEVELS; i++) {
        if (sysfs_is_data(i)) {
            cache_add((int)sysfs_number(i, "level"), sysfs_number(i, "size"), sysfs_number(i, "ways_of_associativity"),
                      sysfs_number(i, "coherency_line_size"));
        }
    }
    if (cache_levels > 0) {
        return;
    }
    static const int names[][3] = {
        {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL1_DCACHE_ASSOC, _SC_LEVEL1_DCACHE_LINESIZE},
        {_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL2_CACHE_ASSOC, _SC_LEVEL2_CACHE_LINESIZE},
        {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL3_CACHE_ASSOC, _SC_LEVEL3_CACHE_LINESIZE},
    };
    for (int l = 0; l < 3; l++) {
        long size = sysconf(names[l][0]);
        long ways = sysconf(names[l][1]);
        long line = sysconf(names[l][2]);
        if (size > 0 && ways > 0 && line > 0) {
            cache_add(l + 1, (uint64_t)size, (uint64_t)ways, (uint64_t)line);
        }
    }
}

/* Whether the level holds the line; it is the most recent of its set afterwards either way. */
static int cache_access(struct cache_level *c, uint64_t address)
{
    uint64_t tag = address / c->line + 1;
    uint64_t *set = c->tags + (tag % c->sets) * c->ways;
    uint64_t w = 0;
    while (w < c->ways - 1 && set[w] != tag) {
        w++;
    }
    int hit = set[w] == tag;
    memmove(set + 1, set, w * sizeof(uint64_t));
    set[0] = tag;
    return hit;
}

/* Pages the guest touched, a set of page numbers (open addressing, grown at half full): a first touch
 * of an anonymous page is a host page fault (the kernel zeroes a page, and frees it at munmap or
 * exit), system time that no instruction context measures. Only accesses that missed every cache
 * level are looked up (a line of an untouched page cannot be in the model's caches). A page unmapped
 * and mapped again counts once; a page QEMU had touched before the guest (its loaded image, the
 * initial stack) counts, though it costs the guest no fault. */
#define PAGE_BITS 12
static uint64_t *touched_pages; /* page number + 1; 0: empty */
static uint64_t touched_capacity, touched_count;

/* The slot of TABLE (CAPACITY a power of two, not full) that holds KEY, or the empty one where it goes. */
static uint64_t *touched_slot(uint64_t *table, uint64_t capacity, uint64_t key)
{
    uint64_t i = (key * 0x9e3779b97f4a7c15ull) & (capacity - 1);
    while (table[i] != 0 && table[i] != key) {
        i = (i + 1) & (capacity - 1);
    }
    return &table[i];
}

static void note_page(uint64_t vaddr)
{
    uint64_t key = (vaddr >> PAGE_BITS) + 1;
    if (touched_capacity != 0 && *touched_slot(touched_pages, touched_capacity, key) == key) {
        return;
    }
    if (2 * (touched_count + 1) > touched_capacity) {
        uint64_t capacity = touched_capacity == 0 ? 4096 : 2 * touched_capacity;
        uint64_t *grown = calloc(capacity, sizeof(uint64_t));
        if (grown == NULL) {
            g_splice.footer.translation_failures++;
            return;
        }
        for (uint64_t i = 0; i < touched_capacity; i++) {
            if (touched_pages[i] != 0) {
                *touched_slot(grown, capacity, touched_pages[i]) = touched_pages[i];
            }
        }
        free(touched_pages);
        touched_pages = grown;
        touched_capacity = capacity;
    }
    *touched_slot(touched_pages, touched_capacity, key) = key;
    touched_count++;
}

static void on_access(unsigned int vcpu, splice_qemu_meminfo info, uint64_t vaddr, void *udata)
{
    (void)vcpu;
    int store = qemu_plugin_mem_is_store(info) ? 1 : 0;
    int predicted = strided(udata, vaddr);
    for (int l = 0; l < cache_levels; l++) {
        if (cache_access(&caches[l], vaddr)) {
            caches[l].served[store]++;
            caches[l].strided += !store && predicted;
            return;
        }
    }
    served_by_memory[store]++;
    strided_from_memory += !store && predicted;
    note_page(vaddr);
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
    t->start = qemu_plugin_tb_vaddr(tb);
    struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
    t->fallthrough = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last);
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
    const struct tb_insn *final = &t->insns[n - 1];
    int64_t offset;
    t->branch_pc = conditional_offset(final->encoding, final->size, &offset) && offset != (int64_t)final->size
                       ? qemu_plugin_insn_vaddr(last) : 0;
    qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, 0), SPLICE_INLINE_ADD_U64, &t->entered, 1);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, SPLICE_CB_NO_REGS, t);
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
        struct access_site *site;
        if (cache_levels > 0 && (site = calloc(1, sizeof(*site))) != NULL) { /* lives as long as the block */
            qemu_plugin_register_vcpu_mem_cb(insn, on_access, SPLICE_CB_NO_REGS, SPLICE_MEM_RW, site);
        }
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
    caches_init();
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
    fprintf(g_splice.out, "exits %d\n", BLOCK_KINDS);
    for (int k = 0; k < BLOCK_KINDS; k++) {
        fprintf(g_splice.out, "e %s %" PRIu64 "\n", block_kind_names[k], exits[k]);
    }
    fprintf(g_splice.out, "branches %" PRIu64 " %" PRIu64 "\n", branches_taken, branches_not_taken);
    fprintf(g_splice.out, "lookups %" PRIu64 " %" PRIu64 "\n", lookup_hits, lookup_misses);
    /* pages PAGES: the guest pages loads and stores touched */
    fprintf(g_splice.out, "pages %" PRIu64 "\n", touched_count);
    /* mispredicted BRANCHES: conditional branches the model of the host's predictor mispredicted */
    fprintf(g_splice.out, "mispredicted %" PRIu64 "\n", branches_mispredicted);
    /* memory LEVELS LOADS STORES STRIDED (served by no level), then per level
     * m LEVEL SIZE WAYS LINE LOADS STORES STRIDED [ws] (STRIDED: the loads among LOADS the stride
     * predicts; ws: a working-set level, not the host's) */
    fprintf(g_splice.out, "memory %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", cache_levels, served_by_memory[0],
            served_by_memory[1], strided_from_memory);
    for (int l = 0; l < cache_levels; l++) {
        fprintf(g_splice.out, "m %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "%s\n",
                caches[l].level, caches[l].size, caches[l].ways, caches[l].line, caches[l].served[0],
                caches[l].served[1], caches[l].strided, caches[l].working_set ? " ws" : "");
    }
}
