/*
 * catalog mode: for a whole program run, per raw encoding, how many instruction slots were
 * translated and how many times they executed. Every translated guest instruction counts, inside
 * or outside the executable's code range (a real program's cost includes its libraries). Markers
 * are ordinary instructions here.
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

static void translate(splice_qemu_id id, struct qemu_plugin_tb *tb)
{
    (void)id;
    splice_start();
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
}
