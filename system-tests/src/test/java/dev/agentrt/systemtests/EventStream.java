package dev.agentrt.systemtests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A client of a chat's Server-Sent Events stream, reading on a thread of its own: the events it got
 * so far, the comments (heartbeats) it saw, and {@link #close} to drop the connection mid-run.
 */
final class EventStream implements AutoCloseable {

  record Event(long id, String type, JsonNode data) {}

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final InputStream body;
  private final List<Event> events = new ArrayList<>();
  private final List<String> comments = new ArrayList<>();
  private final int status;
  private boolean endedByServer;
  private @Nullable Exception readFailed;

  private EventStream(HttpResponse<InputStream> response) {
    this.status = response.statusCode();
    this.body = response.body();
    Thread.ofVirtual().name("sse-client").start(this::read);
  }

  /** Opens the stream, after {@code lastEventId} when given (as a reconnecting browser does). */
  static EventStream open(String baseUrl, String chatId, @Nullable Long lastEventId) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + "/api/chats/" + chatId + "/events"))
            .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      request.header("Last-Event-ID", Long.toString(lastEventId));
    }
    try {
      return new EventStream(HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  int status() {
    return status;
  }

  synchronized List<Event> events() {
    return List.copyOf(events);
  }

  synchronized List<String> comments() {
    return List.copyOf(comments);
  }

  synchronized long lastId() {
    return events.isEmpty() ? 0 : events.getLast().id();
  }

  /**
   * What the stream got so far, for a failure's message: its HTTP status, whether it ended (or its
   * reading failed, and why), its comments (the server's greeting and heartbeats: whether the
   * server's follower lives) and its events.
   */
  synchronized String describe() {
    return "HTTP "
        + status
        + ", "
        + (endedByServer
            ? "ended by the server"
            : readFailed != null ? "read failed: " + readFailed : "open")
        + ", comments "
        + comments
        + ", events "
        + events.stream().map(e -> e.id() + ":" + e.type()).toList();
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String id = null;
      String type = null;
      StringBuilder data = new StringBuilder();
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isEmpty()) {
          if (id != null && !data.isEmpty()) {
            Event event = new Event(Long.parseLong(id), type, JSON.readTree(data.toString()));
            synchronized (this) {
              events.add(event);
            }
          }
          id = null;
          type = null;
          data.setLength(0);
        } else if (line.startsWith(":")) {
          synchronized (this) {
            comments.add(line.substring(1).strip());
          }
        } else if (line.startsWith("id:")) {
          id = line.substring(3).strip();
        } else if (line.startsWith("event:")) {
          type = line.substring(6).strip();
        } else if (line.startsWith("data:")) {
          data.append(line.substring(5).strip());
        }
      }
      synchronized (this) {
        endedByServer = true;
      }
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        readFailed = e; // the test dropped the connection, or what came could not be read
      }
    }
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
