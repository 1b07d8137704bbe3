/**
 * docs/migrating-from-shedlock.md, the ShedLock side: a package of its own, as its classes carry the same
 * names as the distlock side's.
 */
package dev.distlock.snippets.docs.shedlock;
