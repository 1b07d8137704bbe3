package dev.distlock.spring.transaction;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.util.function.SingletonSupplier;

/**
 * Adds the before-commit check to every transaction manager of the context, the application's own ones
 * included (Spring Boot's customizers reach only the managers it configures). The check itself is made on
 * the first transaction, so that post-processing a manager pulls no lock bean in early. Infrastructure of
 * the starter, not API.
 */
public final class CommitCheckRegistrar implements BeanPostProcessor {

    private final TransactionExecutionListener listener;

    public CommitCheckRegistrar(Supplier<@Nullable TransactionExecutionListener> check) {
        Supplier<@Nullable TransactionExecutionListener> once = SingletonSupplier.ofNullable(check);
        this.listener = new TransactionExecutionListener() {
            @Override
            public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
                TransactionExecutionListener resolved = once.get();
                if (resolved != null) {
                    resolved.afterBegin(transaction, beginFailure);
                }
            }
        };
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager manager
                && !manager.getTransactionExecutionListeners().contains(listener)) {
            manager.addListener(listener);
        }
        return bean;
    }
}
