package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import dev.agentrt.events.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Plans end to end through the six services on a real broker and MongoDB-protocol server: the
 * offline model's report plan runs its researchers at the same time and its writer on their
 * results, and a node that fails (the scripted model refuses its turns) skips exactly the nodes
 * that depend on it while the rest finishes. One answer reaches the chat.
 */
class PlansIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

  @Test
  void aReportRunsItsResearchersTogetherThenTheWriterOnTheirResultsAndAnswersOnce() {
    ChatApi api = new ChatApi(EmbeddedStack.get().services.baseUrl("orchestrator"));
    String chatId = api.createChat();

    api.postMessage(chatId, "Write a report on Kafka, MongoDB and security");

    JsonNode plan = awaitAnswered(api, chatId);
    assertThat(plan.path("status").asString()).isEqualTo("success");
    Map<String, JsonNode> nodes = nodes(plan);
    assertThat(nodes).containsOnlyKeys("research-1", "research-2", "research-3", "write");
    List<JsonNode> research =
        List.of(nodes.get("research-1"), nodes.get("research-2"), nodes.get("research-3"));
    Instant latestStart =
        research.stream().map(n -> instant(n, "startedAt")).max(Comparator.naturalOrder()).get();
    Instant earliestEnd =
        research.stream().map(n -> instant(n, "endedAt")).min(Comparator.naturalOrder()).get();
    assertThat(latestStart)
        .as("the three research intervals intersect")
        .isBeforeOrEqualTo(earliestEnd);
    JsonNode writer = nodes.get("write");
    for (JsonNode node : research) {
      assertThat(instant(writer, "startedAt"))
          .as("the writer starts after " + node.path("id").asString() + " ended")
          .isAfterOrEqualTo(instant(node, "endedAt"));
    }

    String writersInput =
        api.get("/api/tasks/" + writer.path("taskId").asString())
            .body()
            .path("task")
            .path("instruction")
            .asString();
    for (JsonNode node : research) {
      assertThat(node.path("result").asString()).isNotBlank();
      assertThat(writersInput).contains(node.path("result").asString().strip());
    }

    List<JsonNode> messages = list(api.get("/api/chats/" + chatId + "/messages").body());
    assertThat(messages).as("the person's message and the plan's one answer").hasSize(2);
    JsonNode answer = messages.get(1);
    assertThat(answer.path("id").asString()).isEqualTo(plan.path("answerId").asString());
    assertThat(answer.path("content").asString())
        .startsWith("# Report on Kafka, MongoDB and security")
        .contains("## Kafka", "## MongoDB", "## security")
        .contains("docs/kafka.md", "docs/mongodb.md", "docs/security.md");
  }

  @Test
  void everyEventOfAPlanDeliveredTwiceStartsNoNodeTwiceAndAnswersOnce() {
    EmbeddedStack stack = EmbeddedStack.get();
    ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));
    String chatId = api.createChat();
    api.postMessage(chatId, "Write a report on Kafka and MongoDB");
    JsonNode plan = awaitAnswered(api, chatId);
    Topology topology = new Topology(stack.kafka.bootstrapServers());
    await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
    Map<String, Long> before = documentCounts(stack);

    List<ConsumerRecord<String, byte[]>> everything = new ArrayList<>();
    for (String topic :
        List.of(Topics.CHAT_MESSAGES, Topics.TASKS, Topics.SUB_AGENT_MESSAGES, Topics.TOOL_CALLS)) {
      everything.addAll(topology.readAll(topic));
    }
    topology.republish(everything);

    await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
    assertThat(documentCounts(stack)).isEqualTo(before);
    assertThat(list(api.get("/api/chats/" + chatId + "/plans").body()))
        .singleElement()
        .isEqualTo(plan);
    assertThat(list(api.get("/api/chats/" + chatId + "/tasks").body())).hasSize(3);
  }

  @Test
  void aFailingNodeSkipsExactlyItsDependentsAndTheRestFinishes() {
    ChatApi api = new ChatApi(ScriptedModelStack.get().services.baseUrl("orchestrator"));
    String chatId = api.createChat();

    api.postMessage(chatId, "[plan] the outbox, two ways");

    JsonNode plan = awaitAnswered(api, chatId);
    assertThat(plan.path("status").asString()).isEqualTo("partial");
    Map<String, JsonNode> nodes = nodes(plan);
    assertThat(nodes.get("ok").path("status").asString()).isEqualTo("success");
    assertThat(nodes.get("after-ok").path("status").asString()).isEqualTo("success");
    assertThat(nodes.get("bad").path("status").asString()).isEqualTo("failed");
    assertThat(nodes.get("after-bad").path("status").asString()).isEqualTo("skipped");
    assertThat(nodes.get("after-bad").path("skippedBecause").asString()).isEqualTo("bad");
    assertThat(list(api.get("/api/chats/" + chatId + "/tasks").body()))
        .as("the skipped node never got a task")
        .extracting(t -> t.path("id").asString())
        .containsExactlyInAnyOrder(
            nodes.get("ok").path("taskId").asString(),
            nodes.get("after-ok").path("taskId").asString(),
            nodes.get("bad").path("taskId").asString());
    assertThat(
            api.get("/api/tasks/" + nodes.get("after-ok").path("taskId").asString())
                .body()
                .path("task")
                .path("instruction")
                .asString())
        .contains("The outbox is a field.");

    List<JsonNode> messages = list(api.get("/api/chats/" + chatId + "/messages").body());
    assertThat(messages).hasSize(2);
    assertThat(messages.get(1).path("content").asString())
        .contains("Built on ok.")
        .contains("- bad (researcher): failed:")
        .contains("- after-bad (researcher): skipped: node 'bad' did not succeed");
  }

  /** The chat's one plan, once it ended and its answer is in the chat. */
  private static JsonNode awaitAnswered(ChatApi api, String chatId) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(
            () -> list(api.get("/api/chats/" + chatId + "/plans").body()),
            plans ->
                plans.size() == 1
                    && !plans.getFirst().path("status").asString().equals("running")
                    && plans.getFirst().path("answerId").isString())
        .getFirst();
  }

  private static Map<String, Long> documentCounts(EmbeddedStack stack) {
    try (MongoClient client = MongoClients.create(stack.mongo.uri())) {
      MongoDatabase db = client.getDatabase("agentrt");
      return StreamSupport.stream(db.listCollectionNames().spliterator(), false)
          .collect(Collectors.toMap(name -> name, name -> db.getCollection(name).countDocuments()));
    }
  }

  private static Map<String, JsonNode> nodes(JsonNode plan) {
    return list(plan.path("nodes")).stream()
        .collect(Collectors.toMap(n -> n.path("id").asString(), Function.identity()));
  }

  private static Instant instant(JsonNode node, String field) {
    assertThat(node.path(field).isString()).as(field + " of " + node).isTrue();
    return Instant.parse(node.path(field).asString());
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> items = new ArrayList<>();
    array.forEach(items::add);
    return items;
  }
}
