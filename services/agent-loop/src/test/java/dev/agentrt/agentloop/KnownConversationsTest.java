package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a turn knew of a conversation is used only with messages that follow on from it. */
class KnownConversationsTest {

  private static final SubAgent SUB_AGENT =
      new SubAgent(
          "sa-1",
          "task-1",
          "chat-1",
          "researcher",
          SubAgentStatus.active,
          2,
          null,
          Instant.EPOCH,
          Instant.EPOCH,
          null,
          null);

  private final KnownConversations.Known known =
      new KnownConversations.Known(SUB_AGENT, List.of(message(1), message(2), message(3)));

  @Test
  void messagesThatFollowOnMakeTheConversation() {
    assertThat(known.with(List.of(message(4), message(5))))
        .hasValueSatisfying(
            conversation ->
                assertThat(conversation.messages())
                    .extracting(SubAgentMessage::seq)
                    .containsExactly(1L, 2L, 3L, 4L, 5L));
    assertThat(known.with(List.of())).hasValueSatisfying(c -> assertThat(c.lastSeq()).isEqualTo(3));
  }

  @Test
  void aGapMakesNone() {
    assertThat(known.with(List.of(message(5))))
        .as("place 4 is taken and its message not stored yet, or lost: not known here")
        .isEmpty();
  }

  @Test
  void theSubAgentCountsTheConversationsMessagesWithNoTurn() {
    SubAgent counted = known.counting(known.with(List.of(message(4))).orElseThrow());

    assertThat(counted.messageCount()).isEqualTo(4);
    assertThat(counted.status()).isEqualTo(SubAgentStatus.active);
    assertThat(counted.turn()).isNull();
    assertThat(counted.agent()).isEqualTo("researcher");
  }

  private static SubAgentMessage message(long seq) {
    return new SubAgentMessage(
        "m" + seq,
        "sa-1",
        "task-1",
        "chat-1",
        seq,
        seq == 3 ? SubAgentMessage.ASSISTANT : SubAgentMessage.TOOL,
        "…",
        List.of(),
        null,
        Instant.EPOCH,
        List.of());
  }
}
