package dev.agentrt.agentloop;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelToolCall;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/** The model, scripted: replays a queue of replies and failures, and records what it was asked. */
final class ScriptedModel implements ModelPort {

  private final Deque<Supplier<ModelReply>> script = new ArrayDeque<>();
  final List<ModelRequest> requests = Collections.synchronizedList(new ArrayList<>());

  ScriptedModel answers(String content) {
    return then(() -> reply(content, List.of()));
  }

  ScriptedModel callsTools(ModelToolCall... calls) {
    return then(() -> reply(null, List.of(calls)));
  }

  ScriptedModel failsTransiently() {
    return then(
        () -> {
          throw new ModelException("HTTP 503 from the provider", true);
        });
  }

  synchronized ScriptedModel then(Supplier<ModelReply> step) {
    script.add(step);
    return this;
  }

  @Override
  public ModelReply complete(ModelRequest request) {
    requests.add(request);
    Supplier<ModelReply> next;
    synchronized (this) {
      next = script.poll();
    }
    if (next == null) {
      throw new AssertionError("the model was called more often than scripted");
    }
    return next.get();
  }

  static ModelReply reply(String content, List<ModelToolCall> calls) {
    return new ModelReply(
        content, calls, new ModelReply.Usage(10, 5), calls.isEmpty() ? "stop" : "tool_calls", 1);
  }
}
