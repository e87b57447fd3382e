/*
 * timing mode: the vCPU thread's CPU time at each start and stop marker, and how many
 * translations happened inside each window (a window with translations is contaminated).
 *
 * Only the two marker instructions get execution callbacks; every other instruction runs
 * uninstrumented. The clock is read last in the start callback and first in the stop callback.
 * Windows are kept in memory and written at exit, so no file I/O happens between markers.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "splice_plugin.h"

struct window {
    uint64_t start_pc;
    uint64_t stop_pc;
    uint64_t start_ns;
    uint64_t stop_ns;
    uint64_t translations;
    int timer_failed;
};

static struct window *windows;
static size_t window_capacity;
static size_t window_count; /* finished windows, plus the open one when active */
static int active;
static int out_of_memory;

static int now(uint64_t *ns)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) {
        return 0;
    }
    *ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    return 1;
}

static void on_start(unsigned int vcpu_index, void *userdata)
{
    (void)vcpu_index;
    if (active) {
        g_splice.footer.nested_starts++;
        return;
    }
    if (window_count == window_capacity) {
        size_t capacity = window_capacity == 0 ? 4096 : window_capacity * 2;
        struct window *grown = realloc(windows, capacity * sizeof(*windows));
        if (grown == NULL) {
            out_of_memory = 1;
            g_splice.footer.timer_failures++;
            return;
        }
        windows = grown;
        window_capacity = capacity;
    }
    struct window *w = &windows[window_count];
    w->start_pc = (uint64_t)(uintptr_t)userdata;
    w->stop_pc = 0;
    w->stop_ns = 0;
    w->translations = g_splice.translations;
    w->timer_failed = 0;
    active = 1;
    window_count++;
    if (!now(&w->start_ns)) {
        w->start_ns = 0;
        w->timer_failed = 1;
    }
}

static void on_stop(unsigned int vcpu_index, void *userdata)
{
    (void)vcpu_index;
    uint64_t t;
    int ok = now(&t);
    if (!active) {
        g_splice.footer.inactive_stops++;
        return;
    }
    struct window *w = &windows[window_count - 1];
    w->stop_ns = ok ? t : 0;
    w->timer_failed |= !ok;
    w->stop_pc = (uint64_t)(uintptr_t)userdata;
    w->translations = g_splice.translations - w->translations;
    active = 0;
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
        splice_hook_marker(insn, on_start, on_stop);
    }
}

int splice_timing_install(splice_qemu_id id)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) {
        fprintf(stderr, "splice-plugin: CLOCK_THREAD_CPUTIME_ID is not available\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    return 0;
}

void splice_timing_finish(void)
{
    size_t finished = active ? window_count - 1 : window_count;
    for (size_t i = 0; i < finished; i++) {
        const struct window *w = &windows[i];
        if (w->timer_failed) {
            g_splice.footer.timer_failures++;
        }
        fprintf(g_splice.out,
                "window %zu 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
                i, w->start_pc, w->stop_pc, w->start_ns, w->stop_ns, w->translations,
                w->timer_failed ? "timer-failed" : "ok");
    }
    g_splice.footer.windows = finished;
    g_splice.footer.open_windows = active ? 1 : 0;
    if (out_of_memory) {
        fprintf(stderr, "splice-plugin: out of memory for timing windows; some were not kept\n");
    }
}
