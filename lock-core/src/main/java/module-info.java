/**
 * distlock's core: distributed locks on Redis for plain Java, with no Spring in the API.
 *
 * <p>Exports the API only: {@code dev.distlock.core}, {@code dev.distlock.core.reactor} and
 * {@code dev.distlock.core.fence} (fencing at the resource: JDBC and Redis). The
 * engine's wings live in {@code dev.distlock.core.internal.*}, which this module does not export;
 * their package documentation describes how they fit.
 *
 * <p>LuaJ, which local mode's in-memory Redis needs (optional), is no module and cannot be an automatic one
 * (its jar has classes in the unnamed package): it stays on the class path, lock-core is compiled reading
 * the unnamed module, and {@code MemoryRedis} adds that read at run time.
 */
module dev.distlock.core {
    requires transitive lettuce.core;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires static transitive org.jspecify;
    requires io.netty.buffer;
    requires org.slf4j;
    // only JdbcFence uses it, and whoever calls that has java.sql already
    requires static java.sql;

    exports dev.distlock.core;
    exports dev.distlock.core.reactor;
    exports dev.distlock.core.fence;
}
