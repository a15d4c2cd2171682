package dev.agentrt.toolrunner.mcp;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.RegisteredTool;
import dev.agentrt.toolrunner.tools.ToolException;
import dev.agentrt.toolrunner.tools.ToolSettings;
import dev.agentrt.toolrunner.tools.ToolSource;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.databind.json.JsonMapper;

/**
 * One configured MCP server, through the official MCP Java SDK: connected and its tools listed at
 * start-up, listed again when it sends {@code notifications/tools/list_changed}, and connected
 * again on the next call after it failed (a stdio server that died is started anew). Its tools are
 * named {@code <server>__<tool>}. A call interrupted (its task cancelled, or past its timeout) is
 * cancelled at the server ({@link CancellableCalls}).
 */
public final class McpServer implements ToolSource, AutoCloseable {

  /**
   * Numbers the listings (ours at connect, the SDK's after a change notification) so that a slower
   * older one never replaces a newer list; the number of the list in place is {@link #inPlace}.
   */
  private final AtomicLong listings = new AtomicLong();

  private final Object placing = new Object();
  private long inPlace;

  private static final Logger log = LoggerFactory.getLogger(McpServer.class);
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final String name;
  private final McpProperties.Server config;
  private final ToolSettings settings;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
  private volatile List<RegisteredTool> tools = List.of();
  private @Nullable Connection connection;

  /** The client of a connected server, and its transport, which can cancel a call. */
  private record Connection(McpSyncClient client, CancellableCalls calls) {}

  /** Completes when the current stdio server's process ends. */
  private CompletableFuture<Void> exited = new CompletableFuture<>();

  public McpServer(String name, McpProperties.Server config, ToolSettings settings) {
    this.name = name;
    this.config = config;
    this.settings = settings;
  }

  public String name() {
    return name;
  }

  /** Connects and lists the tools; a server that cannot be reached offers none (logged). */
  public void start() {
    try {
      client();
    } catch (RuntimeException e) {
      log.warn("MCP server {} is not available, its tools are not offered: {}", name, e.toString());
    }
  }

  /** Whether it is not connected now (never reached, or its process ended); see {@link #start}. */
  public synchronized boolean down() {
    return connection == null;
  }

  @Override
  public List<RegisteredTool> tools() {
    return tools;
  }

  @Override
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  /** The prefixed name a server's tool is offered under, as OpenAI accepts function names. */
  static String prefixed(String server, String tool) {
    String name = server + ToolCatalog.MCP_SEPARATOR + tool.replaceAll("[^a-zA-Z0-9_-]", "_");
    return name.length() <= 64 ? name : name.substring(0, 64);
  }

  private synchronized Connection client() {
    if (connection == null) {
      McpClientTransport transport = transport();
      CancellableCalls cancellable =
          new CancellableCalls(
              transport instanceof StdioClientTransport
                  ? new SerializedSends(transport)
                  : transport);
      McpSyncClient fresh =
          McpClient.sync(cancellable)
              .clientInfo(new McpSchema.Implementation("agentrt-tool-runner", "1.0"))
              // The runner bounds each call by its tool's timeout; this only bounds a lost answer.
              .requestTimeout(settings.longestTimeout(config.timeout()).plusSeconds(5))
              .initializationTimeout(Duration.ofSeconds(30))
              .toolsChangeConsumer(this::relisted)
              .build();
      try {
        fresh.initialize();
        long listing = listings.incrementAndGet();
        List<McpSchema.Tool> all = new ArrayList<>();
        String cursor = null;
        do {
          McpSchema.ListToolsResult page = fresh.listTools(cursor);
          all.addAll(page.tools());
          cursor = page.nextCursor();
        } while (cursor != null);
        connection = new Connection(fresh, cancellable);
        exited = watch(transport, fresh);
        listed(listing, all);
      } catch (RuntimeException e) {
        fresh.close();
        throw e;
      }
    }
    return connection;
  }

  /**
   * A future completing when a stdio server's process ends (never for HTTP servers); the client is
   * then dropped, to be connected again by the next call or {@link McpServers}' reconnect.
   */
  private CompletableFuture<Void> watch(McpClientTransport transport, McpSyncClient watched) {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    if (transport instanceof StdioClientTransport stdio) {
      Thread.ofVirtual()
          .name("mcp-" + name + "-watch")
          .start(
              () -> {
                try {
                  stdio.awaitForExit();
                } catch (RuntimeException e) {
                  log.debug("watching MCP server {}: {}", name, e.toString());
                }
                log.warn("MCP server {} stopped", name);
                disconnect(watched);
                ended.complete(null);
              });
    }
    return ended;
  }

  private McpClientTransport transport() {
    McpJsonMapper json = McpJsonDefaults.getMapper();
    if (config.url() != null) {
      String base = config.url().resolve("/").toString();
      return HttpClientStreamableHttpTransport.builder(base.substring(0, base.length() - 1))
          .endpoint(config.url().getRawPath())
          .jsonMapper(json)
          .build();
    }
    ServerParameters parameters =
        ServerParameters.builder(config.command()).args(config.args()).env(config.env()).build();
    StdioClientTransport transport = new StdioClientTransport(parameters, json);
    transport.setStdErrorHandler(line -> log.debug("MCP server {}: {}", name, line));
    return transport;
  }

  /** The SDK's new list after the server said {@code notifications/tools/list_changed}. */
  private void relisted(List<McpSchema.Tool> listed) {
    listed(listings.incrementAndGet(), listed);
  }

  /**
   * Puts the list in place unless a newer one is (a change notification during our listing brought
   * it). Either way a list is in place when this returns, so {@link #start} never returns before
   * the tools are known, whichever listing won.
   */
  private void listed(long listing, List<McpSchema.Tool> listed) {
    List<RegisteredTool> registered = listed.stream().map(this::register).toList();
    synchronized (placing) {
      if (listing < inPlace) {
        return;
      }
      inPlace = listing;
      tools = registered;
    }
    log.info(
        "MCP server {} offers {} tools: {}",
        name,
        registered.size(),
        registered.stream().map(RegisteredTool::name).collect(Collectors.joining(", ")));
    listeners.forEach(Runnable::run);
  }

  private RegisteredTool register(McpSchema.Tool tool) {
    String prefixed = prefixed(name, tool.name());
    ToolDefinition definition =
        ToolDefinition.builder()
            .name(prefixed)
            .description(tool.description() == null ? tool.name() : tool.description())
            .inputSchema(
                MAPPER.writeValueAsString(
                    tool.inputSchema() == null ? Map.of("type", "object") : tool.inputSchema()))
            .build();
    McpSchema.ToolAnnotations hints = tool.annotations();
    boolean idempotent =
        hints != null
            && (Boolean.TRUE.equals(hints.idempotentHint())
                || Boolean.TRUE.equals(hints.readOnlyHint()));
    return new RegisteredTool(
        new Callback(definition, tool.name()),
        tool.outputSchema() == null ? null : MAPPER.writeValueAsString(tool.outputSchema()),
        settings.timeout(prefixed, config.timeout()),
        settings.idempotent(prefixed, idempotent),
        "mcp:" + name,
        settings.approvalRequired(prefixed, false));
  }

  /**
   * Calls the tool; an MCP error result or a broken connection is a {@code tool_error}.
   * Interrupted, it cancels the call at the server and stops waiting.
   */
  private String call(String tool, String arguments) {
    McpSchema.CallToolResult result;
    CompletableFuture<McpSchema.CallToolResult> call = new CompletableFuture<>();
    Future<?> caller = null;
    Connection connected = null;
    McpSchema.CallToolRequest request =
        new McpSchema.CallToolRequest(McpJsonDefaults.getMapper(), tool, arguments);
    try {
      connected = client();
      CompletableFuture<Void> ended = exited;
      McpSyncClient client = connected.client();
      caller = calls.submit(() -> answer(call, () -> client.callTool(request)));
      // The answer, or the server's process ending: a dead server never answers.
      CompletableFuture.anyOf(call, ended).get();
      if (!call.isDone()) {
        disconnect(connected.client());
        throw new ToolException(
            ErrorType.tool_error, "MCP server " + name + " stopped during the call", true);
      }
      result = call.join();
    } catch (InterruptedException e) {
      if (connected != null) {
        connected.calls().cancel(request, "the tool call was stopped");
      }
      if (caller != null) {
        caller.cancel(true);
      }
      Thread.currentThread().interrupt();
      throw new ToolException(ErrorType.timeout, tool + " was interrupted");
    } catch (ToolException e) {
      throw e;
    } catch (ExecutionException | RuntimeException e) {
      if (connected != null) {
        disconnect(connected.client());
      }
      Throwable cause =
          e instanceof ExecutionException || e instanceof CompletionException ? e.getCause() : e;
      // A JSON-RPC error is the server's answer; anything else (not reachable, gone, closed,
      // no answer in time) may pass, so an idempotent tool is tried again.
      throw new ToolException(
          ErrorType.tool_error,
          "MCP server " + name + " failed: " + rootMessage(cause),
          !answeredWithAnError(cause));
    } finally {
      if (connected != null) {
        connected.calls().ended(request);
      }
    }
    String text =
        result.content() == null
            ? ""
            : result.content().stream()
                .map(
                    c ->
                        c instanceof McpSchema.TextContent t
                            ? t.text()
                            : "[" + c.type() + " content left out]")
                .collect(Collectors.joining("\n"));
    if (Boolean.TRUE.equals(result.isError())) {
      throw new ToolException(ErrorType.tool_error, text.isBlank() ? tool + " failed" : text);
    }
    if (result.structuredContent() != null) {
      return MAPPER.writeValueAsString(result.structuredContent());
    }
    return MAPPER.createObjectNode().put("text", text).toString();
  }

  private synchronized void disconnect(McpSyncClient which) {
    if (connection != null && connection.client() == which) {
      disconnect();
    }
  }

  private synchronized void disconnect() {
    if (connection != null) {
      McpSyncClient old = connection.client();
      connection = null;
      try {
        old.close();
      } catch (RuntimeException e) {
        log.debug("closing MCP server {}: {}", name, e.toString());
      }
    }
  }

  /** Completes the future with what the call returns or throws. */
  private static <T> void answer(CompletableFuture<T> future, Supplier<T> call) {
    try {
      future.complete(call.get());
    } catch (Throwable t) {
      future.completeExceptionally(t);
    }
  }

  private static boolean answeredWithAnError(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof McpError) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }

  @Override
  public void close() {
    disconnect();
    calls.shutdownNow();
  }

  private final class Callback implements ToolCallback {

    private final ToolDefinition definition;
    private final String tool;

    Callback(ToolDefinition definition, String tool) {
      this.definition = definition;
      this.tool = tool;
    }

    @Override
    public ToolDefinition getToolDefinition() {
      return definition;
    }

    @Override
    public String call(String toolInput) {
      return McpServer.this.call(tool, toolInput);
    }

    /** The server is told nothing of the call it runs for: the same as {@link #call(String)}. */
    @Override
    public String call(String toolInput, @Nullable ToolContext context) {
      return call(toolInput);
    }
  }
}
