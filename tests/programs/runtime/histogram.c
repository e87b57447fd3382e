/* A runtime object for `splice patch --runtime` (docs/instrument.md, "Runtime objects"): a histogram
 * of the addresses fragments pass in a0, kept in this object's own .bss, and written by
 * __splice_user_exit (which the exit hook calls before the counters are written) through the
 * shipped runtime's __splice_write. Freestanding: no libc, no thread-local or GOT references. */
#define SLOTS 64

struct entry {
    unsigned long address;
    unsigned long count;
};

static struct entry table[SLOTS];
static const char tag[8] = "HIST0001";
unsigned long hist_hits;

extern long __splice_write(const void *buffer, unsigned long length);

/* Counts one execution of the point at `address` (open addressing; a full table drops it). */
void hist_record(unsigned long address) {
    unsigned long h = (address >> 1) % SLOTS;
    for (int probe = 0; probe < SLOTS; probe++) {
        struct entry *e = &table[(h + probe) % SLOTS];
        if (e->address == address || e->address == 0) {
            e->address = address;
            e->count++;
            hist_hits++;
            return;
        }
    }
}

/* Called once at exit: a tag, then the table's used entries in slot order. */
void __splice_user_exit(void) {
    static struct entry out[SLOTS + 1];
    unsigned long n = 1;
    __builtin_memcpy(&out[0].address, tag, 8);
    for (int i = 0; i < SLOTS; i++) {
        if (table[i].address != 0) {
            out[n++] = table[i];
        }
    }
    out[0].count = n - 1;
    __splice_write(out, n * sizeof out[0]);
}
