package dev.agentrt.finalizer;

import dev.agentrt.store.Collections;
import dev.agentrt.store.Lease;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * A finished task's outcome whose answer is not in the chat yet. The listener records it; it is
 * removed once the answer is written and published, shortly after and not waited for ({@link
 * PendingAnswers}). While a finalizer writes the answer it holds it ({@code lease}, renewed while
 * that finalizer lives). Anyone may take it once its lease has passed (its holder died or let go,
 * or its removal was lost: the answer is found stored).
 *
 * @param id the answer's id ({@link FinalAnswers#idOf}): one pending answer per outcome event
 * @param result the task's result when it succeeded, else null
 * @param error why the task failed or was cancelled, else null
 * @param lease who writes the answer, until when
 */
@Document(Collections.PENDING_ANSWERS)
record PendingAnswer(
    @MongoId(FieldType.STRING) String id,
    String eventId,
    String taskId,
    String chatId,
    @Nullable String result,
    @Nullable String error,
    Lease lease) {

  static final String LEASE = "lease";

  /** The outcome as the event told it. */
  TaskOutcome outcome() {
    return error != null
        ? new TaskOutcome.Failed(eventId, taskId, chatId, error)
        : new TaskOutcome.Succeeded(eventId, taskId, chatId, result == null ? "" : result);
  }
}
