/*
 * count mode: the exact number of executed guest instructions.
 *
 * Every translated instruction gets an inline "add 1" that runs before the instruction itself,
 * so a block left early (a fault, an ecall that exits) counts exactly the instructions that
 * started. Inline additions are not atomic: the count is exact for single-threaded guests, and
 * the footer's vcpus field tells a reader when it was not.
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
        qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, i),
                                                   SPLICE_INLINE_ADD_U64, &executed[i % STRIPES], 1);
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
