package dev.agentrt.agentloop;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks a final answer against its agent's output schema: what is wrong with it, in words the
 * model can act on, or nothing. A JSON answer wrapped in a Markdown code fence is read inside it.
 */
@Component
class OutputSchemaCheck {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final SchemaRegistry SCHEMAS =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

  private final Map<String, Schema> compiled = new ConcurrentHashMap<>();

  List<String> problems(String schema, String answer) {
    JsonNode json;
    try {
      json = JSON.readTree(unfenced(answer));
    } catch (JacksonException e) {
      return List.of("the answer is not JSON: " + e.getOriginalMessage());
    }
    Schema compiledSchema =
        compiled.computeIfAbsent(schema, s -> SCHEMAS.getSchema(JSON.readTree(s)));
    return compiledSchema.validate(json).stream().map(OutputSchemaCheck::describe).toList();
  }

  /** The JSON inside a {@code ```json … ```} fence, or the answer as it is. */
  static String unfenced(String answer) {
    String trimmed = answer.strip();
    if (trimmed.startsWith("```") && trimmed.endsWith("```") && trimmed.length() > 6) {
      String inner = trimmed.substring(3, trimmed.length() - 3);
      int firstLine = inner.indexOf('\n');
      return firstLine < 0 ? inner : inner.substring(firstLine + 1);
    }
    return trimmed;
  }

  private static String describe(Error error) {
    String path = error.getInstanceLocation().toString().replaceFirst("^[$/.]+", "");
    if (error.getProperty() != null && "required".equals(error.getKeyword())) {
      path = path.isEmpty() ? error.getProperty() : path + "/" + error.getProperty();
    }
    return (path.isEmpty() ? "the answer" : "field '" + path.replace('/', '.') + "'")
        + ": "
        + error.getMessage();
  }
}
