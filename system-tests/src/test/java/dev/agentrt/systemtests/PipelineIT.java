package dev.agentrt.systemtests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Every path of the pipeline end to end with the offline model, through the six services' real
 * listeners on the embedded broker and Mongo server, checked through the read API and the stored
 * documents.
 */
class PipelineIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

  private final EmbeddedStack stack = EmbeddedStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @Test
  void aGreetingIsAnsweredDirectlyWithoutStartingATask() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Hello!");

    JsonNode messages = awaitMessages(chatId, m -> m.size() == 2);
    assertThat(messages.get(1).path("role").asString()).isEqualTo("assistant");
    assertThat(messages.get(1).path("content").asString()).containsIgnoringCase("research");
    assertThat(messages.get(1).has("taskId")).isFalse();
    assertThat(tasks(chatId)).isEmpty();
  }

  @Test
  void aMessageNoRuleRecognisesGoesToTheFallbackAssistantWithItsRoutingShown() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Sing me a song");

    JsonNode task = awaitTask(chatId, t -> t.path("status").asString().equals("success"));
    assertThat(task.path("agent").asString()).isEqualTo("assistant");
    assertThat(task.path("instruction").asString()).isEqualTo("Sing me a song");
    JsonNode routing = task.path("routing");
    assertThat(routing.path("confidence").asDouble()).isEqualTo(0.3);
    assertThat(routing.path("fallback").asBoolean())
        .as("0.3 is below the minimum confidence: the fallback path ran")
        .isTrue();
    assertThat(routing.path("reason").asString()).startsWith("No rule recognised the message");
    JsonNode answer = awaitMessages(chatId, m -> m.size() == 2).get(1);
    assertThat(answer.path("taskId").asString()).isEqualTo(task.path("id").asString());
    assertThat(answer.path("content").asString())
        .startsWith("I can't do \"Sing me a song\" myself.")
        .contains("Research Kafka");
  }

  @Test
  void researchOfTwoSubjectsSearchesBothInOneTurnReadsThenAnswersWithSources() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Research Kafka and MongoDB");

    JsonNode task = awaitTask(chatId, t -> t.path("status").asString().equals("success"));
    JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
    List<JsonNode> toolCalls = list(details.path("toolCalls"));
    assertThat(toolCalls)
        .extracting(c -> c.path("name").asString())
        .containsExactlyInAnyOrder("search_docs", "search_docs", "read_doc", "read_doc");
    assertThat(toolCalls)
        .allSatisfy(c -> assertThat(c.path("status").asString()).isEqualTo("success"));
    List<JsonNode> assistantTurns =
        list(details.path("messages")).stream()
            .filter(m -> m.path("role").asString().equals("assistant"))
            .toList();
    assertThat(assistantTurns).hasSize(3);
    assertThat(list(assistantTurns.get(0).path("toolCalls")))
        .as("both searches in the first turn")
        .extracting(c -> c.path("name").asString())
        .containsExactly("search_docs", "search_docs");
    assertThat(task.path("result").asString()).contains("Sources").contains("docs/");

    JsonNode answer = awaitMessages(chatId, m -> m.size() == 2).get(1);
    assertThat(answer.path("role").asString()).isEqualTo("assistant");
    assertThat(answer.path("taskId").asString()).isEqualTo(task.path("id").asString());
    assertThat(answer.path("content").asString()).contains("Sources");
  }

  @Test
  void everyModelTurnsTokensAreSummedOnTheSubAgentTheTaskAndTheChat() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Research Kafka and MongoDB");

    String taskId =
        awaitTask(chatId, t -> t.path("status").asString().equals("success")).path("id").asString();
    JsonNode answer = awaitMessages(chatId, m -> m.size() == 2).get(1);
    await()
        .atMost(RUN_TIMEOUT)
        .untilAsserted(
            () -> {
              JsonNode details = api.get("/api/tasks/" + taskId).body();
              List<JsonNode> turns =
                  list(details.path("messages")).stream()
                      .filter(m -> m.path("role").asString().equals("assistant"))
                      .toList();
              assertThat(turns).hasSize(3);
              long prompt = sum(turns, "promptTokens");
              long completion = sum(turns, "completionTokens");
              assertThat(prompt).isPositive();
              assertThat(completion).isPositive();
              JsonNode subAgent = details.path("subAgent").path("usage");
              assertThat(subAgent.path("promptTokens").asLong()).isEqualTo(prompt);
              assertThat(subAgent.path("completionTokens").asLong()).isEqualTo(completion);
              assertThat(subAgent.path("turns").asLong()).isEqualTo(3);
              // The task's assistant messages: its sub-agent's turns and the chat's answer.
              JsonNode finalAnswer =
                  api.get("/api/chats/" + chatId + "/messages").body().path(1).path("usage");
              assertThat(finalAnswer.path("promptTokens").asLong()).isPositive();
              JsonNode task = details.path("task").path("usage");
              assertThat(task.path("promptTokens").asLong())
                  .isEqualTo(prompt + finalAnswer.path("promptTokens").asLong());
              assertThat(task.path("completionTokens").asLong())
                  .isEqualTo(completion + finalAnswer.path("completionTokens").asLong());
              assertThat(task.path("turns").asLong()).isEqualTo(4);
              JsonNode chat = api.get("/api/chats/" + chatId).body().path("usage");
              assertThat(chat.path("promptTokens").asLong())
                  .as("the decision counts on the chat too")
                  .isGreaterThan(task.path("promptTokens").asLong());
              assertThat(chat.path("turns").asLong()).isEqualTo(5);
            });
    assertThat(answer.path("taskId").asString()).isEqualTo(taskId);
  }

  private static long sum(List<JsonNode> messages, String field) {
    return messages.stream().mapToLong(m -> m.path("usage").path(field).asLong()).sum();
  }

  @Test
  void aTaskWithoutASubjectAsksThePersonAndTheAnswerResumesTheSameSubAgent() {
    String chatId = api.createChat();

    api.postMessage(chatId, "Research");

    JsonNode question = awaitMessages(chatId, m -> m.size() == 2).get(1);
    assertThat(question.path("content").asString())
        .startsWith("The Researcher needs more information:");
    JsonNode waiting = awaitTask(chatId, t -> t.path("status").asString().equals("waiting"));
    assertThat(question.path("taskId").asString()).isEqualTo(waiting.path("id").asString());

    api.postMessage(chatId, "Kafka");

    JsonNode done = awaitTask(chatId, t -> t.path("status").asString().equals("success"));
    assertThat(done.path("id").asString()).isEqualTo(waiting.path("id").asString());
    assertThat(done.path("subAgentId").asString()).isEqualTo(waiting.path("subAgentId").asString());
    assertThat(tasks(chatId)).hasSize(1);
    assertThat(done.path("result").asString()).containsIgnoringCase("kafka");
  }

  @Test
  void aFollowUpAfterACompletedTaskReactivatesItsSubAgent() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research Kafka");
    JsonNode first = awaitTask(chatId, t -> t.path("status").asString().equals("success"));
    awaitMessages(chatId, m -> m.size() == 2);

    api.postMessage(chatId, "Also MongoDB");

    JsonNode messages = awaitMessages(chatId, m -> m.size() == 4);
    assertThat(tasks(chatId)).hasSize(1);
    JsonNode again = tasks(chatId).getFirst();
    assertThat(again.path("status").asString()).isEqualTo("success");
    assertThat(again.path("result").asString()).contains("MongoDB");
    assertThat(messages.get(3).path("taskId").asString()).isEqualTo(first.path("id").asString());
  }

  @Test
  void everyEventDeliveredTwiceChangesNothing() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research Kafka and MongoDB");
    awaitTask(chatId, t -> t.path("status").asString().equals("success"));
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
    assertThat(everything).hasSizeGreaterThan(10);
    assertThat(StoredDocuments.counts(stack.mongo.uri())).isEqualTo(before);
  }

  @Test
  void aMessageWhoseWriterCrashedBeforePublishingIsPublishedByTheRelayAndAnswered() {
    String chatId = api.createChat();
    String messageId = UUID.randomUUID().toString();
    Instant now = Instant.now();
    ChatMessageAdded added =
        new ChatMessageAdded(UUID.randomUUID().toString(), now, chatId, messageId, "user", null);
    Document entry =
        new Document("eventId", added.eventId())
            .append("ceType", added.type().ceType())
            .append("topic", added.type().topic())
            .append("key", added.key())
            .append("occurredAt", Date.from(now))
            .append("payload", new String(new EventCodec().encode(added), UTF_8));
    try (MongoClient client = MongoClients.create(stack.mongo.uri())) {
      MongoCollection<Document> messages =
          client.getDatabase("agentrt").getCollection("chat_messages");
      // What the orchestrator's write leaves when the process dies before it publishes.
      messages.insertOne(
          new Document("_id", messageId)
              .append("chatId", chatId)
              .append("role", "user")
              .append("content", "Hello!")
              .append("createdAt", Date.from(now))
              .append("outbox", List.of(entry))
              .append("awaitingDecision", true));

      JsonNode answered = awaitMessages(chatId, m -> m.size() == 2);

      assertThat(answered.get(1).path("role").asString()).isEqualTo("assistant");
      await()
          .atMost(RUN_TIMEOUT)
          .until(
              () ->
                  messages
                      .find(new Document("_id", messageId))
                      .first()
                      .getList("outbox", Document.class),
              List::isEmpty);
    }
  }

  @Test
  void twoCopiesOfAgentLoopAndToolRunnerStillMakeOneModelCallPerTurnAndRunEachToolOnce() {
    try (RunningServices copies =
        stack.startCopies("copies", List.of("agent-loop", "tool-runner"))) {
      List<ChatApi> agentLoops =
          List.of(
              new ChatApi(stack.services.baseUrl("agent-loop")),
              new ChatApi(copies.baseUrl("agent-loop")));
      List<ChatApi> toolRunners =
          List.of(
              new ChatApi(stack.services.baseUrl("tool-runner")),
              new ChatApi(copies.baseUrl("tool-runner")));
      double modelCallsBefore = counter(agentLoops, "agentrt.model.calls");
      double toolRunsBefore = counter(toolRunners, "agentrt.tool.executions");
      List<String> chats = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String chatId = api.createChat();
        api.postMessage(chatId, "Research Kafka and MongoDB");
        chats.add(chatId);
      }
      for (String chatId : chats) {
        JsonNode task = awaitTask(chatId, t -> t.path("status").asString().equals("success"));
        JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
        List<JsonNode> messages = list(details.path("messages"));
        assertThat(messages)
            .filteredOn(m -> m.path("role").asString().equals("assistant"))
            .as("one model call per turn")
            .hasSize(3);
        assertThat(messages)
            .filteredOn(m -> m.path("role").asString().equals("tool"))
            .as("one execution per tool call")
            .hasSize(4);
        assertThat(list(details.path("toolCalls"))).hasSize(4);
      }
      assertThat(counter(agentLoops, "agentrt.model.calls") - modelCallsBefore)
          .as("model calls made by both agent-loops for 4 runs of 3 turns")
          .isEqualTo(12.0);
      assertThat(counter(toolRunners, "agentrt.tool.executions") - toolRunsBefore)
          .as("tool executions by both tool-runners for 4 runs of 4 tool calls")
          .isEqualTo(16.0);
      assertThat(copies.allAlive()).isTrue();
    }
  }

  /** The sum of a counter over the copies of a service. */
  private static double counter(List<ChatApi> copies, String name) {
    double sum = 0;
    for (ChatApi copy : copies) {
      JsonNode metric = copy.get("/actuator/metrics/" + name).body();
      sum += metric.path("measurements").path(0).path("value").asDouble(0);
    }
    return sum;
  }

  @Test
  void aCancelledTaskStopsItsSubAgentAndTheChatSaysWhatWasDone() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research");
    JsonNode waiting = awaitTask(chatId, t -> t.path("status").asString().equals("waiting"));
    String taskId = waiting.path("id").asString();
    // The question reaches the chat through the notifier, the cancellation through the finalizer:
    // two services, so the question must be there before the cancellation can follow it.
    awaitMessages(chatId, m -> m.size() == 2);

    ChatApi.Response cancelled = api.post("/api/tasks/" + taskId + "/cancel", "");

    assertThat(cancelled.status()).isEqualTo(202);
    assertThat(cancelled.body().path("status").asString()).isEqualTo("cancelled");
    JsonNode details = api.get("/api/tasks/" + taskId).body();
    assertThat(details.path("task").path("status").asString()).isEqualTo("cancelled");
    assertThat(details.path("subAgent").path("status").asString()).isEqualTo("cancelled");
    JsonNode said = awaitMessages(chatId, m -> m.size() == 3).get(2);
    assertThat(said.path("taskId").asString()).isEqualTo(taskId);
    assertThat(said.path("content").asString()).contains("cancelled at your request");

    ChatApi.Response again = api.post("/api/tasks/" + taskId + "/cancel", "");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().path("detail").asString()).contains("already ended: cancelled");
    assertThat(api.post("/api/tasks/no-such-task/cancel", "").status()).isEqualTo(404);
  }

  private JsonNode awaitMessages(String chatId, Predicate<JsonNode> condition) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(() -> api.get("/api/chats/" + chatId + "/messages").body(), condition::test);
  }

  private JsonNode awaitTask(String chatId, Predicate<JsonNode> condition) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(() -> tasks(chatId), tasks -> tasks.size() == 1 && condition.test(tasks.getFirst()))
        .getFirst();
  }

  private List<JsonNode> tasks(String chatId) {
    return list(api.get("/api/chats/" + chatId + "/tasks").body());
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> items = new ArrayList<>();
    array.forEach(items::add);
    return items;
  }
}
