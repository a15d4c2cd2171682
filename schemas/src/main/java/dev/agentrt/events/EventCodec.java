package dev.agentrt.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns events into JSON payloads and back, checking every payload against its JSON Schema both
 * ways: a producer cannot send what its consumers would refuse, and a consumer refuses what its
 * schema does not allow, naming the offending field.
 */
public final class EventCodec {

  private final JsonMapper mapper =
      JsonMapper.builder()
          .changeDefaultPropertyInclusion(
              incl -> JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, null))
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  private final Map<EventType, Schema> schemas = new EnumMap<>(EventType.class);

  public EventCodec() {
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);
    for (EventType type : EventType.values()) {
      try (InputStream in = EventCodec.class.getResourceAsStream(type.schemaResource())) {
        if (in == null) {
          throw new IllegalStateException("missing schema " + type.schemaResource());
        }
        schemas.put(type, registry.getSchema(mapper.readTree(in)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The JSON payload of an event; fails if the event breaks its own schema. */
  public byte[] encode(Event event) {
    JsonNode json = mapper.valueToTree(event);
    check(event.type(), json);
    return mapper.writeValueAsBytes(json);
  }

  /**
   * The event of the given CloudEvents type in this payload.
   *
   * @throws InvalidEventException when the type is unknown, the payload is not JSON, or it fails
   *     the type's schema
   */
  public Event decode(String ceType, byte[] payload) {
    EventType type =
        EventType.ofCeType(ceType)
            .orElseThrow(() -> new InvalidEventException("unknown event type '" + ceType + "'"));
    JsonNode json;
    try {
      json = mapper.readTree(payload);
    } catch (JacksonException e) {
      throw new InvalidEventException(
          type.javaType().getSimpleName() + " payload is not JSON: " + e.getOriginalMessage(), e);
    }
    check(type, json);
    return mapper.treeToValue(json, type.javaType());
  }

  private void check(EventType type, JsonNode json) {
    List<Error> errors = schemas.get(type).validate(json);
    if (!errors.isEmpty()) {
      throw new InvalidEventException(
          type.javaType().getSimpleName()
              + " violates its schema "
              + type.dataSchema()
              + ": "
              + errors.stream().map(EventCodec::describe).collect(Collectors.joining("; ")));
    }
  }

  /**
   * "field 'chatId': required property 'chatId' not found": the field first, then what is wrong.
   */
  private static String describe(Error error) {
    String path = error.getInstanceLocation().toString().replaceFirst("^[$/.]+", "");
    if (error.getProperty() != null && "required".equals(error.getKeyword())) {
      path = path.isEmpty() ? error.getProperty() : path + "/" + error.getProperty();
    }
    String field = path.isEmpty() ? "payload" : "field '" + path.replace('/', '.') + "'";
    return field + ": " + error.getMessage();
  }
}
