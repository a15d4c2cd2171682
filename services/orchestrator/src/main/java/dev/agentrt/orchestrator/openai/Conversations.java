package dev.agentrt.orchestrator.openai;

import dev.agentrt.orchestrator.chat.ChatAccess;
import dev.agentrt.orchestrator.decision.MessageOutcomes;
import dev.agentrt.orchestrator.openai.Fingerprint.Turn;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Which chat an OpenAI-style request continues, and the chat's reply to a posted message.
 *
 * <p>A client without the {@code X-Chat-Id} header resends the whole history. Every reply this API
 * returns records the fingerprint of the chat's stored {@code user} and {@code assistant} messages
 * up to and including that reply ({@value #COLLECTION}: {@code {_id: fingerprint, chatId}}); a
 * request whose history before its last user message has that fingerprint continues that chat.
 */
@Component
class Conversations {

  static final String COLLECTION = "openai_conversations";

  private final MongoTemplate mongo;
  private final MessageOutcomes outcomes;
  private final Duration replyTimeout;
  private final Duration pollInterval;
  private final Clock clock = Clock.systemUTC();

  Conversations(
      MongoTemplate mongo,
      @Value("${agentrt.openai.reply-timeout:120s}") Duration replyTimeout,
      @Value("${agentrt.openai.poll-interval:100ms}") Duration pollInterval) {
    this.mongo = mongo;
    this.outcomes = new MessageOutcomes(mongo);
    this.replyTimeout = replyTimeout;
    this.pollInterval = pollInterval;
  }

  /**
   * The chat whose conversation so far is exactly {@code history}, if a reply of this API made it.
   */
  Optional<String> chatWithHistory(String owner, List<Turn> history) {
    if (history.isEmpty()) {
      return Optional.empty();
    }
    Query byFingerprint = Query.query(Criteria.where("_id").is(Fingerprint.of(owner, history)));
    return Optional.ofNullable(mongo.findOne(byFingerprint, Known.class, COLLECTION))
        .map(Known::chatId);
  }

  /** What the {@value #COLLECTION} collection holds. */
  record Known(String id, String chatId) {}

  /**
   * The chat's reply to the person's message, waiting for it at most the reply timeout: the
   * orchestrator's direct answer, or else the first message of the task the message started or woke
   * (its final answer or its question, with its {@code taskId}; the answer of the task that
   * re-routed it, if it failed). The answer to an earlier message, or another task's, stored
   * meanwhile is not this message's reply. The reply's conversation is remembered, so a client that
   * resends it continues this chat.
   */
  Optional<ChatMessage> awaitReply(ChatMessage question) throws InterruptedException {
    try {
      return awaitReply(question, () -> {});
    } catch (IOException cannotHappen) {
      throw new UncheckedIOException(cannotHappen);
    }
  }

  /** Something to do between two looks for the reply (stream progress, say). */
  interface WhileWaiting {
    void tick() throws IOException;
  }

  /** {@link #awaitReply(ChatMessage)}, calling {@code whileWaiting} before each look. */
  Optional<ChatMessage> awaitReply(ChatMessage question, WhileWaiting whileWaiting)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + replyTimeout.toNanos();
    String taskId = null;
    while (true) {
      whileWaiting.tick();
      Optional<ChatMessage> direct =
          outcomes.directAnswer(question.id()).or(() -> outcomes.planAnswer(question.id()));
      if (direct.isPresent()) {
        remember(direct.get());
        return direct;
      }
      if (taskId == null) {
        taskId = outcomes.taskId(question.id()).orElse(null);
      }
      ChatMessage reply =
          taskId == null ? null : mongo.findOne(taskReply(question, taskId), ChatMessage.class);
      if (reply != null) {
        remember(reply);
        return Optional.of(reply);
      }
      if (System.nanoTime() - deadline >= 0) {
        return Optional.empty();
      }
      Thread.sleep(pollInterval);
    }
  }

  /**
   * The task's first message in the chat after the person's message; if the task failed and was
   * re-routed, the answer is the re-route's.
   */
  private static Query taskReply(ChatMessage question, String taskId) {
    Instant after = question.createdAt().truncatedTo(ChronoUnit.MILLIS); // as stored
    return Query.query(
            Criteria.where("chatId")
                .is(question.chatId())
                .and("role")
                .is(ChatMessage.ASSISTANT)
                .and("taskId")
                .in(MessageOutcomes.answeringTasks(taskId))
                .and("createdAt")
                .gte(after))
        .with(Sort.by("createdAt", "id"))
        .limit(1);
  }

  private void remember(ChatMessage reply) {
    Chat chat = mongo.findById(reply.chatId(), Chat.class);
    if (chat == null) {
      return;
    }
    List<Turn> conversation =
        mongo
            .find(
                Query.query(
                        Criteria.where("chatId")
                            .is(reply.chatId())
                            .and("createdAt")
                            .lte(reply.createdAt()))
                    .with(Sort.by("createdAt", "id")),
                ChatMessage.class)
            .stream()
            .filter(
                m -> ChatMessage.USER.equals(m.role()) || ChatMessage.ASSISTANT.equals(m.role()))
            .map(m -> new Turn(m.role(), m.content()))
            .toList();
    mongo.upsert(
        Query.query(
            Criteria.where("_id").is(Fingerprint.of(ChatAccess.ownerOf(chat), conversation))),
        Update.update("chatId", reply.chatId()).set("updatedAt", clock.instant()),
        COLLECTION);
  }
}
