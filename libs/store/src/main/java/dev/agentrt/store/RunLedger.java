package dev.agentrt.store;

import com.mongodb.client.model.InsertManyOptions;
import dev.agentrt.platform.BulkWrites;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

/**
 * The chat's run-event ledger: what a person can watch, each step once, numbered per chat.
 *
 * <p>An append takes the chat's next positions with an {@code $inc} on the chat document (the takes
 * of many appends, of any chats, in one bulk write: {@link LedgerPositions}) and inserts the event
 * under the chat id and the step's key; the inserts go out with the other writes made at the same
 * time in this process, one command for many ({@link BulkWrites}), and each append returns once its
 * own is written. Recording the same step again (a redelivered event, a turn taken again after a
 * crash) hits the key and stores nothing; the position it took is recorded as skipped ({@link
 * #skipped}), so positions rise but may skip, and a reader waiting for a position learns that it
 * will not fill. Readers follow the ledger in position order (see the orchestrator's event stream).
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

  static final String SEQ_FIELD = "eventSeq";

  /** The most positions {@link #skipped} asks about. */
  static final int SKIPS_ASKED = 500;

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final LedgerPositions positions;
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
   * {@link #RunLedger(MongoTemplate, MeterRegistry, ConfigVersion)} inserting with {@code writes}.
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
    this.positions = new LedgerPositions(mongo);
    this.clock = clock;
    this.meters = meters;
    this.config = config;
  }

  /** Records a step of a sub-agent's run. */
  public void append(SubAgent subAgent, String key, String type, Map<String, Object> data) {
    append(subAgent, key, type, data, Map.of());
  }

  /**
   * Records a step of a sub-agent's run, and adds {@code counts} to the chat's counters in the
   * write that takes its position ({@link #append(String, List, Map)}).
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
   * {@link #message(ChatMessage)}, adding {@code counts} to the chat's counters in the write that
   * takes its position ({@link #append(String, List, Map)}).
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
   * is in the ledger already: their positions are taken with one {@code $inc}, and they are
   * inserted in the same command. Each is stamped with the moment its position was taken, as a
   * single step is: a reader that finds a position missing before an event judges by that event's
   * time how long the position has been taken (see the orchestrator's event stream).
   */
  public void append(String chatId, List<Step> steps) {
    append(chatId, steps, Map.of());
  }

  /**
   * {@link #append(String, List)}, adding {@code counts} ({@code path → amount}, e.g. the usage of
   * the turn the steps record: {@link UsageCounter#counts}) to the chat's counters in the write
   * that takes the steps' positions, rather than in a write of their own to the same document. They
   * are added once, whether the steps are recorded or were before; not at all for an unknown chat
   * or a write that failed, which is logged; perhaps when the write's answer was lost.
   */
  public void append(String chatId, List<Step> steps, Map<String, Long> counts) {
    try {
      OptionalLong taken = positions.take(chatId, steps.size(), counts);
      if (taken.isEmpty()) {
        log.warn("run events {} of unknown chat {} not recorded", keys(steps), chatId);
        return;
      }
      long first = taken.getAsLong();
      Instant now = clock.instant();
      List<RunEvent> events = new ArrayList<>(steps.size());
      for (int i = 0; i < steps.size(); i++) {
        Step step = steps.get(i);
        events.add(
            new RunEvent(
                chatId + "/" + step.key(),
                chatId,
                first + i,
                step.type(),
                now,
                step.taskId(),
                step.subAgentId(),
                step.agent(),
                stamped(step)));
      }
      List<CompletableFuture<Void>> inserts = writes.queueInserts(events);
      List<Long> unused = new ArrayList<>();
      for (int i = 0; i < steps.size(); i++) {
        Step step = steps.get(i);
        try {
          BulkWrites.await(inserts.get(i));
          if (RunEvent.RUN_END.equals(step.type())) {
            countEnded(step.agent(), step.data());
          }
        } catch (DuplicateKeyException recordedBefore) {
          unused.add(first + i); // the same step, recorded again: the ledger has it once
        } catch (RuntimeException e) {
          // Not marked skipped: the write may still have been made (a timeout, a lost answer).
          log.warn("run event {} of chat {} not recorded: {}", step.key(), chatId, e.toString());
        }
      }
      skip(chatId, unused);
    } catch (RuntimeException e) {
      log.warn(
          "run events {} of chat {} not recorded{}: {}",
          keys(steps),
          chatId,
          counts.isEmpty() ? "" : ", nor perhaps its counts " + counts,
          e.toString());
    }
  }

  /**
   * Records positions taken whose events were not stored because the step was recorded before, so
   * that readers waiting for them move on at once. A position whose insert failed otherwise is not
   * recorded: its event may still have been written, and a reader waits out its grace for it.
   */
  private void skip(String chatId, List<Long> positions) {
    if (positions.isEmpty()) {
      return;
    }
    List<Document> skips =
        positions.stream()
            .map(
                seq ->
                    new Document("_id", skipId(chatId, seq))
                        .append("chatId", chatId)
                        .append("seq", seq))
            .toList();
    try {
      mongo
          .getCollection(Collections.RUN_EVENT_SKIPS)
          .insertMany(skips, new InsertManyOptions().ordered(false));
    } catch (RuntimeException e) {
      log.warn(
          "unused positions {} of chat {} not marked; readers wait for them until their grace: {}",
          positions,
          chatId,
          e.toString());
    }
  }

  private static String skipId(String chatId, long seq) {
    return chatId + "/" + seq;
  }

  /**
   * Whether every position from {@code from} to {@code to} (both included) was taken and will never
   * hold an event: each is recorded as skipped. Asks about at most {@link #SKIPS_ASKED} positions;
   * a longer stretch is answered false.
   */
  public boolean skipped(String chatId, long from, long to) {
    long count = to - from + 1;
    if (count < 1 || count > SKIPS_ASKED) {
      return false;
    }
    List<String> ids = new ArrayList<>((int) count);
    for (long seq = from; seq <= to; seq++) {
      ids.add(skipId(chatId, seq));
    }
    return mongo
            .getCollection(Collections.RUN_EVENT_SKIPS)
            .countDocuments(new Document("_id", new Document("$in", ids)))
        == count;
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
