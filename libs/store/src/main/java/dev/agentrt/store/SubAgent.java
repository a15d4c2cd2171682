package dev.agentrt.store;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * An agent instance working on one task, with its own conversation.
 *
 * @param deadline when its current run must end (set when a turn is claimed; see the agent loop's
 *     limits), or null before its first turn
 * @param settings what was chosen for its task and chat, copied when it was created so that its
 *     turns need not read them; null on sub-agents stored before they carried it
 */
@Document(Collections.SUB_AGENTS)
public record SubAgent(
    @MongoId(FieldType.STRING) String id,
    String taskId,
    String chatId,
    String agent,
    SubAgentStatus status,
    long messageCount,
    @Nullable Turn turn,
    Instant createdAt,
    Instant updatedAt,
    @Nullable Instant deadline,
    @Nullable Settings settings) {

  /**
   * When a message was last added to the conversation, kept until the agent loop has looked at the
   * conversation since: set with each message's place ({@code SubAgentConversations}), removed by
   * the agent loop as it takes a turn, or by its sweep after a look. A sub-agent without a turn
   * that keeps it for a lease's time had the event announcing its message lost (dead-lettered
   * during an outage), or was waiting for nothing the loop does: the sweep looks once. Only queries
   * use it: it is not read into this record.
   */
  public static final String UNLOOKED_SINCE = "unlookedSince";

  /**
   * The failure of a failed sub-agent's run ({@code {messageId, reason, error, at}}), set with its
   * status and removed once its task is failed too: the agent loop's sweep finishes a failure whose
   * worker died between the two. Only queries and that sweep read it: it is not read into this
   * record.
   */
  public static final String UNFINISHED_FAILURE = "unfinishedFailure";

  @PersistenceCreator
  public SubAgent {}

  public SubAgent(
      String id,
      String taskId,
      String chatId,
      String agent,
      SubAgentStatus status,
      long messageCount,
      @Nullable Turn turn,
      Instant createdAt,
      Instant updatedAt) {
    this(id, taskId, chatId, agent, status, messageCount, turn, createdAt, updatedAt, null, null);
  }

  /**
   * The model turn in progress, held with a lease ({@code Leases} on the field {@code turn}): it
   * answers the messages up to {@code seq}; the agent-loop instance {@code holder} renews {@code
   * leaseUntil} while it works, and a turn whose lease passed (its worker died, or let go of it)
   * may be taken again.
   *
   * @param holder the instance holding the turn; null once it let go of it
   */
  public record Turn(long seq, @Nullable String holder, Instant leaseUntil) {}

  /**
   * What was chosen for the sub-agent's task and its chat. Only {@code callerDeadline} changes
   * after it is created (a follow-up goes to the same task, with the task's model; a chat's limits
   * are set when it is created).
   *
   * @param model the model of its turns, the task's (chosen for the message or the chat that
   *     started it); null: the agent's model, else the default
   * @param limits the chat's limits for its runs; null: the chat set none
   * @param rootTaskId for the sub-agent of a child task, the task at the top of its tree, whose run
   *     its turns count against ({@link Task#RUN_TOKENS}); null for a task the orchestrator started
   * @param callerDeadline for the sub-agent of a child task, the deadline of the call it answers
   *     ({@link Task.Delegation#deadline}): every run of it ends by then, whenever its own clock
   *     started; set by agent-init, and again by each later call with its conversation id
   * @param usageApart whether its turns are summed on its task only, not on its chat too ({@link
   *     Task#usageApart}, which its task says as well); null for a sub-agent made before
   */
  public record Settings(
      @Nullable String model,
      @Nullable ChatLimits limits,
      @Nullable String rootTaskId,
      @Nullable Instant callerDeadline,
      @Nullable Boolean usageApart) {

    /** The field a later call sets. */
    public static final String CALLER_DEADLINE = "settings.callerDeadline";

    public Settings(
        @Nullable String model,
        @Nullable ChatLimits limits,
        @Nullable String rootTaskId,
        @Nullable Instant callerDeadline) {
      this(model, limits, rootTaskId, callerDeadline, null);
    }

    public Settings(@Nullable String model, @Nullable ChatLimits limits) {
      this(model, limits, null, null);
    }
  }
}
