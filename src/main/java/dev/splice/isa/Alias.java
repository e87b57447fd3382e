package dev.splice.isa;

/**
 * A readable form of one instruction: when every condition holds (a field equals a constant or
 * another field), the instruction prints as {@code mnemonic} with {@code operands}.
 */
final class Alias {
    final String mnemonic;
    final byte[] mnemonicBytes;
    final Template operands;
    final Field[] condFields;
    final long[] condValues;
    /** Non-null where the condition compares with another field instead of a constant. */
    final Field[] condOthers;

    Alias(String mnemonic, Template operands, Field[] condFields, long[] condValues, Field[] condOthers) {
        this.mnemonic = mnemonic;
        this.mnemonicBytes = TextBuffer.ascii(mnemonic);
        this.operands = operands;
        this.condFields = condFields;
        this.condValues = condValues;
        this.condOthers = condOthers;
    }

    boolean matches(int bits) {
        for (int i = 0; i < condFields.length; i++) {
            long v = condFields[i].value(bits);
            long want = condOthers[i] != null ? condOthers[i].value(bits) : condValues[i];
            if (v != want) {
                return false;
            }
        }
        return true;
    }
}
