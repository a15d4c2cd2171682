package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Agents that call agents, end to end with the offline model through the six services: the
 * analyst's {@code message_agent} calls start child tasks through the same topics, the children run
 * at the same time, their results come back as the calls' tool results, and one answer reaches the
 * chat.
 */
class DelegationIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

  private final EmbeddedStack stack = EmbeddedStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @Test
  void aComparisonRunsOneResearcherPerSubjectAtTheSameTimeAndAnswersOnceWithEverySource() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Compare Kafka and MongoDB");

    List<JsonNode> tasks = awaitTasks(chatId, 3, "success");
    JsonNode root = only(tasks, t -> t.path("depth").asInt() == 0);
    assertThat(root.path("agent").asString()).isEqualTo("analyst");
    List<JsonNode> children = tasks.stream().filter(t -> t.path("depth").asInt() == 1).toList();
    assertThat(children)
        .extracting(t -> t.path("agent").asString(), t -> t.path("instruction").asString())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("researcher", "Research Kafka"),
            org.assertj.core.groups.Tuple.tuple("researcher", "Research MongoDB"));
    assertThat(children)
        .allSatisfy(
            c ->
                assertThat(c.path("parentTaskId").asString())
                    .isEqualTo(root.path("id").asString()));
    assertThat(list(root.path("children")))
        .extracting(JsonNode::asString)
        .containsExactlyInAnyOrderElementsOf(
            children.stream().map(c -> c.path("id").asString()).toList());
    // Their running intervals intersect: each started before the other ended.
    Instant firstStart = instant(children.get(0), "startedAt");
    Instant firstEnd = instant(children.get(0), "endedAt");
    Instant secondStart = instant(children.get(1), "startedAt");
    Instant secondEnd = instant(children.get(1), "endedAt");
    assertThat(firstStart).isBefore(secondEnd);
    assertThat(secondStart).isBefore(firstEnd);

    JsonNode details = api.get("/api/tasks/" + root.path("id").asString()).body();
    List<JsonNode> turns =
        list(details.path("messages")).stream()
            .filter(m -> m.path("role").asString().equals("assistant"))
            .toList();
    assertThat(turns).as("delegate in one turn, then answer").hasSize(2);
    assertThat(list(turns.get(0).path("toolCalls")))
        .extracting(c -> c.path("name").asString())
        .containsExactly("message_agent", "message_agent");
    assertThat(list(details.path("messages")))
        .filteredOn(m -> m.path("role").asString().equals("tool"))
        .as("one result per call")
        .hasSize(2)
        .allSatisfy(m -> assertThat(m.path("content").asString()).contains("\"conversation_id\""));
    assertThat(list(details.path("toolCalls"))).as("nothing for tool-runner").isEmpty();

    // The children ended before the root: had either answered in the chat, it would come first.
    JsonNode answer = awaitMessages(chatId, m -> m.size() >= 2).get(1);
    assertThat(answer.path("taskId").asString())
        .as("only the root answers")
        .isEqualTo(root.path("id").asString());
    assertThat(answer.path("content").asString())
        .contains("## Kafka")
        .contains("## MongoDB")
        .contains("docs/kafka.md")
        .contains("docs/mongodb.md");
  }

  @Test
  void aFailedChildReachesItsCallerAsAToolErrorAndTheRunStillEnds() {
    // Two turns a run: enough for the analyst (delegate, answer), not for a researcher (search,
    // read, answer), whose third turn fails with step_limit_exceeded.
    ChatApi.Response created = api.post("/api/chats", "{\"limits\":{\"maxSteps\":2}}");
    assertThat(created.status()).isEqualTo(201);
    String chatId = created.body().path("id").asString();

    api.postMessage(chatId, "Compare Kafka and MongoDB");

    List<JsonNode> tasks =
        await()
            .atMost(RUN_TIMEOUT)
            .until(
                () -> tasks(chatId),
                all ->
                    all.size() == 3
                        && all.stream()
                            .noneMatch(
                                t ->
                                    List.of("created", "running", "waiting")
                                        .contains(t.path("status").asString())));
    assertThat(tasks)
        .filteredOn(t -> t.path("depth").asInt() == 1)
        .extracting(t -> t.path("status").asString())
        .containsOnly("failed");
    JsonNode root = only(tasks, t -> t.path("depth").asInt() == 0);
    assertThat(root.path("status").asString()).as("the analyst goes on").isEqualTo("success");
    JsonNode details = api.get("/api/tasks/" + root.path("id").asString()).body();
    assertThat(list(details.path("messages")))
        .filteredOn(m -> m.path("role").asString().equals("tool"))
        .hasSize(2)
        .allSatisfy(
            m ->
                assertThat(m.path("content").asString())
                    .contains("\"error_type\":\"agent_failed\""));
    JsonNode answer = awaitMessages(chatId, m -> m.size() == 2).get(1);
    assertThat(answer.path("content").asString()).contains("could not answer (agent_failed)");
  }

  @Test
  void everyEventOfADelegationDeliveredTwiceStartsNoChildAndDeliversNoResultTwice() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Compare Kafka and Redis");
    awaitTasks(chatId, 3, "success");
    awaitMessages(chatId, m -> m.size() == 2);
    Topology topology = new Topology(stack.kafka.bootstrapServers());
    await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
    Map<String, Long> before = StoredDocuments.counts(stack.mongo.uri());

    List<ConsumerRecord<String, byte[]>> everything = new ArrayList<>();
    for (String topic :
        List.of(Topics.CHAT_MESSAGES, Topics.TASKS, Topics.SUB_AGENT_MESSAGES, Topics.TOOL_CALLS)) {
      everything.addAll(topology.readAll(topic));
    }
    topology.republish(everything);

    await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
    assertThat(StoredDocuments.counts(stack.mongo.uri())).isEqualTo(before);
    assertThat(tasks(chatId)).hasSize(3);
  }

  @Test
  void aDiscussionSendsTwoMessagesToOneResearcherByItsConversationId() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Discuss Kafka with the researcher");

    List<JsonNode> tasks = awaitTasks(chatId, 2, "success");
    JsonNode child = only(tasks, t -> t.path("depth").asInt() == 1);
    JsonNode childDetails = api.get("/api/tasks/" + child.path("id").asString()).body();
    assertThat(list(childDetails.path("messages")))
        .filteredOn(m -> m.path("role").asString().equals("user"))
        .extracting(m -> m.path("content").asString())
        .containsExactly("Research Kafka", "What else should I know about Kafka?");
    JsonNode answer = awaitMessages(chatId, m -> m.size() == 2).get(1);
    assertThat(answer.path("content").asString())
        .contains("What it found")
        .contains("What else to know")
        .contains("docs/kafka.md");
  }

  @Test
  void aChildsQuestionReachesThePersonTheAnswerGoesBackToItAndCancellingTheRootStopsTheTree() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Discuss it with the researcher");

    JsonNode question = awaitMessages(chatId, m -> m.size() == 2).get(1);
    assertThat(question.path("content").asString())
        .isEqualTo(
            "The Researcher (working for the Analyst) needs more information: What should I"
                + " research?");
    JsonNode child =
        only(
            awaitTasks(chatId, 2, null),
            t -> t.path("depth").asInt() == 1 && t.path("status").asString().equals("waiting"));
    String childId = child.path("id").asString();
    assertThat(question.path("taskId").asString()).isEqualTo(childId);

    api.postMessage(chatId, "Kafka");

    // The answer resumes the child: it researches Kafka; the analyst then asks it again about "it".
    await()
        .atMost(RUN_TIMEOUT)
        .until(
            () ->
                list(api.get("/api/tasks/" + childId).body().path("messages")).stream()
                    .filter(m -> m.path("role").asString().equals("user"))
                    .count(),
            n -> n == 2);
    JsonNode root = only(tasks(chatId), t -> t.path("depth").asInt() == 0);
    awaitMessages(chatId, m -> m.size() == 4); // the second question

    ChatApi.Response cancelled =
        api.post("/api/tasks/" + root.path("id").asString() + "/cancel", "");

    assertThat(cancelled.status()).isEqualTo(202);
    await()
        .atMost(RUN_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(tasks(chatId))
                    .extracting(t -> t.path("status").asString())
                    .containsOnly("cancelled"));
    assertThat(api.get("/api/tasks/" + childId).body().path("subAgent").path("status").asString())
        .isEqualTo("cancelled");
    List<JsonNode> said = awaitMessages(chatId, m -> m.size() == 5);
    assertThat(said.get(4).path("taskId").asString()).isEqualTo(root.path("id").asString());
    assertThat(said.get(4).path("content").asString()).contains("cancelled at your request");
  }

  @Test
  void withTwoCopiesOfEveryServiceEachChildStartsOnceAndEachResultIsDeliveredOnce() {
    try (RunningServices copies =
        stack.startCopies(
            "delegation-copies",
            List.of(
                "orchestrator",
                "agent-init",
                "agent-loop",
                "tool-runner",
                "finalizer",
                "notifier"))) {
      List<String> chats = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String chatId = api.createChat();
        api.postMessage(chatId, "Compare Kafka and MongoDB");
        chats.add(chatId);
      }
      for (String chatId : chats) {
        List<JsonNode> tasks = awaitTasks(chatId, 3, "success");
        assertThat(tasks).filteredOn(t -> t.path("depth").asInt() == 1).hasSize(2);
      }
      // Everything published has been consumed by both copies: a late double would be stored.
      Topology topology = new Topology(stack.kafka.bootstrapServers());
      await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
      for (String chatId : chats) {
        assertThat(tasks(chatId)).as("no child started twice").hasSize(3);
        for (JsonNode task : tasks(chatId)) {
          JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
          List<JsonNode> messages = list(details.path("messages"));
          List<String> asked =
              messages.stream()
                  .filter(m -> m.path("role").asString().equals("assistant"))
                  .flatMap(m -> list(m.path("toolCalls")).stream())
                  .map(call -> call.path("id").asString())
                  .toList();
          List<String> results =
              messages.stream()
                  .filter(m -> m.path("role").asString().equals("tool"))
                  .map(m -> m.path("toolCallId").asString())
                  .toList();
          assertThat(results)
              .as("one result per call in the %s's conversation", task.path("agent").asString())
              .isNotEmpty()
              .containsExactlyInAnyOrderElementsOf(asked);
        }
        assertThat(list(api.get("/api/chats/" + chatId + "/messages").body()))
            .filteredOn(m -> m.path("role").asString().equals("assistant"))
            .as("one answer")
            .hasSize(1);
      }
      assertThat(copies.allAlive()).isTrue();
    }
  }

  // --- helpers ------------------------------------------------------------------------------

  private List<JsonNode> awaitTasks(String chatId, int count, String status) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(
            () -> tasks(chatId),
            tasks ->
                tasks.size() == count
                    && (status == null
                        || tasks.stream()
                            .allMatch(t -> t.path("status").asString().equals(status))));
  }

  private List<JsonNode> awaitMessages(String chatId, Predicate<List<JsonNode>> condition) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(() -> list(api.get("/api/chats/" + chatId + "/messages").body()), condition::test);
  }

  private List<JsonNode> tasks(String chatId) {
    return list(api.get("/api/chats/" + chatId + "/tasks").body());
  }

  private static JsonNode only(List<JsonNode> tasks, Predicate<JsonNode> which) {
    List<JsonNode> found = tasks.stream().filter(which).toList();
    assertThat(found).hasSize(1);
    return found.getFirst();
  }

  private static Instant instant(JsonNode task, String field) {
    assertThat(task.path(field).isString()).as(field + " of " + task).isTrue();
    return Instant.parse(task.path(field).asString());
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> items = new ArrayList<>();
    array.forEach(items::add);
    return items;
  }
}
