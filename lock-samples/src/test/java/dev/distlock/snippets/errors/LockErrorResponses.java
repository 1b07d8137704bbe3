package dev.distlock.snippets.errors;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockUnavailableException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

@RestControllerAdvice
public class LockErrorResponses {

    // Busy for the whole wait: the service is fine, the same request will likely succeed soon.
    @ExceptionHandler(LockAcquisitionException.class)
    ResponseEntity<ProblemDetail> busy(LockAcquisitionException e) {
        return ResponseEntity.status(HttpStatus.CONFLICT)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .body(ProblemDetail.forStatusAndDetail(
                        HttpStatus.CONFLICT, "Being changed by another request; retry shortly"));
    }

    // Redis did not answer in time: nobody knows who holds the lock.
    @ExceptionHandler(LockUnavailableException.class)
    ResponseEntity<ProblemDetail> unavailable(LockUnavailableException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, "5")
                .body(ProblemDetail.forStatus(HttpStatus.SERVICE_UNAVAILABLE));
    }
}
