/*
 * count mode: the exact number of executed guest instructions.
 *
 * Every translated instruction gets an inline "add 1" that runs before the instruction itself,
 * so a block left early (a fault, an ecall that exits) counts exactly the instructions that
 * started. Inline additions are not atomic: the count is exact for single-threaded guests, and
 * the footer's vcpus field tells a reader when it was not. With min_pc/max_pc only instructions in
 * that range count (system mode requires it: the probe image's code, not the monitor's).
 */
#include <inttypes.h>

#include "splice_plugin.h"

#define STRIPES 16

static uint64_t executed[STRIPES];

static void translate(splice_qemu_id id, struct qemu_plugin_tb *tb)
{
    (void)id;
    splice_start();
    g_splice.translations++;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        if (g_splice.range_given && (pc < g_splice.min_pc || pc >= g_splice.max_pc)) {
            continue; /* outside the range asked for (in system mode: firmware, the probe's monitor) */
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, SPLICE_INLINE_ADD_U64, &executed[i % STRIPES], 1);
    }
}

int splice_count_install(splice_qemu_id id)
{
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    return 0;
}

void splice_count_finish(void)
{
    uint64_t total = 0;
    for (int i = 0; i < STRIPES; i++) {
        total += executed[i];
    }
    fprintf(g_splice.out, "insns %" PRIu64 "\n", total);
}
