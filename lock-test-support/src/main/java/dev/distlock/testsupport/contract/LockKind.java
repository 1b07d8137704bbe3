package dev.distlock.testsupport.contract;

import java.util.Locale;

/** The exclusive kinds of lock the contract runs against; a {@link LockMaker} says which of them it makes. */
public enum LockKind {
    /** A reentrant lock ({@code getLock}). */
    REENTRANT,
    /** A fair lock ({@code getFairLock}). */
    FAIR,
    /** The write lock of a read/write lock. */
    WRITE,
    /** A multi-lock over two names, {@code name:1} and {@code name:2}. */
    MULTI;

    /** The kind's lower-case name, as the parameterised tests show it. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
