package dev.agentrt.store;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Appends to and reads a sub-agent's conversation. Each message gets the next {@code seq} from the
 * sub-agent's counter; its id derives from what caused it, so appending the same message twice
 * stores it once (the second attempt only burns a sequence number, which leaves a harmless gap).
 */
public class SubAgentConversations {

  private static final String MESSAGE_COUNT = "messageCount";

  private final MongoTemplate mongo;
  private final BulkWrites writes;

  public SubAgentConversations(MongoTemplate mongo) {
    this(mongo, new BulkWrites(mongo));
  }

  /**
   * Conversations whose messages are inserted with the writes of other callers ({@code writes}).
   */
  public SubAgentConversations(MongoTemplate mongo, BulkWrites writes) {
    this.mongo = mongo;
    this.writes = writes;
  }

  /**
   * A message to append: everything but its place in the conversation.
   *
   * @param model on the model's answer, the model asked for the turn (null: the default model)
   * @param usage on the model's answer, the tokens of the turn
   * @param input on the model's answer, what the turn was given
   */
  public record NewMessage(
      String id,
      String role,
      @Nullable String content,
      List<RequestedToolCall> toolCalls,
      @Nullable String toolCallId,
      @Nullable String model,
      @Nullable TurnUsage usage,
      @Nullable TurnInput input,
      List<OutboxEntry> outbox) {

    /** A message no model wrote. */
    public NewMessage(
        String id,
        String role,
        @Nullable String content,
        List<RequestedToolCall> toolCalls,
        @Nullable String toolCallId,
        List<OutboxEntry> outbox) {
      this(id, role, content, toolCalls, toolCallId, null, null, null, outbox);
    }
  }

  /**
   * The stored message, and whether this call stored it: false when it was appended before (a
   * repeated outcome, a redelivered event), so that what must happen once per message (counting its
   * tokens) happens once.
   */
  public record Appended(SubAgentMessage message, boolean inserted) {}

  /**
   * Appends the message unless one with its id is already there.
   *
   * @return the stored message: the new one, or the one appended earlier with the same id
   */
  public SubAgentMessage append(SubAgent subAgent, NewMessage message, Instant now) {
    return append(SubAgentIds.of(subAgent), message, now);
  }

  /** {@link #append(SubAgent, NewMessage, Instant)} knowing only the sub-agent's ids. */
  public SubAgentMessage append(SubAgentIds subAgent, NewMessage message, Instant now) {
    return appendIfAbsent(subAgent, message, now).message();
  }

  /**
   * {@link #append(SubAgentIds, NewMessage, Instant)} for a caller that expects the conversation to
   * count {@code expected} messages: while it does, the place after them is taken by an update that
   * goes out with the process's other writes ({@link BulkWrites#updateIfMatches}), not a {@code
   * findAndModify} of its own; otherwise (another message came first) as that method does.
   */
  public SubAgentMessage append(
      SubAgentIds subAgent, NewMessage message, long expected, Instant now) {
    if (!takeCounted(subAgent.subAgentId(), Filters.eq(MESSAGE_COUNT, expected), 1, now)) {
      return append(subAgent, message, now);
    }
    return insertAt(subAgent, expected + 1, message, now).message();
  }

  /**
   * Appends the message unless one with its id is already there, saying which happened. Of two
   * concurrent appends of the same message exactly one reports {@code inserted}.
   *
   * <p>No read comes first: the message takes the next {@code seq} and is inserted; a duplicate key
   * on its id says it was appended before (the sequence number this attempt took stays unused, a
   * harmless gap).
   */
  public Appended appendIfAbsent(SubAgent subAgent, NewMessage message, Instant now) {
    return appendIfAbsent(SubAgentIds.of(subAgent), message, now);
  }

  /** {@link #appendIfAbsent(SubAgent, NewMessage, Instant)} knowing only the sub-agent's ids. */
  public Appended appendIfAbsent(SubAgentIds subAgent, NewMessage message, Instant now) {
    OptionalLong seq = takeSeqs(Criteria.where("_id").is(subAgent.subAgentId()), 1, now);
    if (seq.isEmpty()) {
      throw new IllegalStateException("no sub-agent " + subAgent.subAgentId());
    }
    return insertAt(subAgent, seq.getAsLong(), message, now);
  }

  /**
   * Takes the next place in the conversation of a sub-agent, but only while it is {@code active}:
   * for what it must not append once it stopped (cancelled, failed by a limit, done), and must not
   * act on either. The check and the taking are one write.
   *
   * @param now when the message is appended: the sub-agent is unlooked at since then
   * @return the {@code seq} for {@link #insertAt}; empty when the sub-agent is not active
   */
  public OptionalLong takeSeqWhileActive(String subAgentId, Instant now) {
    return takeSeqsWhileActive(subAgentId, 1, now);
  }

  /**
   * Takes the next {@code count} places in the conversation of an active sub-agent with one write,
   * as {@link #takeSeqWhileActive} takes one.
   *
   * @return the first of them, for {@link #insertAllAt}; empty when the sub-agent is not active
   */
  public OptionalLong takeSeqsWhileActive(String subAgentId, int count, Instant now) {
    OptionalLong last =
        takeSeqs(
            Criteria.where("_id").is(subAgentId).and("status").is(SubAgentStatus.active),
            count,
            now);
    return last.isEmpty() ? last : OptionalLong.of(last.getAsLong() - count + 1);
  }

  /**
   * {@link #takeSeqsWhileActive(String, int, Instant)} for a caller that read the sub-agent: while
   * it is active and its conversation still counts the {@code counted} messages the caller read
   * ({@link SubAgent#messageCount()}), the places after them are taken by an update that goes out
   * with the process's other writes ({@link BulkWrites#updateIfMatches}), not a {@code
   * findAndModify} of its own. Otherwise (a message came meanwhile, the sub-agent stopped) as that
   * method does.
   *
   * @return the first of them, {@code counted + 1} unless a message came; empty when the sub-agent
   *     is no longer active
   */
  public OptionalLong takeSeqsWhileActive(String subAgentId, int count, long counted, Instant now) {
    boolean taken =
        takeCounted(
            subAgentId,
            Filters.and(
                Filters.eq("status", SubAgentStatus.active.name()),
                Filters.eq(MESSAGE_COUNT, counted)),
            count,
            now);
    return taken ? OptionalLong.of(counted + 1) : takeSeqsWhileActive(subAgentId, count, now);
  }

  /**
   * Takes the next {@code count} places if the sub-agent matches {@code condition} (which names the
   * count the caller expects), as {@link #takeSeqs} takes places, in the bulk write.
   */
  private boolean takeCounted(String subAgentId, Bson condition, int count, Instant now) {
    return writes.updateIfMatches(
        subAgentId,
        condition,
        Updates.combine(
            Updates.inc(MESSAGE_COUNT, count), Updates.set(SubAgent.UNLOOKED_SINCE, now)),
        Collections.SUB_AGENTS);
  }

  /**
   * Inserts the message at a place taken for it ({@link #takeSeqWhileActive}) unless one with its
   * id is already there, saying which happened (as {@link #appendIfAbsent} does). The insert goes
   * out with those of other sub-agents made at the same time ({@link BulkWrites}).
   */
  public Appended insertAt(SubAgentIds subAgent, long seq, NewMessage message, Instant now) {
    SubAgentMessage placed = at(subAgent, seq, message, now);
    return appended(placed, writes.queueInsert(placed));
  }

  /**
   * Inserts the messages at the places taken for them from {@code firstSeq} on ({@link
   * #takeSeqsWhileActive}), in order, with one insert (with other callers', {@link BulkWrites}),
   * each unless one with its id is already there (a repeated start), as {@link #insertAt} does.
   */
  public List<Appended> insertAllAt(
      SubAgentIds subAgent, long firstSeq, List<NewMessage> messages, Instant now) {
    List<SubAgentMessage> placed = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      placed.add(at(subAgent, firstSeq + i, messages.get(i), now));
    }
    List<CompletableFuture<Void>> inserts = writes.queueInserts(placed);
    List<Appended> appended = new ArrayList<>(placed.size());
    for (int i = 0; i < placed.size(); i++) {
      appended.add(appended(placed.get(i), inserts.get(i)));
    }
    return appended;
  }

  /** The message as its insert left it: inserted now, or appended before under its id. */
  private Appended appended(SubAgentMessage placed, CompletableFuture<Void> insert) {
    try {
      BulkWrites.await(insert);
      return new Appended(placed, true);
    } catch (DuplicateKeyException duplicate) {
      SubAgentMessage appendedBefore = mongo.findById(placed.id(), SubAgentMessage.class);
      if (appendedBefore == null) {
        throw duplicate; // not its id: another key clashed, nothing was appended
      }
      return new Appended(appendedBefore, false);
    }
  }

  private static SubAgentMessage at(
      SubAgentIds subAgent, long seq, NewMessage message, Instant now) {
    return new SubAgentMessage(
        message.id(),
        subAgent.subAgentId(),
        subAgent.taskId(),
        subAgent.chatId(),
        seq,
        message.role(),
        message.content(),
        message.toolCalls(),
        message.toolCallId(),
        message.model(),
        message.usage(),
        message.input(),
        now,
        message.outbox());
  }

  /**
   * Counts {@code count} more messages on the sub-agent the criteria match, and marks it as not yet
   * looked at ({@link SubAgent#UNLOOKED_SINCE}): the last place taken, or empty when none matched.
   */
  private OptionalLong takeSeqs(Criteria subAgent, int count, Instant now) {
    Query query = Query.query(subAgent);
    query.fields().include(MESSAGE_COUNT);
    // By collection name, not class: mapped against SubAgent, the field it does not declare
    // (unlookedSince) costs Spring Data thrown and caught exceptions on every message.
    Document counted =
        mongo.findAndModify(
            query,
            new Update().inc(MESSAGE_COUNT, count).set(SubAgent.UNLOOKED_SINCE, now),
            FindAndModifyOptions.options().returnNew(true),
            Document.class,
            Collections.SUB_AGENTS);
    return counted == null
        ? OptionalLong.empty()
        : OptionalLong.of(((Number) counted.get(MESSAGE_COUNT)).longValue());
  }

  /**
   * The event that announces a message added to a sub-agent's conversation (it wakes the agent
   * loop); its id derives from the message, so announcing the same message twice is one event.
   */
  public static SubAgentMessageAdded added(
      SubAgent subAgent, String messageId, String role, Instant at) {
    return added(SubAgentIds.of(subAgent), messageId, role, at);
  }

  /** {@link #added(SubAgent, String, String, Instant)} knowing only the sub-agent's ids. */
  public static SubAgentMessageAdded added(
      SubAgentIds subAgent, String messageId, String role, Instant at) {
    return new SubAgentMessageAdded(
        Ids.derived(messageId, "added"),
        at,
        subAgent.subAgentId(),
        subAgent.taskId(),
        subAgent.chatId(),
        messageId,
        role);
  }

  /**
   * The longest text an event carries of its message ({@link #addedCarrying}): a longer one is read
   * from its document. A tool message's outbox keeps the event without the copy (tool-runner's
   * {@code ToolMessages}); the instruction's keeps it with the copy until it is sent.
   */
  public static final int MAX_CARRIED = 16_384;

  /**
   * {@link #added(SubAgentIds, String, String, Instant)} for a message stored at {@code at} with
   * this text, which the event carries when it is at most {@link #MAX_CARRIED} characters long: the
   * agent loop may then go on without reading the message.
   */
  public static SubAgentMessageAdded addedCarrying(
      SubAgentIds subAgent,
      String messageId,
      String role,
      @Nullable String content,
      @Nullable String toolCallId,
      Instant at) {
    SubAgentMessageAdded added = added(subAgent, messageId, role, at);
    if (content == null || content.length() > MAX_CARRIED) {
      return added;
    }
    return added.carrying(new SubAgentMessageAdded.Carried(content, toolCallId), null);
  }

  /**
   * The event of the instruction that starts the sub-agent, its system prompt the message before
   * it: it carries both, and the sub-agent as made ({@link SubAgentMessageAdded.Start}), when each
   * text is at most {@link #MAX_CARRIED} characters long, so that the agent loop may take the first
   * turn without reading anything; else it is {@link #added}'s.
   */
  public static SubAgentMessageAdded addedStarting(
      SubAgent subAgent,
      String systemPromptId,
      String systemPrompt,
      String instructionId,
      String instruction,
      Instant at) {
    SubAgentMessageAdded added = added(subAgent, instructionId, SubAgentMessage.USER, at);
    if (systemPrompt.length() > MAX_CARRIED || instruction.length() > MAX_CARRIED) {
      return added;
    }
    SubAgent.Settings settings = subAgent.settings();
    return added.carrying(
        new SubAgentMessageAdded.Carried(instruction, null),
        new SubAgentMessageAdded.Start(
            subAgent.agent(),
            systemPromptId,
            systemPrompt,
            settings == null ? null : settings.model(),
            settings == null || settings.limits() == null ? null : settings.limits().carried(),
            settings == null ? null : settings.rootTaskId(),
            settings == null ? null : settings.callerDeadline(),
            settings == null ? null : settings.usageApart()));
  }

  /** The whole conversation, in order: the model's context. */
  public List<SubAgentMessage> messages(String subAgentId) {
    return mongo.find(
        Query.query(Criteria.where("subAgentId").is(subAgentId)).with(Sort.by("seq")),
        SubAgentMessage.class);
  }

  /** The messages of the conversation after position {@code seq}, in order. */
  public List<SubAgentMessage> messagesAfter(String subAgentId, long seq) {
    return mongo.find(
        Query.query(Criteria.where("subAgentId").is(subAgentId).and("seq").gt(seq))
            .with(Sort.by("seq")),
        SubAgentMessage.class);
  }
}
