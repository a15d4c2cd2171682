package dev.agentrt.toolrunner.mcp;

import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * A client transport whose messages are handed over one at a time. The SDK's (2.0.0) stdio
 * transport puts each message into a Reactor sink with {@code tryEmitNext}, which fails ("Failed to
 * enqueue message") when another thread is emitting at that moment: two calls to one server at
 * once, or our tool listing at start-up racing the SDK's own listing after the server's {@code
 * notifications/tools/list_changed} (server-everything sends one as soon as it is initialized), so
 * that a connect or a call failed now and then (java-sdk issues 304 and 875, fixed upstream later).
 */
final class SerializedSends extends ForwardingTransport {

  private final Object sending = new Object();

  SerializedSends(McpClientTransport transport) {
    super(transport);
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    synchronized (sending) {
      return transport.sendMessage(message);
    }
  }
}
