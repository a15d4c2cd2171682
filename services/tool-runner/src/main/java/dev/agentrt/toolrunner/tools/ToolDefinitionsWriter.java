package dev.agentrt.toolrunner.tools;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import dev.agentrt.agents.ToolCatalog;
import java.time.Clock;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * Keeps the {@code tool_definitions} collection equal to the registry, so that the agent loop shows
 * the model the tools that really run here (MCP ones included): written at start-up, before the
 * service reports healthy, and whenever the registry changes. One document per tool: {@code _id}
 * (the name), {@code description}, {@code inputSchema} and {@code outputSchema} (JSON text), {@code
 * timeoutMs}, {@code idempotent}, {@code source}, {@code approval} ({@code required} or {@code
 * none}), {@code updatedAt}. Tools no longer in the registry are removed.
 */
@Component
public class ToolDefinitionsWriter implements SmartInitializingSingleton {

  private static final Logger log = LoggerFactory.getLogger(ToolDefinitionsWriter.class);

  private final Toolbox toolbox;
  private final MongoTemplate mongo;
  private final Clock clock = Clock.systemUTC();

  public ToolDefinitionsWriter(Toolbox toolbox, MongoTemplate mongo) {
    this.toolbox = toolbox;
    this.mongo = mongo;
  }

  @Override
  public void afterSingletonsInstantiated() {
    onStart();
  }

  void onStart() {
    toolbox.onChange(this::writeQuietly);
    writeQuietly();
  }

  /** Writes the registry's tools and removes the others. */
  public synchronized void write() {
    MongoCollection<Document> collection = mongo.getCollection(ToolCatalog.DEFINITIONS);
    Date now = Date.from(clock.instant());
    List<RegisteredTool> tools = toolbox.tools();
    for (RegisteredTool tool : tools) {
      Document document =
          new Document("_id", tool.name())
              .append("description", tool.definition().description())
              .append("inputSchema", tool.definition().inputSchema())
              .append("outputSchema", tool.outputSchema())
              .append("timeoutMs", tool.timeout().toMillis())
              .append("idempotent", tool.idempotent())
              .append("source", tool.source())
              .append(
                  ToolCatalog.APPROVAL,
                  tool.approvalRequired()
                      ? ToolCatalog.APPROVAL_REQUIRED
                      : ToolCatalog.APPROVAL_NONE)
              .append("updatedAt", now);
      collection.replaceOne(
          Filters.eq("_id", tool.name()), document, new ReplaceOptions().upsert(true));
    }
    collection.deleteMany(Filters.nin("_id", tools.stream().map(RegisteredTool::name).toList()));
    log.info("tool definitions written: {}", toolbox.names());
  }

  private void writeQuietly() {
    try {
      write();
    } catch (RuntimeException e) {
      log.warn("could not write the tool definitions: {}", e.toString());
    }
  }
}
