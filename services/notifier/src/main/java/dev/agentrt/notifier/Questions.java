package dev.agentrt.notifier;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskWaiting;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * Puts a sub-agent's question in the chat, linked to its task: "The Researcher needs more
 * information: …"; for a child task, who it works for: "The Researcher (working for the Analyst)
 * needs more information: …". A call that awaits approval gets an approval request linked to the
 * task and the call: "The Scribe asks to run write_note with {…}. Approve or reject it.". The
 * person's reply goes back to that sub-agent (the orchestrator routes it to the waiting task, child
 * or not). The message's id derives from the event, so a redelivered event finds the message it
 * already made. The caller publishes its outbox.
 */
@Component
class Questions {

  static final String PURPOSE = "question";

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final EventCodec codec;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  Questions(MongoTemplate mongo, BulkWrites writes, EventCodec codec) {
    this.mongo = mongo;
    this.writes = writes;
    this.codec = codec;
  }

  ChatMessage post(TaskWaiting waiting) {
    String id = Ids.derived(waiting.eventId(), PURPOSE);
    ChatMessage posted = mongo.findById(id, ChatMessage.class);
    if (posted != null) {
      return posted;
    }
    Task task = mongo.findById(waiting.taskId(), Task.class);
    if (task == null) {
      throw new IllegalStateException("task " + waiting.taskId() + " is not stored");
    }
    Instant now = clock.instant();
    ChatMessageAdded added =
        new ChatMessageAdded(
            Ids.derived(id, "added"),
            now,
            waiting.chatId(),
            id,
            ChatMessage.ASSISTANT,
            waiting.taskId());
    List<OutboxEntry> outbox = List.of(OutboxEntry.of(added, codec));
    return writes
        .insertOrFind(
            waiting.approval()
                ? ChatMessage.approvalRequest(
                    id,
                    waiting.chatId(),
                    approvalText(
                        task.agent(),
                        employer(task),
                        waiting.tool(),
                        waiting.arguments(),
                        waiting.taskId()),
                    waiting.taskId(),
                    waiting.toolCallId(),
                    now,
                    outbox)
                : new ChatMessage(
                    id,
                    waiting.chatId(),
                    ChatMessage.ASSISTANT,
                    text(task.agent(), employer(task), waiting.question()),
                    waiting.taskId(),
                    now,
                    outbox))
        .document();
  }

  /** The agent of the task that started this child task, or null for a task of the chat's own. */
  private @Nullable String employer(Task task) {
    if (task.delegation() == null) {
      return null;
    }
    Task parent = mongo.findById(task.delegation().parentTaskId(), Task.class);
    return parent == null ? null : parent.agent();
  }

  /** "The Researcher needs more information: What should I research?" */
  static String text(String agent, String question) {
    return text(agent, null, question);
  }

  /**
   * "The Researcher (working for the Analyst) needs more information: What should I research?"
   *
   * @param employer the agent it works for, or null
   */
  static String text(String agent, @Nullable String employer, String question) {
    return "The " + who(agent, employer) + " needs more information: " + question.strip();
  }

  /**
   * "The Scribe asks to run write_note with {"title":"x"}. Approve or reject it." Arguments longer
   * than {@link RunLedger#EXCERPT} characters are cut, saying where all of them are: the task's
   * details ({@code GET /api/tasks/<taskId>}, its {@code toolCalls}).
   */
  static String approvalText(
      String agent, @Nullable String employer, String tool, String arguments, String taskId) {
    String shown = RunLedger.excerpt(arguments);
    return "The "
        + who(agent, employer)
        + " asks to run "
        + tool
        + " with "
        + shown
        + (shown.equals(arguments)
            ? ""
            : " (cut at "
                + RunLedger.EXCERPT
                + " characters; all of them: GET /api/tasks/"
                + taskId
                + ")")
        + ". Approve or reject it.";
  }

  private static String who(String agent, @Nullable String employer) {
    return employer == null
        ? name(agent)
        : name(agent) + " (working for the " + name(employer) + ")";
  }

  private static String name(String agent) {
    return agent.isEmpty()
        ? agent
        : agent.substring(0, 1).toUpperCase(Locale.ROOT) + agent.substring(1);
  }
}
