/*
 * trace mode: the complete branch trace of a run, as an LBR would sample it, exactly: every taken
 * branch (source = address of the branch or jump instruction, target, count) and every
 * fall-through range between two taken branches (start = a branch target, end = the address of
 * the next taken branch's instruction, count), per guest thread.
 *
 * One execution callback per translation block. Each vCPU remembers the block it ran last; when
 * the next block starts, the pair of blocks tells what happened:
 *   - the new block starts where the last one's final instruction falls through to, and that
 *     instruction is not an unconditional jump: no branch was taken (a conditional branch not
 *     taken, or a block QEMU ended without a branch: size limit, page end, an ecall that returns);
 *   - the final instruction is a branch or jump and control went elsewhere (or it is an
 *     unconditional jump, even to the next instruction): a taken branch; the range that started at
 *     the last branch target ends at this branch;
 *   - the final instruction is not a branch and control went elsewhere (signal delivery,
 *     rt_sigreturn): a discontinuity; the range ends there but no branch is recorded.
 * A conditional branch whose target is the next instruction cannot be told taken from not taken
 * by addresses: it counts as not taken. Addresses are the guest's, inside or outside the
 * executable.
 *
 * A taken transition (range start, last block, this block) is counted, in order of preference, in
 * the last block's memo (two transitions per block, owned by the first thread that takes one out of
 * it; they lie beside the fields the callback reads anyway), in a per-thread direct-mapped cache, or
 * in per-vCPU open-addressing hash tables keyed by (from, to); memos and cache entries are added to
 * their thread's tables when they are evicted or the run ends. Apart from the memos (written only
 * by their owner) the callbacks of different threads share nothing. QEMU reuses a vCPU index after
 * a thread exits: the vCPU init hook then retires the old thread's tables, so every thread keeps
 * its own.
 *
 * When the tables are written no callback runs any more: a guest ends through exit_group, or exit
 * in its last thread, and QEMU 7.2 then (qemu_plugin_user_exit) stops every vCPU
 * (start_exclusive), removes the plugin's callbacks, flushes every translated block and only then
 * calls the exit hook; threads that go on running (exit_group) run code without callbacks. So the
 * callback needs no flag or fence of its own (measured: such a protocol cost about a tenth of the
 * plugin's time on cxx_work). QEMU also calls the exit hook from the C library's exit() when QEMU
 * itself exits (an internal error): a syscall callback marks the host thread that is in the
 * guest's exit call, and an exit hook on any other thread of a guest that ever had two threads
 * writes no records (the plugin fails with SPLICE_EXIT_FAILED): it could race their callbacks.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "splice_plugin.h"

#define MAX_VCPUS 1024

/* How a block's final instruction transfers control. */
enum transfer { FALLS_THROUGH, CONDITIONAL, JUMP };

struct thread;

/* An address no block starts at (instructions are 2-byte aligned). */
#define NO_ADDRESS 1

/* What the callbacks need of a translated block; deduplicated, never freed. The first fields are
 * the callback's: where the block starts, where it falls through to, and a memo of two taken
 * transitions out of it (to memo_next, in the range that started at memo_range_start, and the
 * same for memo2) counted by the one thread that owns the memo. Two, not one: a return or a
 * block whose taken successors alternate (C++: std::sort, std::map) otherwise went to the cache,
 * and the second slot took about a tenth off the plugin's time on cxx_work and loops (session 9).
 * The memo lies in the block the callback reads anyway, so a hot transition (a loop's back edge,
 * a call) costs no lookup elsewhere; other threads, and other transitions, go through the owner's
 * per-thread cache. */
struct block {
    uint64_t start;
    uint64_t falls_to; /* the address after the final instruction, NO_ADDRESS when it is a jump */
    const struct block *memo_next;
    uint64_t memo_range_start;
    uint64_t memo_count;
    struct thread *_Atomic memo_owner; /* NULL until a thread claims the memo */
    const struct block *memo2_next; /* NULL until the owner takes a second transition */
    uint64_t memo2_range_start;
    uint64_t memo2_count;
    uint64_t last; /* address of the final instruction */
    enum transfer kind;
    struct block *chain; /* the next block in the same dedup bucket */
    struct block *all_next; /* every block, newest first (the writer flushes the memos) */
};

struct edge {
    uint64_t from;
    uint64_t to;
    uint64_t count;
};

/* Edges live in chunks and never move, so a cache may point at their counters. */
#define EDGES_PER_CHUNK 4096
struct chunk {
    struct edge edges[EDGES_PER_CHUNK];
    struct chunk *next;
};

struct table {
    struct edge **slots; /* open addressing; NULL: an empty slot */
    size_t capacity; /* a power of two */
    size_t used;
};

/* A direct-mapped cache of taken transitions (range start, last block, this block) and how often
 * each happened since it entered the cache; an evicted entry adds its count to the branch and the
 * range it stands for. The callback's common case is one compare and one increment here. */
#define CACHE_SIZE 4096
struct cached {
    const struct block *last;
    const struct block *next;
    uint64_t range_start;
    uint64_t count;
};

struct thread {
    const struct block *last_block; /* the callback's fields first, in one cache line */
    uint64_t range_start;
    uint64_t serial; /* threads in order of creation, from 0 */
    struct table branches;
    struct table ranges;
    struct table discontinuities;
    struct chunk *chunks;
    size_t chunk_used;
    struct thread *retired_next;
    struct cached cache[CACHE_SIZE];
};

static struct thread *threads[MAX_VCPUS];
static struct thread *retired; /* threads whose vCPU index was reused, newest first */
static uint64_t next_serial;
static uint64_t lost_threads; /* vCPU indices beyond MAX_VCPUS: not recorded */
static atomic_uint_fast64_t out_of_memory; /* counters that could not be grown */
static __thread int in_exit_call; /* this host thread runs the guest's exit or exit_group */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define BUCKETS 65536
static struct block *block_buckets[BUCKETS];
static struct block *all_blocks;

static enum transfer transfer_of(uint32_t encoding, uint32_t size)
{
    if (size == 4) {
        uint32_t opcode = encoding & 0x7f;
        if (opcode == 0x63) {
            return CONDITIONAL; /* beq, bne, blt, bge, bltu, bgeu */
        }
        return opcode == 0x6f || opcode == 0x67 ? JUMP : FALLS_THROUGH; /* jal, jalr */
    }
    uint32_t quadrant = encoding & 3;
    uint32_t funct3 = (encoding >> 13) & 7;
    if (quadrant == 1) {
        if (funct3 == 5) {
            return JUMP; /* c.j (RV64 has no c.jal: funct3 1 is c.addiw) */
        }
        return funct3 == 6 || funct3 == 7 ? CONDITIONAL : FALLS_THROUGH; /* c.beqz, c.bnez */
    }
    if (quadrant == 2 && funct3 == 4) {
        uint32_t rs1 = (encoding >> 7) & 31;
        uint32_t rs2 = (encoding >> 2) & 31;
        return rs2 == 0 && rs1 != 0 ? JUMP : FALLS_THROUGH; /* c.jr, c.jalr (not c.ebreak, c.mv, c.add) */
    }
    return FALLS_THROUGH;
}

static inline size_t hash_pair(uint64_t from, uint64_t to)
{
    uint64_t h = (from * 0x9e3779b97f4a7c15u) ^ (to * 0xc2b2ae3d27d4eb4fu);
    return (size_t)(h ^ (h >> 29));
}

static int table_grow(struct table *t)
{
    size_t capacity = t->capacity == 0 ? 1024 : t->capacity * 2;
    struct edge **slots = calloc(capacity, sizeof(*slots));
    if (slots == NULL) {
        return 0;
    }
    for (size_t i = 0; i < t->capacity; i++) {
        struct edge *e = t->slots[i];
        if (e != NULL) {
            size_t j = hash_pair(e->from, e->to) & (capacity - 1);
            while (slots[j] != NULL) {
                j = (j + 1) & (capacity - 1);
            }
            slots[j] = e;
        }
    }
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 1;
}

static uint64_t spare_counter; /* where increments go when memory ran out (out_of_memory says so) */

static struct edge *new_edge(struct thread *owner)
{
    if (owner->chunks == NULL || owner->chunk_used == EDGES_PER_CHUNK) {
        struct chunk *c = malloc(sizeof(*c));
        if (c == NULL) {
            return NULL;
        }
        c->next = owner->chunks;
        owner->chunks = c;
        owner->chunk_used = 0;
    }
    return &owner->chunks->edges[owner->chunk_used++];
}

/* The counter of (from, to) in t, created at 0. */
static uint64_t *table_counter(struct thread *owner, struct table *t, uint64_t from, uint64_t to)
{
    if (2 * (t->used + 1) > t->capacity && !table_grow(t)) {
        atomic_fetch_add(&out_of_memory, 1);
        return &spare_counter;
    }
    size_t mask = t->capacity - 1;
    size_t j = hash_pair(from, to) & mask;
    for (;;) {
        struct edge *e = t->slots[j];
        if (e == NULL) {
            e = new_edge(owner);
            if (e == NULL) {
                atomic_fetch_add(&out_of_memory, 1);
                return &spare_counter;
            }
            *e = (struct edge){from, to, 0};
            t->slots[j] = e;
            t->used++;
            return &e->count;
        }
        if (e->from == from && e->to == to) {
            return &e->count;
        }
        j = (j + 1) & mask;
    }
}

/* Ends the thread's open range at the final instruction of the block it ran last. */
static void close_range(struct thread *t)
{
    if (t->last_block != NULL) {
        (*table_counter(t, &t->ranges, t->range_start, t->last_block->last))++;
        t->last_block = NULL;
    }
}

/* Adds a cache entry's count to the branch and the range it stands for. */
static void flush_cached(struct thread *t, const struct cached *c)
{
    if (c->count != 0) {
        *table_counter(t, &t->branches, c->last->last, c->next->start) += c->count;
        *table_counter(t, &t->ranges, c->range_start, c->last->last) += c->count;
    }
}

/* A cache miss: the entry makes room for the transition (range start, last, b), seen once. */
static void replace_cached(struct thread *t, struct cached *c, const struct block *last, const struct block *b)
{
    flush_cached(t, c);
    *c = (struct cached){last, b, t->range_start, 1};
}

/* A taken transition from last to b that is neither in last's memo nor in the thread's cache: the
 * memo is claimed if it is free, its second slot filled if the memo is this thread's and the slot
 * free, else the transition replaces the cache entry c. */
static __attribute__((noinline)) void taken_uncached(struct thread *t, struct block *last, const struct block *b,
                                                     struct cached *c)
{
    struct thread *owner = atomic_load_explicit(&last->memo_owner, memory_order_relaxed);
    if (owner == NULL && atomic_compare_exchange_strong(&last->memo_owner, &owner, t)) {
        last->memo_next = b;
        last->memo_range_start = t->range_start;
        last->memo_count = 1;
    } else if (owner == t && last->memo2_next == NULL) {
        last->memo2_next = b;
        last->memo2_range_start = t->range_start;
        last->memo2_count = 1;
    } else {
        replace_cached(t, c, last, b);
    }
}

/* Control went from block last to b without a branch (signal delivery, rt_sigreturn). */
static __attribute__((noinline)) void discontinuity(struct thread *t, const struct block *last, const struct block *b)
{
    (*table_counter(t, &t->discontinuities, last->last, b->start))++;
    (*table_counter(t, &t->ranges, t->range_start, last->last))++;
}

static void on_block(unsigned int vcpu_index, void *userdata)
{
    struct thread *t = vcpu_index < MAX_VCPUS ? threads[vcpu_index] : NULL;
    if (t == NULL) {
        return;
    }
    struct block *b = userdata;
    struct block *last = (struct block *)t->last_block;
    t->last_block = b;
    if (last == NULL) {
        t->range_start = b->start;
    } else if (b->start != last->falls_to) {
        int mine = atomic_load_explicit(&last->memo_owner, memory_order_relaxed) == t;
        if (mine && last->memo_next == b && last->memo_range_start == t->range_start) {
            last->memo_count++;
        } else if (mine && last->memo2_next == b && last->memo2_range_start == t->range_start) {
            last->memo2_count++;
        } else if (last->kind == FALLS_THROUGH) {
            discontinuity(t, last, b);
        } else {
            struct cached *c = &t->cache[(((uintptr_t)b >> 4) ^ ((uintptr_t)last >> 6) ^ t->range_start)
                                         & (CACHE_SIZE - 1)];
            if (c->last == last && c->next == b && c->range_start == t->range_start) {
                c->count++;
            } else {
                taken_uncached(t, last, b, c);
            }
        }
        t->range_start = b->start;
    }
}

/* riscv64 Linux: exit (one thread; the last one's ends the guest) and exit_group. */
#define GUEST_EXIT 93
#define GUEST_EXIT_GROUP 94

static void on_syscall(splice_qemu_id id, unsigned int vcpu_index, int64_t num, uint64_t a1, uint64_t a2,
                       uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    (void)id, (void)vcpu_index, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if (num == GUEST_EXIT || num == GUEST_EXIT_GROUP) {
        in_exit_call = 1;
    }
}

static const struct block *block_of(uint64_t start, uint64_t last, uint64_t next, enum transfer kind)
{
    uint64_t falls_to = kind == JUMP ? NO_ADDRESS : next;
    size_t bucket = hash_pair(start, last) & (BUCKETS - 1);
    for (struct block *b = block_buckets[bucket]; b != NULL; b = b->chain) {
        if (b->start == start && b->last == last && b->falls_to == falls_to && b->kind == kind) {
            return b;
        }
    }
    struct block *b = calloc(1, sizeof(*b));
    if (b == NULL) {
        return NULL;
    }
    b->start = start;
    b->falls_to = falls_to;
    b->last = last;
    b->kind = kind;
    b->chain = block_buckets[bucket];
    block_buckets[bucket] = b;
    b->all_next = all_blocks;
    all_blocks = b;
    return b;
}

static void translate(splice_qemu_id id, struct qemu_plugin_tb *tb)
{
    (void)id;
    splice_start();
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (n == 0) {
        return;
    }
    struct qemu_plugin_insn *final = qemu_plugin_tb_get_insn(tb, n - 1);
    uint32_t encoding, size;
    pthread_mutex_lock(&lock);
    g_splice.translations++;
    const struct block *b = NULL;
    if (splice_read_encoding(final, &encoding, &size)) {
        uint64_t last = qemu_plugin_insn_vaddr(final);
        b = block_of(qemu_plugin_tb_vaddr(tb), last, last + size, transfer_of(encoding, size));
    }
    if (b == NULL) {
        g_splice.footer.translation_failures++;
    }
    pthread_mutex_unlock(&lock);
    if (b != NULL) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, SPLICE_CB_NO_REGS, (void *)b);
    }
}

void splice_trace_vcpu_init(unsigned int vcpu_index)
{
    if (vcpu_index >= MAX_VCPUS) {
        lost_threads++;
        return;
    }
    struct thread *t = calloc(1, sizeof(*t));
    pthread_mutex_lock(&lock);
    struct thread *old = threads[vcpu_index];
    if (old != NULL) {
        /* The index belonged to a thread that has exited: its last block has run. */
        close_range(old);
        old->retired_next = retired;
        retired = old;
    }
    if (t == NULL) {
        out_of_memory++;
    } else {
        t->serial = next_serial++;
    }
    threads[vcpu_index] = t;
    pthread_mutex_unlock(&lock);
}

int splice_trace_install(splice_qemu_id id)
{
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    return 0;
}

static int edge_order(const void *a, const void *b)
{
    const struct edge *x = *(const struct edge *const *)a, *y = *(const struct edge *const *)b;
    if (x->from != y->from) {
        return x->from < y->from ? -1 : 1;
    }
    return x->to < y->to ? -1 : x->to > y->to;
}

static void write_table(char tag, struct table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->capacity; i++) {
        if (t->slots[i] != NULL && t->slots[i]->count != 0) {
            t->slots[n++] = t->slots[i];
        }
    }
    qsort(t->slots, n, sizeof(*t->slots), edge_order);
    for (size_t i = 0; i < n; i++) {
        fprintf(g_splice.out, "%c 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 "\n", tag, t->slots[i]->from,
                t->slots[i]->to, t->slots[i]->count);
    }
}

static int serial_order(const void *a, const void *b)
{
    const struct thread *x = *(const struct thread *const *)a, *y = *(const struct thread *const *)b;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

void splice_trace_finish(void)
{
    pthread_mutex_lock(&lock);
    if (!in_exit_call && next_serial > 1) {
        fprintf(stderr, "splice-plugin: QEMU exited outside the guest's exit call while the guest had %" PRIu64
                " threads; their callbacks may still run, so no trace is written\n", next_serial);
        unlink(g_splice.tmp_path);
        _exit(SPLICE_EXIT_FAILED);
    }
    size_t count = 0;
    for (struct thread *t = retired; t != NULL; t = t->retired_next) {
        count++;
    }
    for (int i = 0; i < MAX_VCPUS; i++) {
        if (threads[i] != NULL) {
            count++;
        }
    }
    struct thread **all = calloc(count == 0 ? 1 : count, sizeof(*all));
    if (all == NULL) {
        out_of_memory++;
        count = 0;
    } else {
        size_t k = 0;
        for (struct thread *t = retired; t != NULL; t = t->retired_next) {
            all[k++] = t;
        }
        for (int i = 0; i < MAX_VCPUS; i++) {
            if (threads[i] != NULL) {
                all[k++] = threads[i];
            }
        }
        qsort(all, count, sizeof(*all), serial_order);
    }
    fprintf(g_splice.out, "threads %zu lost_threads %" PRIu64 " out_of_memory %" PRIu64 "\n", count,
            lost_threads, (uint64_t)atomic_load(&out_of_memory));
    for (const struct block *b = all_blocks; b != NULL; b = b->all_next) {
        struct thread *owner = atomic_load(&b->memo_owner);
        if (owner != NULL && b->memo_count != 0) {
            *table_counter(owner, &owner->branches, b->last, b->memo_next->start) += b->memo_count;
            *table_counter(owner, &owner->ranges, b->memo_range_start, b->last) += b->memo_count;
        }
        if (owner != NULL && b->memo2_count != 0) {
            *table_counter(owner, &owner->branches, b->last, b->memo2_next->start) += b->memo2_count;
            *table_counter(owner, &owner->ranges, b->memo2_range_start, b->last) += b->memo2_count;
        }
    }
    for (size_t k = 0; k < count; k++) {
        struct thread *t = all[k];
        close_range(t);
        for (int i = 0; i < CACHE_SIZE; i++) {
            flush_cached(t, &t->cache[i]);
        }
        fprintf(g_splice.out, "thread %" PRIu64 " branches %zu ranges %zu discontinuities %zu\n", t->serial,
                t->branches.used, t->ranges.used, t->discontinuities.used);
        write_table('b', &t->branches);
        write_table('f', &t->ranges);
        write_table('d', &t->discontinuities);
    }
    free(all);
    pthread_mutex_unlock(&lock);
}
