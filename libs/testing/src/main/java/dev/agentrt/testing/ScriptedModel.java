package dev.agentrt.testing;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelToolCall;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The model, scripted: replays a queue of replies and failures, one per call, and records every
 * request it was given. The one thing the tests script, through the port production uses.
 */
public final class ScriptedModel implements ModelPort {

  private final Queue<Supplier<ModelReply>> script = new ConcurrentLinkedQueue<>();
  private final List<ModelRequest> requests = new CopyOnWriteArrayList<>();

  /** Replies with these contents, in order, one per call. */
  public ScriptedModel replies(String... contents) {
    for (String content : contents) {
      then(() -> reply(content, List.of()));
    }
    return this;
  }

  /** Replies with these tool calls in one turn. */
  public ScriptedModel callsTools(ModelToolCall... calls) {
    return then(() -> reply(null, List.of(calls)));
  }

  /** Fails the next call with this exception. */
  public ScriptedModel fails(ModelException failure) {
    return then(
        () -> {
          throw failure;
        });
  }

  /** Runs this step at the next call: to hold a call on a latch, say. */
  public ScriptedModel then(Supplier<ModelReply> step) {
    script.add(step);
    return this;
  }

  public static ModelException transientFailure() {
    return new ModelException("503 from the provider", true);
  }

  public static ModelException permanentFailure() {
    return new ModelException("401: the key is not valid", false);
  }

  public static ModelReply reply(String content, List<ModelToolCall> calls) {
    return new ModelReply(
        content, calls, new ModelReply.Usage(10, 10), calls.isEmpty() ? "stop" : "tool_calls", 1);
  }

  public List<ModelRequest> requests() {
    return List.copyOf(requests);
  }

  @Override
  public ModelReply complete(ModelRequest request) {
    requests.add(request);
    Supplier<ModelReply> next = script.poll();
    if (next == null) {
      throw new ModelException("the script has no reply for call " + requests.size(), false);
    }
    return next.get();
  }
}
