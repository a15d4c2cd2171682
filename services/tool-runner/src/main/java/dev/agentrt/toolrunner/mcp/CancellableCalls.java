package dev.agentrt.toolrunner.mcp;

import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * A client transport that can cancel a tool call at the server: it notes the JSON-RPC id of each
 * {@code tools/call} request it sends, by the request object, so that {@link #cancel} can send the
 * server {@code notifications/cancelled} for it (MCP's cancellation). The SDK (2.0.0) never sends
 * one: interrupting or disposing a call only stops waiting for its answer, and the server works on
 * (java-sdk pull request 803 adds it). A call interrupted before its request went out is not
 * cancelled at the server: it has no id yet.
 */
final class CancellableCalls extends ForwardingTransport {

  private static final Logger log = LoggerFactory.getLogger(CancellableCalls.class);
  static final String CANCELLED = "notifications/cancelled";

  /** The id of each {@code tools/call} request sent and not yet ended, by the request itself. */
  private final Map<McpSchema.CallToolRequest, Object> sent =
      Collections.synchronizedMap(new IdentityHashMap<>());

  CancellableCalls(McpClientTransport transport) {
    super(transport);
  }

  /**
   * Tells the server the call is cancelled, if its request went out; the answer it may still send
   * is dropped by the SDK.
   */
  void cancel(McpSchema.CallToolRequest call, String reason) {
    Object id = sent.remove(call);
    if (id == null) {
      return;
    }
    transport
        .sendMessage(
            new McpSchema.JSONRPCNotification(
                McpSchema.JSONRPC_VERSION, CANCELLED, Map.of("requestId", id, "reason", reason)))
        .subscribe(null, e -> log.debug("could not cancel {} at the server: {}", id, e.toString()));
  }

  /** The call got its answer (or failed): nothing to cancel any more. */
  void ended(McpSchema.CallToolRequest call) {
    sent.remove(call);
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCRequest request
        && request.params() instanceof McpSchema.CallToolRequest call) {
      sent.put(call, request.id());
    }
    return transport.sendMessage(message);
  }
}
