/**
 * The Java blocks of docs/*.md as compiled sources, each between a {@code // docs:begin <page> <n>} and a
 * {@code // docs:end} line ({@code n} counts the page's Java blocks from 0): ReadmeSnippetsTest finds
 * every block here, verbatim but for its indentation.
 */
package dev.distlock.snippets.docs;
