package dev.agentrt.store;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.BulkWrites;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

/**
 * The chat's run-event ledger: what a person can watch, each step once, numbered per chat.
 *
 * <p>An append inserts its events under the chat id and each step's key, at the positions after the
 * chat's last event; a unique index on the chat and the position makes the insert itself the claim
 * of a position, so no counter is written. Where the last event is, an appending process mostly
 * knows without asking: from its own last append in the chat, or from the {@link #POSITION_HEADER}
 * of the event that brought it the work ({@link #learn}), which the process that wrote the events
 * before published it with ({@link #positionHeader}). Knowing none, it reads the chat's last event;
 * finding its position taken (another writer came between), it reads it again and goes after it.
 * The inserts of many appends, of any chats, go out as one ordered command ({@link LedgerInserts}).
 * An event is only ever written right after one that is there, so a chat's positions run 1, 2, 3 …
 * without gaps. Recording the same step again (a redelivered event, a turn taken again after a
 * crash) hits its key and stores nothing. Readers follow the ledger in position order (see the
 * orchestrator's event stream).
 *
 * <p>Every {@code run_start} is stamped with the {@link ConfigVersion} of the process that records
 * it ({@code configVersion}), when it has one.
 *
 * <p>The ledger observes runs; it never steers them. An append that fails is logged and dropped,
 * and the step it describes goes on.
 */
public class RunLedger {

  private static final Logger log = LoggerFactory.getLogger(RunLedger.class);

  /** Longest text an event carries (arguments, results, answers); longer text is cut here. */
  public static final int EXCERPT = 2000;

  /**
   * The header of a Kafka record that says the newest position its publisher knew of in the ledger
   * of the chat the event is about ({@link #positionHeader}, {@link #learn(String, Object)}).
   */
  public static final String POSITION_HEADER = "agentrt_ledger_position";

  /** How many times an append goes after the chat's last event when its positions were taken. */
  static final int ATTEMPTS = 32;

  /** How many chats' newest positions a process keeps; then it forgets them all and reads again. */
  static final int KNOWN_CHATS = 10_000;

  /**
   * How long a position known here is trusted: the next append in a chat mostly comes within
   * milliseconds (the next step), and one much later would likely find its position taken by the
   * chat's other writers meanwhile, a failed insert and a read where a read alone does.
   */
  static final Duration TRUSTED = Duration.ofSeconds(5);

  /**
   * A position known in a chat's ledger, when it was learned ({@link System#nanoTime}), and whether
   * it is this process's own last append there rather than a position learned from another.
   */
  private record Known(long position, long learnedAt, boolean own) {}

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final LedgerInserts inserts;

  /** The newest position this process knows of in each chat's ledger ({@link #learn}). */
  private final ConcurrentHashMap<String, Known> known = new ConcurrentHashMap<>();

  private final Clock clock;
  private final MeterRegistry meters;
  private final @Nullable ConfigVersion config;

  public RunLedger(MongoTemplate mongo) {
    this(mongo, new SimpleMeterRegistry());
  }

  /** A ledger that counts the runs it sees end ({@code agentrt.runs.ended}) in {@code meters}. */
  public RunLedger(MongoTemplate mongo, MeterRegistry meters) {
    this(mongo, meters, null);
  }

  /**
   * A ledger that counts the runs it sees end in {@code meters} and stamps every {@code run_start}
   * with the configuration's version (none when null).
   */
  public RunLedger(MongoTemplate mongo, MeterRegistry meters, @Nullable ConfigVersion config) {
    this(mongo, new BulkWrites(mongo), meters, config);
  }

  /**
   * {@link #RunLedger(MongoTemplate, MeterRegistry, ConfigVersion)} adding counts to chats with
   * {@code writes}.
   */
  public RunLedger(
      MongoTemplate mongo,
      BulkWrites writes,
      MeterRegistry meters,
      @Nullable ConfigVersion config) {
    this(mongo, writes, Clock.systemUTC(), meters, config);
  }

  RunLedger(MongoTemplate mongo, Clock clock) {
    this(mongo, new BulkWrites(mongo), clock, new SimpleMeterRegistry(), null);
  }

  private RunLedger(
      MongoTemplate mongo,
      BulkWrites writes,
      Clock clock,
      MeterRegistry meters,
      @Nullable ConfigVersion config) {
    this.mongo = mongo;
    this.writes = writes;
    this.inserts = new LedgerInserts(mongo);
    this.clock = clock;
    this.meters = meters;
    this.config = config;
  }

  /** Records a step of a sub-agent's run. */
  public void append(SubAgent subAgent, String key, String type, Map<String, Object> data) {
    append(subAgent, key, type, data, Map.of());
  }

  /**
   * Records a step of a sub-agent's run, and adds {@code counts} to the chat's counters ({@link
   * #append(String, List, Map)}).
   */
  public void append(
      SubAgent subAgent,
      String key,
      String type,
      Map<String, Object> data,
      Map<String, Long> counts) {
    append(subAgent.chatId(), List.of(Step.of(subAgent, key, type, data)), counts);
  }

  /**
   * Records a chat message, the person's or the assistant's; an approval request with the {@code
   * toolCallId} it asks about.
   */
  public void message(ChatMessage message) {
    message(message, Map.of());
  }

  /**
   * {@link #message(ChatMessage)}, adding {@code counts} to the chat's counters ({@link
   * #append(String, List, Map)}).
   */
  public void message(ChatMessage message, Map<String, Long> counts) {
    Map<String, Object> data =
        new LinkedHashMap<>(
            data(
                "messageId",
                message.id(),
                "role",
                message.role(),
                "content",
                message.content(),
                "taskId",
                message.taskId()));
    if (message.toolCallId() != null) {
      data.put("toolCallId", message.toolCallId());
    }
    append(
        message.chatId(),
        List.of(
            new Step(
                messageKey(message.id()),
                RunEvent.MESSAGE,
                message.taskId(),
                null,
                null,
                java.util.Collections.unmodifiableMap(data))),
        counts);
  }

  /**
   * Records a step unless a step with this key is in the chat's ledger already.
   *
   * @param key names the step uniquely within its chat (e.g. {@code step_end/<answer id>})
   */
  public void append(
      String chatId,
      String key,
      String type,
      @Nullable String taskId,
      @Nullable String subAgentId,
      @Nullable String agent,
      Map<String, Object> data) {
    append(chatId, List.of(new Step(key, type, taskId, subAgentId, agent, data)));
  }

  /**
   * A step to record: what {@link #append(String, String, String, String, String, String, Map)}
   * takes.
   */
  public record Step(
      String key,
      String type,
      @Nullable String taskId,
      @Nullable String subAgentId,
      @Nullable String agent,
      Map<String, Object> data) {

    /** A step of a sub-agent's run. */
    public static Step of(SubAgent subAgent, String key, String type, Map<String, Object> data) {
      return new Step(key, type, subAgent.taskId(), subAgent.id(), subAgent.agent(), data);
    }
  }

  /**
   * Records steps of one chat that happened one after the other, in that order, each unless its key
   * is in the ledger already: at consecutive positions after the chat's last event, inserted in one
   * command with the appends of other callers meanwhile ({@link LedgerInserts}). Each is stamped
   * with the moment it is written.
   */
  public void append(String chatId, List<Step> steps) {
    append(chatId, steps, Map.of());
  }

  /**
   * {@link #append(String, List)}, adding {@code counts} ({@code path → amount}, e.g. the usage of
   * the turn the steps record: {@link UsageCounter#counts}) to the chat's counters in a write that
   * goes out with this process's other writes meanwhile ({@link BulkWrites}). They are added once,
   * whether the steps are recorded or were before; not at all for an unknown chat or a write that
   * failed, which is logged; perhaps when the write's answer was lost.
   */
  public void append(String chatId, List<Step> steps, Map<String, Long> counts) {
    CompletableFuture<Void> counted =
        counts.isEmpty()
            ? null
            : writes.queue(Filters.eq("_id", chatId), inc(counts), Collections.CHATS);
    try {
      record(chatId, steps);
    } catch (RuntimeException e) {
      log.warn("run events {} of chat {} not recorded: {}", keys(steps), chatId, e.toString());
    }
    if (counted != null) {
      try {
        BulkWrites.await(counted);
      } catch (RuntimeException e) {
        log.warn("counts {} of chat {} not added, perhaps: {}", counts, chatId, e.toString());
      }
    }
  }

  /**
   * Writes the steps after the newest position this process knows of in the chat (its own last
   * append there, or one it {@link #learn learned} of); knowing none, after the chat's last event
   * as read. When a position turns out taken (another writer's step came between), the chat's last
   * event is read and the steps not written yet go after it; a step recorded before is left out.
   * Since an event is only ever written right after one that is there, positions have no gaps.
   */
  private void record(String chatId, List<Step> steps) {
    List<Step> left = steps;
    Long last = trusted(chatId);
    if (last == null) {
      log.debug("{}: no position known in chat {}, reading its last", keys(steps), chatId);
    }
    long after = last != null ? last : lastPosition(chatId);
    for (int attempt = 1; !left.isEmpty(); attempt++) {
      Instant now = clock.instant();
      List<Document> events = new ArrayList<>(left.size());
      for (int i = 0; i < left.size(); i++) {
        events.add(document(chatId, after + 1 + i, now, left.get(i)));
      }
      LedgerInserts.Landed landed = BulkWrites.await(inserts.queue(events));
      int written = Math.min(landed.written(), left.size());
      for (Step step : left.subList(0, written)) {
        if (RunEvent.RUN_END.equals(step.type())) {
          countEnded(step.agent(), step.data());
        }
      }
      after += written;
      switch (landed.stop()) {
        case NONE -> left = List.of();
        case RECORDED_BEFORE -> left = left.subList(written + 1, left.size());
        case POSITION_TAKEN -> {
          if (attempt == ATTEMPTS) {
            known.remove(chatId);
            throw new IllegalStateException(
                "the positions tried were taken by other writers " + ATTEMPTS + " times");
          }
          left = left.subList(written, left.size());
          log.debug("{}: position {} of chat {} taken", keys(left), after + 1, chatId);
          after = lastPosition(chatId);
        }
        case FAILED -> {
          known.remove(chatId);
          // Not tried again: the write may still have been made (a timeout, a lost answer).
          throw Objects.requireNonNull(landed.failure());
        }
      }
    }
    know(chatId, after, true);
  }

  /**
   * Takes note that the chat's ledger holds an event at {@code position} (a fact: another process
   * wrote it, and passed it on in the {@link #POSITION_HEADER} of an event it published after; 0:
   * the chat has none, as one just made), so that this process's next append there goes after it
   * without reading the chat's last event.
   */
  public void learn(String chatId, long position) {
    know(chatId, position, false);
  }

  /**
   * Says that others have written in the chat's ledger since this process's own last append there
   * (a tool's result after the turn that asked for it): the position this process knows from that
   * append is forgotten, so that its next append reads the chat's last event rather than find its
   * position taken; a position learned from them since is kept.
   */
  public void othersWrote(String chatId) {
    known.computeIfPresent(chatId, (chat, last) -> last.own() ? null : last);
  }

  private void know(String chatId, long position, boolean own) {
    if (position < 0) {
      return;
    }
    if (known.size() >= KNOWN_CHATS && !known.containsKey(chatId)) {
      known.clear(); // what is forgotten is read again when needed
    }
    Known now = new Known(position, System.nanoTime(), own);
    known.merge(
        chatId,
        now,
        (was, learned) ->
            was.position() >= position
                ? new Known(was.position(), now.learnedAt(), was.own())
                : now);
  }

  /** The newest position known here in the chat's ledger, if it was learned recently enough. */
  private @Nullable Long trusted(String chatId) {
    Known last = known.get(chatId);
    return last != null && System.nanoTime() - last.learnedAt() < TRUSTED.toNanos()
        ? last.position()
        : null;
  }

  /**
   * {@link #learn(String, long)} from a received record's {@link #POSITION_HEADER} (bytes or text);
   * nothing for a missing or unreadable value.
   */
  public void learn(String chatId, @Nullable Object header) {
    String text =
        header instanceof byte[] bytes
            ? new String(bytes, StandardCharsets.UTF_8)
            : header instanceof String string ? string : null;
    if (text == null) {
      return;
    }
    try {
      learn(chatId, Long.parseLong(text));
    } catch (NumberFormatException e) {
      log.debug("unreadable {} header {}", POSITION_HEADER, text);
    }
  }

  /**
   * The header that passes the newest position this process knows of in the chat's ledger on to the
   * consumer of an event it publishes ({@link #learn}); no header when it knows none.
   */
  public Map<String, String> positionHeader(String chatId) {
    Long last = trusted(chatId);
    return last == null ? Map.of() : Map.of(POSITION_HEADER, Long.toString(last));
  }

  /** The position of the chat's last event, 0 when it has none. */
  private long lastPosition(String chatId) {
    Document last =
        mongo
            .getCollection(Collections.RUN_EVENTS)
            .find(Filters.eq("chatId", chatId))
            .sort(Sorts.descending("seq"))
            .projection(Projections.include("seq"))
            .limit(1)
            .first();
    return last == null ? 0 : ((Number) last.get("seq")).longValue();
  }

  private Document document(String chatId, long seq, Instant at, Step step) {
    Document document = new Document();
    mongo
        .getConverter()
        .write(
            new RunEvent(
                chatId + "/" + step.key(),
                chatId,
                seq,
                step.type(),
                at,
                step.taskId(),
                step.subAgentId(),
                step.agent(),
                stamped(step)),
            document);
    return document;
  }

  private static Bson inc(Map<String, Long> counts) {
    return Updates.combine(
        counts.entrySet().stream().map(c -> Updates.inc(c.getKey(), c.getValue())).toList());
  }

  /** The steps' keys, for a log line. */
  private static List<String> keys(List<Step> steps) {
    return steps.stream().map(Step::key).toList();
  }

  /** The step's data, with the configuration's version on a {@code run_start}. */
  private Map<String, Object> stamped(Step step) {
    if (!RunEvent.RUN_START.equals(step.type()) || config == null) {
      return step.data();
    }
    Map<String, Object> stamped = new LinkedHashMap<>(step.data());
    stamped.put("configVersion", config.value());
    return java.util.Collections.unmodifiableMap(stamped);
  }

  /**
   * Counts a run's end once, when its {@code run_end} is recorded: by agent and by why it ended
   * ({@code success}, {@code cancelled}, or the reason it failed: {@code timeout}, {@code
   * step_limit_exceeded}, …).
   */
  private void countEnded(@Nullable String agent, Map<String, Object> data) {
    Object status = data.get("status");
    Object reason = data.get("reason");
    String why =
        "completed".equals(status) ? "success" : String.valueOf(reason != null ? reason : status);
    Counter.builder("agentrt.runs.ended")
        .description("Runs of sub-agents that ended, by why")
        .tag("agent", agent == null ? "unknown" : agent)
        .tag("reason", why)
        .register(meters)
        .increment();
  }

  /** The chat's events after position {@code after}, in order, at most {@code limit}. */
  public List<RunEvent> after(String chatId, long after, int limit) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId).and("seq").gt(after))
            .with(Sort.by("seq"))
            .limit(limit),
        RunEvent.class);
  }

  /**
   * The position of the chat's event with this key; else the chat's latest position (0 when it has
   * none), so that following from it shows only what comes next.
   */
  public long positionOf(String chatId, String key) {
    RunEvent event = mongo.findById(chatId + "/" + key, RunEvent.class);
    if (event != null) {
      return event.seq();
    }
    RunEvent latest =
        mongo.findOne(
            Query.query(Criteria.where("chatId").is(chatId))
                .with(Sort.by(Sort.Direction.DESC, "seq"))
                .limit(1),
            RunEvent.class);
    return latest == null ? 0 : latest.seq();
  }

  /** The key of a chat message's event. */
  public static String messageKey(String messageId) {
    return "message/" + messageId;
  }

  /**
   * Event data from key-value pairs, in order; null values are kept (a field that is known to be
   * empty).
   */
  public static Map<String, Object> data(@Nullable Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must pair up");
    }
    Map<String, Object> data = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      data.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(data);
  }

  /**
   * The fields of an event about one tool call: its id, the step (model turn) that asked for it,
   * and the tool and its input (cut to {@link #EXCERPT}) twice: as the web UI and the event
   * stream's clients read them ({@code tool}, {@code arguments}) and as the design names them
   * ({@code toolName}, {@code toolInput}).
   */
  public static Map<String, Object> toolCall(
      String toolCallId, @Nullable String stepId, String tool, @Nullable String arguments) {
    String input = excerpt(arguments);
    return data(
        "toolCallId",
        toolCallId,
        "stepId",
        stepId,
        "tool",
        tool,
        "arguments",
        input,
        "toolName",
        tool,
        "toolInput",
        input);
  }

  /** The text cut to {@link #EXCERPT} characters, marked when cut; null stays null. */
  public static @Nullable String excerpt(@Nullable String text) {
    if (text == null || text.length() <= EXCERPT) {
      return text;
    }
    return text.substring(0, EXCERPT) + "…";
  }
}
