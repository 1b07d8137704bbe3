/**
 * Wake-ups of waiting threads over Redis pub/sub. Internal: public only for the engine in
 * {@code dev.distlock.core}; not part of the API.
 */
@NullMarked
package dev.distlock.core.pubsub;

import org.jspecify.annotations.NullMarked;
