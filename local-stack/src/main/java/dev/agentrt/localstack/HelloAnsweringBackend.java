package dev.agentrt.localstack;

import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * The H2 backend of mongo-java-server, also answering {@code hello}: the name MongoDB uses for
 * {@code isMaster} since 4.4.2, which Spring Boot's MongoDB health indicator sends and
 * mongo-java-server does not know.
 */
final class HelloAnsweringBackend extends H2Backend {

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
