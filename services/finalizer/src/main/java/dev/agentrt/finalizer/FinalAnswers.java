package dev.agentrt.finalizer;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRetries;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.BulkWrites.Stored;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.UsageCounter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/**
 * Writes the chat's answer for a finished task: the model turns the outcome into words for the
 * person; when the model fails, a plain answer made from the outcome itself. The answer's id
 * derives from the event, and an answer already stored is returned as it is: found among the chat's
 * latest messages, which the model's prompt reads anyway, without asking the model again (one
 * stored before more than {@code history-size} later messages is found by the insert instead, after
 * the model was asked in vain). The answer is recorded in the chat's run-event ledger; the caller
 * publishes its outbox. The model asked is the task's ({@code Task.model}; null: the default
 * model); the tokens of its reply are stored on the answer and, when the write inserted it, added
 * to the task's sums and, with the ledger's append of the answer, to the chat's (unless the task
 * keeps its usage apart): once per answer, however often the event comes.
 */
@Component
class FinalAnswers {

  static final String PURPOSE = "final-answer";

  static final String INSTRUCTIONS =
      """
      You write the answer a person reads in a chat when an agent has finished a task for them, \
      or a plan of several agents' tasks has ended. You get the conversation so far, then the \
      task: the agent (or "plan"), its instruction, the outcome, and its result or error (for a \
      plan, the results of its final tasks and what was not done). If the task succeeded, answer the person from the result: keep its \
      facts and its sources, and add nothing it does not say. If it failed, say plainly what \
      could not be done and why, and what the person could try next. Reply with the answer \
      only.""";

  private static final Logger log = LoggerFactory.getLogger(FinalAnswers.class);

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final ModelRetries model;
  private final EventCodec codec;
  private final FinalizerProperties properties;
  private final UsageCounter usage;
  private final RunLedger ledger;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  FinalAnswers(
      MongoTemplate mongo,
      BulkWrites writes,
      ModelPort model,
      EventCodec codec,
      FinalizerProperties properties,
      UsageCounter usage,
      RunLedger ledger) {
    this.mongo = mongo;
    this.writes = writes;
    this.model =
        new ModelRetries(
            model,
            properties.modelAttempts(),
            properties.modelBackoff(),
            properties.modelTimeout(),
            clock);
    this.codec = codec;
    this.properties = properties;
    this.usage = usage;
    this.ledger = ledger;
  }

  /** The id of the outcome's answer: derived from the event, so an event has one answer. */
  static String idOf(TaskOutcome outcome) {
    return Ids.derived(outcome.eventId(), PURPOSE);
  }

  ChatMessage write(TaskOutcome outcome) {
    Task task = mongo.findById(outcome.taskId(), Task.class);
    if (task == null) {
      throw new IllegalStateException("task " + outcome.taskId() + " is not stored");
    }
    return write(outcome, task);
  }

  /** The outcome's answer, written from its task as the caller read it. */
  ChatMessage write(TaskOutcome outcome, Task task) {
    TaskOutcome told = Reroutes.told(task, outcome);
    return write(
        new Brief(
            idOf(outcome),
            outcome.chatId(),
            task.id(),
            countOnChat(task),
            task.model(),
            brief(task, told),
            plainAnswer(task, told)));
  }

  /**
   * Whether an answer's tokens count on its chat's sums as well as on the task it is linked to:
   * unless the task keeps its usage apart ({@link Task#usageApart}), when the chat's usage is read
   * as its own plus its tasks'; always for an answer linked to no task.
   */
  static boolean countOnChat(@Nullable Task task) {
    return task == null || Task.countsOnChat(task.usageApart());
  }

  /**
   * What an answer is written from: a task's outcome, or a plan's ({@code PlanAnswers}).
   *
   * @param answerId the answer's id, derived from what it answers
   * @param taskId the task the answer is linked to, whose usage it adds to; null for none
   * @param countOnChat whether its usage adds to its chat's too ({@link #countOnChat})
   * @param model the model that writes it (null: the default)
   * @param outcome what the model is told, in the {@code Agent / Instruction / Outcome / Result or
   *     Error} form of {@link #brief}
   * @param plain the answer written without the model, when it fails
   */
  record Brief(
      String answerId,
      String chatId,
      @Nullable String taskId,
      boolean countOnChat,
      @Nullable String model,
      String outcome,
      String plain) {}

  /**
   * The answer of the brief, unless it is stored already: among the chat's latest messages, or
   * stored meanwhile (another finalizer's).
   */
  ChatMessage write(Brief brief) {
    String id = brief.answerId();
    List<ChatMessage> latest = latest(brief.chatId());
    Optional<ChatMessage> stored = latest.stream().filter(m -> m.id().equals(id)).findFirst();
    if (stored.isPresent()) {
      ledger.message(stored.get());
      return stored.get();
    }
    Answer answer = fromModel(brief, latest);
    Instant now = clock.instant();
    ChatMessageAdded added =
        new ChatMessageAdded(
            Ids.derived(id, "added"),
            now,
            brief.chatId(),
            id,
            ChatMessage.ASSISTANT,
            brief.taskId());
    Stored<ChatMessage> written =
        writes.insertOrFind(
            new ChatMessage(
                id,
                brief.chatId(),
                ChatMessage.ASSISTANT,
                answer.content(),
                brief.taskId(),
                brief.model(),
                answer.usage(),
                now,
                List.of(OutboxEntry.of(added, codec))));
    boolean counts = written.inserted() && answer.usage() != null;
    if (counts && brief.taskId() != null) {
      usage.add(Task.class, brief.taskId(), brief.model(), answer.usage(), 1);
    }
    ledger.message(
        written.document(),
        counts && brief.countOnChat()
            ? UsageCounter.counts(brief.model(), answer.usage(), 1)
            : Map.of());
    return written.document();
  }

  /**
   * The answer's text, and the tokens of the model's reply (null when the model did not reply and
   * the answer was written without it).
   */
  private record Answer(String content, @Nullable TurnUsage usage) {}

  private Answer fromModel(Brief brief, List<ChatMessage> latest) {
    TurnUsage tokens = null;
    try {
      ModelReply reply =
          model.complete(
              new ModelRequest(
                  ModelRequest.Purpose.FINAL_ANSWER,
                  prompt(latest, brief.outcome()),
                  List.of(),
                  null,
                  brief.model()),
              clock.instant().plus(properties.answerDeadline()));
      tokens =
          reply.usage() == null
              ? TurnUsage.NONE
              : new TurnUsage(reply.usage().promptTokens(), reply.usage().completionTokens());
      if (reply.content() != null && !reply.content().isBlank()) {
        return new Answer(reply.content().strip(), tokens);
      }
      log.warn("the model wrote an empty answer {}; writing it plainly", brief.answerId());
    } catch (ModelException e) {
      log.error(
          "the model could not write the answer {}; writing it plainly: {}",
          brief.answerId(),
          e.getMessage());
    }
    return new Answer(brief.plain(), tokens);
  }

  /** The chat's last {@code history-size} messages, the newest first. */
  private List<ChatMessage> latest(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId))
            .with(Sort.by(Sort.Direction.DESC, "createdAt", "id"))
            .limit(properties.historySize()),
        ChatMessage.class);
  }

  /** The system message, the chat's last messages ({@link #latest}), and the outcome. */
  private static List<ModelMessage> prompt(List<ChatMessage> latest, String outcome) {
    List<ModelMessage> messages = new ArrayList<>();
    messages.add(ModelMessage.system(INSTRUCTIONS));
    for (ChatMessage message : latest.reversed()) {
      messages.add(
          ChatMessage.USER.equals(message.role())
              ? ModelMessage.user(message.content())
              : ModelMessage.assistant(message.content(), List.of()));
    }
    messages.add(ModelMessage.user(outcome));
    return messages;
  }

  static String brief(Task task, TaskOutcome outcome) {
    String head = "Agent: " + task.agent() + "\nInstruction: " + task.instruction() + "\n";
    return switch (outcome) {
      case TaskOutcome.Succeeded s -> head + "Outcome: success\nResult: " + s.result();
      case TaskOutcome.Failed f -> head + "Outcome: failed\nError: " + f.error();
    };
  }

  /** The answer without the model: the result itself, or what could not be finished and why. */
  static String plainAnswer(Task task, TaskOutcome outcome) {
    return switch (outcome) {
      case TaskOutcome.Succeeded s ->
          s.result().isBlank()
              ? "The " + task.agent() + " finished \"" + task.instruction() + "\" without a result."
              : s.result().strip();
      case TaskOutcome.Failed f ->
          "The " + task.agent() + " could not finish \"" + task.instruction() + "\": " + f.error();
    };
  }
}
