/*
 * Shared state of the Splice QEMU plugin. The plugin has five modes (count, validation, timing,
 * catalog, trace; see docs/qemu-plugin.md); each lives in its own file and installs its own
 * callbacks. The state is global because QEMU calls back into plain functions; the footer records
 * how many vCPUs were seen so that a reader of a mode that is exact only for single-threaded
 * guests can refuse more (trace mode keeps its own counters per vCPU).
 */
#ifndef SPLICE_PLUGIN_H
#define SPLICE_PLUGIN_H

#include <stdint.h>
#include <stdio.h>

#include "qemu_api.h"

/* The record file format version written in the first line. */
#define SPLICE_RECORDS_VERSION 1

/* The two marker encodings: HINTs reserved for custom use (SLTI with rd = x0), 32-bit only.
 * start: slti x0, x0, 0x5a1    stop: slti x0, x0, 0x5a0 */
#define SPLICE_START_MARKER 0x5a102013u
#define SPLICE_STOP_MARKER 0x5a002013u

/* Exit status when the plugin cannot do its job at run time, e.g. the record file cannot be
 * written (EX_IOERR). */
#define SPLICE_EXIT_FAILED 74

/* Counters reported in every footer. */
struct splice_footer {
    uint64_t windows;
    uint64_t nested_starts;
    uint64_t inactive_stops;
    uint64_t translation_failures;
    uint64_t timer_failures;
    uint64_t open_windows;
};

struct splice_state {
    FILE *out;
    const char *out_path;
    char *tmp_path;
    uint64_t min_pc; /* instructions in [min_pc, max_pc) are the executable's own code */
    uint64_t max_pc;
    int range_given; /* min_pc/max_pc came from arguments, not from QEMU */
    const char *working_sets; /* catalog mode: working_sets=BYTES:BYTES..., levels the cache model adds */
    uint64_t vcpus;
    uint64_t translations; /* every translation callback, in all modes */
    struct splice_footer footer;
};

extern struct splice_state g_splice;

/* Resolves the code range and writes the header; called by the first translation. */
void splice_start(void);

/* Marker kinds of one translated instruction. */
enum splice_marker { SPLICE_NOT_MARKER, SPLICE_START, SPLICE_STOP };

/* Whether the instruction is one of the markers: exactly 4 bytes with the marker's encoding. */
enum splice_marker splice_marker_of(const struct qemu_plugin_insn *insn);

/* On a marker instruction, registers on_start or on_stop (with the marker's pc as userdata) and
 * returns 1; returns 0 for any other instruction. */
int splice_hook_marker(struct qemu_plugin_insn *insn, splice_qemu_vcpu_udata_cb on_start,
                       splice_qemu_vcpu_udata_cb on_stop);

/* Reads the raw encoding (little-endian, 2 or 4 bytes); returns 0 on an unexpected size. */
int splice_read_encoding(const struct qemu_plugin_insn *insn, uint32_t *encoding, uint32_t *size);

/* Whether a guest address lies in the executable's code range. */
static inline int splice_in_range(uint64_t pc) { return pc >= g_splice.min_pc && pc < g_splice.max_pc; }

/* The table of distinct encodings (encodings.c), used by the validation and catalog modes. */
struct splice_encoding {
    uint32_t encoding;
    uint32_t size;
};
#define SPLICE_NO_SLOT UINT32_MAX
int splice_encodings_init(void);
/* The slot of an encoding, created on first sight; SPLICE_NO_SLOT when the table is full. */
uint32_t splice_encoding_slot(uint32_t encoding, uint32_t size);
uint32_t splice_encoding_count(void);
/* The slot's execution counter: its address never changes. */
uint64_t *splice_encoding_counter(uint32_t slot);
const struct splice_encoding *splice_encoding_key(uint32_t slot);
/* qsort order of records: by size, then encoding (the first member of a record must be a
 * struct splice_encoding). */
int splice_encoding_order(const void *a, const void *b);

/* Mode set-up, called from qemu_plugin_install once the output file is open. */
/* Catalog mode's model of the host's conditional-branch predictor (predictor.c): updates it with one
 * executed branch and returns 1 when the model had predicted the other direction. */
int splice_predictor_mispredicts(uint64_t pc, int taken);

/* Each returns 0, or -1 after printing why it cannot run. */
int splice_count_install(splice_qemu_id id);
int splice_validation_install(splice_qemu_id id);
int splice_timing_install(splice_qemu_id id);
int splice_catalog_install(splice_qemu_id id);
int splice_trace_install(splice_qemu_id id);

/* trace mode: a vCPU (guest thread) was created; called from the plugin's vCPU init hook. */
void splice_trace_vcpu_init(unsigned int vcpu_index);

/* Mode-specific records written at exit, before the footer. */
void splice_count_finish(void);
void splice_validation_finish(void);
void splice_timing_finish(void);
void splice_catalog_finish(void);
void splice_trace_finish(void);

#endif
