/*
 * validation mode: per marker window, how many times each raw encoding inside [min_pc, max_pc)
 * executed.
 *
 * Each distinct (encoding, size) gets a slot with a 64-bit counter (encodings.c); every translated
 * instruction in the range gets an inline "add 1" on its slot's counter (cheap: no callback per
 * instruction). The markers get execution callbacks: the start marker snapshots all counters, the
 * stop marker writes the differences. Markers themselves are not counted.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "splice_plugin.h"

static uint64_t *snapshot;        /* counters at the start marker */
static uint32_t snapshot_count;   /* slots that existed at the start marker */
static uint32_t snapshot_capacity;

static int active;
static uint64_t start_pc;
static uint64_t start_translations;

static void on_start(unsigned int vcpu_index, void *userdata)
{
    (void)vcpu_index;
    if (active) {
        g_splice.footer.nested_starts++;
        return;
    }
    if (splice_encoding_count() > snapshot_capacity) {
        uint32_t capacity = splice_encoding_count() * 2;
        uint64_t *grown = realloc(snapshot, capacity * sizeof(uint64_t));
        if (grown == NULL) {
            /* Without a snapshot the window cannot be counted: report it, do not guess. */
            g_splice.footer.translation_failures++;
            return;
        }
        snapshot = grown;
        snapshot_capacity = capacity;
    }
    for (uint32_t s = 0; s < splice_encoding_count(); s++) {
        snapshot[s] = *splice_encoding_counter(s);
    }
    snapshot_count = splice_encoding_count();
    start_pc = (uint64_t)(uintptr_t)userdata;
    start_translations = g_splice.translations;
    active = 1;
}

struct window_entry {
    struct splice_encoding key;
    uint64_t count;
};

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
    if (splice_encoding_count() > entry_capacity) {
        struct window_entry *grown = realloc(entries, splice_encoding_count() * 2 * sizeof(*entries));
        if (grown == NULL) {
            g_splice.footer.translation_failures++;
            return;
        }
        entries = grown;
        entry_capacity = splice_encoding_count() * 2;
    }
    uint32_t n = 0;
    uint64_t total = 0;
    for (uint32_t s = 0; s < splice_encoding_count(); s++) {
        uint64_t before = s < snapshot_count ? snapshot[s] : 0;
        uint64_t d = *splice_encoding_counter(s) - before;
        if (d != 0) {
            entries[n].key = *splice_encoding_key(s);
            entries[n].count = d;
            total += d;
            n++;
        }
    }
    qsort(entries, n, sizeof(*entries), splice_encoding_order);
    fprintf(g_splice.out,
            "window %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n",
            g_splice.footer.windows, start_pc, (uint64_t)(uintptr_t)userdata,
            g_splice.translations - start_translations, total, n);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(g_splice.out, "e 0x%0*" PRIx32 " %" PRIu32 " %" PRIu64 "\n",
                entries[i].key.size == 2 ? 4 : 8, entries[i].key.encoding, entries[i].key.size,
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
        if (!splice_in_range(qemu_plugin_insn_vaddr(insn))) {
            continue;
        }
        if (splice_hook_marker(insn, on_start, on_stop)) {
            continue;
        }
        uint32_t encoding, size, slot;
        if (!splice_read_encoding(insn, &encoding, &size)
            || (slot = splice_encoding_slot(encoding, size)) == SPLICE_NO_SLOT) {
            g_splice.footer.translation_failures++;
            continue;
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, SPLICE_INLINE_ADD_U64, splice_encoding_counter(slot), 1);
    }
}

int splice_validation_install(splice_qemu_id id)
{
    if (splice_encodings_init() != 0) {
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    return 0;
}

void splice_validation_finish(void)
{
    g_splice.footer.open_windows = active ? 1 : 0;
}
