/*
 * The Splice QEMU plugin: entry point, arguments, interface version check and the record file.
 *
 *   qemu-riscv64 -plugin libsplice-plugin.so,mode=count|validation|timing|catalog|trace,out=FILE \
 *                [,min_pc=ADDR,max_pc=ADDR] PROGRAM ...
 *
 * The record file is written to FILE.tmp.PID and renamed to FILE when the guest exits, so a run
 * that dies leaves no half-written FILE. The format is documented in docs/formats.md
 * ("QEMU plugin records").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "splice_plugin.h"

/* Tests build the plugin with another value to see QEMU refuse it. */
#ifndef SPLICE_DECLARED_API_VERSION
#define SPLICE_DECLARED_API_VERSION SPLICE_QEMU_API_VERSION
#endif

SPLICE_EXPORT int qemu_plugin_version = SPLICE_DECLARED_API_VERSION;

struct splice_state g_splice;

static const char *mode_name;
static void (*mode_finish)(void);
static void (*mode_vcpu_init)(unsigned int vcpu_index); /* or NULL */
static int api_cur, api_min;
static int started;
static int forked_child;

/* A guest fork() forks QEMU: the child shares the parent's open record file. It must neither
 * flush the parent's buffered records nor write, rename or remove anything; its instructions are
 * not the parent's and are not counted. */
static void after_fork_in_child(void)
{
    forked_child = 1;
    if (g_splice.out != NULL) {
        /* Drop the parent's buffered bytes, then send the child's own records (windows it may
         * still write) nowhere; closing the child's copy of the descriptor leaves the parent's. */
        __fpurge(g_splice.out);
        FILE *sink = fopen("/dev/null", "w");
        if (sink != NULL) {
            fclose(g_splice.out);
            g_splice.out = sink;
        }
    }
}

static int refuse(const char *message, const char *detail)
{
    fprintf(stderr, "splice-plugin: %s%s\n", message, detail == NULL ? "" : detail);
    return -1;
}

static int parse_address(const char *text, uint64_t *value)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0') {
        return 0;
    }
    *value = v;
    return 1;
}

static void write_failed(const char *what)
{
    fprintf(stderr, "splice-plugin: cannot write the record file %s (%s): %s\n", g_splice.out_path,
            what, strerror(errno));
    if (g_splice.tmp_path != NULL) {
        unlink(g_splice.tmp_path);
    }
    _exit(SPLICE_EXIT_FAILED);
}

void splice_start(void)
{
    if (started) {
        return;
    }
    started = 1;
    /* The guest's code range is only known once QEMU has loaded it, after install. */
    if (!g_splice.range_given) {
        g_splice.min_pc = qemu_plugin_start_code();
        g_splice.max_pc = qemu_plugin_end_code();
        if (g_splice.min_pc >= g_splice.max_pc) {
            fprintf(stderr, "splice-plugin: QEMU reports an empty code range [0x%" PRIx64
                    ", 0x%" PRIx64 "); pass min_pc and max_pc\n", g_splice.min_pc, g_splice.max_pc);
            unlink(g_splice.tmp_path);
            _exit(SPLICE_EXIT_FAILED);
        }
    }
    fprintf(g_splice.out,
            "splice-plugin-records %d\nmode %s\napi %d %d\nmarkers 0x%08x 0x%08x\n"
            "range 0x%" PRIx64 " 0x%" PRIx64 "\n",
            SPLICE_RECORDS_VERSION, mode_name, api_cur, api_min, SPLICE_START_MARKER,
            SPLICE_STOP_MARKER, g_splice.min_pc, g_splice.max_pc);
}

/* Writes the mode's records, the footer and the end line, then renames the file into place. */
static void finish(splice_qemu_id id, void *userdata)
{
    (void)id;
    (void)userdata;
    if (g_splice.out == NULL) {
        return; /* already finished */
    }
    if (forked_child) {
        __fpurge(g_splice.out);
        fclose(g_splice.out);
        g_splice.out = NULL;
        return;
    }
    if (!started) {
        /* QEMU exits before the guest ran (e.g. it could not load the executable). */
        fprintf(stderr, "splice-plugin: the guest never ran; no records written\n");
        fclose(g_splice.out);
        g_splice.out = NULL;
        unlink(g_splice.tmp_path);
        return;
    }
    mode_finish();
    const struct splice_footer *f = &g_splice.footer;
    fprintf(g_splice.out,
            "footer windows %" PRIu64 " nested_starts %" PRIu64 " inactive_stops %" PRIu64
            " translation_failures %" PRIu64 " timer_failures %" PRIu64 " open_windows %" PRIu64
            " vcpus %" PRIu64 " translations %" PRIu64 "\nend\n",
            f->windows, f->nested_starts, f->inactive_stops, f->translation_failures,
            f->timer_failures, f->open_windows, g_splice.vcpus, g_splice.translations);
    if (fflush(g_splice.out) != 0 || ferror(g_splice.out)) {
        write_failed("write");
    }
    if (fsync(fileno(g_splice.out)) != 0 && errno != EINVAL) {
        write_failed("fsync");
    }
    if (fclose(g_splice.out) != 0) {
        g_splice.out = NULL;
        write_failed("close");
    }
    g_splice.out = NULL;
    if (rename(g_splice.tmp_path, g_splice.out_path) != 0) {
        write_failed("rename");
    }
}

static void vcpu_init(splice_qemu_id id, unsigned int vcpu_index)
{
    (void)id;
    g_splice.vcpus++;
    if (mode_vcpu_init != NULL) {
        mode_vcpu_init(vcpu_index);
    }
}

SPLICE_EXPORT int qemu_plugin_install(splice_qemu_id id, const splice_qemu_info *info, int argc,
                                      char **argv)
{
    int required_api = SPLICE_QEMU_API_VERSION;
    int have_min = 0, have_max = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        if (eq == NULL) {
            return refuse("argument without '=': ", arg);
        }
        size_t key_len = (size_t)(eq - arg);
        const char *value = eq + 1;
        if (key_len == 4 && strncmp(arg, "mode", 4) == 0) {
            mode_name = value;
        } else if (key_len == 3 && strncmp(arg, "out", 3) == 0) {
            g_splice.out_path = value;
        } else if (key_len == 6 && strncmp(arg, "min_pc", 6) == 0) {
            if (!parse_address(value, &g_splice.min_pc)) {
                return refuse("min_pc is not a number: ", value);
            }
            have_min = 1;
        } else if (key_len == 6 && strncmp(arg, "max_pc", 6) == 0) {
            if (!parse_address(value, &g_splice.max_pc)) {
                return refuse("max_pc is not a number: ", value);
            }
            have_max = 1;
        } else if (key_len == 12 && strncmp(arg, "working_sets", 12) == 0) {
            g_splice.working_sets = value;
        } else if (key_len == 3 && strncmp(arg, "api", 3) == 0) {
            /* The interface version the plugin claims to need: a test hook for the check below. */
            uint64_t v;
            if (!parse_address(value, &v) || v > 1000) {
                return refuse("api is not a small number: ", value);
            }
            required_api = (int)v;
        } else {
            return refuse("unknown argument (expected mode, out, min_pc, max_pc, working_sets): ", arg);
        }
    }
    if (info->version.min > required_api || info->version.cur < required_api) {
        fprintf(stderr,
                "splice-plugin: refusing to load: this plugin is written for QEMU plugin API "
                "version %d, but this QEMU supports versions %d to %d\n",
                required_api, info->version.min, info->version.cur);
        return -1;
    }
    if (info->system_emulation) {
        /* System mode (qemu-system-riscv64): the probe image's own code only, named by its
         * virtual address range; the modes that follow a Linux process stay user-mode only.
         * catalog mode there catalogs a bare-metal image's code range. */
        if (mode_name == NULL || (strcmp(mode_name, "count") != 0 && strcmp(mode_name, "validation") != 0
                                  && strcmp(mode_name, "timing") != 0 && strcmp(mode_name, "catalog") != 0)) {
            return refuse("in system mode only the modes count, validation, timing and catalog are supported", NULL);
        }
        if (!have_min) {
            return refuse("system mode needs min_pc and max_pc (the image's code range)", NULL);
        }
    }
    if (mode_name == NULL) {
        return refuse("missing argument mode=count|validation|timing|catalog|trace", NULL);
    }
    if (g_splice.out_path == NULL || g_splice.out_path[0] == '\0') {
        return refuse("missing argument out=FILE", NULL);
    }
    if (have_min != have_max) {
        return refuse("give both min_pc and max_pc, or neither", NULL);
    }
    g_splice.range_given = have_min;
    if (have_min && g_splice.min_pc >= g_splice.max_pc) {
        return refuse("min_pc must be below max_pc", NULL);
    }

    int (*mode_install)(splice_qemu_id);
    if (strcmp(mode_name, "count") == 0) {
        mode_install = splice_count_install;
        mode_finish = splice_count_finish;
    } else if (strcmp(mode_name, "validation") == 0) {
        mode_install = splice_validation_install;
        mode_finish = splice_validation_finish;
    } else if (strcmp(mode_name, "timing") == 0) {
        mode_install = splice_timing_install;
        mode_finish = splice_timing_finish;
    } else if (strcmp(mode_name, "catalog") == 0) {
        mode_install = splice_catalog_install;
        mode_finish = splice_catalog_finish;
    } else if (strcmp(mode_name, "trace") == 0) {
        mode_install = splice_trace_install;
        mode_finish = splice_trace_finish;
        mode_vcpu_init = splice_trace_vcpu_init;
    } else {
        return refuse("unknown mode (expected count, validation, timing, catalog or trace): ", mode_name);
    }

    if (asprintf(&g_splice.tmp_path, "%s.tmp.%ld", g_splice.out_path, (long)getpid()) < 0) {
        return refuse("out of memory", NULL);
    }
    g_splice.out = fopen(g_splice.tmp_path, "w");
    if (g_splice.out == NULL) {
        fprintf(stderr, "splice-plugin: cannot create %s: %s\n", g_splice.tmp_path, strerror(errno));
        return -1;
    }
    api_cur = info->version.cur;
    api_min = info->version.min;

    if (mode_install(id) != 0) {
        fclose(g_splice.out);
        unlink(g_splice.tmp_path);
        return -1;
    }
    if (pthread_atfork(NULL, NULL, after_fork_in_child) != 0) {
        return refuse("cannot register the fork handler", NULL);
    }
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_atexit_cb(id, finish, NULL);
    return 0;
}

int splice_read_encoding(const struct qemu_plugin_insn *insn, uint32_t *encoding, uint32_t *size)
{
    size_t n = qemu_plugin_insn_size(insn);
    const uint8_t *bytes = qemu_plugin_insn_data(insn);
    if (bytes == NULL || (n != 2 && n != 4)) {
        return 0;
    }
    uint32_t value = 0;
    for (size_t i = 0; i < n; i++) {
        value |= (uint32_t)bytes[i] << (8 * i);
    }
    *encoding = value;
    *size = (uint32_t)n;
    return 1;
}

enum splice_marker splice_marker_of(const struct qemu_plugin_insn *insn)
{
    uint32_t encoding, size;
    if (!splice_read_encoding(insn, &encoding, &size) || size != 4) {
        return SPLICE_NOT_MARKER;
    }
    if (encoding == SPLICE_START_MARKER) {
        return SPLICE_START;
    }
    if (encoding == SPLICE_STOP_MARKER) {
        return SPLICE_STOP;
    }
    return SPLICE_NOT_MARKER;
}

int splice_hook_marker(struct qemu_plugin_insn *insn, splice_qemu_vcpu_udata_cb on_start,
                       splice_qemu_vcpu_udata_cb on_stop)
{
    enum splice_marker marker = splice_marker_of(insn);
    if (marker == SPLICE_NOT_MARKER) {
        return 0;
    }
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    qemu_plugin_register_vcpu_insn_exec_cb(insn, marker == SPLICE_START ? on_start : on_stop,
                                           SPLICE_CB_NO_REGS, (void *)(uintptr_t)pc);
    return 1;
}
