package dev.agentrt.orchestrator.chat;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A person's message refused because its chat had its limit of messages in the last minute: {@code
 * 429} with {@code Retry-After}, the seconds until a place frees. Nothing of the message is stored.
 */
public class TooManyMessagesException extends ErrorResponseException {

  TooManyMessagesException(String chatId, int limit, long retryAfterSeconds) {
    super(
        HttpStatus.TOO_MANY_REQUESTS,
        ProblemDetail.forStatusAndDetail(
            HttpStatus.TOO_MANY_REQUESTS,
            "chat "
                + chatId
                + " has had "
                + limit
                + " messages in the last minute, the most it takes ("
                + ChatMessageRate.PROPERTY
                + "); try again in "
                + retryAfterSeconds
                + " s"),
        null);
    getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
  }
}
