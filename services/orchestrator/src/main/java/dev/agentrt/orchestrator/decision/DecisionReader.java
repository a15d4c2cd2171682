package dev.agentrt.orchestrator.decision;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the model's reply as a {@link Decision}: JSON, checked against the decision schema. When it
 * is not one, the exception names what is wrong, in words the model can act on.
 */
final class DecisionReader {

  private static final String RESOURCE = "decision-schema.json";

  /** The plan's branch, kept with the other contracts in the schemas module. */
  private static final String PLAN_RESOURCE = "/schemas/decisions/plan.json";

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final JsonNode schemaJson;
  private final Schema schema;
  private final Map<String, Schema> schemaOfAction = new HashMap<>();

  DecisionReader() {
    schemaJson = load(RESOURCE);
    ObjectNode plan = (ObjectNode) load(PLAN_RESOURCE);
    plan.remove(List.of("$schema", "$id"));
    ((ArrayNode) schemaJson.required("oneOf")).add(plan);
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);
    schema = registry.getSchema(schemaJson);
    for (JsonNode branch : schemaJson.required("oneOf")) {
      schemaOfAction.put(
          branch.path("properties").path("action").path("const").asString(),
          registry.getSchema(branch));
    }
  }

  private static JsonNode load(String resource) {
    try (InputStream in = DecisionReader.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing " + resource);
      }
      return MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The decision schema as one line of JSON, for the model request and the repair prompt. */
  String schema() {
    return MAPPER.writeValueAsString(schemaJson);
  }

  /**
   * @throws InvalidDecisionException when the content is not JSON or fails the schema
   */
  Decision read(@Nullable String content) throws InvalidDecisionException {
    if (content == null || content.isBlank()) {
      throw new InvalidDecisionException("the reply was empty");
    }
    JsonNode json;
    try {
      json = MAPPER.readTree(withoutCodeFence(content.strip()));
    } catch (JacksonException e) {
      throw new InvalidDecisionException("the reply is not JSON (" + e.getOriginalMessage() + ")");
    }
    if (!json.isObject()) {
      throw new InvalidDecisionException("the reply is not a JSON object");
    }
    List<Error> errors = schema.validate(json);
    if (!errors.isEmpty()) {
      throw new InvalidDecisionException(explain(json));
    }
    return switch (json.required("action").asString()) {
      case "answer" -> new Decision.Answer(json.required("answer").asString());
      case "new_task" ->
          new Decision.NewTask(
              json.required("agent").asString(),
              json.required("instruction").asString(),
              json.required("confidence").asDouble(),
              json.required("reason").asString());
      case "reactivate" ->
          new Decision.Reactivate(
              json.required("subAgentId").asString(),
              json.required("message").asString(),
              json.required("confidence").asDouble(),
              json.required("reason").asString());
      case "plan" -> plan(json);
      default -> throw new IllegalStateException("the schema lets through " + json);
    };
  }

  private static Decision.Plan plan(JsonNode json) {
    List<Decision.Plan.Node> read = new ArrayList<>();
    for (JsonNode node : json.required("nodes")) {
      List<String> dependsOn = new ArrayList<>();
      node.path("dependsOn").forEach(id -> dependsOn.add(id.asString()));
      read.add(
          new Decision.Plan.Node(
              node.required("id").asString(),
              node.required("agent").asString(),
              node.required("instruction").asString(),
              List.copyOf(dependsOn)));
    }
    return new Decision.Plan(
        List.copyOf(read),
        json.required("confidence").asDouble(),
        json.required("reason").asString());
  }

  /** Whether the reply, valid or not, chose the plan action. */
  boolean isPlan(@Nullable String content) {
    if (content == null) {
      return false;
    }
    try {
      return MAPPER
          .readTree(withoutCodeFence(content.strip()))
          .path("action")
          .asString("")
          .equals("plan");
    } catch (JacksonException notJson) {
      return false;
    }
  }

  /** The errors against the branch the reply chose, which say more than "matches no branch". */
  private String explain(JsonNode json) {
    String action = json.path("action").asString("");
    Schema branch = schemaOfAction.get(action);
    if (branch == null) {
      return "field 'action' must be one of "
          + schemaOfAction.keySet().stream().sorted().collect(Collectors.joining(", "));
    }
    return branch.validate(json).stream()
        .map(DecisionReader::describe)
        .collect(Collectors.joining("; "));
  }

  /** "field 'agent': required property 'agent' not found", as the event codec says it. */
  private static String describe(Error error) {
    String path = error.getInstanceLocation().toString().replaceFirst("^[$/.]+", "");
    if (error.getProperty() != null && "required".equals(error.getKeyword())) {
      path = path.isEmpty() ? error.getProperty() : path + "/" + error.getProperty();
    }
    String field = path.isEmpty() ? "the object" : "field '" + path.replace('/', '.') + "'";
    return field + ": " + error.getMessage();
  }

  /** Models often wrap JSON in a Markdown code fence; the JSON inside is what counts. */
  private static String withoutCodeFence(String content) {
    if (!content.startsWith("```") || !content.endsWith("```") || content.length() < 6) {
      return content;
    }
    String inner = content.substring(3, content.length() - 3);
    int newline = inner.indexOf('\n');
    return newline < 0 ? inner : inner.substring(newline + 1);
  }
}
