/**
 * The advisor and interceptor that run annotated methods under their lock, and the parsing of
 * annotation attributes and key expressions. Internal to the starter.
 */
@NullMarked
package dev.distlock.spring.aop;

import org.jspecify.annotations.NullMarked;
