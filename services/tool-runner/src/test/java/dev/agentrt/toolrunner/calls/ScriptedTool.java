package dev.agentrt.toolrunner.calls;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.toolrunner.tools.Tool;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * A {@code search_docs} that counts its executions and does what the test tells it: answer at once,
 * block until released (saying whether it was interrupted instead), or do something while it runs.
 */
final class ScriptedTool implements Tool {

  static final String RESULT = "{\"results\":[]}";

  final AtomicInteger executions = new AtomicInteger();
  final CountDownLatch started = new CountDownLatch(1);
  final CountDownLatch interrupted = new CountDownLatch(1);
  volatile CountDownLatch release;
  volatile Runnable whileRunning = () -> {};

  @Override
  public String name() {
    return ToolCatalog.SEARCH_DOCS;
  }

  @Override
  public String description() {
    return "search_docs, scripted";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["query"],"additionalProperties":false,
         "properties":{"query":{"type":"string","minLength":1},
                       "limit":{"type":"integer","minimum":1,"maximum":20}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    executions.incrementAndGet();
    started.countDown();
    whileRunning.run();
    CountDownLatch gate = release;
    if (gate != null) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        interrupted.countDown();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      }
    }
    return RESULT;
  }
}
