package dev.distlock.snippets.docs;

/** What the docs' payment examples return. */
public record Receipt(long orderId) {}
