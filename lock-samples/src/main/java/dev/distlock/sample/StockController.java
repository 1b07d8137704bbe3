package dev.distlock.sample;

import dev.distlock.core.LockAcquisitionException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The HTTP face of the sample.
 *
 * <pre>
 * curl -X POST 'localhost:8080/stock/book-42?quantity=3'   # restock   -> {"sku":"book-42","stock":3}
 * curl -X POST  localhost:8080/bookings/book-42            # book one  -> 200 BOOKED, 409 SOLD_OUT, or 409 + Retry-After while busy
 * curl          localhost:8080/stock/book-42               # stock     -> {"sku":"book-42","stock":2}
 * curl -X POST  localhost:8080/reports/nightly             # the job   -> 200 report, or 409 when skipped
 * </pre>
 */
@RestController
class StockController {

    private final StockService stock;
    private final NightlyReport report;

    StockController(StockService stock, NightlyReport report) {
        this.stock = stock;
        this.report = report;
    }

    record StockLevel(String sku, long stock) {}

    record Booking(String sku, BookingResult result) {}

    @PostMapping("/stock/{sku}")
    StockLevel restock(@PathVariable String sku, @RequestParam long quantity) {
        return new StockLevel(sku, stock.restock(sku, quantity));
    }

    @PostMapping("/stock/{from}/transfer/{to}")
    StockService.Transfer transfer(@PathVariable String from, @PathVariable String to, @RequestParam long quantity) {
        return stock.transfer(from, to, quantity);
    }

    @GetMapping("/stock/{sku}")
    StockLevel stock(@PathVariable String sku) {
        return new StockLevel(sku, stock.stock(sku));
    }

    @PostMapping("/bookings/{sku}")
    ResponseEntity<Booking> book(@PathVariable String sku) {
        BookingResult result = stock.book(sku);
        HttpStatus status = result == BookingResult.BOOKED ? HttpStatus.OK : HttpStatus.CONFLICT;
        return ResponseEntity.status(status).body(new Booking(sku, result));
    }

    @PostMapping("/reports/nightly")
    ResponseEntity<?> nightlyReport() {
        return report.run()
                .<ResponseEntity<?>>map(ResponseEntity::ok)
                .orElseGet(() -> ResponseEntity.status(HttpStatus.CONFLICT)
                        .body(ProblemDetail.forStatusAndDetail(
                                HttpStatus.CONFLICT, "Skipped: the report is running elsewhere")));
    }

    /**
     * The SKU stayed locked by other bookings for the whole wait time: 409 with Retry-After, since the
     * service is up and the same request will most likely succeed in a moment (503 would tell clients
     * and load balancers that the service itself is down). The detail is fixed text: the exception's
     * message holds the lock key, which may carry customer data.
     */
    @ExceptionHandler(LockAcquisitionException.class)
    ResponseEntity<ProblemDetail> lockBusy(LockAcquisitionException e) {
        return ResponseEntity.status(HttpStatus.CONFLICT)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .body(ProblemDetail.forStatusAndDetail(
                        HttpStatus.CONFLICT, "This SKU is being booked by another request; retry shortly"));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ProblemDetail badRequest(IllegalArgumentException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    }
}
