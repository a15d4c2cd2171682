package dev.agentrt.localstack;

import de.bwaldvogel.mongo.bson.Document;
import dev.agentrt.localstack.mongo.IndexingH2Backend;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * The H2 backend of mongo-java-server with secondary indexes ({@link IndexingH2Backend}), also
 * answering {@code hello}: the name MongoDB uses for {@code isMaster} since 4.4.2, which Spring
 * Boot's MongoDB health indicator sends and mongo-java-server does not know.
 */
final class HelloAnsweringBackend extends IndexingH2Backend {

  /**
   * @param fileName the H2 file, or {@code null} for memory only
   */
  HelloAnsweringBackend(@Nullable String fileName) {
    super(fileName);
  }

  @Override
  public Document handleCommand(
      Channel channel, String databaseName, String command, Document query) {
    if (!command.equalsIgnoreCase("hello")) {
      return super.handleCommand(channel, databaseName, command, query);
    }
    Document response = super.handleCommand(channel, databaseName, "isMaster", query);
    response.put("isWritablePrimary", response.remove("ismaster"));
    return response;
  }
}
