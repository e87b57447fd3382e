/*
 * validation mode: per marker window, how many times each raw encoding inside [min_pc, max_pc)
 * executed.
 *
 * Each distinct (encoding, size) gets a slot with a 64-bit counter; every translated instruction
 * in the range gets an inline "add 1" on its slot's counter (cheap: no callback per instruction).
 * The markers get execution callbacks: the start marker snapshots all counters, the stop marker
 * writes the differences. Markers themselves are not counted. Counters live in fixed chunks that
 * never move, because translated code holds their addresses.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "splice_plugin.h"

#define CHUNK_BITS 12
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 256 /* at most 1 Mi distinct encodings */
#define HASH_BITS 21   /* twice the slot limit: the open-addressing table never fills */
#define HASH_SIZE (1u << HASH_BITS)

struct slot_key {
    uint32_t encoding;
    uint32_t size;
};

static uint64_t *chunks[MAX_CHUNKS];
static struct slot_key *keys;     /* keys[slot], grown with realloc (not seen by QEMU) */
static uint32_t *hash_table;      /* slot + 1, 0 = empty */
static uint32_t slot_count;
static uint32_t key_capacity;

static uint64_t *snapshot;        /* counters at the start marker */
static uint32_t snapshot_count;   /* slots that existed at the start marker */
static uint32_t snapshot_capacity;

static int active;
static uint64_t start_pc;
static uint64_t start_translations;

static uint64_t *counter(uint32_t slot)
{
    return &chunks[slot >> CHUNK_BITS][slot & (CHUNK_SIZE - 1)];
}

/* The slot of an encoding, created on first sight; UINT32_MAX when the table is full. */
static uint32_t slot_of(uint32_t encoding, uint32_t size)
{
    uint64_t key = ((uint64_t)encoding << 3) | size;
    uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - HASH_BITS));
    for (;; h = (h + 1) & (HASH_SIZE - 1)) {
        uint32_t entry = hash_table[h];
        if (entry == 0) {
            break;
        }
        if (keys[entry - 1].encoding == encoding && keys[entry - 1].size == size) {
            return entry - 1;
        }
    }
    uint32_t slot = slot_count;
    if (slot >= MAX_CHUNKS * CHUNK_SIZE) {
        return UINT32_MAX;
    }
    if (slot % CHUNK_SIZE == 0) {
        chunks[slot >> CHUNK_BITS] = calloc(CHUNK_SIZE, sizeof(uint64_t));
        if (chunks[slot >> CHUNK_BITS] == NULL) {
            return UINT32_MAX;
        }
    }
    if (slot == key_capacity) {
        uint32_t capacity = key_capacity == 0 ? 1024 : key_capacity * 2;
        struct slot_key *grown = realloc(keys, capacity * sizeof(*keys));
        if (grown == NULL) {
            return UINT32_MAX;
        }
        keys = grown;
        key_capacity = capacity;
    }
    keys[slot].encoding = encoding;
    keys[slot].size = size;
    hash_table[h] = slot + 1;
    slot_count++;
    return slot;
}

static void on_start(unsigned int vcpu_index, void *userdata)
{
    (void)vcpu_index;
    if (active) {
        g_splice.footer.nested_starts++;
        return;
    }
    if (slot_count > snapshot_capacity) {
        uint32_t capacity = slot_count * 2;
        uint64_t *grown = realloc(snapshot, capacity * sizeof(uint64_t));
        if (grown == NULL) {
            /* Without a snapshot the window cannot be counted: report it, do not guess. */
            g_splice.footer.translation_failures++;
            return;
        }
        snapshot = grown;
        snapshot_capacity = capacity;
    }
    for (uint32_t s = 0; s < slot_count; s++) {
        snapshot[s] = *counter(s);
    }
    snapshot_count = slot_count;
    start_pc = (uint64_t)(uintptr_t)userdata;
    start_translations = g_splice.translations;
    active = 1;
}

struct window_entry {
    uint32_t encoding;
    uint32_t size;
    uint64_t count;
};

static int by_size_then_encoding(const void *a, const void *b)
{
    const struct window_entry *x = a, *y = b;
    if (x->size != y->size) {
        return x->size < y->size ? -1 : 1;
    }
    return x->encoding < y->encoding ? -1 : x->encoding > y->encoding;
}

static struct window_entry *entries;
static uint32_t entry_capacity;

static void on_stop(unsigned int vcpu_index, void *userdata)
{
    (void)vcpu_index;
    if (!active) {
        g_splice.footer.inactive_stops++;
        return;
    }
    active = 0;
    if (slot_count > entry_capacity) {
        struct window_entry *grown = realloc(entries, slot_count * 2 * sizeof(*entries));
        if (grown == NULL) {
            g_splice.footer.translation_failures++;
            return;
        }
        entries = grown;
        entry_capacity = slot_count * 2;
    }
    uint32_t n = 0;
    uint64_t total = 0;
    for (uint32_t s = 0; s < slot_count; s++) {
        uint64_t before = s < snapshot_count ? snapshot[s] : 0;
        uint64_t d = *counter(s) - before;
        if (d != 0) {
            entries[n].encoding = keys[s].encoding;
            entries[n].size = keys[s].size;
            entries[n].count = d;
            total += d;
            n++;
        }
    }
    qsort(entries, n, sizeof(*entries), by_size_then_encoding);
    fprintf(g_splice.out,
            "window %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n",
            g_splice.footer.windows, start_pc, (uint64_t)(uintptr_t)userdata,
            g_splice.translations - start_translations, total, n);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(g_splice.out, "e 0x%0*" PRIx32 " %" PRIu32 " %" PRIu64 "\n",
                entries[i].size == 2 ? 4 : 8, entries[i].encoding, entries[i].size,
                entries[i].count);
    }
    g_splice.footer.windows++;
}

static void translate(splice_qemu_id id, struct qemu_plugin_tb *tb)
{
    (void)id;
    splice_start();
    g_splice.translations++;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        if (!splice_in_range(pc)) {
            continue;
        }
        enum splice_marker marker = splice_marker_of(insn);
        if (marker != SPLICE_NOT_MARKER) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, marker == SPLICE_START ? on_start : on_stop,
                                                   SPLICE_CB_NO_REGS, (void *)(uintptr_t)pc);
            continue;
        }
        uint32_t encoding, size, slot;
        if (!splice_read_encoding(insn, &encoding, &size)
            || (slot = slot_of(encoding, size)) == UINT32_MAX) {
            g_splice.footer.translation_failures++;
            continue;
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, SPLICE_INLINE_ADD_U64, counter(slot), 1);
    }
}

int splice_validation_install(splice_qemu_id id)
{
    hash_table = calloc(HASH_SIZE, sizeof(uint32_t));
    if (hash_table == NULL) {
        fprintf(stderr, "splice-plugin: out of memory for the encoding table\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    return 0;
}

void splice_validation_finish(void)
{
    g_splice.footer.open_windows = active ? 1 : 0;
}
