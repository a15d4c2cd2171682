package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TaskTest {

  private static final Instant NOW = Instant.parse("2026-11-25T18:00:00Z");
  private static final EventCodec CODEC = new EventCodec();

  @Test
  void aCreatedTaskCarriesItsTaskCreatedWithAnIdDerivedFromItsOwn() {
    Task.Routing routing = new Task.Routing(0.9, "it writes code", false);

    Task task =
        Task.created("t-1", "c-1", "coder", "fix it", "m-1", null, routing, null, NOW, CODEC);

    assertThat(task.status()).isEqualTo(TaskStatus.created);
    assertThat(task.type()).isEqualTo(Task.TYPE_AGENT);
    assertThat(task.model()).isEqualTo("m-1");
    assertThat(task.routing()).isEqualTo(routing);
    assertThat(task.delegation()).isNull();
    assertThat(task.planNode())
        .as("says it is no plan's node (Plans' tasks say they are)")
        .isFalse();
    assertThat(task.createdAt()).isEqualTo(NOW).isEqualTo(task.updatedAt());
    assertThat(task.outbox())
        .singleElement()
        .extracting(OutboxEntry::eventId)
        .isEqualTo(TaskEventIds.created("t-1"));
    assertThat(event(task))
        .isEqualTo(
            new TaskCreated(
                TaskEventIds.created("t-1"),
                NOW,
                "t-1",
                "c-1",
                "coder",
                "fix it",
                null,
                null,
                null,
                null,
                new TaskCreated.Start("m-1")));
  }

  @Test
  void aChildTasksEventNamesItsParentItsDepthAndTheCallThatStartedIt() {
    Task.Delegation delegation =
        new Task.Delegation(
            "parent", "parent-sub-agent", "root", 2, "call-1", "model-call-1", null);

    Task child =
        Task.created("t-2", "c-1", "reviewer", "look", null, delegation, null, null, NOW, CODEC);

    assertThat(child.delegation()).isEqualTo(delegation);
    assertThat(child.depth()).isEqualTo(2);
    assertThat(event(child))
        .isEqualTo(
            new TaskCreated(
                TaskEventIds.created("t-2"),
                NOW,
                "t-2",
                "c-1",
                "reviewer",
                "look",
                "parent",
                2,
                "call-1",
                null,
                new TaskCreated.Start(null)));
  }

  /**
   * The chat's limits, when the creator read them, travel with the event, so that the start need
   * not read the chat; a chat without limits is carried as such (an empty object), not as unknown.
   */
  @Test
  void theEventCarriesTheChatsLimitsAsReadAndAChatWithoutLimitsAsNone() {
    ChatLimits limits = new ChatLimits(4, null, 600L);

    TaskCreated limited =
        event(Task.created("t-3", "c-1", "coder", "go", null, null, null, limits, NOW, CODEC));
    TaskCreated unlimited =
        event(
            Task.created(
                "t-4", "c-1", "coder", "go", null, null, null, ChatLimits.NONE, NOW, CODEC));

    assertThat(limited.chatLimits()).isEqualTo(new TaskCreated.Limits(4, null, 600L));
    assertThat(ChatLimits.of(limited.chatLimits())).isEqualTo(limits);
    assertThat(unlimited.chatLimits()).isEqualTo(new TaskCreated.Limits(null, null, null));
    assertThat(ChatLimits.of(unlimited.chatLimits())).as("none, as a chat stores it").isNull();
  }

  private static TaskCreated event(Task task) {
    OutboxEntry entry = task.outbox().getFirst();
    return (TaskCreated)
        CODEC.decode(entry.ceType(), entry.payload().getBytes(StandardCharsets.UTF_8));
  }
}
