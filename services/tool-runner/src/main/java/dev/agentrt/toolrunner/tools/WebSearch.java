package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code web_search {query}}: searches the web through Tavily. Only registered when an API key is
 * configured.
 */
final class WebSearch implements Tool {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final WebSearchProperties properties;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  WebSearch(WebSearchProperties properties) {
    this.properties = properties;
  }

  @Override
  public String name() {
    return ToolCatalog.WEB_SEARCH;
  }

  @Override
  public String description() {
    return "Search the web. Returns {results: [{title, url, content}]}, best first.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["query"],"additionalProperties":false,
         "properties":{"query":{"type":"string","minLength":1,"maxLength":400}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    ObjectNode body =
        MAPPER
            .createObjectNode()
            .put("query", arguments.path("query").asString(""))
            .put("max_results", properties.maxResults());
    HttpRequest request =
        HttpRequest.newBuilder(properties.url())
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + properties.apiKey())
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    HttpResponse<String> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new ToolException(ErrorType.tool_error, "web search failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolException(ErrorType.timeout, "web search was interrupted");
    }
    if (response.statusCode() != 200) {
      throw new ToolException(
          ErrorType.tool_error, "web search failed with HTTP " + response.statusCode());
    }
    JsonNode answer;
    try {
      answer = MAPPER.readTree(response.body());
    } catch (JacksonException e) {
      throw new ToolException(ErrorType.tool_error, "web search answered no JSON");
    }
    ArrayNode results = MAPPER.createArrayNode();
    for (JsonNode hit : answer.path("results")) {
      results
          .addObject()
          .put("title", hit.path("title").asString(""))
          .put("url", hit.path("url").asString(""))
          .put("content", hit.path("content").asString(""));
    }
    ObjectNode out = MAPPER.createObjectNode();
    out.set("results", results);
    return out.toString();
  }
}
