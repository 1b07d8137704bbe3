package dev.distlock.spring.execution;

import org.reactivestreams.Publisher;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * Kotlin {@code Flow} to and from a Reactive Streams publisher, through the adapter Spring registers
 * when kotlinx-coroutines-reactor is present (checked at start-up before a Flow method is accepted).
 * Collecting the returned Flow carries the collector's Reactor context, and the method's Flow sees the
 * lock's tokens in its {@code ReactorContext}.
 */
final class KotlinFlows {

    private KotlinFlows() {}

    static Publisher<Object> toPublisher(Object flow) {
        return adapter().toPublisher(flow);
    }

    static Object fromPublisher(Publisher<?> publisher) {
        return adapter().fromPublisher(publisher);
    }

    private static ReactiveAdapter adapter() {
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance()
                .getAdapter(ClassUtils.resolveClassName(
                        "kotlinx.coroutines.flow.Flow", KotlinFlows.class.getClassLoader()));
        if (adapter == null) {
            throw new IllegalStateException(
                    "No ReactiveAdapter for kotlinx.coroutines.flow.Flow: add kotlinx-coroutines-reactor");
        }
        return adapter;
    }
}
