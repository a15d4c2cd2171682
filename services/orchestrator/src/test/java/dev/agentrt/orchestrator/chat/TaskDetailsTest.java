package dev.agentrt.orchestrator.chat;

import static dev.agentrt.orchestrator.testing.Stored.CHAT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.orchestrator.testing.Stored.Started;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.InMemoryMongo;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code GET /api/tasks/{taskId}}: a task with what its sub-agent saw and did. */
class TaskDetailsTest {

  private static InMemoryMongo mongo;
  private static TaskDetails details;

  @BeforeAll
  static void start() {
    mongo = InMemoryMongo.start();
    details = new TaskDetails(mongo.template(), new SubAgentConversations(mongo.template()));
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
            new TaskDetails.MessageView("system", "You are a careful researcher.", null, null),
            new TaskDetails.MessageView("user", "Research Kafka", null, null),
            new TaskDetails.MessageView(
                "assistant",
                null,
                List.of(
                    new TaskDetails.ToolCallRequest(
                        "call-1", "search_docs", "{\"query\":\"Kafka\"}")),
                null),
            new TaskDetails.MessageView("tool", "{\"results\":[]}", null, "call-1"));
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
  }

  @Test
  void knowsNoTaskThatIsNotStored() {
    assertThat(details.of("no-such-task")).isEmpty();
  }
}
