package dev.distlock.snippets.docs;

/** What the docs' examples throw when an order's lock stays busy. */
public class OrderBusyException extends RuntimeException {
    public OrderBusyException(long orderId) {
        super("order " + orderId + " is busy");
    }
}
