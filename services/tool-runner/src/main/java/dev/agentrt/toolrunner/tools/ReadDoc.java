package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code read_doc {path}}: one document's text, capped at {@link #MAX_CHARS} characters ({@code
 * truncated} says whether it was cut). Only markdown documents inside the docs root can be read.
 */
final class ReadDoc implements Tool {

  static final int MAX_CHARS = 8000;
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Page(String path, String title, String content, boolean truncated) {}

  private final DocsFolder docs;

  ReadDoc(DocsFolder docs) {
    this.docs = docs;
  }

  @Override
  public String name() {
    return ToolCatalog.READ_DOC;
  }

  @Override
  public String description() {
    return "Read one document found by search_docs. Returns {path, title, content, truncated}.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["path"],"additionalProperties":false,
         "properties":{"path":{"type":"string","minLength":1}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    DocsFolder.Doc doc = docs.read(arguments.path("path").asString(""));
    String content = doc.content();
    boolean truncated = content.length() > MAX_CHARS;
    return MAPPER.writeValueAsString(
        new Page(
            doc.path(),
            doc.title(),
            truncated ? content.substring(0, MAX_CHARS) : content,
            truncated));
  }
}
