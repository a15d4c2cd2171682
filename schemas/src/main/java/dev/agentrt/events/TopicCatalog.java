package dev.agentrt.events;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The topics declared in {@code asyncapi.yaml}, the single source of truth for names, keys and
 * partition counts. Whoever creates topics (the local stack, each service at start-up) reads them
 * from here.
 */
public final class TopicCatalog {

  public static final String ASYNCAPI_RESOURCE = "/asyncapi.yaml";

  private static final List<TopicSpec> TOPICS = List.copyOf(load());

  private TopicCatalog() {}

  public static List<TopicSpec> topics() {
    return TOPICS;
  }

  /** The parsed AsyncAPI document. */
  public static JsonNode asyncApi() {
    try (InputStream in = TopicCatalog.class.getResourceAsStream(ASYNCAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(ASYNCAPI_RESOURCE + " is not on the classpath");
      }
      return new YAMLMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<TopicSpec> load() {
    List<TopicSpec> topics = new ArrayList<>();
    for (Map.Entry<String, JsonNode> channel : asyncApi().required("channels").properties()) {
      JsonNode c = channel.getValue();
      topics.add(
          new TopicSpec(
              c.required("address").asString(),
              c.path("bindings").path("kafka").required("partitions").asInt(),
              c.required("x-key").asString()));
    }
    return topics;
  }
}
