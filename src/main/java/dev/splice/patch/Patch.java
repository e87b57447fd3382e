package dev.splice.patch;

/** Bytes to write at an address of the input image (outside the moved functions' new copies). */
record Patch(long address, byte[] bytes) {}
