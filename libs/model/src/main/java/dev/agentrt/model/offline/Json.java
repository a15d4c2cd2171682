package dev.agentrt.model.offline;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;

/** Reading what tools and callers hand the offline model, writing what it answers. */
final class Json {

  private static final JsonMapper MAPPER = JsonMapper.shared();

  private Json() {}

  /** The parsed text, or a missing node when it is not JSON. */
  static JsonNode parse(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (JacksonException e) {
      return MissingNode.getInstance();
    }
  }

  /** A JSON object of string fields, in the given order: {@code object("query", "Kafka")}. */
  static String object(String... namesAndValues) {
    ObjectNode node = MAPPER.createObjectNode();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      node.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return MAPPER.writeValueAsString(node);
  }
}
