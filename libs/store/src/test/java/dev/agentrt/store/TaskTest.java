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

    Task task = Task.created("t-1", "c-1", "coder", "fix it", "m-1", null, routing, NOW, CODEC);

    assertThat(task.status()).isEqualTo(TaskStatus.created);
    assertThat(task.type()).isEqualTo(Task.TYPE_AGENT);
    assertThat(task.model()).isEqualTo("m-1");
    assertThat(task.routing()).isEqualTo(routing);
    assertThat(task.delegation()).isNull();
    assertThat(task.createdAt()).isEqualTo(NOW).isEqualTo(task.updatedAt());
    assertThat(task.outbox())
        .singleElement()
        .extracting(OutboxEntry::eventId)
        .isEqualTo(TaskEventIds.created("t-1"));
    assertThat(event(task))
        .isEqualTo(
            new TaskCreated(TaskEventIds.created("t-1"), NOW, "t-1", "c-1", "coder", "fix it"));
  }

  @Test
  void aChildTasksEventNamesItsParentItsDepthAndTheCallThatStartedIt() {
    Task.Delegation delegation =
        new Task.Delegation(
            "parent", "parent-sub-agent", "root", 2, "call-1", "model-call-1", null);

    Task child = Task.created("t-2", "c-1", "reviewer", "look", null, delegation, null, NOW, CODEC);

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
                "call-1"));
  }

  private static TaskCreated event(Task task) {
    OutboxEntry entry = task.outbox().getFirst();
    return (TaskCreated)
        CODEC.decode(entry.ceType(), entry.payload().getBytes(StandardCharsets.UTF_8));
  }
}
