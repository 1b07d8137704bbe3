package dev.distlock.sample;

import dev.distlock.spring.LockContext;
import dev.distlock.spring.annotation.DistributedLock;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Stock per SKU, kept in Redis under {@code stock:<sku>}, and bookings that must never sell more
 * units than there are.
 *
 * <p>{@link #book} reads the stock and writes it back with two separate commands (GET, then SET).
 * That is deliberately not atomic (a DECR or a Lua script would be): two callers could both read
 * "1" and both sell the last unit. The {@code @DistributedLock} on the SKU is the only thing that
 * prevents it, across threads and across instances of this service. Real code often has such a
 * read-check-write: a database row, a call to a payment provider, a file.
 */
@Service
public class StockService {

    /** The set of SKUs ever restocked, for the nightly report. */
    static final String SKUS_KEY = "stock-skus";

    private static final Pattern SKU = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final StringRedisTemplate redis;
    private final Duration bookingWork;

    public StockService(StringRedisTemplate redis, @Value("${sample.booking-work:0ms}") Duration bookingWork) {
        this.redis = redis;
        this.bookingWork = bookingWork;
    }

    /**
     * Books one unit. Waits up to 2 s for the SKU's lock (others are booking the same SKU), then
     * throws {@link dev.distlock.core.LockAcquisitionException}. Bookings of other SKUs do not wait:
     * the lock key contains the SKU. Metrics use the lock's name, {@code StockService.book}, not
     * the key, so there is one timer whatever the number of SKUs.
     */
    @DistributedLock(key = "'stock:' + #sku", waitTime = "2s")
    public BookingResult book(String sku) {
        return takeOne(sku);
    }

    /**
     * Adds units and returns the new stock. INCRBY is atomic on its own, but it takes the same lock
     * as {@link #book}: a restock landing between a booking's GET and SET would be overwritten.
     */
    @DistributedLock(key = "'stock:' + #sku", waitTime = "2s")
    public long restock(String sku, long quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive, was " + quantity);
        }
        Long stock = redis.opsForValue().increment(stockKey(sku), quantity);
        redis.opsForSet().add(SKUS_KEY, sku);
        return stock;
    }

    /**
     * Moves units from one SKU to another. Both SKUs' locks are taken together ({@code keys}): all or
     * nothing, in sorted order, so a transfer a->b and a transfer b->a at the same moment cannot
     * deadlock. The bookings of either SKU wait meanwhile, as they take the same keys. Each key has a
     * fencing token ({@link LockContext#currentTokens()}), which a database would check before writing.
     */
    @DistributedLock(
            keys = {"'stock:' + #from", "'stock:' + #to"},
            waitTime = "2s")
    public Transfer transfer(String from, String to, long quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive, was " + quantity);
        }
        if (from.equals(to)) {
            throw new IllegalArgumentException("cannot transfer from " + from + " to itself");
        }
        long available = stock(from); // GET
        if (available < quantity) {
            return new Transfer(from, to, 0, available, stock(to), LockContext.currentTokens());
        }
        redis.opsForValue().set(stockKey(from), Long.toString(available - quantity)); // SET
        long target = redis.opsForValue().increment(stockKey(to), quantity);
        redis.opsForSet().add(SKUS_KEY, to);
        return new Transfer(from, to, quantity, available - quantity, target, LockContext.currentTokens());
    }

    /** What a transfer did; {@code moved} is 0 when the source had too few units. */
    public record Transfer(
            String from, String to, long moved, long fromStock, long toStock, Map<String, Long> fencingTokens) {}

    /** Units in stock; no lock needed to read one value. */
    public long stock(String sku) {
        String value = redis.opsForValue().get(stockKey(sku));
        return value == null ? 0 : Long.parseLong(value);
    }

    /**
     * {@link #book} without the lock. Exists only so that the demo can show what the lock prevents:
     * never expose this.
     */
    BookingResult bookWithoutLock(String sku) {
        return takeOne(sku);
    }

    private BookingResult takeOne(String sku) {
        long stock = stock(sku); // GET
        if (stock <= 0) {
            return BookingResult.SOLD_OUT;
        }
        simulateWork();
        redis.opsForValue().set(stockKey(sku), Long.toString(stock - 1)); // SET
        return BookingResult.BOOKED;
    }

    /** Stands for the work a real booking does between reading and writing (a payment check, say). */
    private void simulateWork() {
        if (bookingWork.isZero()) {
            return;
        }
        try {
            Thread.sleep(bookingWork.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while booking", e);
        }
    }

    static String stockKey(String sku) {
        if (sku == null || !SKU.matcher(sku).matches()) {
            throw new IllegalArgumentException("SKU must be 1 to 64 letters, digits, '-' or '_', was '" + sku + "'");
        }
        return "stock:" + sku;
    }
}
