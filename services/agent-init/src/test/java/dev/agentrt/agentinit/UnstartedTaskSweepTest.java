package dev.agentrt.agentinit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
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
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The sweep that starts tasks whose {@code TaskCreated} was lost, on a real MongoDB-protocol server
 * and a real broker: the event is never delivered, the sweep starts the task once, and the event
 * coming late changes nothing.
 */
class UnstartedTaskSweepTest {

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

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo database;
  private static MongoTemplate mongo;
  private static SubAgentStarter starter;
  private static UnstartedTaskSweep sweep;

  @BeforeAll
  static void startInfrastructure() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.TASKS, Topics.SUB_AGENT_MESSAGES);
    kafka.afterPropertiesSet();
    database = InMemoryMongo.start();
    mongo = database.template();
    KafkaTemplate<String, byte[]> template =
        new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(
                Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                new StringSerializer(),
                new ByteArraySerializer()));
    starter =
        new SubAgentStarter(
            mongo,
            new BulkWrites(mongo),
            new SubAgentConversations(mongo),
            AGENTS,
            new Outbox(new EventPublisher(template, "agent-init-test"), mongo),
            new EventCodec(),
            new RunLedger(mongo),
            new CancelledSubAgents(mongo, new RunLedger(mongo)));
    sweep =
        new UnstartedTaskSweep(
            mongo,
            starter,
            new AgentInitProperties(Duration.ofSeconds(10), Duration.ofSeconds(10)));
  }

  @AfterAll
  static void stopInfrastructure() {
    database.close();
    kafka.destroy();
  }

  @Test
  void aTaskWhoseEventWasLostIsStartedOnceAndTheLateEventChangesNothing() {
    Task lost = storedTask(Instant.now().minusSeconds(60));
    Task fresh = storedTask(Instant.now());

    sweep.sweep();
    sweep.sweep();

    assertStartedOnce(lost);
    assertThat(mongo.findById(fresh.id(), Task.class).status())
        .as("within its grace: its event may still come")
        .isEqualTo(TaskStatus.created);

    starter.start(UnstartedTaskSweep.createdOf(lost));

    assertStartedOnce(lost);
  }

  private static void assertStartedOnce(Task task) {
    SubAgent subAgent = mongo.findById(Ids.derived(task.id(), "sub-agent"), SubAgent.class);
    assertThat(subAgent).isNotNull();
    assertThat(subAgent.status()).isEqualTo(SubAgentStatus.active);
    assertThat(mongo.findById(task.id(), Task.class).status()).isEqualTo(TaskStatus.running);
    assertThat(new SubAgentConversations(mongo).messages(subAgent.id()))
        .extracting(SubAgentMessage::role)
        .containsExactly(SubAgentMessage.SYSTEM, SubAgentMessage.USER);
    assertThat(
            BrokerRecords.withKey(
                kafka.getBrokersAsString(), Topics.SUB_AGENT_MESSAGES, subAgent.id()))
        .as("the instruction announced once")
        .hasSize(1);
  }

  private static Task storedTask(Instant at) {
    Instant now = at.truncatedTo(ChronoUnit.MILLIS);
    return mongo.insert(
        new Task(
            Ids.fresh(),
            Ids.fresh(),
            Task.TYPE_AGENT,
            "researcher",
            "Research Kafka",
            TaskStatus.created,
            null,
            null,
            null,
            now,
            now,
            List.of()));
  }
}
