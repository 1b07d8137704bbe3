/**
 * distlock's core: distributed locks on Redis for plain Java, with no Spring in the API.
 *
 * <p>Exports the API only: {@code dev.distlock.core} and {@code dev.distlock.core.reactor}. The
 * engine's wings live in {@code dev.distlock.core.internal.*}, which this module does not export;
 * their package documentation describes how they fit.
 */
module dev.distlock.core {
    requires transitive lettuce.core;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires static transitive org.jspecify;
    requires io.netty.buffer;
    requires org.slf4j;

    exports dev.distlock.core;
    exports dev.distlock.core.reactor;
}
