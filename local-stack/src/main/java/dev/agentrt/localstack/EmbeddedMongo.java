package dev.agentrt.localstack;

import de.bwaldvogel.mongo.MongoServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A server speaking the MongoDB wire protocol (mongo-java-server) on 127.0.0.1, storing its data in
 * an H2 file that survives restarts, or in memory.
 */
public final class EmbeddedMongo implements AutoCloseable {

  private static final String DATABASE = "agentrt";

  private final MongoServer server;
  private final @Nullable Path dataDir;
  private final int port;
  private boolean closed;

  private EmbeddedMongo(MongoServer server, @Nullable Path dataDir, int port) {
    this.server = server;
    this.dataDir = dataDir;
    this.port = port;
  }

  /**
   * Starts the server.
   *
   * @param dataDir directory of the H2 file ({@code agentrt.mv}), created if missing; {@code null}
   *     keeps the data in memory only
   * @param port the port, or 0 for a free one
   */
  public static EmbeddedMongo start(@Nullable Path dataDir, int port) {
    MongoServer server = new MongoServer(backend(dataDir));
    server.bind("127.0.0.1", port);
    return new EmbeddedMongo(server, dataDir, server.getLocalAddress().getPort());
  }

  /**
   * The same server started again after {@link #close}, on the same port and H2 file; with data in
   * memory only it starts empty.
   *
   * @throws IllegalStateException if this server is still running
   */
  public synchronized EmbeddedMongo startAgain() {
    if (!closed) {
      throw new IllegalStateException("the MongoDB server on port " + port + " is still running");
    }
    return start(dataDir, port);
  }

  /** {@code mongodb://127.0.0.1:<port>/agentrt}. */
  public String uri() {
    return "mongodb://127.0.0.1:%d/%s".formatted(port, DATABASE);
  }

  /** Disconnects the clients, then flushes and closes the H2 store. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.shutdownNow();
    }
  }

  private static HelloAnsweringBackend backend(@Nullable Path dataDir) {
    if (dataDir == null) {
      return new HelloAnsweringBackend(null);
    }
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create MongoDB data dir " + dataDir, e);
    }
    return new HelloAnsweringBackend(dataDir.resolve(DATABASE + ".mv").toString());
  }
}
