package dev.agentrt.orchestrator.testing;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The model, scripted: replays a queue of replies and failures, one per call, and records every
 * request it was given. The one thing the tests script.
 */
public final class ScriptedModel implements ModelPort {

  private final Queue<Object> script = new ConcurrentLinkedQueue<>();
  private final List<ModelRequest> requests = new CopyOnWriteArrayList<>();

  /** Replies with these contents, in order, one per call. */
  public ScriptedModel replies(String... contents) {
    for (String content : contents) {
      script.add(new ModelReply(content, List.of(), new ModelReply.Usage(10, 10), "stop", 1));
    }
    return this;
  }

  /** Fails the next call with this exception. */
  public ScriptedModel fails(ModelException failure) {
    script.add(failure);
    return this;
  }

  public static ModelException transientFailure() {
    return new ModelException("503 from the provider", true);
  }

  public static ModelException permanentFailure() {
    return new ModelException("401: the key is not valid", false);
  }

  public List<ModelRequest> requests() {
    return List.copyOf(requests);
  }

  @Override
  public ModelReply complete(ModelRequest request) {
    requests.add(request);
    Object next = script.poll();
    if (next == null) {
      throw new ModelException("the script has no reply for call " + requests.size(), false);
    }
    if (next instanceof ModelException failure) {
      throw failure;
    }
    return (ModelReply) next;
  }
}
