package dev.agentrt.orchestrator.chat;

import static dev.agentrt.orchestrator.testing.Stored.CHAT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.orchestrator.testing.Stored.Started;
import dev.agentrt.orchestrator.testing.TestModels;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.testing.InMemoryMongo;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/** {@code GET /api/tasks/{taskId}}: a task with what its sub-agent saw and did. */
class TaskDetailsTest {

  private static InMemoryMongo mongo;
  private static TaskDetails details;

  @BeforeAll
  static void start() {
    mongo = InMemoryMongo.start();
    Pricing pricing =
        new Pricing(
            Map.of(
                "offline",
                new Pricing.Price(new BigDecimal("0.15"), new BigDecimal("0.60")),
                "big",
                new Pricing.Price(new BigDecimal("3"), new BigDecimal("15"))),
            TestModels.named("offline", "big", "unpriced"));
    details =
        new TaskDetails(
            mongo.template(),
            new SubAgentConversations(mongo.template()),
            pricing,
            new ChatTasks(mongo.template()));
  }

  @AfterAll
  static void stop() {
    mongo.close();
  }

  @Test
  void showsTheTaskItsSubAgentItsConversationAndItsToolCalls() {
    Stored stored = new Stored(mongo.template());
    Started started =
        stored.startedTask(CHAT, "Research Kafka", TaskStatus.running, SubAgentStatus.active, null);
    stored.append(started.subAgent(), "system", "You are a careful researcher.", List.of(), null);
    stored.append(started.subAgent(), "user", "Research Kafka", List.of(), null);
    stored.append(
        started.subAgent(),
        "assistant",
        null,
        List.of(new RequestedToolCall("call-1", "search_docs", "{\"query\":\"Kafka\"}")),
        null);
    stored.append(started.subAgent(), "tool", "{\"results\":[]}", List.of(), "call-1");
    stored.toolCall(started.subAgent(), "call-1", "search_docs", "{\"query\":\"Kafka\"}");

    TaskDetails.View view = details.of(started.task().id()).orElseThrow();

    assertThat(view.task().id()).isEqualTo(started.task().id());
    assertThat(view.task().status()).isEqualTo("running");
    assertThat(view.subAgent().id()).isEqualTo(started.subAgent().id());
    assertThat(view.subAgent().status()).isEqualTo("active");
    assertThat(view.messages())
        .containsExactly(
            new TaskDetails.MessageView(
                "system", "You are a careful researcher.", null, null, null, null),
            new TaskDetails.MessageView("user", "Research Kafka", null, null, null, null),
            new TaskDetails.MessageView(
                "assistant",
                null,
                List.of(
                    new TaskDetails.ToolCallRequest(
                        "call-1", "search_docs", "{\"query\":\"Kafka\"}")),
                null,
                null,
                null),
            new TaskDetails.MessageView("tool", "{\"results\":[]}", null, "call-1", null, null));
    assertThat(view.toolCalls())
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.modelCallId()).isEqualTo("call-1");
              assertThat(call.name()).isEqualTo("search_docs");
              assertThat(call.status()).isEqualTo("success");
              assertThat(call.result()).isEqualTo("{\"results\":[]}");
              assertThat(call.latencyMs()).isEqualTo(12L);
            });
    assertThat(view.task().usage()).isEqualTo(new UsageView(0, 0, 0, null));
  }

  @Test
  void showsEachTurnsTokensAndModelAndTheSumsWithTheirCost() {
    Stored stored = new Stored(mongo.template());
    Started started =
        stored.startedTask(CHAT, "Research Kafka", TaskStatus.running, SubAgentStatus.active, null);
    stored.append(started.subAgent(), "user", "Research Kafka", List.of(), null);
    stored.modelAnswer(started.subAgent(), "Searching.", null, new TurnUsage(1_000, 200));
    stored.modelAnswer(started.subAgent(), "Done.", "big", new TurnUsage(2_000, 100));

    TaskDetails.View view = details.of(started.task().id()).orElseThrow();

    assertThat(view.messages().get(1).model()).isNull();
    assertThat(view.messages().get(1).usage())
        .isEqualTo(new UsageView.Turn(1_000, 200, new BigDecimal("0.00027")));
    assertThat(view.messages().get(2).model()).isEqualTo("big");
    assertThat(view.messages().get(2).usage())
        .isEqualTo(new UsageView.Turn(2_000, 100, new BigDecimal("0.0075")));
    UsageView sums = new UsageView(3_000, 300, 2, new BigDecimal("0.00777"));
    assertThat(view.subAgent().usage()).isEqualTo(sums);
    assertThat(view.task().usage()).isEqualTo(sums);
  }

  @Test
  void sumsWithAModelThatHasNoPriceShowNoCost() {
    Stored stored = new Stored(mongo.template());
    Started started =
        stored.startedTask(CHAT, "Research Kafka", TaskStatus.running, SubAgentStatus.active, null);
    stored.append(started.subAgent(), "user", "Research Kafka", List.of(), null);
    stored.modelAnswer(started.subAgent(), "Searching.", "big", new TurnUsage(1_000, 200));
    stored.modelAnswer(started.subAgent(), "Done.", "unpriced", new TurnUsage(10, 10));

    TaskDetails.View view = details.of(started.task().id()).orElseThrow();

    assertThat(view.messages().get(1).usage().costUsd()).isEqualByComparingTo("0.006");
    assertThat(view.messages().get(2).usage()).isEqualTo(new UsageView.Turn(10, 10, null));
    assertThat(view.task().usage()).isEqualTo(new UsageView(1_010, 210, 2, null));
  }

  @Test
  void showsWhyTheTaskWentToItsAgent() {
    Started started =
        new Stored(mongo.template())
            .startedTask(CHAT, "Research Kafka", TaskStatus.running, SubAgentStatus.active, null);
    Task.Routing routing = new Task.Routing(0.82, "It asks for research.", false);
    mongo
        .template()
        .updateFirst(
            Query.query(Criteria.where("_id").is(started.task().id())),
            Update.update("routing", routing),
            Task.class);

    assertThat(details.of(started.task().id()).orElseThrow().task().routing()).isEqualTo(routing);
  }

  @Test
  void knowsNoTaskThatIsNotStored() {
    assertThat(details.of("no-such-task")).isEmpty();
  }
}
