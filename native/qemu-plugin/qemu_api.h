/*
 * Splice's own declarations of the part of the QEMU TCG plugin interface it uses.
 *
 * Debian does not package QEMU's plugin header, so the plugin is built against these
 * declarations, written for QEMU 7.2 (plugin API version 1). Only the entry points the Splice
 * plugin calls are declared; their types follow the ABI that qemu-riscv64 7.2 exports
 * (see `nm -D /usr/bin/qemu-riscv64 | grep qemu_plugin`). The symbols are resolved by the dynamic
 * loader when QEMU opens the plugin.
 */
#ifndef SPLICE_QEMU_API_H
#define SPLICE_QEMU_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The interface version this plugin is written against. QEMU reads the exported int
 * `qemu_plugin_version` before it calls the install function and refuses a plugin whose
 * version lies outside what it supports. */
#define SPLICE_QEMU_API_VERSION 1

#define SPLICE_EXPORT __attribute__((visibility("default")))

/* Opaque identifier QEMU gives each loaded plugin. */
typedef uint64_t splice_qemu_id;

/* What QEMU tells the plugin at install time (only valid during the install call). */
typedef struct splice_qemu_info {
    const char *target_name;
    struct {
        int min; /* oldest interface version this QEMU still supports */
        int cur; /* newest interface version this QEMU implements */
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} splice_qemu_info;

/* Opaque handles, valid only during the translation callback that received them. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Whether a callback reads or writes guest registers (ours never do). */
enum splice_qemu_cb_flags {
    SPLICE_CB_NO_REGS = 0,
    SPLICE_CB_R_REGS = 1,
    SPLICE_CB_RW_REGS = 2,
};

/* The only inline operation version 1 offers: add an immediate to a 64-bit counter. */
enum splice_qemu_inline_op {
    SPLICE_INLINE_ADD_U64 = 0,
};

typedef void (*splice_qemu_udata_cb)(splice_qemu_id id, void *userdata);
typedef void (*splice_qemu_vcpu_cb)(splice_qemu_id id, unsigned int vcpu_index);
typedef void (*splice_qemu_vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*splice_qemu_tb_trans_cb)(splice_qemu_id id, struct qemu_plugin_tb *tb);

/* Callback registration. */
void qemu_plugin_register_vcpu_init_cb(splice_qemu_id id, splice_qemu_vcpu_cb cb);
void qemu_plugin_register_vcpu_tb_trans_cb(splice_qemu_id id, splice_qemu_tb_trans_cb cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            splice_qemu_vcpu_udata_cb cb,
                                            enum splice_qemu_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, splice_qemu_vcpu_udata_cb cb,
                                          enum splice_qemu_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum splice_qemu_inline_op op, void *counter,
                                                uint64_t increment);
void qemu_plugin_register_atexit_cb(splice_qemu_id id, splice_qemu_udata_cb cb, void *userdata);

/* A guest system call, before QEMU carries it out: its number and arguments (trace mode watches
 * for the exit calls). */
typedef void (*splice_qemu_vcpu_syscall_cb)(splice_qemu_id id, unsigned int vcpu_index, int64_t num, uint64_t a1,
                                            uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                                            uint64_t a7, uint64_t a8);
void qemu_plugin_register_vcpu_syscall_cb(splice_qemu_id id, splice_qemu_vcpu_syscall_cb cb);

/* Memory accesses (catalog mode's cache simulation): the callback gets the guest virtual address. */
typedef uint32_t splice_qemu_meminfo;
enum splice_qemu_mem_rw {
    SPLICE_MEM_R = 1,
    SPLICE_MEM_W = 2,
    SPLICE_MEM_RW = 3,
};
typedef void (*splice_qemu_vcpu_mem_cb)(unsigned int vcpu_index, splice_qemu_meminfo info, uint64_t vaddr,
                                        void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, splice_qemu_vcpu_mem_cb cb,
                                      enum splice_qemu_cb_flags flags, enum splice_qemu_mem_rw rw, void *userdata);
bool qemu_plugin_mem_is_store(splice_qemu_meminfo info);

/* Queries on a block being translated and on its instructions. */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t index);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

/* User mode: where the guest executable's code was loaded. */
uint64_t qemu_plugin_start_code(void);
uint64_t qemu_plugin_end_code(void);

#endif
