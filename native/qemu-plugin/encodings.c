/*
 * The table of distinct raw encodings seen in translated code, shared by the validation and
 * catalog modes. Each (encoding, size) gets a slot with a 64-bit execution counter. Counters live
 * in fixed chunks that never move, because translated code holds their addresses for inline
 * additions; the keys may move (only the plugin reads them).
 */
#include <stdlib.h>

#include "splice_plugin.h"

#define CHUNK_BITS 12
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 256 /* at most 1 Mi distinct encodings */
#define HASH_BITS 21   /* twice the slot limit: the open-addressing table never fills */
#define HASH_SIZE (1u << HASH_BITS)

static uint64_t *chunks[MAX_CHUNKS];
static struct splice_encoding *keys;
static uint32_t *hash_table; /* slot + 1, 0 = empty */
static uint32_t slot_count;
static uint32_t key_capacity;

int splice_encodings_init(void)
{
    hash_table = calloc(HASH_SIZE, sizeof(uint32_t));
    if (hash_table == NULL) {
        fprintf(stderr, "splice-plugin: out of memory for the encoding table\n");
        return -1;
    }
    return 0;
}

uint32_t splice_encoding_count(void)
{
    return slot_count;
}

uint64_t *splice_encoding_counter(uint32_t slot)
{
    return &chunks[slot >> CHUNK_BITS][slot & (CHUNK_SIZE - 1)];
}

const struct splice_encoding *splice_encoding_key(uint32_t slot)
{
    return &keys[slot];
}

uint32_t splice_encoding_slot(uint32_t encoding, uint32_t size)
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
        return SPLICE_NO_SLOT;
    }
    if (slot % CHUNK_SIZE == 0) {
        chunks[slot >> CHUNK_BITS] = calloc(CHUNK_SIZE, sizeof(uint64_t));
        if (chunks[slot >> CHUNK_BITS] == NULL) {
            return SPLICE_NO_SLOT;
        }
    }
    if (slot == key_capacity) {
        uint32_t capacity = key_capacity == 0 ? 1024 : key_capacity * 2;
        struct splice_encoding *grown = realloc(keys, capacity * sizeof(*keys));
        if (grown == NULL) {
            return SPLICE_NO_SLOT;
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

int splice_encoding_order(const void *a, const void *b)
{
    const struct splice_encoding *x = a, *y = b;
    if (x->size != y->size) {
        return x->size < y->size ? -1 : 1;
    }
    return x->encoding < y->encoding ? -1 : x->encoding > y->encoding;
}
