/*
 * A model of the host's conditional-branch predictor, for catalog mode (issue 12: what a program's
 * branches cost beyond their contexts). QEMU translates each guest conditional branch into one host
 * branch at the end of its translated block, so the host predicts the guest's branch stream: a
 * branch whose direction the host cannot foresee costs a pipeline flush (6-7 ns on the project's host:
 * docs/weigh-model.md, session 17), which no context with a fixed direction measures.
 *
 * The model is TAGE-like (Seznec and Michaud): a base table of 2-bit counters indexed by the branch's
 * address, and three tables tagged by address and global history of 8, 24 and 64 directions. The
 * longest matching history predicts; after a misprediction an entry is allocated in a longer table.
 * Modern hosts (Zen 4, recent Intel cores) predict with such tables, larger. On the long runs of
 * bench/weigh-predict.sh this one mispredicts at most 7% more than the best of six predictors picked
 * branch by branch (itself, bimodal, gshare of 8, 16 and 32 bits, a local-history one). A random
 * direction is mispredicted half the time by any predictor, and a fixed or short periodic one almost
 * never.
 */
#include "splice_plugin.h"

#define BASE_BITS 16
#define TAGGED_TABLES 3
#define TAGGED_BITS 14
#define TAG_BITS 11

struct tagged_entry {
    uint16_t tag; /* 0: empty */
    int8_t counter; /* -4..3: taken when >= 0 */
    uint8_t useful; /* 0..3 */
};

static uint8_t base[1u << BASE_BITS];
static struct tagged_entry tagged[TAGGED_TABLES][1u << TAGGED_BITS];
static const int history_length[TAGGED_TABLES] = {8, 24, 64};
static uint64_t history; /* the last 64 directions, newest in bit 0 */

/* The newest `length` directions folded into `bits` bits. */
static uint64_t folded_history(int length, int bits)
{
    uint64_t h = length >= 64 ? history : history & ((UINT64_C(1) << length) - 1);
    uint64_t out = 0;
    for (int i = 0; i < 64; i += bits) {
        out ^= h >> i;
    }
    return out & ((UINT64_C(1) << bits) - 1);
}

int splice_predictor_mispredicts(uint64_t pc, int taken)
{
    uint64_t a = pc >> 1;
    uint32_t index[TAGGED_TABLES];
    uint16_t tag[TAGGED_TABLES];
    int provider = -1;
    for (int i = 0; i < TAGGED_TABLES; i++) {
        index[i] = (uint32_t)((a ^ (a >> TAGGED_BITS) ^ folded_history(history_length[i], TAGGED_BITS))
                              & ((1u << TAGGED_BITS) - 1));
        tag[i] = (uint16_t)(((a ^ folded_history(history_length[i], TAG_BITS) * 3) & ((1u << TAG_BITS) - 1)) + 1);
        if (tagged[i][index[i]].tag == tag[i]) {
            provider = i;
        }
    }
    uint8_t *b = &base[a & ((1u << BASE_BITS) - 1)];
    int predicted = provider >= 0 ? tagged[provider][index[provider]].counter >= 0 : *b >= 2;
    int wrong = predicted != taken;
    if (provider >= 0) {
        struct tagged_entry *e = &tagged[provider][index[provider]];
        if (taken && e->counter < 3) {
            e->counter++;
        } else if (!taken && e->counter > -4) {
            e->counter--;
        }
        if (!wrong && e->useful < 3) {
            e->useful++;
        }
    } else if (taken && *b < 3) {
        (*b)++;
    } else if (!taken && *b > 0) {
        (*b)--;
    }
    if (wrong) {
        /* allocate in the first longer table with a free entry; age the others on the way */
        for (int i = provider + 1; i < TAGGED_TABLES; i++) {
            struct tagged_entry *e = &tagged[i][index[i]];
            if (e->useful == 0) {
                *e = (struct tagged_entry){tag[i], (int8_t)(taken ? 0 : -1), 0};
                break;
            }
            e->useful--;
        }
    }
    history = history << 1 | (uint64_t)(taken != 0);
    return wrong;
}
