package dev.agentrt.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

class EventCodecTest {

  private final EventCodec codec = new EventCodec();

  @Test
  void samplesCoverEveryEventTypeTheCodeCanProduce() {
    Set<Class<?>> sampled =
        SampleEvents.all().stream().map(Object::getClass).collect(Collectors.toSet());
    assertThat(sampled).containsExactlyInAnyOrder(Event.class.getPermittedSubclasses());
    assertThat(Arrays.stream(EventType.values()).<Class<?>>map(EventType::javaType))
        .containsExactlyInAnyOrder(Event.class.getPermittedSubclasses());
  }

  static final java.util.List<Event> SAMPLES = SampleEvents.all();

  @ParameterizedTest
  @FieldSource("SAMPLES")
  void everyEventSerializesToJsonThatValidatesAndReadsBackEqual(Event event) {
    byte[] json = codec.encode(event);

    assertThat(codec.decode(event.type().ceType(), json)).isEqualTo(event);
    assertThat(new String(json, StandardCharsets.UTF_8))
        .contains("\"eventId\":\"" + event.eventId() + "\"")
        .contains("\"occurredAt\":\"2026-11-22T10:15:30.123Z\"")
        .doesNotContain("null")
        .doesNotContain("\"key\"")
        .doesNotContain("\"type\"");
  }

  @Test
  void refusesToEncodeAnEventThatBreaksItsSchema() {
    Event blankInstruction =
        new TaskCreated("e-1", java.time.Instant.now(), "task-1", "chat-1", "researcher", "");

    assertThatThrownBy(() -> codec.encode(blankInstruction))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("field 'instruction'");
  }

  @Test
  void rejectsAPayloadWithoutARequiredFieldNamingTheField() {
    String json =
        """
        {"eventId":"e-1","occurredAt":"2026-11-22T10:15:30Z","taskId":"t-1",
         "agent":"researcher","instruction":"Research Kafka"}""";

    assertThatThrownBy(() -> decode("dev.agentrt.TaskCreated", json))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("TaskCreated")
        .hasMessageContaining("field 'chatId'");
  }

  @Test
  void rejectsAFieldOfTheWrongTypeNamingTheField() {
    String json =
        """
        {"eventId":"e-1","occurredAt":"2026-11-22T10:15:30Z","chatId":"c-1",
         "messageId":42,"role":"user"}""";

    assertThatThrownBy(() -> decode("dev.agentrt.ChatMessageAdded", json))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("field 'messageId'");
  }

  @Test
  void rejectsAValueOutsideItsEnumNamingTheField() {
    String json =
        """
        {"eventId":"e-1","occurredAt":"2026-11-22T10:15:30Z","chatId":"c-1",
         "messageId":"m-1","role":"wizard"}""";

    assertThatThrownBy(() -> decode("dev.agentrt.ChatMessageAdded", json))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("field 'role'");
  }

  @Test
  void rejectsAPayloadThatIsNotJson() {
    assertThatThrownBy(() -> decode("dev.agentrt.TaskCreated", "not json {"))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void rejectsAnUnknownEventType() {
    assertThatThrownBy(() -> decode("dev.agentrt.Nonsense", "{}"))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("unknown event type 'dev.agentrt.Nonsense'");
  }

  @Test
  void toleratesFieldsItDoesNotKnowSoProducersCanEvolveFirst() {
    String json =
        """
        {"eventId":"e-1","occurredAt":"2026-11-22T10:15:30Z","chatId":"c-1",
         "messageId":"m-1","role":"user","mood":"curious"}""";

    assertThat(decode("dev.agentrt.ChatMessageAdded", json))
        .isInstanceOf(ChatMessageAdded.class)
        .extracting(e -> ((ChatMessageAdded) e).messageId())
        .isEqualTo("m-1");
  }

  private Event decode(String ceType, String json) {
    return codec.decode(ceType, json.getBytes(StandardCharsets.UTF_8));
  }
}
