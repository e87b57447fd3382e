/**
 * What every other package builds on, and which uses nothing of Splice: bounded little-endian and
 * LEB128 reading ({@link dev.splice.base.ByteReader}, {@link dev.splice.base.Le}) and writing
 * ({@link dev.splice.base.ByteWriter}), hex formatting, atomic output files, and
 * {@link dev.splice.base.BadInputException}, the refusal of input Splice cannot handle exactly.
 */
package dev.splice.base;
