package dev.agentrt.agentinit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.BrokerRecords;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.MongoCommands;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Starting a task's sub-agent, given the stored task and its {@code TaskCreated}: the writes it
 * makes, on a real MongoDB-protocol server, publishing to a real broker.
 */
class SubAgentStarterTest {

  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: You research.
                  tools: [search_docs]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  private static final MongoCommands COMMANDS = new MongoCommands();

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo database;
  private static MongoTemplate mongo;
  private static SubAgentStarter starter;

  @BeforeAll
  static void startInfrastructure() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.TASKS, Topics.SUB_AGENT_MESSAGES);
    kafka.afterPropertiesSet();
    database = InMemoryMongo.start(COMMANDS);
    mongo = database.template();
    KafkaTemplate<String, byte[]> template =
        new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(
                Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                new StringSerializer(),
                new ByteArraySerializer()));
    EventCodec codec = new EventCodec();
    starter =
        new SubAgentStarter(
            mongo,
            new BulkWrites(mongo),
            new SubAgentConversations(mongo),
            AGENTS,
            new Outbox(new EventPublisher(template, "agent-init-test"), mongo),
            codec,
            new RunLedger(mongo),
            new CancelledSubAgents(mongo, new RunLedger(mongo)));
  }

  @AfterAll
  static void stopInfrastructure() {
    database.close();
    kafka.destroy();
  }

  @Test
  void theSubAgentCarriesTheTasksModelAndTheChatsLimitsAndIsStartedOnceWhenTheEventComesTwice() {
    ChatLimits limits = new ChatLimits(4, 20_000L, null);
    TaskCreated created = created(storedTask("chat-model", limits));

    starter.start(created);
    starter.start(created);

    SubAgent subAgent = subAgentOf(created);
    assertThat(subAgent.status()).isEqualTo(SubAgentStatus.active);
    assertThat(subAgent.settings())
        .isEqualTo(new SubAgent.Settings("chat-model", limits, null, null, true));
    assertThat(mongo.findById(created.taskId(), Task.class))
        .satisfies(t -> assertThat(t.status()).isEqualTo(TaskStatus.running))
        .satisfies(t -> assertThat(t.subAgentId()).isEqualTo(subAgent.id()))
        .satisfies(
            t ->
                assertThat(t.usageApart())
                    .as("its usage kept apart from the chat's, as its sub-agent's")
                    .isTrue());
    List<SubAgentMessage> messages = new SubAgentConversations(mongo).messages(subAgent.id());
    assertThat(messages)
        .extracting(SubAgentMessage::role)
        .containsExactly(SubAgentMessage.SYSTEM, SubAgentMessage.USER);
    await()
        .until(
            () ->
                new SubAgentConversations(mongo)
                    .messages(subAgent.id())
                    .getLast()
                    .outbox()
                    .isEmpty());
  }

  /**
   * The instruction's event carries the sub-agent as made and both its messages, so that the loop's
   * first turn reads nothing.
   */
  @Test
  void theInstructionsEventCarriesTheSubAgentAndItsTwoMessages() {
    TaskCreated created = created(storedTask("chat-model", new ChatLimits(4, null, null)));

    starter.start(created);

    SubAgent subAgent = subAgentOf(created);
    List<SubAgentMessage> messages = new SubAgentConversations(mongo).messages(subAgent.id());
    await()
        .until(
            () ->
                BrokerRecords.withKey(
                    kafka.getBrokersAsString(), Topics.SUB_AGENT_MESSAGES, subAgent.id()),
            records -> !records.isEmpty());
    ConsumerRecord<String, byte[]> record =
        BrokerRecords.withKey(kafka.getBrokersAsString(), Topics.SUB_AGENT_MESSAGES, subAgent.id())
            .getFirst();
    SubAgentMessageAdded added =
        (SubAgentMessageAdded)
            new EventCodec()
                .decode(
                    new String(
                        record.headers().lastHeader("ce_type").value(), StandardCharsets.UTF_8),
                    record.value());
    assertThat(added.messageId()).isEqualTo(messages.get(1).id());
    assertThat(added.message())
        .isEqualTo(new SubAgentMessageAdded.Carried(messages.get(1).content(), null));
    assertThat(added.start())
        .isEqualTo(
            new SubAgentMessageAdded.Start(
                "researcher",
                messages.get(0).id(),
                messages.get(0).content(),
                "chat-model",
                new TaskCreated.Limits(4, null, null),
                null,
                null,
                true));
  }

  /**
   * The two first messages take their places with one write, of the fresh sub-agent's count (no
   * {@code findAndModify}: an update in the process's bulk writer), and are stored with one insert.
   */
  @Test
  void aTaskTheOrchestratorStartedIsStartedFromItsEventWithoutAReadOfIt() {
    TaskCreated created = created(storedTask("chat-model", null));
    COMMANDS.clear();

    starter.start(created);

    assertThat(COMMANDS.from(any -> true)).doesNotContain("find " + Collections.TASKS);
    assertThat(subAgentOf(created).settings().model()).isEqualTo("chat-model");
    assertThat(mongo.findById(created.taskId(), Task.class).status()).isEqualTo(TaskStatus.running);
  }

  @Test
  void aStartFromAnEventThatDoesNotCarryItReadsTheTaskForItsModel() {
    TaskCreated created = withoutStart(created(storedTask("chat-model", null)));
    COMMANDS.clear();

    starter.start(created);

    assertThat(COMMANDS.from(any -> true)).contains("find " + Collections.TASKS);
    assertThat(subAgentOf(created).settings().model()).isEqualTo("chat-model");
  }

  @Test
  void theSystemPromptAndTheInstructionTakeOneWriteForTheirPlacesAndOneInsert() {
    TaskCreated created = created(storedTask(null, null));
    COMMANDS.clear();

    starter.start(created);

    List<String> sent = COMMANDS.from(any -> true);
    assertThat(sent)
        .doesNotContain("findAndModify " + Collections.SUB_AGENTS)
        .filteredOn(("update " + Collections.SUB_AGENTS)::equals)
        .hasSize(1);
    assertThat(sent)
        .as("inserted by the process's bulk writer")
        .filteredOn(("insert " + Collections.SUB_AGENT_MESSAGES)::equals)
        .hasSize(1);
    assertThat(new SubAgentConversations(mongo).messages(subAgentOf(created).id()))
        .extracting(SubAgentMessage::role, SubAgentMessage::seq)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(SubAgentMessage.SYSTEM, 1L),
            org.assertj.core.groups.Tuple.tuple(SubAgentMessage.USER, 2L));
  }

  /**
   * A start cut short after the system prompt was stored (the worker died) is completed by the
   * event's redelivery: the instruction follows the prompt, and neither is there twice.
   */
  @Test
  void aStartCutShortAfterTheSystemPromptIsCompletedOnce() {
    TaskCreated created = created(storedTask(null, null));
    starter.start(created);
    SubAgent subAgent = subAgentOf(created);
    mongo.remove(
        Query.query(Criteria.where("_id").is(Ids.derived(created.taskId(), "instruction"))),
        SubAgentMessage.class);

    starter.start(created);

    assertThat(new SubAgentConversations(mongo).messages(subAgent.id()))
        .extracting(SubAgentMessage::role)
        .containsExactly(SubAgentMessage.SYSTEM, SubAgentMessage.USER);
  }

  /**
   * An event that carries the chat's limits, as its creator read them, has them taken from it: the
   * chat is not read (here it holds other limits, which the sub-agent does not get). One that says
   * the chat has none gives the sub-agent none, as the chat read would.
   */
  @Test
  void theChatsLimitsTheEventCarriesAreTakenWithoutReadingTheChat() {
    Task task = storedTask(null, new ChatLimits(9, null, null));
    TaskCreated carrying = withLimits(created(task), new TaskCreated.Limits(4, 20_000L, null));
    TaskCreated none =
        withLimits(
            created(storedTask(null, new ChatLimits(9, null, null))),
            new TaskCreated.Limits(null, null, null));
    COMMANDS.clear();

    starter.start(carrying);
    starter.start(none);

    assertThat(COMMANDS.from(any -> true)).doesNotContain("find " + Collections.CHATS);
    assertThat(subAgentOf(carrying).settings().limits())
        .isEqualTo(new ChatLimits(4, 20_000L, null));
    assertThat(subAgentOf(none).settings())
        .isEqualTo(new SubAgent.Settings(null, null, null, null, true));
  }

  @Test
  void aTaskWithoutAModelInAChatWithoutLimitsGivesEmptySettingsNotNone() {
    TaskCreated created = created(storedTask(null, null));

    starter.start(created);

    assertThat(subAgentOf(created).settings())
        .as("stored and read back: present, so the loop reads neither the task nor the chat")
        .isEqualTo(new SubAgent.Settings(null, null, null, null, true));
  }

  @Test
  void aChildsSubAgentCarriesItsRootAndItsCallersDeadlineAsIs() {
    ChatLimits limits = new ChatLimits(3, 100L, 60L);
    Task caller = storedTask(null, limits);
    Instant deadline = Instant.parse("2026-11-24T01:00:00Z");
    Task child = mongo.insert(childOf(caller, deadline));

    starter.start(created(child));

    assertThat(subAgentOf(created(child)).settings())
        .as("every run of it ends by its caller's deadline, however late its own clock starts")
        .isEqualTo(new SubAgent.Settings(null, limits, caller.id(), deadline, true));
  }

  @Test
  void aChildWhoseCallerEndedBeforeItStartedIsCancelledAndNeverStarts() {
    Task live = storedTask(null, null);
    Task childOfLive = mongo.insert(childOf(live, null));
    Task ended = storedTask(null, null);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(ended.id())),
        Update.update("status", TaskStatus.cancelled),
        Task.class);
    Task childOfEnded = mongo.insert(childOf(ended, null));

    starter.start(created(childOfLive));
    starter.start(created(childOfEnded));
    starter.start(created(childOfEnded)); // redelivered

    assertThat(mongo.findById(childOfLive.id(), Task.class).status()).isEqualTo(TaskStatus.running);
    assertThat(subAgentOf(created(childOfLive)).settings().rootTaskId())
        .as("its turns count against its root's run")
        .isEqualTo(live.id());
    Task cancelled = mongo.findById(childOfEnded.id(), Task.class);
    assertThat(cancelled.status()).isEqualTo(TaskStatus.cancelled);
    assertThat(cancelled.subAgentId()).isNull();
    assertThat(
            mongo.count(
                Query.query(Criteria.where("taskId").is(childOfEnded.id())), SubAgent.class))
        .isZero();
    await().until(() -> mongo.findById(childOfEnded.id(), Task.class).outbox().isEmpty());
  }

  @Test
  void aTaskForAnAgentNobodyDeclaredFailsAtOnceWithItsReasonStored() {
    Task task = storedTask(null, null);
    TaskCreated created =
        new TaskCreated(
            Ids.derived(task.id(), "created"),
            task.createdAt(),
            task.id(),
            task.chatId(),
            "poet",
            task.instruction());

    starter.start(created);

    Task failed = mongo.findById(task.id(), Task.class);
    assertThat(failed.status()).isEqualTo(TaskStatus.failed);
    assertThat(failed.failureReason()).isEqualTo("unknown_agent");
    assertThat(failed.error()).startsWith("no agent named 'poet'");
    assertThat(subAgentOf(created)).isNull();
  }

  private static Task childOf(Task caller, @Nullable Instant deadline) {
    return new Task(
        Ids.fresh(),
        caller.chatId(),
        Task.TYPE_AGENT,
        "researcher",
        "Research Kafka",
        null,
        TaskStatus.created,
        null,
        null,
        null,
        null,
        caller.createdAt(),
        caller.createdAt(),
        List.of(),
        new Task.Delegation(
            caller.id(), "caller-sub-agent", caller.id(), 1, "call", "call", deadline),
        null,
        null);
  }

  private static Task storedTask(@Nullable String model, @Nullable ChatLimits limits) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "test", null, now, null, limits, null));
    return mongo.insert(
        new Task(
            Ids.fresh(),
            chat.id(),
            Task.TYPE_AGENT,
            "researcher",
            "Research Kafka",
            model,
            TaskStatus.created,
            null,
            null,
            null,
            null,
            now,
            now,
            List.of()));
  }

  /** The task's event as its creator publishes it, carrying what the start needs. */
  private static TaskCreated created(Task task) {
    return UnstartedTaskSweep.createdOf(task);
  }

  /** An event published before events carried the start. */
  private static TaskCreated withoutStart(TaskCreated created) {
    return new TaskCreated(
        created.eventId(),
        created.occurredAt(),
        created.taskId(),
        created.chatId(),
        created.agent(),
        created.instruction());
  }

  private static TaskCreated withLimits(TaskCreated created, TaskCreated.Limits limits) {
    return new TaskCreated(
        created.eventId(),
        created.occurredAt(),
        created.taskId(),
        created.chatId(),
        created.agent(),
        created.instruction(),
        null,
        null,
        null,
        limits,
        created.start());
  }

  private static SubAgent subAgentOf(TaskCreated created) {
    return mongo.findById(Ids.derived(created.taskId(), "sub-agent"), SubAgent.class);
  }
}
