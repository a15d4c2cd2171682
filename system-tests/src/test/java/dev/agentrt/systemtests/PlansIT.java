package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Plans end to end through the six services on a real broker and MongoDB-protocol server: the
 * offline model's report plan runs its researchers at the same time and its writer on their
 * results, also with two orchestrators and two finalizers and every event delivered twice; a node
 * that fails (the scripted model refuses its turns) skips exactly the nodes that depend on it while
 * the rest finishes; a node cancelled through the task API skips its dependents only, and a plan
 * cancelled through the plan API cancels its running nodes and skips its pending ones. One answer
 * reaches the chat.
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
  void withTwoOrchestratorsAndTwoFinalizersAndEveryEventDeliveredTwiceEachNodesTaskExistsOnce() {
    EmbeddedStack stack = EmbeddedStack.get();
    Topology topology = new Topology(stack.kafka.bootstrapServers());
    long orchestrators = topology.consumersWithPartitions("orchestrator");
    long finalizers = topology.consumersWithPartitions("finalizer");
    try (RunningServices copies =
        stack.startCopies("plan-copies", List.of("orchestrator", "finalizer"))) {
      // The copies share the partitions: the orchestrator's decide plans, the finalizer's move
      // them on, and a plan's nodes' tasks (keyed by task id) go to both finalizers.
      await()
          .atMost(RUN_TIMEOUT)
          .until(
              () ->
                  topology.consumersWithPartitions("orchestrator") == 2 * orchestrators
                      && topology.consumersWithPartitions("finalizer") == 2 * finalizers);
      List<ChatApi> apis =
          List.of(
              new ChatApi(stack.services.baseUrl("orchestrator")),
              new ChatApi(copies.baseUrl("orchestrator")));
      List<String> chats = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ChatApi api = apis.get(i % 2);
        String chatId = api.createChat();
        api.postMessage(chatId, "Write a report on Kafka, MongoDB and security");
        chats.add(chatId);
      }
      ChatApi api = apis.getFirst();
      Map<String, JsonNode> plans = new HashMap<>();
      for (String chatId : chats) {
        JsonNode plan = awaitAnswered(api, chatId);
        assertThat(plan.path("status").asString()).isEqualTo("success");
        plans.put(chatId, plan);
      }
      await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
      Map<String, Long> before = StoredDocuments.counts(stack.mongo.uri());

      List<ConsumerRecord<String, byte[]>> everything = new ArrayList<>();
      for (String topic :
          List.of(
              Topics.CHAT_MESSAGES, Topics.TASKS, Topics.SUB_AGENT_MESSAGES, Topics.TOOL_CALLS)) {
        everything.addAll(topology.readAll(topic));
      }
      topology.republish(everything);

      await().atMost(RUN_TIMEOUT).until(topology::consumersCaughtUp);
      assertThat(StoredDocuments.counts(stack.mongo.uri())).isEqualTo(before);
      for (String chatId : chats) {
        JsonNode plan = plans.get(chatId);
        assertThat(list(api.get("/api/chats/" + chatId + "/plans").body()))
            .singleElement()
            .isEqualTo(plan);
        assertThat(list(api.get("/api/chats/" + chatId + "/tasks").body()))
            .as("one task per node")
            .extracting(t -> t.path("id").asString())
            .containsExactlyInAnyOrderElementsOf(
                nodes(plan).values().stream().map(n -> n.path("taskId").asString()).toList());
        assertThat(list(api.get("/api/chats/" + chatId + "/messages").body()))
            .as("the person's message and the plan's one answer")
            .extracting(m -> m.path("id").asString())
            .endsWith(plan.path("answerId").asString())
            .hasSize(2);
      }
      assertThat(copies.allAlive()).isTrue();
    }
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

  @Test
  void aCancelledNodeSkipsItsDependentsOnlyThenCancellingThePlanStopsTheRest() {
    ChatApi api = new ChatApi(ScriptedModelStack.get().services.baseUrl("orchestrator"));
    String chatId = api.createChat();
    api.postMessage(chatId, "[plan-to-cancel] two slow branches and a quick one");
    JsonNode started =
        await()
            .atMost(RUN_TIMEOUT)
            .until(
                () -> plan(api, chatId),
                plan ->
                    plan != null
                        && taskStatus(api, plan, "slow").equals("running")
                        && taskStatus(api, plan, "held").equals("running")
                        && nodes(plan).get("quick").path("status").asString().equals("success"));
    String planId = started.path("id").asString();

    String slowTask = nodes(started).get("slow").path("taskId").asString();
    assertThat(api.post("/api/tasks/" + slowTask + "/cancel", "{}").status()).isEqualTo(202);

    JsonNode afterNodeCancel =
        await()
            .atMost(RUN_TIMEOUT)
            .until(
                () -> plan(api, chatId),
                plan -> nodes(plan).get("after-slow").path("status").asString().equals("skipped"));
    Map<String, JsonNode> nodes = nodes(afterNodeCancel);
    assertThat(nodes.get("slow").path("status").asString()).isEqualTo("cancelled");
    assertThat(nodes.get("after-slow").path("skippedBecause").asString()).isEqualTo("slow");
    assertThat(afterNodeCancel.path("status").asString())
        .as("the independent branches go on")
        .isEqualTo("running");
    assertThat(nodes.get("held").path("status").asString()).isEqualTo("running");
    assertThat(taskStatus(api, afterNodeCancel, "held")).isEqualTo("running");
    assertThat(nodes.get("after-held").path("status").asString()).isEqualTo("pending");
    assertThat(list(api.get("/api/chats/" + chatId + "/messages").body()))
        .as("a cancelled node is its plan's, not an answer of its own")
        .hasSize(1);

    ChatApi.Response cancelled = api.post("/api/plans/" + planId + "/cancel", "{}");
    assertThat(cancelled.status()).isEqualTo(202);

    JsonNode ended = awaitAnswered(api, chatId);
    assertThat(ended.path("status").asString()).isEqualTo("cancelled");
    nodes = nodes(ended);
    assertThat(nodes.get("held").path("status").asString()).isEqualTo("cancelled");
    assertThat(nodes.get("after-held").path("status").asString()).isEqualTo("skipped");
    assertThat(nodes.get("after-held").path("error").asString())
        .isEqualTo("skipped: the plan was cancelled");
    assertThat(nodes.get("quick").path("status").asString()).isEqualTo("success");
    assertThat(nodes.get("slow").path("status").asString()).isEqualTo("cancelled");
    assertThat(list(api.get("/api/chats/" + chatId + "/tasks").body()))
        .as("the skipped nodes never got a task")
        .extracting(t -> t.path("id").asString(), t -> t.path("status").asString())
        .containsExactlyInAnyOrder(
            tuple(slowTask, "cancelled"),
            tuple(nodes.get("held").path("taskId").asString(), "cancelled"),
            tuple(nodes.get("quick").path("taskId").asString(), "success"));
    List<JsonNode> messages = list(api.get("/api/chats/" + chatId + "/messages").body());
    assertThat(messages).as("the person's message and the plan's one answer").hasSize(2);
    assertThat(messages.get(1).path("id").asString()).isEqualTo(ended.path("answerId").asString());
    assertThat(api.post("/api/plans/" + planId + "/cancel", "{}").status())
        .as("an ended plan")
        .isEqualTo(409);
  }

  @Test
  void anInvalidPlanIsRefusedWithItsReasonAndRepairedAndOnlyTheRepairedPlanRuns() {
    ScriptedModelStack stack = ScriptedModelStack.get();
    ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));
    String chatId = api.createChat();
    int repairsBefore = stack.model.repairRequests.size();

    api.postMessage(chatId, "[bad-plan] the outbox");

    JsonNode plan = awaitAnswered(api, chatId);
    assertThat(stack.model.repairRequests.subList(repairsBefore, stack.model.repairRequests.size()))
        .as("each invalid plan went back to the model with its reason")
        .satisfiesExactly(
            unknown -> assertThat(unknown).contains("node 'a' names no agent there is ('poet')"),
            cycle -> assertThat(cycle).contains("the plan has a cycle: b → c → b"));
    assertThat(plan.path("status").asString()).isEqualTo("success");
    assertThat(nodes(plan)).containsOnlyKeys("fixed");
    assertThat(list(api.get("/api/chats/" + chatId + "/tasks").body()))
        .as("no node of an invalid plan ever ran")
        .singleElement()
        .satisfies(t -> assertThat(t.path("agent").asString()).isEqualTo("researcher"))
        .satisfies(
            t ->
                assertThat(t.path("id").asString())
                    .isEqualTo(nodes(plan).get("fixed").path("taskId").asString()));
    List<JsonNode> messages = list(api.get("/api/chats/" + chatId + "/messages").body());
    assertThat(messages).hasSize(2);
    assertThat(messages.get(1).path("content").asString()).contains("The outbox, repaired.");
  }

  /** The chat's one plan, or null before it is stored. */
  private static JsonNode plan(ChatApi api, String chatId) {
    List<JsonNode> plans = list(api.get("/api/chats/" + chatId + "/plans").body());
    return plans.isEmpty() ? null : plans.getFirst();
  }

  /** The status of the task of one of the plan's nodes; "none" before it has one. */
  private static String taskStatus(ChatApi api, JsonNode plan, String node) {
    ChatApi.Response task =
        api.get("/api/tasks/" + nodes(plan).get(node).path("taskId").asString());
    return task.status() == 200 ? task.body().path("task").path("status").asString() : "none";
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
