package dev.agentrt.orchestrator.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/** Places for streams: per chat and in all, freed once when a stream ends, and reused. */
class StreamSlotsTest {

  private final StreamSlots slots = new StreamSlots(properties(2, 3));

  @Test
  void aChatHasAtMostItsPlacesAndAClosedOnesPlaceIsTakenAgain() {
    StreamSlots.Slot first = slots.take("chat-1");
    slots.take("chat-1");

    assertThatThrownBy(() -> slots.take("chat-1"))
        .isInstanceOfSatisfying(
            ErrorResponseException.class,
            e -> {
              assertThat(e.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
              assertThat(e.getBody().getDetail())
                  .isEqualTo(
                      "chat chat-1 has 2 streams open, the most one chat may have"
                          + " (agentrt.events.max-streams-per-chat); close one first");
            });

    first.close();
    slots.take("chat-1");
    assertThat(slots.open("chat-1")).isEqualTo(2);
  }

  @Test
  void allChatsTogetherHaveAtMostTheTotal() {
    slots.take("chat-1");
    slots.take("chat-2");
    StreamSlots.Slot third = slots.take("chat-3");

    assertThatThrownBy(() -> slots.take("chat-4"))
        .isInstanceOfSatisfying(
            ErrorResponseException.class,
            e ->
                assertThat(e.getBody().getDetail())
                    .isEqualTo(
                        "3 streams are open on this orchestrator, the most it serves"
                            + " (agentrt.events.max-streams); try again later"));

    third.close();
    slots.take("chat-4");
  }

  @Test
  void aPlaceClosedTwiceIsFreedOnceAndAChatWithNoStreamIsForgotten() {
    StreamSlots.Slot only = slots.take("chat-1");
    StreamSlots.Slot other = slots.take("chat-2");

    only.close();
    only.close(); // the completion callback and the following thread both close it

    assertThat(slots.open()).isEqualTo(1);
    assertThat(slots.open("chat-1")).isZero();
    other.close();
    assertThat(slots.open()).isZero();
  }

  @Test
  void refusesLimitsBelowOne() {
    assertThatThrownBy(() -> properties(0, 3)).hasMessageContaining("max-streams-per-chat");
  }

  private static EventsProperties properties(int perChat, int total) {
    return new EventsProperties(
        Duration.ofMillis(10),
        Duration.ofSeconds(15),
        Duration.ofSeconds(2),
        Duration.ofMinutes(1),
        perChat,
        total);
  }
}
